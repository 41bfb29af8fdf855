package main

// Running several benchmarks: each is a separate 'icount run' subprocess
// of this same executable, up to --jobs at once. A subprocess, not a
// goroutine: the guest's standard streams are the host process's own
// descriptors 0, 1 and 2 (kernel/fd.go) and its relative paths are the
// host's working directory, so two guests in one process would share
// their stdin, mix their output and could not run in different
// directories. A subprocess also keeps a crashing guest or emulator from
// taking the others down.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func defaultJobs() int { return runtime.NumCPU() }

// member is one benchmark to run: everything relative to dir.
type member struct {
	name   string // for messages; the benchmark's name
	side   string // "base", "head" or "" (for messages)
	dir    string // the guest's working directory
	binary string // relative to dir, as written
	args   []string
	stdin  string   // relative to dir; "" for an empty stdin
	env    []string // added to the run's --env
}

// notOwnFlags are the flags of run (and ab) that are not passed on to
// the 'icount run' of each member: they say what to do with the result.
var notOwnFlags = map[string]bool{
	"json": true, "quiet": true, "top": true, "save": true, "baseline": true, "suite": true,
	"jobs": true, "fail-above": true, "config": true, "format": true, "output": true,
	"base": true, "build": true, "bin": true, "host-clock": true, "help": true,
	"pprof": true, "callgrind": true, "bench": true, "bench-out": true,
	"full": true, "full-report": true, "report-dir": true,
}

// oneFileFlags write one run's output to a file: a suite, whose members
// would all write the same file, refuses them.
var oneFileFlags = []string{"json", "pprof", "callgrind", "bench"}

// passThrough rebuilds the run flags the user set, so every member runs
// under the same settings: any flag of run (those added later included)
// but the ones that say what to do with the result.
func passThrough(fl *pflag.FlagSet) []string {
	var out []string
	fl.Visit(func(f *pflag.Flag) {
		if notOwnFlags[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// exitBenchmarkFailed is a suite's status when a benchmark's program
// failed (exited other than 0, or a signal killed it) and icount stopped
// or refused none: the program's own status would read as one of
// icount's (3, a regression; 127, not found), so a suite never passes it on.
const exitBenchmarkFailed = 5

// ran is one member's run: how it ended and its Profile, complete or not
// (nil when icount did not start it).
type ran struct {
	out  report.Outcome
	prof *profile.Profile
}

// runMembers runs each member as 'icount run -q --json' with flags, up to
// jobs at once, and returns how each ended, in order: every member runs
// whatever the others do. Only an interrupt (ctx) or a failure to start
// any run at all is an error. tmp holds the Profiles while they are read.
func runMembers(ctx context.Context, ms []member, flags []string, jobs int, tmp string) ([]ran, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, &exitError{exitInternal, err}
	}
	runs := make([]ran, len(ms))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			if ctx.Err() == nil {
				runs[i] = runMember(ctx, self, filepath.Join(tmp, strconv.Itoa(i)), m, flags)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return runs, nil
}

// maxStderr bounds what is read back of a member's standard error (the
// program's and icount's): its end, for the failure's message.
const maxStderr = 64 << 10

// runMember runs one member, writing its Profile to base.json and its
// standard error to base.stderr: a file, not a pipe, so that a run that
// outlives a killed icount does not die of SIGPIPE before it cleans up.
func runMember(ctx context.Context, self, base string, m member, flags []string) ran {
	jsonPath := base + ".json"
	o := report.Outcome{Name: m.name, Side: m.side}
	argv := append([]string{"run", "-q", "--json", jsonPath}, flags...)
	for _, kv := range m.env {
		argv = append(argv, "--env="+kv)
	}
	// A path relative to the member's directory, never a name for run
	// to look for in PATH.
	bin := m.binary
	if !strings.Contains(bin, "/") {
		bin = "./" + bin
	}
	argv = append(argv, "--", bin)
	argv = append(argv, m.args...)
	cmd := commandContext(ctx, self, argv...)
	// icount run stops its guest and cleans up on SIGTERM.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	cmd.Dir = m.dir
	stderr, err := os.Create(base + ".stderr")
	if err != nil {
		o.Class, o.Status, o.Message = report.OutcomeError, exitInternal, err.Error()
		return ran{out: o}
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = nil, stderr // the guest's stdout is not the report's
	if m.stdin != "" {
		f, err := os.Open(inDir(m.dir, m.stdin))
		if err != nil {
			o.Class, o.Status, o.Message = report.OutcomeRefused, exitUsage, fmt.Sprintf("stdin: %v", err)
			return ran{out: o}
		}
		defer f.Close()
		cmd.Stdin = f
	}
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		o.Status = ee.ExitCode()
	case errors.As(err, &ee):
		o.Class, o.Status, o.Message = report.OutcomeError, exitInternal, fmt.Sprintf("icount run was killed: %v", ee)
		return ran{out: o}
	case errors.Is(err, syscall.E2BIG):
		o.Class, o.Status = report.OutcomeRefused, exitCannotRun
		o.Message = "the arguments are over Linux's limits (128 KiB for one, a quarter of the stack limit for all), which the program would meet too"
		return ran{out: o}
	default:
		o.Class, o.Status, o.Message = report.OutcomeError, exitInternal, fmt.Sprintf("starting icount run: %v", err)
		return ran{out: o}
	}
	tail := lastLines(fileTail(stderr, maxStderr), 5)
	p, _ := profile.Read(jsonPath)
	switch {
	case p == nil && (o.Status == 0 || o.Status == exitInternal):
		o.Class, o.Status, o.Message = report.OutcomeError, exitInternal, tail
	case p == nil:
		o.Class, o.Message = report.OutcomeRefused, tail
	case !p.Exit.Complete:
		o.Class, o.Reason, o.Message = report.OutcomeStopped, string(p.Exit.Reason), firstOf(p.Exit.Message, tail)
	case p.Exit.Signal != "":
		o.Class, o.Signal, o.Message = report.OutcomeSignal, p.Exit.Signal, firstOf(p.Exit.Message, tail)
	case p.Exit.Status != 0:
		o.Class, o.Message = report.OutcomeExit, tail
	case o.Status != 0:
		o.Class, o.Message = report.OutcomeError, tail
	default:
		o.Class = report.OutcomeOK
	}
	return ran{out: o, prof: p}
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// fileTail is the last n bytes of f ("" when it cannot be read).
func fileTail(f *os.File, n int64) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	b := make([]byte, min(n, fi.Size()))
	k, _ := f.ReadAt(b, fi.Size()-int64(len(b)))
	return string(b[:k])
}

// suiteStatus is the exit status of a suite whose runs ended as outs:
// the status of the first run icount stopped, refused or failed on (124
// for a timeout, 127 for a missing binary, ...: the status of that icount run), else
// exitBenchmarkFailed when a program failed, else 0.
func suiteStatus(outs []report.Outcome) int {
	status := 0
	for _, o := range outs {
		switch o.Class {
		case report.OutcomeStopped, report.OutcomeRefused, report.OutcomeError:
			return o.Status
		case report.OutcomeExit, report.OutcomeSignal:
			status = exitBenchmarkFailed
		}
	}
	return status
}

// reportFailures prints a line on stderr for each run that did not exit 0.
func reportFailures(outs []report.Outcome) {
	for _, o := range outs {
		if !o.OK() {
			fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, o)
		}
	}
}

// inDir is p as seen from dir ("" for the current directory).
func inDir(dir, p string) string {
	if dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// commandContext makes a command that runs in its own process group and
// is killed, group and all, when ctx ends: a build's compilers and a
// member's guest go with it. If icount dies first (SIGKILL), the command
// gets SIGKILL too (Pdeathsig; a caller may choose another signal).
func commandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// lastLines keeps the end of a child's stderr for a message, on one line.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i := range lines {
		lines[i] = strings.TrimPrefix(lines[i], report.Prefix)
	}
	return strings.Join(lines, " | ")
}

// suiteMembers resolves a suite's benchmarks for a guest that runs in dir
// (the directory icount runs in, or its counterpart in another tree):
// the suite's paths are relative to rel, the suite file's directory as
// seen from dir.
func suiteMembers(s *report.Suite, dir, rel, side string) []member {
	at := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(rel, p)
	}
	var ms []member
	for _, b := range s.Benches {
		ms = append(ms, member{name: b.Name, side: side, dir: dir, binary: at(b.Binary), args: b.Args, stdin: at(b.Stdin), env: b.Env})
	}
	return ms
}

// runSuiteCmd is 'icount run --suite FILE': every benchmark, a row each
// on stderr with its outcome, saved and compared as a set. Every
// benchmark runs whatever the others do; the status is suiteStatus's
// when one did not exit 0, else the comparison's.
func runSuiteCmd(cmd *cobra.Command, f *runFlags, c *ciFlags) error {
	for _, name := range oneFileFlags {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			return &exitError{exitUsage, fmt.Errorf("--%s with --suite: every benchmark would write the same file (--save NAME keeps each Profile as .icount/NAME/BENCH.json)", name)}
		}
	}
	s, err := report.ReadSuite(c.suite)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	var gates *report.Gates
	var base map[string]*profile.Profile
	var baseOuts []report.Outcome
	if c.baseline != "" {
		if gates, err = c.gate.gates(); err != nil {
			return err
		}
		dir := filepath.Join(baselineDir, c.baseline)
		if base, err = readProfileDir(dir); err != nil {
			return &exitError{exitUsage, fmt.Errorf("no baseline %q: %v (keep one with --suite %s --save %s)", c.baseline, err, c.suite, c.baseline)}
		}
		// A suite saved before outcomes were recorded has no file of them.
		if baseOuts, err = report.ReadOutcomes(filepath.Join(dir, report.OutcomesFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &exitError{exitUsage, err}
		}
	}
	if o := f.out.benchOut; o != "" {
		if err := atomicfile.Check(o); err != nil {
			return &exitError{exitUsage, fmt.Errorf("--bench-out %s: cannot write it: %w", o, err)}
		}
	}
	if c.save != "" {
		// Checked before the benchmarks run, not after.
		tmp, err := newSaveDir(filepath.Join(baselineDir, c.save))
		if err != nil {
			return &exitError{exitUsage, fmt.Errorf("--save %s: %w", c.save, err)}
		}
		os.Remove(tmp)
	}
	ctx, stop := interruptContext()
	defer stop()
	tmp, done, err := lockedTempDir("icount-suite")
	if err != nil {
		return &exitError{exitInternal, err}
	}
	defer done()
	if _, err := f.clock.clock(cmd.Flags(), c.compares()); err != nil {
		return &exitError{exitUsage, err}
	}
	flags := append(passThrough(cmd.Flags()), f.clock.pinArgs(cmd.Flags(), c.compares())...)
	ms := suiteMembers(s, "", filepath.Dir(c.suite), "")
	runs, err := runMembers(ctx, ms, flags, c.jobs, tmp)
	if err != nil {
		return interrupted(ctx, err)
	}
	outs := make([]report.Outcome, len(runs))
	for i, r := range runs {
		outs[i] = r.out
	}
	if !f.quiet {
		printSuiteTable(runs)
	}
	reportFailures(outs)
	if f.out.benchOut != "" {
		if err := writeSuiteBench(f.out.benchOut, runs); err != nil {
			return &exitError{exitIOError, err}
		}
	}
	verdict := 0
	if c.baseline != "" {
		var pairs []report.Pair
		var notes []string
		for i, r := range runs {
			if r.out.OK() {
				pairs = append(pairs, report.Pair{Name: ms[i].name, Base: base[ms[i].name], Head: r.prof})
			} else {
				notes = append(notes, fmt.Sprintf("benchmark %s is not compared: this run's %s", r.out.Name, r.out.Short()))
			}
		}
		for _, o := range baseOuts {
			if !o.OK() {
				notes = append(notes, fmt.Sprintf("benchmark %s did not run to its end in baseline %s: %s", o.Name, c.baseline, o.Short()))
			}
		}
		r := report.Compare(report.Side{Label: "baseline " + c.baseline}, report.Side{Label: "this run"}, pairs, gates)
		r.Notes = append(r.Notes, notes...)
		printReport(os.Stderr, r, f.quiet)
		verdict = c.gate.exitStatus(r)
	}
	if c.save != "" {
		dir := filepath.Join(baselineDir, c.save)
		if err := saveSuite(dir, runs); err != nil {
			return &exitError{exitInternal, fmt.Errorf("saving the suite as %s: %w", dir, err)}
		}
		if !f.quiet {
			fmt.Fprintf(os.Stderr, "%ssaved as baseline %s (%s/)\n", report.Prefix, c.save, dir)
		}
	}
	if status := suiteStatus(outs); status != 0 {
		return &exitError{status: status}
	}
	if verdict != 0 {
		return &exitError{status: verdict}
	}
	return nil
}

// writeSuiteBench writes the results of the runs that ended with a
// Profile to path, one line per benchmark and more for its parts
// (report.WriteSuiteBench); a run icount stopped is not a result.
func writeSuiteBench(path string, runs []ran) error {
	var names []string
	var ps []*profile.Profile
	for _, r := range runs {
		if r.prof != nil && r.prof.Exit.Complete {
			names, ps = append(names, r.out.Name), append(ps, r.prof)
		}
	}
	return writeFile(path, "benchmark results", func(w io.Writer) error { return report.WriteSuiteBench(w, names, ps) })
}

// printSuiteTable prints a row for each run on stderr: its counts (of a
// run stopped early, up to where it stopped) and its outcome.
func printSuiteTable(runs []ran) {
	rows := [][]string{{"benchmark", "instructions", "blocks", "syscalls", "outcome"}}
	for _, r := range runs {
		row := []string{r.out.Name, "-", "-", "-", r.out.Short()}
		if p := r.prof; p != nil {
			row[1], row[2], row[3] = report.Group(p.Totals.Instructions), report.Group(p.Totals.Blocks), report.Group(p.Totals.Syscalls)
		}
		rows = append(rows, row)
	}
	for _, line := range strings.SplitAfter(report.AlignTable(rows, 1, "  "), "\n") {
		if line != "" {
			fmt.Fprint(os.Stderr, report.Prefix+line)
		}
	}
}

// saveSuite writes dir whole or not at all: the Profile of each run that
// exited 0 as BENCH.json and every run's outcome in report.OutcomesFile,
// in a new directory beside it that then takes its place, so that a
// benchmark that fails now leaves no Profile of an earlier run behind.
func saveSuite(dir string, runs []ran) error {
	tmp, err := newSaveDir(dir)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var outs []report.Outcome
	for _, r := range runs {
		outs = append(outs, r.out)
		if r.out.OK() {
			if err := writeProfile(filepath.Join(tmp, r.out.Name+".json"), r.prof); err != nil {
				return err
			}
		}
	}
	var b bytes.Buffer
	if err := report.WriteOutcomes(&b, outs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, report.OutcomesFile), b.Bytes(), 0o644); err != nil {
		return err
	}
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	return os.RemoveAll(old)
}

// newSaveDir makes the new directory that is to take dir's place.
func newSaveDir(dir string) (string, error) {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}
