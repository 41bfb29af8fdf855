package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

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
	fl.StringVar(&o.callgrind, "callgrind", "", "write a callgrind profile to `FILE` (callgrind_annotate, KCachegrind); of several processes, a part each, and each part alone as FILE.1, FILE.2, ... for callgrind_annotate")
	fl.StringVar(&o.bench, "bench", "", "write the counts as Go benchmark `NAME` (BenchmarkNAME) to --bench-out, for benchstat")
	fl.StringVar(&o.benchOut, "bench-out", "", "the `FILE` --bench writes")
}

// check rejects inconsistent output flags before the run.
func (o *outputFlags) check() error {
	switch {
	case o.bench != "" && o.benchOut == "":
		return fmt.Errorf("--bench %s: say where to write it with --bench-out FILE (stdout is the program's)", o.bench)
	case o.bench == "" && o.benchOut != "":
		return fmt.Errorf("--bench-out %s: name the benchmark with --bench NAME", o.benchOut)
	}
	return nil
}

// needLines says whether the run must compute per-line costs: for --lines,
// and for the formats that give costs by source line.
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
	q.Lines, q.Blocks = nil, nil
	return &q
}

// write writes every format asked for.
func (o *outputFlags) write(p *profile.Profile) error {
	if o.pprof != "" {
		if err := writeFile(o.pprof, "pprof profile", func(w io.Writer) error { return report.WritePprof(w, p) }); err != nil {
			return err
		}
	}
	if o.callgrind != "" {
		if err := writeFile(o.callgrind, "callgrind profile", func(w io.Writer) error { return report.WriteCallgrind(w, p) }); err != nil {
			return err
		}
		if n := len(p.Processes); n > 1 {
			// callgrind_annotate reads a file's first part only.
			for i := range n {
				part := fmt.Sprintf("%s.%d", o.callgrind, i+1)
				if err := writeFile(part, "callgrind profile", func(w io.Writer) error { return report.WriteCallgrindPart(w, p, i) }); err != nil {
					return err
				}
			}
		}
	}
	if o.bench != "" {
		return writeFile(o.benchOut, "benchmark result", func(w io.Writer) error { return report.WriteBench(w, p, o.bench) })
	}
	return nil
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

// writeFile writes what a format produces to path, whole or not at all.
func writeFile(path, what string, format func(io.Writer) error) error {
	var b bytes.Buffer
	if err := format(&b); err != nil {
		return fmt.Errorf("writing the %s: %w", what, err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the %s: %w", what, err)
	}
	return nil
}
