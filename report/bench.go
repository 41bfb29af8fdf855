package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/icount-dev/icount/profile"
)

// goArch names a guest architecture as Go does.
var goArch = map[string]string{"x86_64": "amd64", "aarch64": "arm64"}

// WriteBench writes the Profile in the Go benchmark format, for
// benchstat: "BenchmarkNAME 1 N instructions M blocks". The units are
// declared exact (a rerun gives the same count) and lower-is-better. The
// name loses any white space, which the format does not allow; "" names
// the run by its binary's base name, unless the run is a Go test binary's
// benchmarks, whose results are then all it writes.
//
// A run of more than one process adds a result per program run (entry of
// Profile.Processes), named as a sub-benchmark with benchstat's keys:
// "BenchmarkNAME/process=I/pid=PID/cmd=NAME", I its index in the
// Profile's processes (0 for the first), NAME its program's base name.
// Each part a dump ended adds "BenchmarkNAME/part=PART 1 N instructions
// M blocks"; each result of a Go benchmark (GoResults) is a line as go
// test writes it, with the guest's CPU count as its GOMAXPROCS suffix:
// "BenchmarkSort-1 100 394202 instructions/op 108075 blocks/op".
func WriteBench(w io.Writer, p *profile.Profile, name string) error {
	if err := benchHeader(w, p, len(GoResults(p)) > 0); err != nil {
		return err
	}
	return benchLines(w, p, name, "")
}

// WriteSuiteBench writes the Profiles of a suite's benchmarks as WriteBench
// does, one header for all: a benchmark's results are named by it
// (BenchmarkNAME), its Go benchmarks' as its sub-benchmarks
// (BenchmarkNAME/BenchmarkSort-1).
func WriteSuiteBench(w io.Writer, names []string, ps []*profile.Profile) error {
	if len(ps) == 0 {
		return nil
	}
	perOp := false
	for _, p := range ps {
		perOp = perOp || len(GoResults(p)) > 0
	}
	if err := benchHeader(w, ps[0], perOp); err != nil {
		return err
	}
	for i, p := range ps {
		if err := benchLines(w, p, names[i], "Benchmark"+benchWord(names[i])+"/"); err != nil {
			return err
		}
	}
	return nil
}

// benchHeader writes the configuration lines and the units' declarations,
// with perOp those of the counts per operation too.
func benchHeader(w io.Writer, p *profile.Profile, perOp bool) error {
	arch := goArch[p.Meta.Arch]
	if arch == "" {
		arch = p.Meta.Arch
	}
	units := "Unit instructions assume=exact better=lower\nUnit blocks assume=exact better=lower\n"
	if perOp {
		units += "Unit instructions/op assume=exact better=lower\nUnit blocks/op assume=exact better=lower\n"
	}
	_, err := fmt.Fprintf(w, "goos: linux\ngoarch: %s\ncpu: %s (emulated by icount %s)\n%s", arch, oneLine(p.Meta.CPUModel), oneLine(p.Meta.IcountVersion), units)
	return err
}

// benchLines writes a Profile's results: the run's (named name), its
// processes', its dumps' and its Go benchmarks' (named with prefix).
func benchLines(w io.Writer, p *profile.Profile, name, prefix string) error {
	results := GoResults(p)
	if name == "" && len(results) > 0 {
		return goBenchLines(w, p, results, prefix)
	}
	if name == "" {
		name = filepath.Base(p.Meta.Binary.Path)
	}
	name = benchWord(name)
	if _, err := fmt.Fprintf(w, "Benchmark%s 1 %d instructions %d blocks\n", name, p.Totals.Instructions, p.Totals.Blocks); err != nil {
		return err
	}
	if procs := p.Processes; len(procs) > 1 {
		for i, pr := range procs {
			if _, err := fmt.Fprintf(w, "Benchmark%s/process=%d/pid=%d/cmd=%s 1 %d instructions %d blocks\n",
				name, i, pr.PID, strings.ReplaceAll(benchWord(processName(pr)), "/", "_"), pr.Totals.Instructions, pr.Totals.Blocks); err != nil {
				return err
			}
		}
	}
	for _, pt := range p.Parts {
		if pt.Iterations > 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "Benchmark%s/part=%s 1 %d instructions %d blocks\n",
			name, strings.ReplaceAll(benchWord(pt.Name), "/", "_"), pt.Totals.Instructions, pt.Totals.Blocks); err != nil {
			return err
		}
	}
	return goBenchLines(w, p, results, prefix)
}

// goBenchLines writes the results of a Profile's Go benchmarks.
func goBenchLines(w io.Writer, p *profile.Profile, results []GoResult, prefix string) error {
	for _, r := range results {
		if _, err := fmt.Fprintf(w, "%s%s-%d %d %s instructions/op %s blocks/op\n", prefix, benchWord(r.Name), max(p.Meta.CPUs, 1),
			r.Iterations, r.Instructions.benchValue(), r.Blocks.benchValue()); err != nil {
			return err
		}
	}
	return nil
}

// benchWord is s without white space, which a benchmark's name may not
// hold.
func benchWord(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return '_'
		}
		return r
	}, s)
}
