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
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

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
	"base": true, "build": true, "bin": true, "help": true,
	"pprof": true, "callgrind": true, "bench": true,
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

// runFailure is a member that did not give a complete Profile.
type runFailure struct {
	m      member
	status int
	msg    string
}

func (e *runFailure) Error() string {
	who := e.m.name
	if e.m.side != "" {
		who = e.m.side + " " + who
	}
	if who == "" {
		who = e.m.binary
	}
	return fmt.Sprintf("%s: %s", strings.TrimSpace(who), e.msg)
}

// runMembers runs each member as 'icount run -q --json' with flags, up to
// jobs at once, and returns their Profiles in order. The first failure
// stops the others. A member that exits other than 0 is a failure: a
// benchmark must run to its end.
func runMembers(ctx context.Context, ms []member, flags []string, jobs int) ([]*profile.Profile, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, &exitError{exitInternal, err}
	}
	tmp, err := os.MkdirTemp("", "icount-suite-")
	if err != nil {
		return nil, &exitError{exitInternal, err}
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	profs := make([]*profile.Profile, len(ms))
	errs := make([]error, len(ms))
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
			if ctx.Err() != nil {
				return
			}
			profs[i], errs[i] = runMember(ctx, self, filepath.Join(tmp, fmt.Sprintf("%d.json", i)), m, flags)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return profs, nil
}

func runMember(ctx context.Context, self, jsonPath string, m member, flags []string) (*profile.Profile, error) {
	argv := append([]string{"run", "-q", "--json", jsonPath}, flags...)
	for _, kv := range m.env {
		argv = append(argv, "--env="+kv)
	}
	argv = append(argv, "--", m.binary)
	argv = append(argv, m.args...)
	cmd := commandContext(ctx, self, argv...)
	cmd.Dir = m.dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr // the guest's stdout is not the report's
	if m.stdin != "" {
		f, err := os.Open(inDir(m.dir, m.stdin))
		if err != nil {
			return nil, &exitError{exitUsage, &runFailure{m: m, msg: fmt.Sprintf("stdin: %v", err)}}
		}
		defer f.Close()
		cmd.Stdin = f
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		status := exitInternal
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			status = ee.ExitCode()
		}
		msg := fmt.Sprintf("exit status %d", status)
		if p, _ := profile.Read(jsonPath); p != nil && p.Exit.Complete {
			msg = fmt.Sprintf("the program exited with status %d (a benchmark must exit 0)", p.Exit.Status)
			if p.Exit.Signal != "" {
				msg = "the program was killed: " + p.Exit.Message
			}
		}
		if tail := lastLines(stderr.String(), 5); tail != "" {
			msg += ": " + tail
		}
		return nil, &exitError{status, &runFailure{m: m, status: status, msg: msg}}
	}
	p, err := profile.Read(jsonPath)
	if err != nil {
		return nil, &exitError{exitInternal, &runFailure{m: m, msg: err.Error()}}
	}
	return p, nil
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
// member's guest go with it.
func commandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
// on stderr, saved and compared as a set.
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
	if c.baseline != "" {
		if gates, err = c.gate.gates(); err != nil {
			return err
		}
	}
	ctx, stop := interruptContext()
	defer stop()
	ms := suiteMembers(s, "", filepath.Dir(c.suite), "")
	runArgs := append(passThrough(cmd.Flags()), f.clock.pinArgs(cmd.Flags(), c.compares())...)
	profs, err := runMembers(ctx, ms, runArgs, c.jobs)
	if err != nil {
		return interrupted(ctx, err)
	}
	if !f.quiet {
		rows := [][]string{{"benchmark", "instructions", "blocks", "syscalls", "exit"}}
		for i, p := range profs {
			rows = append(rows, []string{ms[i].name, report.Group(p.Totals.Instructions), report.Group(p.Totals.Blocks),
				report.Group(p.Totals.Syscalls), fmt.Sprint(p.Exit.Status)})
		}
		for _, line := range strings.SplitAfter(report.AlignTable(rows, 1, "  "), "\n") {
			if line != "" {
				fmt.Fprint(os.Stderr, report.Prefix+line)
			}
		}
	}
	verdict := 0
	if c.baseline != "" {
		dir := filepath.Join(baselineDir, c.baseline)
		base, err := readProfileDir(dir)
		if err != nil {
			return &exitError{exitUsage, fmt.Errorf("no baseline %q: %v (keep one with --suite %s --save %s)", c.baseline, err, c.suite, c.baseline)}
		}
		var pairs []report.Pair
		for i, p := range profs {
			pairs = append(pairs, report.Pair{Name: ms[i].name, Base: base[ms[i].name], Head: p})
		}
		r := report.Compare(report.Side{Label: "baseline " + c.baseline}, report.Side{Label: "this run"}, pairs, gates)
		printReport(os.Stderr, r, f.quiet)
		verdict = c.gate.exitStatus(r)
	}
	if c.save != "" {
		dir := filepath.Join(baselineDir, c.save)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return &exitError{exitInternal, err}
		}
		for i, p := range profs {
			if err := writeProfile(filepath.Join(dir, ms[i].name+".json"), p); err != nil {
				return &exitError{exitInternal, err}
			}
		}
		if !f.quiet {
			fmt.Fprintf(os.Stderr, "%ssaved as baseline %s (%s/)\n", report.Prefix, c.save, dir)
		}
	}
	if verdict != 0 {
		return &exitError{status: verdict}
	}
	return nil
}
