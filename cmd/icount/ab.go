package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/icount-dev/icount/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitInterrupted is the status after SIGINT or SIGTERM, as a shell
// reports a process killed by SIGINT.
const exitInterrupted = 128 + int(syscall.SIGINT)

type abFlags struct {
	base  string
	build string
	bin   string
	suite string
	jobs  int
	clock clockFlags // run's clock flags, --host-clock among them
	gate  gateFlags
}

func newABCmd() *cobra.Command {
	var f abFlags
	cmd := &cobra.Command{
		Use:   "ab --base REF [--build CMD] (--bin PATH | --suite FILE) [run flags] [-- ARGS]",
		Short: "Compare a benchmark built at a git ref with the working tree",
		Long: `Build and run the benchmark of REF and then that of the working tree, both at
one path of icount's choosing ($TMPDIR/icount-ab-HASH/tree, HASH from the
repository's path), under identical settings (the same working directory,
argv[0], environment, seed, clock and the other run flags), and print the
diff with the gates applied (see 'icount diff'). Nothing about the two runs
differs but the code: not the directory a program reads, not the paths a
build embeds.

REF is checked out there as a git worktree, built and run, and removed;
then the working tree as it is (uncommitted changes and untracked files git
does not ignore included; ignored files such as build outputs, and
submodules, not) is put at the same path as a worktree of HEAD, built and
run, and removed. The checkout icount runs in is not touched. A second ab
of the same repository waits for the first; one that finds a tree a killed
ab left removes it. icount's builds and runs die with it.

The clock is pinned, as with --fixed-clock, unless a clock flag says
otherwise: a program that reads the host's clock (every dynamically linked
glibc program does, in ld.so) cannot be compared. --host-clock lets it.

The build command runs with 'sh -c' in the tree's counterpart of the current
directory, and so do the programs; --bin, --suite and the paths in other run
flags are relative to it, the paths in a suite file to the suite file. The
programs' standard output is discarded, their standard error shown only when
a run fails, and the report goes to standard output (or --output). Every
benchmark of a suite runs whatever the others do, and each that fails is named
with its outcome.

Exit status: 0, 3 for a regression, 4 when the runs cannot be compared (see
'icount exit-codes'; --allow-no-verdict makes it 0); 126 when a
build fails or does not produce the binary; when a benchmark fails, the status
of a suite (5 when its program exited other than 0 or was killed; icount's own
when icount stopped or refused it).`,
		Example: `  icount ab --base origin/main --bin build/bench
  icount ab --base HEAD~1 --build 'make bench' --bin bench --fail-above 0.5 -- -n 1000
  icount ab --base origin/main --suite benchmarks.toml --jobs 2 --format markdown -o comment.md`,
		RunE: func(cmd *cobra.Command, args []string) error { return runAB(cmd, &f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.base, "base", "", "the git `REF` to compare with (required)")
	fl.StringVar(&f.build, "build", "make", "the build `CMD` run in each tree ('' to build nothing)")
	fl.StringVar(&f.bin, "bin", "", "the benchmark binary's `PATH` in each tree")
	fl.StringVar(&f.suite, "suite", "", "a suite `FILE` of benchmarks instead of --bin")
	fl.IntVar(&f.jobs, "jobs", defaultJobs(), "run up to `N` benchmarks at once")
	f.clock.register(fl)
	f.gate.register(fl, true)
	// Every flag of run that says how to run the program, so that ab takes
	// the run flags added later too.
	newRunCmd().Flags().VisitAll(func(rf *pflag.Flag) {
		if !notOwnFlags[rf.Name] && fl.Lookup(rf.Name) == nil {
			if rf.Shorthand != "" && fl.ShorthandLookup(rf.Shorthand) != nil {
				rf.Shorthand = ""
			}
			fl.AddFlag(rf)
		}
	})
	return cmd
}

func runAB(cmd *cobra.Command, f *abFlags, args []string) error {
	switch {
	case f.base == "":
		return &exitError{exitUsage, errors.New("--base REF is required")}
	case (f.bin == "") == (f.suite == ""):
		return &exitError{exitUsage, errors.New("give --bin PATH or --suite FILE")}
	case f.suite != "" && len(args) > 0:
		return &exitError{exitUsage, fmt.Errorf("--suite gives each benchmark its arguments: %q is not taken", args[0])}
	case f.jobs < 1:
		return &exitError{exitUsage, fmt.Errorf("--jobs %d: want at least 1", f.jobs)}
	}
	gates, err := f.gate.gates()
	if err != nil {
		return err
	}
	if _, err := f.clock.clock(cmd.Flags(), true); err != nil {
		return &exitError{exitUsage, err}
	}
	flags := append(passThrough(cmd.Flags()), f.clock.pinArgs(cmd.Flags(), true)...)
	var suite *report.Suite
	if f.suite != "" {
		if suite, err = report.ReadSuite(f.suite); err != nil {
			return &exitError{exitUsage, err}
		}
	}

	ctx, stop := interruptContext()
	defer stop()
	top, err := git(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("icount ab works in a git repository: %v", err)}
	}
	prefix, _ := git(ctx, "", "rev-parse", "--show-prefix")
	baseCommit, err := git(ctx, "", "rev-parse", "--verify", "--quiet", f.base+"^{commit}")
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("--base %s: not a commit of this repository", f.base)}
	}
	// The head's worktree is of HEAD, or of the base in a repository with
	// no commit yet; its files are the working tree's either way.
	head, headCommit := report.Side{Label: "working tree"}, baseCommit
	if c, err := git(ctx, "", "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		head, headCommit = report.Side{Label: "HEAD", Commit: shortCommit(c)}, c
		if dirty, _ := git(ctx, "", "status", "--porcelain"); dirty != "" {
			head.Label = "HEAD with uncommitted changes"
		}
	}
	base := report.Side{Label: f.base, Commit: shortCommit(baseCommit)}
	members := func(dir, side string) []member {
		return []member{{name: f.bin, side: side, dir: dir, binary: f.bin, args: args}}
	}
	if suite != nil {
		cwd, _ := os.Getwd()
		abs, _ := filepath.Abs(filepath.Dir(f.suite))
		rel, err := filepath.Rel(cwd, abs)
		if inRepo, err2 := filepath.Rel(top, abs); err != nil || err2 != nil || strings.HasPrefix(inRepo, "..") {
			return &exitError{exitUsage, fmt.Errorf("--suite %s: the suite file must lie in the repository, to be found in both trees", f.suite)}
		}
		members = func(dir, side string) []member { return suiteMembers(suite, dir, rel, side) }
	}

	tree, err := claimTree(ctx, top)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer tree.release()
	defer tree.clear()
	// Both sides' code is the tree: a file of it that changed is code.
	base.Tree, head.Tree = tree.dir, tree.dir
	s := abSide{tree: tree, dir: filepath.Join(tree.dir, prefix), build: f.build, flags: flags, jobs: f.jobs}
	baseRuns, err := s.run(ctx, "base "+f.base, func() error { return tree.checkout(ctx, baseCommit) }, members)
	if err != nil {
		return interrupted(ctx, err)
	}
	headRuns, err := s.run(ctx, "head", func() error { return tree.copyWorkingTree(ctx, headCommit) }, members)
	if err != nil {
		return interrupted(ctx, err)
	}

	if suite == nil && baseRuns[0] == nil {
		return &exitError{exitCannotRun, fmt.Errorf("base %s (%s): the build did not produce %s", f.base, base.Commit, f.bin)}
	}
	if suite == nil && headRuns[0] == nil {
		return &exitError{exitCannotRun, fmt.Errorf("head: the build did not produce %s", f.bin)}
	}
	pairs, notes, outs := pairRuns(suite, baseRuns, headRuns)
	reportFailures(outs)
	status := suiteStatus(outs)
	if suite == nil {
		if status != 0 {
			return &exitError{status: status}
		}
		pairs[0].Name = "" // a lone pair
	}
	r := report.Compare(base, head, pairs, gates)
	r.Notes = append(r.Notes, notes...)
	if err := f.gate.emit(r); status == 0 || !isVerdictStatus(err) {
		return err
	}
	return &exitError{status: status}
}

// pairRuns pairs each benchmark's runs on the two sides (a benchmark the
// base did not build is new; one the head did not build is refused, 126),
// notes each benchmark not compared because a side failed, and lists
// every run's outcome, each benchmark's base before its head.
func pairRuns(suite *report.Suite, baseRuns, headRuns []*ran) (pairs []report.Pair, notes []string, outs []report.Outcome) {
	for i, h := range headRuns {
		b := baseRuns[i]
		if h == nil {
			h = &ran{out: report.Outcome{Name: suite.Benches[i].Name, Side: "head", Class: report.OutcomeRefused, Status: exitCannotRun,
				Message: "the head's build did not produce " + suite.Benches[i].Binary}}
		}
		if b != nil {
			outs = append(outs, b.out)
		}
		outs = append(outs, h.out)
		switch {
		case !h.out.OK():
			notes = append(notes, fmt.Sprintf("benchmark %s is not compared: the head's run: %s", h.out.Name, h.out.Short()))
		case b != nil && !b.out.OK():
			notes = append(notes, fmt.Sprintf("benchmark %s is not compared: the base's run: %s", b.out.Name, b.out.Short()))
		case b == nil:
			pairs = append(pairs, report.Pair{Name: h.out.Name, Head: h.prof})
		default:
			pairs = append(pairs, report.Pair{Name: h.out.Name, Base: b.prof, Head: h.prof})
		}
	}
	return pairs, notes, outs
}

// isVerdictStatus says err is only the status of a comparison's verdict
// (nothing to print), which a failed benchmark's status outranks.
func isVerdictStatus(err error) bool {
	var ee *exitError
	return err == nil || errors.As(err, &ee) && ee.err == nil
}

// abSide builds and runs one side of an ab in the fixed tree.
type abSide struct {
	tree  *abTree
	dir   string // the tree's counterpart of the current directory
	build string
	flags []string
	jobs  int
}

// run puts a side's tree in place, builds it, runs each member whose
// binary the build produced (nil for the others), and removes the tree.
func (s abSide) run(ctx context.Context, label string, put func() error, members func(dir, side string) []member) ([]*ran, error) {
	if err := put(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, &exitError{exitInternal, err}
	}
	if err := build(ctx, s.build, s.dir, label); err != nil {
		return nil, err
	}
	ms := members(s.dir, strings.Fields(label)[0])
	var present []member
	var at []int
	for i, m := range ms {
		if _, err := os.Stat(inDir(m.dir, m.binary)); err == nil {
			present, at = append(present, m), append(at, i)
		}
	}
	tmp, err := s.tree.profiles()
	if err != nil {
		return nil, err
	}
	runs, err := runMembers(ctx, present, s.flags, s.jobs, tmp)
	if err != nil {
		return nil, err
	}
	out := make([]*ran, len(ms))
	for k, i := range at {
		out[i] = &runs[k]
	}
	return out, s.tree.clear()
}

// interruptContext ends on SIGINT or SIGTERM; until stop is called those
// signals no longer kill icount, so that it can clean up.
func interruptContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// interrupted turns an error caused by an interrupt into exitInterrupted.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &exitError{exitInterrupted, errors.New("interrupted: stopped the builds and runs, removed the worktree")}
	}
	return err
}

// git runs a git command in dir (or the current directory) and returns
// its output, trimmed.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitWith(ctx, dir, nil, args...)
	return strings.TrimSpace(out), err
}

// gitWith runs a git command in dir with the environment env (nil:
// icount's) and returns its output as it is.
func gitWith(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := commandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return out.String(), nil
}

// gitLocation are the variables a git hook sets that name a repository,
// its work tree or its index: a git command or a build in the tree must
// find the tree's own, and a new worktree must not write the index of the
// commit being made.
var gitLocation = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX"}

// treeEnv is icount's environment without gitLocation's variables.
func treeEnv() []string { return envWithout(gitLocation...) }

// envWithout is icount's environment without the variables named.
func envWithout(names ...string) []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, k)
	})
}

func shortCommit(c string) string { return c[:min(len(c), 12)] }

// buildGuard runs the build command ($1) as a child of a shell that, on
// SIGUSR1 (its death signal: icount died), kills its process group, the
// build's compilers with it; Pdeathsig alone would reach the shell only.
const buildGuard = `trap 'kill -KILL 0' USR1; sh -c "$1" & wait $!`

// build runs the build command in dir; its output goes to stderr, since
// stdout is the report's.
func build(ctx context.Context, command, dir, what string) error {
	if command == "" {
		return nil
	}
	fmt.Fprintf(os.Stderr, "%sbuilding the %s tree: %s\n", report.Prefix, what, command)
	cmd := commandContext(ctx, "sh", "-c", buildGuard, "sh", command)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGUSR1
	cmd.Dir, cmd.Env = dir, treeEnv()
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return &exitError{exitCannotRun, fmt.Errorf("building the %s tree: %q failed: %v", what, command, err)}
	}
	return nil
}
