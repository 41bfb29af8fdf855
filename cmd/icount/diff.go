package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// defaultConfig is the gate file read when --config is not given and it
// exists in the current directory.
const defaultConfig = "icount.toml"

// baselineDir holds the Profiles --save keeps.
const baselineDir = ".icount"

// gateFlags are the flags of every command that compares: what to gate on
// and how to print the result.
type gateFlags struct {
	failAbove string
	config    string
	format    string
	output    string
	// md shapes the markdown: --top, --full, --full-report.
	md report.DiffOptions
	// reportDir also gets the report in every format of reportFiles.
	reportDir string
	// allowNoVerdict: a comparison with no verdict exits 0, not
	// exitNoVerdict.
	allowNoVerdict bool
	page           pageFlags // --format html's
}

func (g *gateFlags) register(fl *pflag.FlagSet, withOutput bool) {
	fl.StringVar(&g.failAbove, "fail-above", "", "fail when total instructions grow by more than `PCT` percent (0: any growth)")
	fl.BoolVar(&g.allowNoVerdict, "allow-no-verdict", false, "exit 0, not 4, when the runs cannot be compared (the report still says why)")
	fl.StringVar(&g.config, "config", "", "gate file with per-function budgets (default: ./"+defaultConfig+" if it exists)")
	if withOutput {
		fl.StringVar(&g.format, "format", "text", "report format: text, markdown, json or html (a self-contained page with the differential flame graph)")
		fl.StringVarP(&g.output, "output", "o", "", "write the report to `FILE` (default: standard output)")
		fl.IntVar(&g.md.Top, "top", report.DefaultTop, "markdown: list at most `N` changed functions, largest change first")
		fl.BoolVar(&g.md.Full, "full", false, "markdown: list every function, unbounded (for a file; a comment stays under 60,000 characters without it)")
		fl.StringVar(&g.md.FullReport, "full-report", "", "markdown: name `WHERE` the full report is (a URL, a file) where the markdown leaves functions out")
		fl.StringVar(&g.reportDir, "report-dir", "", "also write the report to `DIR` in every format a CI job keeps: report.json, report.md (a comment), report-full.md, report.html")
		g.page.register(fl)
	}
}

// gates loads the gate file and applies --fail-above over its fail_above.
func (g *gateFlags) gates() (*report.Gates, error) {
	var gates *report.Gates
	file := g.config
	if file == "" {
		if _, err := os.Stat(defaultConfig); err == nil {
			file = defaultConfig
		}
	}
	if file != "" {
		var err error
		if gates, err = report.ReadConfig(file); err != nil {
			return nil, &exitError{exitUsage, err}
		}
	}
	if g.failAbove != "" {
		pct := strings.TrimSuffix(strings.TrimSpace(g.failAbove), "%")
		l, err := report.ParseLimit(pct + "%")
		if err != nil {
			return nil, &exitError{exitUsage, fmt.Errorf("--fail-above %q: want a percentage such as 0.5", g.failAbove)}
		}
		if gates == nil {
			gates = &report.Gates{}
		}
		gates.FailAbove = l
	}
	if g.format != "" && !slices.Contains(report.DiffFormats, g.format) && g.format != "md" {
		return nil, &exitError{exitUsage, fmt.Errorf("--format %q: want text, markdown, json or html", g.format)}
	}
	if _, err := g.page.options(); err != nil {
		return nil, &exitError{exitUsage, err}
	}
	if g.format != "" && g.md.Top < 1 { // (run --baseline has no --top of these)
		return nil, &exitError{exitUsage, fmt.Errorf("--top %d: want 1 or more functions", g.md.Top)}
	}
	if g.output != "" {
		if err := atomicfile.Check(g.output); err != nil {
			return nil, &exitError{exitUsage, fmt.Errorf("--output %s: %w", g.output, err)}
		}
	}
	if g.reportDir != "" {
		if err := os.MkdirAll(g.reportDir, 0o755); err != nil {
			return nil, &exitError{exitUsage, fmt.Errorf("--report-dir: %w", err)}
		}
		for _, f := range reportFiles {
			if err := atomicfile.Check(filepath.Join(g.reportDir, f.name)); err != nil {
				return nil, &exitError{exitUsage, fmt.Errorf("--report-dir: %w", err)}
			}
		}
	}
	return gates, nil
}

// reportFiles are the files --report-dir writes: the report in each form
// a CI job keeps.
var reportFiles = []struct {
	name, format string
	full         bool // the markdown unbounded
}{
	{"report.json", "json", false},
	{"report.md", "markdown", false},
	{"report-full.md", "markdown", true},
	{"report.html", "html", false},
}

// render writes the report in format: the markdown unbounded when full,
// an HTML page bounded by --min-share.
func (g *gateFlags) render(w io.Writer, r *report.Report, format string, full bool) error {
	if format == "html" {
		opts, err := g.page.options() // checked by gates
		if err != nil {
			return err
		}
		return report.DiffHTML(w, r, opts)
	}
	o := g.md
	o.Full = full
	return report.WriteDiff(w, r, format, o)
}

// writeReportDir writes the report in each form of reportFiles into
// --report-dir (made by gates), each file whole or not at all.
func (g *gateFlags) writeReportDir(r *report.Report) error {
	for _, f := range reportFiles {
		var b bytes.Buffer
		if err := g.render(&b, r, f.format, f.full); err != nil {
			return &exitError{exitInternal, err}
		}
		path := filepath.Join(g.reportDir, f.name)
		if err := atomicfile.WriteFile(path, b.Bytes()); err != nil {
			status := exitInternal
			if isHostError(err) {
				status = exitIOError
			}
			return &exitError{status, fmt.Errorf("writing the report to %s: %w", path, err)}
		}
	}
	return nil
}

// emit writes the report where --output and --report-dir say and turns
// its verdict into an exit status (see verdictStatus).
func (g *gateFlags) emit(r *report.Report) error {
	var b bytes.Buffer
	if err := g.render(&b, r, g.format, g.md.Full); err != nil {
		return &exitError{exitInternal, err}
	}
	if g.reportDir != "" {
		if err := g.writeReportDir(r); err != nil {
			return err
		}
	}
	if g.output == "" {
		os.Stdout.Write(b.Bytes())
	} else if err := atomicfile.WriteFile(g.output, b.Bytes()); err != nil {
		status := exitInternal
		if isHostError(err) {
			status = exitIOError
		}
		return &exitError{status, fmt.Errorf("writing the report to %s: %w", g.output, err)}
	}
	return g.verdictStatus(r, g.output != "" || g.format != "text")
}

// verdictStatus prints the verdict on stderr (when the report went
// elsewhere or in another format) and returns its exit status.
func (g *gateFlags) verdictStatus(r *report.Report, say bool) error {
	if say {
		fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, r.Verdict.Line)
	}
	if status := g.exitStatus(r); status != 0 {
		return &exitError{status: status}
	}
	return nil
}

// exitStatus is a comparison's exit status: exitRegression for a
// regression, exitNoVerdict when the runs could not be compared (unless
// --allow-no-verdict), else 0.
func (g *gateFlags) exitStatus(r *report.Report) int {
	switch r.Verdict.Kind {
	case report.VerdictRegression:
		return exitRegression
	case report.VerdictNone:
		if !g.allowNoVerdict {
			return exitNoVerdict
		}
	}
	return 0
}

func newDiffCmd() *cobra.Command {
	var g gateFlags
	cmd := &cobra.Command{
		Use:   "diff [flags] BASE HEAD",
		Short: "Compare two saved Profiles (or two directories of them) and apply the gates",
		Long: `Compare two Profiles saved with 'icount run --json' or '--save': the totals and
every function's self (and, when the Profiles have them, inclusive and call)
counts, exactly, largest change first. New and vanished functions are named;
a vanished and a new function of exactly equal cost are called out as a
possible rename.

BASE and HEAD may also be directories of Profiles (as 'icount run --suite
--save NAME' writes under .icount/NAME/): benchmarks are matched by file name.

Gates: --fail-above on the total, and per-function budgets in icount.toml.
A regression exits with status 3; an improvement never fails. When the runs
differ in more than the code (a setting such as the arguments, environment,
arch, versions or clock; an input: what stdin, stdout and stderr were, the
working directory when the program read it, a file it read whose contents
changed; a run that read the host clock or was stopped early) the report
says what and gives no verdict, status 4 (--allow-no-verdict: 0). A
Profile that is not whole (members missing, counts that do not add up) is
refused, status 2.

--format markdown is a pull-request comment, under 60,000 characters
whatever the Profiles hold: the verdict, the totals and the --top changed
functions, largest change first, and a line counting the rest (--full for
every function). --report-dir DIR writes the JSON, the comment and the full
markdown at once.`,
		Example: `  icount diff base.json head.json
  icount diff --fail-above 0.5 --format markdown -o comment.md base.json head.json
  icount diff .icount/main .icount/pr
  icount diff --report-dir report --full-report "$RUN_URL" base.json head.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			gates, err := g.gates()
			if err != nil {
				return err
			}
			pairs, notes, err := loadPairs(args[0], args[1])
			if err != nil {
				return &exitError{exitUsage, err}
			}
			r := report.Compare(report.Side{Label: args[0]}, report.Side{Label: args[1]}, pairs, gates)
			r.Notes = append(r.Notes, notes...)
			return g.emit(r)
		},
	}
	g.register(cmd.Flags(), true)
	return cmd
}

// loadPairs reads two Profiles, or two directories of Profiles matched by
// name.
func loadPairs(base, head string) ([]report.Pair, []string, error) {
	bi, hi, err := both(os.Stat, base, head)
	if err != nil {
		return nil, nil, err
	}
	if bi.IsDir() != hi.IsDir() {
		return nil, nil, fmt.Errorf("%s and %s: compare two Profiles or two directories of them, not one of each", base, head)
	}
	if !bi.IsDir() {
		b, h, err := both(profile.Read, base, head)
		if err != nil {
			return nil, nil, err
		}
		return []report.Pair{{Base: b, Head: h}}, nil, nil
	}
	bs, hs, err := both(readProfileDir, base, head)
	if err != nil {
		return nil, nil, err
	}
	if len(hs) == 0 {
		return nil, nil, fmt.Errorf("%s: no Profiles (*.json)", head)
	}
	var pairs []report.Pair
	for _, name := range sortedKeys(hs) {
		pairs = append(pairs, report.Pair{Name: name, Base: bs[name], Head: hs[name]})
	}
	var notes []string
	for _, name := range sortedKeys(bs) {
		if hs[name] == nil {
			notes = append(notes, fmt.Sprintf("benchmark %s is only in the base", name))
		}
	}
	return pairs, notes, nil
}

// both applies read to base and then to head.
func both[T any](read func(string) (T, error), base, head string) (T, T, error) {
	b, err := read(base)
	if err != nil {
		return b, b, err
	}
	h, err := read(head)
	return b, h, err
}

// readProfileDir reads every NAME.json of a directory.
func readProfileDir(dir string) (map[string]*profile.Profile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]*profile.Profile{}
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		p, err := profile.Read(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[name] = p
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ciFlags are the flags 'icount run' gains for baselines and suites.
type ciFlags struct {
	save     string
	baseline string
	suite    string
	jobs     int
	gate     gateFlags
}

// register adds the flags to run and routes --suite to the suite runner;
// a lone run calls afterRun with its Profile.
func (c *ciFlags) register(cmd *cobra.Command, f *runFlags) {
	fl := cmd.Flags()
	fl.StringVar(&c.save, "save", "", "keep the Profile as .icount/`NAME`.json (a directory of them with --suite)")
	fl.StringVar(&c.baseline, "baseline", "", "compare with the Profile saved as `NAME` and print the diff")
	fl.StringVar(&c.suite, "suite", "", "run every benchmark of the suite `FILE` instead of one BINARY")
	fl.IntVar(&c.jobs, "jobs", defaultJobs(), "run up to `N` benchmarks of a suite at once")
	c.gate.register(fl, false)
	args, runE := cmd.Args, cmd.RunE
	cmd.Args = func(cmd *cobra.Command, a []string) error {
		if c.suite != "" {
			if len(a) > 0 {
				return fmt.Errorf("--suite %s runs the suite's binaries: give no BINARY (%s)", c.suite, a[0])
			}
			return nil
		}
		return args(cmd, a)
	}
	cmd.RunE = func(cmd *cobra.Command, a []string) error {
		for _, n := range []string{c.save, c.baseline} {
			if n != "" && !report.ValidName(n) {
				return &exitError{exitUsage, fmt.Errorf("baseline name %q: use letters, digits, '.', '_' and '-'", n)}
			}
		}
		if c.jobs < 1 {
			return &exitError{exitUsage, fmt.Errorf("--jobs %d: want at least 1", c.jobs)}
		}
		if c.suite != "" {
			return runSuiteCmd(cmd, f, c)
		}
		return runE(cmd, a)
	}
}

// compares says whether the run is kept or compared (--save, --baseline):
// its clock is then pinned by default.
func (c *ciFlags) compares() bool { return c.save != "" || c.baseline != "" }

// afterRun saves and compares a lone run's Profile. It is called once the
// guest has run to its end; verdict is the comparison's exit status (see
// exitStatus), 0 without --baseline.
func (c *ciFlags) afterRun(prof *profile.Profile, quiet bool) (verdict int, err error) {
	if c.baseline != "" {
		gates, err := c.gate.gates()
		if err != nil {
			return 0, err
		}
		file := filepath.Join(baselineDir, c.baseline+".json")
		base, err := profile.Read(file)
		if errors.Is(err, fs.ErrNotExist) {
			return 0, &exitError{exitUsage, fmt.Errorf("no baseline %q: %s does not exist (keep one with --save %s)", c.baseline, file, c.baseline)}
		} else if err != nil {
			return 0, &exitError{exitUsage, err}
		}
		r := report.Compare(report.Side{Label: "baseline " + c.baseline}, report.Side{Label: "this run"},
			[]report.Pair{{Base: base, Head: prof}}, gates)
		printReport(os.Stderr, r, quiet)
		verdict = c.gate.exitStatus(r)
	}
	if c.save != "" {
		if err := os.MkdirAll(baselineDir, 0o755); err != nil {
			return verdict, &exitError{exitInternal, err}
		}
		file := filepath.Join(baselineDir, c.save+".json")
		if err := writeProfile(file, prof); err != nil {
			return verdict, &exitError{exitInternal, fmt.Errorf("%s: %w", file, err)}
		}
		if !quiet {
			fmt.Fprintf(os.Stderr, "%ssaved as baseline %s (%s)\n", report.Prefix, c.save, file)
		}
	}
	return verdict, nil
}

// printReport writes a text diff on stderr, every line under icount's
// prefix; quiet leaves only the verdict of a regression or of none.
func printReport(w io.Writer, r *report.Report, quiet bool) {
	if quiet {
		if r.Verdict.Kind == report.VerdictRegression || r.Verdict.Kind == report.VerdictNone {
			fmt.Fprintf(w, "%s%s\n", report.Prefix, r.Verdict.Line)
		}
		return
	}
	var b bytes.Buffer
	report.DiffText(&b, r)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		switch line {
		case "":
		case "\n":
			io.WriteString(w, strings.TrimSpace(report.Prefix)+"\n")
		default:
			io.WriteString(w, report.Prefix+line)
		}
	}
}
