package main

import (
	"fmt"
	"io"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/pflag"
)

// outputFlags are icount run's attribution outputs: per-line costs, the
// instruction mix in the summary, and the pprof, callgrind and Go benchmark
// formats, each written to the file its flag names.
type outputFlags struct {
	lines     bool
	mix       bool
	pprof     string
	callgrind string
	bench     string
	benchOut  string
}

func (o *outputFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&o.lines, "lines", false, "add per-line costs and every block that ran to the --json Profile (for icount annotate)")
	fl.BoolVar(&o.mix, "mix", false, "add the instruction mix (loads, stores, branches, ...) to the summary")
	fl.StringVar(&o.pprof, "pprof", "", "write a gzipped pprof profile to `FILE` (go tool pprof)")
	fl.StringVar(&o.callgrind, "callgrind", "", "write a callgrind profile to `FILE` (callgrind_annotate, KCachegrind); of several processes, a part each, and each part alone as FILE.1, FILE.2, ... for callgrind_annotate; each part of the run (a dump, a Go benchmark run) alone as FILE.1, FILE.2, ... (FILE.PID.1, ... of several processes)")
	fl.StringVar(&o.bench, "bench", "", "write the counts as Go benchmark `NAME` (BenchmarkNAME) to --bench-out, for benchstat")
	fl.StringVar(&o.benchOut, "bench-out", "", "write the counts as Go benchmark results to `FILE`, for benchstat: the run's (named by --bench, else by the binary), each part's, and a Go test binary's benchmarks per operation")
}

// check rejects inconsistent output flags before the run.
func (o *outputFlags) check() error {
	switch {
	case o.bench != "" && o.benchOut == "":
		return fmt.Errorf("--bench %s: say where to write it with --bench-out FILE (stdout is the program's)", o.bench)
	}
	return nil
}

// needLines says whether the run must compute per-line costs: for --lines,
// and for the formats that give costs by source line. Only --lines counts
// each context instruction by instruction, for the formats at full depth
// (count.Options.Contexts).
func (o *outputFlags) needLines() bool {
	return o.lines || o.pprof != "" || o.callgrind != ""
}

// forJSON is the Profile as --json writes it: per-line costs and blocks
// only with --lines, even when another format needed them.
func (o *outputFlags) forJSON(p *profile.Profile) *profile.Profile {
	if o.lines {
		return p
	}
	q := *p
	q.Lines, q.Blocks, q.Positions = nil, nil, nil
	return &q
}

// write writes every format asked for, each whole or not at all; one
// that fails does not keep the others from being written. It returns the
// failures, one for each file.
func (o *outputFlags) write(p *profile.Profile) []error {
	var errs []error
	put := func(path, what string, format func(io.Writer) error) {
		if err := writeFile(path, what, format); err != nil {
			errs = append(errs, err)
		}
	}
	if o.pprof != "" {
		put(o.pprof, "pprof profile", func(w io.Writer) error { return report.WritePprof(w, p) })
	}
	if o.callgrind != "" {
		put(o.callgrind, "callgrind profile", func(w io.Writer) error { return report.WriteCallgrind(w, p) })
		if n := len(p.Processes); n > 1 {
			// callgrind_annotate reads a file's first part only.
			for i := range n {
				part := fmt.Sprintf("%s.%d", o.callgrind, i+1)
				put(part, "callgrind profile", func(w io.Writer) error { return report.WriteCallgrindPart(w, p, i) })
			}
		}
		// Each part of the run alone, as callgrind writes each dump.
		for i, pt := range p.Parts {
			put(runPartFile(o.callgrind, p, pt, i), "callgrind profile", func(w io.Writer) error { return report.WriteCallgrindRunPart(w, p, i) })
		}
	}
	if o.benchOut != "" {
		put(o.benchOut, "benchmark result", func(w io.Writer) error { return report.WriteBench(w, p, o.bench) })
	}
	return errs
}

// runPartFile names the callgrind file of part i of the run as callgrind
// names its dumps: FILE.N (N its number among its process's parts); of a
// run of several processes, whose FILE.N are the processes, FILE.PID.N.
func runPartFile(file string, p *profile.Profile, pt profile.Part, i int) string {
	if len(p.Processes) > 1 {
		return fmt.Sprintf("%s.%d.%d", file, p.Processes[pt.Process].PID, report.PartNumber(p, i))
	}
	return fmt.Sprintf("%s.%d", file, report.PartNumber(p, i))
}

// summary adds to the summary what the output flags ask for.
func (o *outputFlags) summary(w io.Writer, p *profile.Profile) {
	if o.mix {
		report.MixSummary(w, p)
	}
}

// writeProfile writes the Profile as JSON to path.
func writeProfile(path string, p *profile.Profile) error {
	return writeFile(path, "profile", func(w io.Writer) error { return profile.Encode(w, p) })
}

// writeFile writes what a format produces to path, whole or not at all:
// a failure leaves the file as it was.
func writeFile(path, what string, format func(io.Writer) error) error {
	if err := atomicfile.Write(path, format); err != nil {
		return fmt.Errorf("writing the %s: %w", what, err)
	}
	return nil
}
