package report

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// FuzzParseConfig: no gate file makes the parser panic, every error names
// the file, and every accepted limit is one that parses again to itself.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("fail_above = \"1%\"\nignore = [\"_dl_*\"]\n[budget]\nmain = \"+2%\"\nhash = 1000\nlookup = { self = \"0\", inclusive = \"+5%\" }\n"))
	f.Add([]byte("[budget]\nmain = {}\n"))
	f.Add([]byte("fail_above = -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseConfig("fuzz.toml", data)
		if err != nil {
			namesFile(t, err, "fuzz.toml")
			return
		}
		check := func(l *Limit) {
			if l == nil {
				return
			}
			back, err := ParseLimit(l.String())
			if err != nil || back.String() != l.String() {
				t.Fatalf("limit %q does not parse back: %v", l.String(), err)
			}
			if !l.Allows(5, 5) || !l.Allows(5, 4) {
				t.Fatalf("limit %q fails a count that did not grow", l.String())
			}
		}
		check(g.FailAbove)
		for _, b := range g.Budgets {
			if b.Self == nil && b.Inclusive == nil {
				t.Fatal("accepted an empty budget")
			}
			check(b.Self)
			check(b.Inclusive)
		}
	})
}

// FuzzParseSuite: no suite file makes the parser panic, every error names
// the file, and every accepted suite has unique, file-safe names and a
// binary for each member.
func FuzzParseSuite(f *testing.F) {
	f.Add([]byte("[[bench]]\nname = \"crunch\"\nbinary = \"build/crunch\"\nargs = [\"-n\", \"3\"]\nstdin = \"in.txt\"\nenv = [\"A=1\"]\n"))
	f.Add([]byte("[[bench]]\nname = \"a\"\nbinary = \"x\"\n[[bench]]\nname = \"a\"\nbinary = \"y\"\n"))
	f.Add([]byte("[[bench]]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSuite("fuzz.toml", data)
		if err != nil {
			namesFile(t, err, "fuzz.toml")
			return
		}
		seen := map[string]bool{}
		for _, b := range s.Benches {
			if !ValidName(b.Name) || seen[b.Name] || b.Binary == "" || strings.ContainsAny(b.Name, "/\x00") {
				t.Fatalf("accepted member %+v", b)
			}
			seen[b.Name] = true
		}
	})
}

// FuzzProfile: no saved Profile makes the reader panic, every error
// names the file, and every Profile it accepts can be diffed against
// itself and written in every format (the HTML page and the diff's too)
// without a panic.
func FuzzProfile(f *testing.F) {
	f.Add([]byte(`{"schema":"icount/3","meta":{"arch":"x86_64"},"totals":{"instructions":5},"functions":[{"name":"main","self":5,"inclusive":5}],` +
		`"call_tree":[{"parent":-1,"function":"_start","self":1,"inclusive":5,"calls":1},{"parent":0,"function":"main","self":4,"inclusive":4,"calls":1}],` +
		`"hot_blocks":[{"addr":4096,"size":4,"executions":1,"instructions":1}],"exit":{"status":0,"complete":true}}`))
	f.Add([]byte(`{"schema":"icount/3","call_tree":[{"parent":5}]}`))
	f.Add([]byte(`{"schema":"icount/3","blocks":[{"addr":1,"size":2,"executions":3,"cuts":[{"index":-1,"executions":9}]}],"lines":[{"function":"f","self":1}]}`))
	f.Add([]byte(`{"schema":"icount/0"}`))
	if b, err := json.Marshal(tree()); err == nil {
		f.Add(b)
	}
	if b, err := json.Marshal(depth()); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := profile.Parse("fuzz.json", data)
		if err != nil {
			namesFile(t, err, "fuzz.json")
			return
		}
		r := Compare(Side{Label: "a"}, Side{Label: "b"}, []Pair{{Base: p, Head: p}}, nil)
		for _, format := range DiffFormats {
			if err := WriteDiff(io.Discard, r, format, DiffOptions{}); err != nil {
				t.Fatalf("diff as %s: %v", format, err)
			}
		}
		if err := WriteDiff(io.Discard, r, "markdown", DiffOptions{Full: true}); err != nil {
			t.Fatalf("diff as full markdown: %v", err)
		}
		var md strings.Builder
		if DiffMarkdown(&md, r, DiffOptions{}); md.Len() >= MarkdownLimit {
			t.Fatalf("markdown of %d bytes, over the limit %d", md.Len(), MarkdownLimit)
		}
		Summary(io.Discard, p, 5)
		MixSummary(io.Discard, p)
		WriteCallgrind(io.Discard, p)
		for i := range p.Processes {
			if err := WriteCallgrindPart(io.Discard, p, i); err != nil {
				t.Fatalf("callgrind part %d: %v", i+1, err)
			}
		}
		WritePprof(io.Discard, p)
		WriteBench(io.Discard, p, "fuzz")
		for _, share := range []float64{0, DefaultMinShare, 0.5} {
			if err := WriteHTML(io.Discard, p, HTMLOptions{MinShare: share}); err != nil {
				t.Fatalf("HTML page at share %v: %v", share, err)
			}
		}
		if err := WriteSpeedscope(io.Discard, p); err != nil {
			t.Fatalf("speedscope: %v", err)
		}
	})
}

// namesFile fails a fuzz input whose error does not start with the name
// of the file it is about.
func namesFile(t *testing.T, err error, name string) {
	if !strings.HasPrefix(err.Error(), name+": ") {
		t.Fatalf("error does not name the file: %v", err)
	}
}
