package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// huge is a Profile of n functions with names of about 300 bytes, each
// costing its index plus delta.
func huge(sha string, n int, delta uint64) *profile.Profile {
	var fns []profile.FunctionCount
	for i := range n {
		name := fmt.Sprintf("ns::Template<%s>::method_%d", strings.Repeat("std::vector<int>, ", 15), i)
		fns = append(fns, profile.FunctionCount{Name: name, Module: "bench", Self: uint64(i) + delta, Inclusive: uint64(i) + delta, Calls: delta})
	}
	return newProfile(sha, fns...)
}

// TestMarkdownBounded: however many functions, benchmarks and notes a
// Report holds, its markdown stays under MarkdownLimit, lists at most Top
// changed functions, and says how many more changed and where the full
// report is; the full markdown lists them all.
func TestMarkdownBounded(t *testing.T) {
	gates := &Gates{FailAbove: mustLimit(t, "0")}
	single := Compare(Side{Label: "base"}, Side{Label: "head"}, []Pair{{Base: huge(shaA, 5000, 0), Head: huge(shaB, 5000, 3)}}, gates)
	single.Notes = make([]string, 50)
	for i := range single.Notes {
		single.Notes[i] = strings.Repeat("a long note <with> markup_ ", 100)
	}
	var pairs []Pair
	for i := range 300 {
		pairs = append(pairs, Pair{Name: fmt.Sprintf("bench-%03d-%s", i, strings.Repeat("x", 200)), Base: huge(shaA, 200, 0), Head: huge(shaB, 200, uint64(i%3))})
	}
	suite := Compare(Side{Label: "base"}, Side{Label: "head"}, pairs, gates)
	for name, r := range map[string]*Report{"single": single, "suite": suite} {
		for _, top := range []int{0, 5, 100_000} {
			var b bytes.Buffer
			if err := DiffMarkdown(&b, r, DiffOptions{Top: top, FullReport: "the artifact icount_report of https://example.com/o/r_x/runs/1"}); err != nil {
				t.Fatal(err)
			}
			s := b.String()
			if b.Len() >= MarkdownLimit {
				t.Errorf("%s, top %d: %d bytes, want under %d", name, top, b.Len(), MarkdownLimit)
			}
			if !strings.Contains(s, " more functions changed") || !strings.Contains(s, `the full report is at the artifact icount\_report of <https://example.com/o/r_x/runs/1>.`) {
				t.Errorf("%s, top %d: no line counting what was left out and where the full report is:\n%s", name, top, s[max(0, len(s)-2000):])
			}
			rows := strings.Count(s, "| `") // function rows (and a suite's benchmark rows)
			if top == 5 && name == "single" && rows != 5 {
				t.Errorf("single, top 5: %d function rows", rows)
			}
		}
	}
	var full bytes.Buffer
	if err := DiffMarkdown(&full, single, DiffOptions{Full: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(full.String(), "::method_"); n < 5000 {
		t.Errorf("--full lists %d functions, want every one (5000 and the changed ones again)", n)
	}
}

// TestMarkdownCompactTable: the function table has a column for the self
// delta, one for the inclusive delta when the Profiles have it, and one
// for calls only when a listed function's calls changed; unchanged
// functions are not listed.
func TestMarkdownCompactTable(t *testing.T) {
	b := newProfile(shaA, profile.FunctionCount{Name: "main", Self: 500, Inclusive: 10_500, Calls: 1},
		profile.FunctionCount{Name: "work", Self: 10_000, Inclusive: 10_000, Calls: 100},
		profile.FunctionCount{Name: "idle", Self: 7, Inclusive: 7, Calls: 1})
	h := newProfile(shaB, profile.FunctionCount{Name: "main", Self: 500, Inclusive: 11_500, Calls: 1},
		profile.FunctionCount{Name: "work", Self: 11_000, Inclusive: 11_000, Calls: 100},
		profile.FunctionCount{Name: "idle", Self: 7, Inclusive: 7, Calls: 1})
	var out bytes.Buffer
	DiffMarkdown(&out, Compare(Side{Label: "a"}, Side{Label: "b"}, []Pair{{Base: b, Head: h}}, nil), DiffOptions{})
	s := out.String()
	for _, want := range []string{"| function | Δ self | Δ inclusive |\n", "| `work` | +1,000 (+10.00%) | +1,000 (+10.00%) |\n",
		"| `main` | 0 | +1,000 (+9.52%) |\n", "2 functions changed, 1 unchanged."} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "idle") || strings.Contains(s, "| calls") {
		t.Errorf("an unchanged function or a calls column:\n%s", s)
	}
	h.Functions[1].Calls = 110
	out.Reset()
	DiffMarkdown(&out, Compare(Side{Label: "a"}, Side{Label: "b"}, []Pair{{Base: b, Head: h}}, nil), DiffOptions{})
	if s := out.String(); !strings.Contains(s, "| function | Δ self | Δ inclusive | calls |\n") || !strings.Contains(s, "| 100 → 110 |\n") {
		t.Errorf("calls changed, no calls column:\n%s", s)
	}
}

// TestSuiteVerdictWording: a suite whose counts grew says "within the
// gates" only when a gate is set.
func TestSuiteVerdictWording(t *testing.T) {
	b, h := newProfile(shaA, fn("main", 100)), newProfile(shaB, fn("main", 120))
	pairs := []Pair{{Name: "one", Base: b, Head: h}, {Name: "two", Base: b, Head: b}}
	for _, c := range []struct {
		gates *Gates
		want  string
	}{
		{nil, "counts grew; no gate is set (2 benchmarks; "},
		{&Gates{Ignore: []string{"_dl_*"}}, "counts grew; no gate is set (2 benchmarks; "},
		{&Gates{FailAbove: mustLimit(t, "50%")}, "counts grew, within the gates (2 benchmarks; "},
		{&Gates{Budgets: map[string]Budget{"main": {Self: mustLimit(t, "+50")}}}, "counts grew, within the gates (2 benchmarks; "},
	} {
		r := Compare(Side{Label: "a"}, Side{Label: "b"}, pairs, c.gates)
		if !strings.HasPrefix(r.Verdict.Line, c.want) {
			t.Errorf("gates %+v: verdict %q, want it to start %q", c.gates, r.Verdict.Line, c.want)
		}
		var md bytes.Buffer
		DiffMarkdown(&md, r, DiffOptions{})
		if !strings.Contains(md.String(), c.want) {
			t.Errorf("gates %+v: the markdown does not say %q:\n%s", c.gates, c.want, md.String())
		}
	}
}
