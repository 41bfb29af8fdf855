package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/icount-dev/icount/count"
	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/loader"
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
		Args: cobra.MinimumNArgs(1),
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
	clock, err := f.clock.clock(cmd.Flags(), f.ci.compares())
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if err := f.out.check(); err != nil {
		return &exitError{exitUsage, err}
	}
	if f.quantum < kernel.MinQuantum {
		return &exitError{exitUsage, fmt.Errorf("--quantum %d: the smallest is %d (longer than any block)", f.quantum, kernel.MinQuantum)}
	}
	env := []string{}
	if f.inheritEnv {
		env = os.Environ()
	}
	for _, kv := range f.env {
		if !strings.Contains(kv, "=") {
			return &exitError{exitUsage, fmt.Errorf("--env %q: want K=V", kv)}
		}
		env = append(env, kv)
	}
	opts := count.Options{
		Path: args[0], Args: args[1:], Argv0: f.argv0, Env: env, Seed: f.seed,
		Version: version, HotBlocks: 20, Attribution: !f.countOnly, Collect: f.collect, MaxInstructions: f.maxInsns,
		Clock: clock, CPUs: f.clock.cpus, Lines: f.out.needLines(), Sysroot: f.sysroot, Quantum: f.quantum,
		HostTmp: f.hostTmp,
	}
	finish := f.lim.start(&opts, f.quiet)
	prof, err := count.Run(opts)
	finish()
	if prof == nil {
		return &exitError{startStatus(err), err}
	}
	if f.jsonPath != "" {
		if werr := writeProfile(f.jsonPath, f.out.forJSON(prof)); werr != nil {
			return &exitError{exitInternal, werr}
		}
	}
	if werr := f.out.write(prof); werr != nil {
		return &exitError{exitInternal, werr}
	}
	if !f.quiet {
		report.Summary(os.Stderr, prof, f.top)
		f.out.summary(os.Stderr, prof)
	}
	if err != nil {
		// Every line under the prefix: a deadlock's lists each thread.
		fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, strings.ReplaceAll(err.Error(), "\n", "\n"+report.Prefix))
		printBacktrace(prof)
		return &exitError{status: stopStatus(err)}
	}
	if prof.Exit.Signal != "" {
		fmt.Fprintf(os.Stderr, "%s%s\n", report.Prefix, prof.Exit.Message)
		printBacktrace(prof)
	}
	verdict, err := f.ci.afterRun(prof, f.quiet)
	if err != nil {
		return err
	}
	if prof.Exit.Status != 0 {
		return &exitError{status: prof.Exit.Status}
	}
	if verdict != 0 {
		return &exitError{status: verdict}
	}
	return nil
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
	return exitInternal
}

// stopStatus is the exit status for a guest icount stopped early.
func stopStatus(err error) int {
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
