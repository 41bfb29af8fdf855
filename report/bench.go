package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/icount-dev/icount/profile"
)

// goArch names a guest architecture as Go does.
var goArch = map[string]string{"x86_64": "amd64", "aarch64": "arm64"}

// WriteBench writes the Profile as one result in the Go benchmark format, for
// benchstat: "BenchmarkNAME 1 N instructions M blocks". The units are
// declared exact (a rerun gives the same count) and lower-is-better. The
// name loses any white space, which the format does not allow.
//
// A run of more than one process adds a result per program run (entry of
// Profile.Processes), named as a sub-benchmark with benchstat's keys:
// "BenchmarkNAME/process=I/pid=PID/cmd=NAME", I its index in the
// Profile's processes (0 for the first), NAME its program's base name.
func WriteBench(w io.Writer, p *profile.Profile, name string) error {
	name = benchWord(name)
	arch := goArch[p.Meta.Arch]
	if arch == "" {
		arch = p.Meta.Arch
	}
	_, err := fmt.Fprintf(w, `goos: linux
goarch: %s
cpu: %s (emulated by icount %s)
Unit instructions assume=exact better=lower
Unit blocks assume=exact better=lower
Benchmark%s 1 %d instructions %d blocks
`, arch, oneLine(p.Meta.CPUModel), oneLine(p.Meta.IcountVersion), name, p.Totals.Instructions, p.Totals.Blocks)
	if err != nil {
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
