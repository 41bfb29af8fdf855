package main

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pageFlags are the flags that say what an HTML page embeds.
type pageFlags struct {
	minShare float64 // percent
}

func (f *pageFlags) register(fl *pflag.FlagSet) {
	fl.Float64Var(&f.minShare, "min-share", 100*report.DefaultMinShare,
		"in an HTML page, merge the frames below `PCT` percent of the run's instructions into one \"other\" frame per parent (0: keep them all, up to 30,000)")
}

// options are the page's options: its bound, and its sources read as
// annotate reads them (regular files only, up to maxSource bytes).
func (f *pageFlags) options() (report.HTMLOptions, error) {
	if math.IsNaN(f.minShare) || f.minShare < 0 || f.minShare >= 100 {
		return report.HTMLOptions{}, fmt.Errorf("--min-share %v: want a percentage from 0 to below 100", f.minShare)
	}
	return report.HTMLOptions{
		MinShare: f.minShare / 100,
		Source:   func(path string) ([]byte, error) { return readRegular(path, maxSource) },
	}, nil
}

type reportFlags struct {
	html       string
	speedscope string
	page       pageFlags
}

func newReportCmd() *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report [flags] PROFILE.json",
		Short: "Write a saved run as an HTML page or for speedscope",
		Long: `Write a Profile saved with 'icount run --json' in another form:

--html FILE writes one self-contained HTML page (its script, style and data
inside; it opens from disk with no network and no server): what was run and
its totals, the calling-context tree as an icicle graph (instructions or
block executions; click to zoom, search by name, a tooltip per frame, each
process as a root of its own), a sortable, filterable table of the
functions, each function's source lines with their counts for a run saved
with --lines (the sources read now, and embedded), the instruction mix and
the instructions by object. Frames below --min-share of the run are merged
into one "other" frame per parent, and the page says so: a run of hundreds
of thousands of functions gives a page of a few megabytes.

--speedscope FILE writes speedscope's file format (speedscope.app, or the
speedscope command), a sampled profile per process and one of the block
executions.

For a comparison of two runs as a page, see 'icount diff --format html'.`,
		Example: `  icount run --lines --json prof.json ./bench
  icount report --html prof.html prof.json
  icount report --speedscope prof.speedscope.json prof.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(&f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.html, "html", "", "write the run as a self-contained HTML page to `FILE`")
	fl.StringVar(&f.speedscope, "speedscope", "", "write the run in speedscope's format to `FILE`")
	f.page.register(fl)
	return cmd
}

func runReport(f *reportFlags, path string) error {
	if f.html == "" && f.speedscope == "" {
		return &exitError{exitUsage, errors.New("say what to write: --html FILE, --speedscope FILE or both")}
	}
	opts, err := f.page.options()
	if err != nil {
		return &exitError{exitUsage, err}
	}
	for _, out := range []string{f.html, f.speedscope} {
		if out == "" {
			continue
		}
		if err := atomicfile.Check(out); err != nil {
			return &exitError{exitUsage, fmt.Errorf("%s: %w", out, err)}
		}
	}
	p, err := profile.Read(path)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	var errs []error
	if f.html != "" {
		if err := writeFile(f.html, "HTML page", func(w io.Writer) error { return report.WriteHTML(w, p, opts) }); err != nil {
			errs = append(errs, err)
		}
	}
	if f.speedscope != "" {
		if err := writeFile(f.speedscope, "speedscope profile", func(w io.Writer) error { return report.WriteSpeedscope(w, p) }); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		status := exitInternal
		if isHostError(err) {
			status = exitIOError
		}
		return &exitError{status, err}
	}
	return nil
}
