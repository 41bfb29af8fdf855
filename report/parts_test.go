package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestGoResults derives a Go benchmark's counts per operation from its
// runs: a later run against the b.N = 1 probe, (C − C1) / (N − N1),
// exact as a fraction; a benchmark run once, C / N; of a calibration, its
// last run alone.
func TestGoResults(t *testing.T) {
	p := withParts(newProfile(shaA, fn("main", 1_000_000)),
		dumpPart("setup", 10),
		benchRun("BenchmarkSort", 1, 1300), benchRun("BenchmarkSort", 100, 100300), // 1,000 an op
		benchRun("BenchmarkHash", 1, 77), benchRun("BenchmarkHash", 4, 100), // 23/3 an op
		benchRun("BenchmarkLoop", 50, 5025), // run once: 100.5 an op
		// Calibrated to a time, twice (-count=2), each round with its
		// probe: the last run of each calibration is a result, against
		// its round's probe.
		benchRun("BenchmarkTime", 1, 20), benchRun("BenchmarkTime", 100, 1010), benchRun("BenchmarkTime", 10000, 100010),
		benchRun("BenchmarkTime", 1, 30), benchRun("BenchmarkTime", 100, 1020), benchRun("BenchmarkTime", 10000, 100020))
	var got []string
	for _, r := range GoResults(p) {
		got = append(got, r.Name+" "+r.Instructions.benchValue()+" "+r.Instructions.String())
	}
	want := []string{"BenchmarkSort 1000 1,000", "BenchmarkHash 7.666666666666667 7.67", "BenchmarkLoop 100.5 100.50",
		"BenchmarkTime 10 10", "BenchmarkTime 10 10"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("results %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := WriteBench(&b, p, ""); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"Unit instructions/op assume=exact better=lower\n",
		"BenchmarkSort-1 100 1000 instructions/op 250 blocks/op\n",
		"BenchmarkLoop-1 50 100.5 instructions/op 25.12 blocks/op\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("WriteBench wrote:\n%s\nwant a line %q", b.String(), line)
		}
	}
	if regexp.MustCompile(`(?m)^Benchmark\S+ \d+ \d+ instructions `).MatchString(b.String()) {
		t.Errorf("a Go test binary's results unnamed: want its benchmarks alone:\n%s", b.String())
	}
	b.Reset()
	if err := WriteBench(&b, p, "Run"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"BenchmarkRun 1 1000000 instructions 250000 blocks\n", "BenchmarkRun/part=setup 1 10 instructions 2 blocks\n", "BenchmarkSort-1 100 1000 instructions/op"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("WriteBench named wrote:\n%s\nwant a line %q", b.String(), line)
		}
	}
}

// TestHTMLParts: a run's page lists its parts as the summary does, and a
// comparison's the parts that changed.
func TestHTMLParts(t *testing.T) {
	base := withParts(newProfile(shaA, fn("main", 1000)), dumpPart("sort", 400), dumpPart("hash", 50))
	head := withParts(newProfile(shaB, fn("main", 1000)), dumpPart("sort", 400), dumpPart("hash", 60))
	d := pageOf(t, func(b *bytes.Buffer) error { return WriteHTML(b, head, HTMLOptions{}) })
	if got := fmt.Sprint(d.Views[0].Run.Parts); got != "[[part instructions blocks] [sort 400 100] [hash 60 15]]" {
		t.Errorf("the run's parts: %s", got)
	}
	r := Compare(Side{Label: "base"}, Side{Label: "head"}, []Pair{{Base: base, Head: head}}, nil)
	d = pageOf(t, func(b *bytes.Buffer) error { return DiffHTML(b, r, HTMLOptions{}) })
	c := d.Views[0].Comparison
	if got := fmt.Sprint(c.Parts); got != "[[part base head delta ] [hash 50 60 +10 +20.00%]]" || c.PartsUnchanged != 1 {
		t.Errorf("the comparison's parts: %s, %d unchanged", got, c.PartsUnchanged)
	}
}
