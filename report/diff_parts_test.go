package report

import (
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// withParts adds parts to a Profile of newProfile's: dumps (name,
// instructions) and Go benchmark runs (name, iterations, instructions).
func withParts(p *profile.Profile, parts ...profile.Part) *profile.Profile {
	p.Parts = parts
	return p
}

func dumpPart(name string, insns uint64) profile.Part {
	return profile.Part{Name: name, Totals: profile.Totals{Instructions: insns, Blocks: insns / 4}}
}

func benchRun(name string, n, insns uint64) profile.Part {
	return profile.Part{Name: name, Iterations: n, Totals: profile.Totals{Instructions: insns, Blocks: insns / 4}}
}

// TestDiffParts matches parts by name (a repeated name by its order), Go
// benchmarks by their counts per operation whatever b.N each side ran,
// and applies a budget that names a part exactly.
func TestDiffParts(t *testing.T) {
	base := withParts(newProfile(shaA, fn("main", 1000), fn("work", 9000)),
		dumpPart("sort", 4000), dumpPart("hash", 500), dumpPart("hash", 700), dumpPart("gone", 10),
		benchRun("BenchmarkSort", 1, 1300), benchRun("BenchmarkSort", 100, 100300)) // 1,000 an op
	head := withParts(newProfile(shaB, fn("main", 1000), fn("work", 9100)),
		dumpPart("sort", 4000), dumpPart("hash", 500), dumpPart("hash", 800), dumpPart("fresh", 5),
		benchRun("BenchmarkSort", 1, 1320), benchRun("BenchmarkSort", 200, 202310)) // 1,010 an op
	g := &Gates{Budgets: map[string]Budget{
		"hash#2":        {Self: mustLimit(t, "+100")},
		"sort":          {Self: mustLimit(t, "0")},
		"BenchmarkSort": {Self: mustLimit(t, "+0.5%")},
	}}
	r := Compare(Side{Label: "base"}, Side{Label: "head"}, []Pair{{Base: base, Head: head}}, g)
	c := r.Comparisons[0]
	got := map[string]string{}
	for _, pt := range c.Parts {
		got[pt.Name] = pt.Status + " " + pt.Instructions.Base.benchValue() + " " + pt.Instructions.Head.benchValue()
	}
	want := map[string]string{
		"sort": "unchanged 4000 4000", "hash": "unchanged 500 500", "hash#2": "changed 700 800",
		"fresh": "new 0 5", "gone": "vanished 10 0", "BenchmarkSort": "changed 1000 1010",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("part %s: %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("parts %v, want %v", got, want)
	}
	// hash#2 grew by 100, its budget's limit: allowed. BenchmarkSort grew
	// by 1 % per op, over its 0.5 %.
	if len(c.Failures) != 1 || !strings.HasPrefix(c.Failures[0], "part BenchmarkSort: instructions +10 (+1.00%) is over its budget +0.5%") {
		t.Errorf("failures %q, want BenchmarkSort's alone", c.Failures)
	}
	if c.Verdict.Kind != VerdictRegression {
		t.Errorf("verdict %v, want a regression", c.Verdict)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "matches no function") {
			t.Errorf("a budget naming a part is reported unused: %s", n)
		}
	}
	var text strings.Builder
	if err := DiffText(&text, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"hash#2", "BenchmarkSort (per op)", "2 parts unchanged"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the text report has no %q:\n%s", line, text.String())
		}
	}
}
