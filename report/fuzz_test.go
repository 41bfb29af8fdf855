package report

import (
	"strings"
	"testing"
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
			if !strings.HasPrefix(err.Error(), "fuzz.toml: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
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
			if !strings.HasPrefix(err.Error(), "fuzz.toml: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
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
