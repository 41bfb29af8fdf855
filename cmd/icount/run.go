package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/icount-dev/icount/count"
	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
	"github.com/spf13/cobra"
)

type runFlags struct {
	quiet      bool
	jsonPath   string
	env        []string
	inheritEnv bool
	seed       uint64
	argv0      string
	sysroot    string
	top        int
	countOnly  bool
	maxInsns   uint64
	collect    []string
	quantum    uint64
	hostTmp    bool

	clock clockFlags  // --fixed-clock and the rest of clockflags.go
	ci    ciFlags     // --save, --baseline, --suite, --jobs (diff.go, suite.go)
	out   outputFlags // --lines, --mix, --pprof, --callgrind, --bench (outputs.go)
	lim   limitFlags  // --timeout, --max-memory (limits.go)
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] BINARY [ARGS...]",
		Short: "Run a program and count its instructions",
		Long: `Run BINARY with ARGS under icount and count every instruction it executes.

Flags after BINARY belong to the program. The program's stdout and stderr are
its own; icount's summary goes to stderr on lines starting with "icount: ".
icount exits with the program's exit status (see 'icount exit-codes').`,
		Example: `  icount run ./bench
  icount run --json prof.json ./bench --iterations 5
  icount run -q ./sort < input.txt > sorted.txt
  icount run --timeout 5m --max-memory 2G --json prof.json ./untrusted`,
		Args: needBinary,
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, &f, args) },
	}
	cmd.Flags().SetInterspersed(false)
	fl := cmd.Flags()
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print no summary")
	fl.StringVar(&f.jsonPath, "json", "", "write the Profile as JSON to `FILE`")
	fl.StringArrayVar(&f.env, "env", nil, "set `K=V` in the guest's environment (repeatable)")
	fl.BoolVar(&f.inheritEnv, "inherit-env", false, "give the guest icount's environment (counts then depend on it)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for AT_RANDOM and getrandom")
	fl.Uint64Var(&f.maxInsns, "max-instructions", 0, "stop the program after exactly `N` instructions (the Profile is marked incomplete)")
	fl.Uint64Var(&f.quantum, "quantum", kernel.DefaultQuantum, "run each thread of a multi-threaded program for at most `N` instructions before the next one's turn (the count depends on it)")
	fl.BoolVar(&f.countOnly, "count-only", false, "count without the call tree: no inclusive costs or call stacks, a little faster")
	fl.StringArrayVar(&f.collect, "collect", nil, "count only inside the dynamic extent of function `FUNC` (repeatable)")
	fl.IntVar(&f.top, "top", 5, "list the top `N` functions in the summary")
	fl.StringVar(&f.argv0, "argv0", "", "argv[0] for the guest (default: the binary's base name, so its path does not change the count)")
	fl.StringVar(&f.sysroot, "sysroot", "", "take a dynamically linked program's interpreter from `DIR`, and look up the absolute paths the guest names under it first, on the host when it lacks them, as qemu-aarch64 -L does (default for arm64 guests: /usr/aarch64-linux-gnu when it exists)")
	fl.BoolVar(&f.hostTmp, "host-tmp", false, "give the program the host's /tmp and /var/tmp (default: a directory of the run's own, under $TMPDIR, that it sees as both, removed afterwards)")
	f.clock.register(fl)
	f.ci.register(cmd, &f)
	f.out.register(fl)
	f.lim.register(fl)
	return cmd
}

func runRun(cmd *cobra.Command, f *runFlags, args []string) error {
	path, err := lookPath(args[0])
	if err != nil {
		return err
	}
	if !f.quiet {
		noteOwnFlags(os.Stderr, cmd, args)
	}
	opts, err := f.options(cmd, append([]string{path}, args[1:]...))
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if err := f.preflight(); err != nil {
		return &exitError{exitUsage, err}
	}
	finish := f.lim.start(&opts, f.quiet)
	prof, err := runGuest(opts)
	finish()
	if prof == nil {
		if pe := panicOf(err); pe != nil {
			return &exitError{exitInternal, fmt.Errorf("%s; nothing written", panicLine(pe, err))}
		}
		return &exitError{startStatus(err), err}
	}
	return f.finish(prof, err)
}

// options checks the flags and turns them into the run's options, before
// anything runs.
func (f *runFlags) options(cmd *cobra.Command, args []string) (count.Options, error) {
	clock, err := f.clock.clock(cmd.Flags(), f.ci.compares())
	if err != nil {
		return count.Options{}, err
	}
	if err := f.out.check(); err != nil {
		return count.Options{}, err
	}
	if f.quantum < kernel.MinQuantum {
		return count.Options{}, fmt.Errorf("--quantum %d: the smallest is %d (longer than any block)", f.quantum, kernel.MinQuantum)
	}
	if f.top < 0 {
		return count.Options{}, fmt.Errorf("--top %d: want 0 or more functions", f.top)
	}
	if err := f.lim.check(); err != nil {
		return count.Options{}, err
	}
	env := []string{}
	if f.inheritEnv {
		env = os.Environ()
	}
	for _, kv := range f.env {
		if !strings.Contains(kv, "=") {
			return count.Options{}, fmt.Errorf("--env %q: want K=V", kv)
		}
		env = append(env, kv)
	}
	return count.Options{
		Path: args[0], Args: args[1:], Argv0: f.argv0, Env: env, Seed: f.seed,
		Version: icountVersion(), HotBlocks: 20, Attribution: !f.countOnly, Collect: f.collect, MaxInstructions: f.maxInsns,
		Clock: clock, CPUs: f.clock.cpus, Lines: f.out.needLines(), Contexts: f.out.lines, Sysroot: f.sysroot, Quantum: f.quantum,
		HostTmp: f.hostTmp,
	}, nil
}

// finish reports a run that gave a Profile, complete or not: it writes
// every output, prints the summary and why the run stopped, saves and
// compares, and gives the exit status. An output that cannot be written
// does not keep the others from being written.
func (f *runFlags) finish(prof *profile.Profile, runErr error) error {
	var failed []error
	if f.jsonPath != "" {
		if err := writeProfile(f.jsonPath, f.out.forJSON(prof)); err != nil {
			failed = append(failed, err)
		}
	}
	failed = append(failed, f.out.write(prof)...)
	if !f.quiet {
		report.Summary(os.Stderr, prof, f.top)
		f.out.summary(os.Stderr, prof)
	}
	if runErr != nil {
		if pe := panicOf(runErr); pe != nil {
			fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, panicLine(pe, runErr))
		} else {
			// Every line under the prefix: a deadlock's lists each thread.
			fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, strings.ReplaceAll(runErr.Error(), "\n", "\n"+report.Prefix))
			printBacktrace(prof)
		}
		return outputStatus(failed, &exitError{status: stopStatus(runErr)})
	}
	if prof.Exit.Signal != "" {
		fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, prof.Exit.Message)
		printBacktrace(prof)
	}
	verdict, err := f.ci.afterRun(prof, f.quiet)
	var ee *exitError
	switch {
	case errors.As(err, &ee) && ee.status == exitInternal:
		failed = append(failed, ee.err) // --save could not keep the Profile
	case err != nil:
		return outputStatus(failed, err)
	}
	switch {
	case prof.Exit.Status != 0:
		return outputStatus(failed, &exitError{status: prof.Exit.Status})
	case verdict != 0:
		return outputStatus(failed, &exitError{status: verdict})
	}
	return outputStatus(failed, nil)
}

// outputStatus is the run's result once its outputs are written: with
// none failed, result; else each failure on a line of its own and
// exitIOError when the host refused them all (an errno: ENOSPC, EACCES,
// EROFS, EDQUOT, EFBIG...), exitInternal when one failed otherwise or the
// run itself ended in an internal error.
func outputStatus(failed []error, result error) error {
	if len(failed) == 0 {
		return result
	}
	status := exitIOError
	if ee, ok := result.(*exitError); ok && ee.status == exitInternal {
		status = exitInternal
	}
	for _, err := range failed {
		fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, strings.ReplaceAll(err.Error(), "\n", " "))
		if !isHostError(err) {
			status = exitInternal
		}
	}
	return &exitError{status: status}
}

// isHostError says whether err is the host system's refusal of an
// operation (it carries an errno), not a bug in icount.
func isHostError(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno)
}

// startStatus is the exit status for a guest that never started.
func startStatus(err error) int {
	var le *loader.Error
	if errors.As(err, &le) {
		switch le.Problem {
		case loader.NotFound:
			return exitNotFound
		default:
			return exitCannotRun
		}
	}
	if isHostError(err) {
		return exitIOError // the run's own /tmp could not be made, say
	}
	return exitInternal
}

// stopStatus is the exit status for a guest icount stopped early.
func stopStatus(err error) int {
	if panicOf(err) != nil {
		return exitInternal
	}
	if status, ok := limitStatus(err); ok {
		return status
	}
	var ue *kernel.UnsupportedError
	if errors.As(err, &ue) {
		return exitUnsupported
	}
	if errors.Is(err, emu.ErrInstructionLimit) {
		return exitInstructionLimit
	}
	var de *kernel.DeadlockError
	if errors.As(err, &de) {
		return exitDeadlock
	}
	if strings.Contains(err.Error(), "would wait forever") {
		return exitUnsupported
	}
	return exitInternal
}
