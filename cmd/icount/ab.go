package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
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
	gate  gateFlags
}

func newABCmd() *cobra.Command {
	var f abFlags
	cmd := &cobra.Command{
		Use:   "ab --base REF [--build CMD] (--bin PATH | --suite FILE) [run flags] [-- ARGS]",
		Short: "Compare a benchmark built at a git ref with the working tree",
		Long: `Check REF out in a temporary git worktree, run the build command in it and in
the current tree, run the benchmark built in each under identical settings
(the same argv[0], environment, seed, clock and the other run flags), and
print the diff with the gates applied (see 'icount diff').

The build command runs with 'sh -c' in each tree's counterpart of the current
directory, and so do the programs; --bin, --suite and the paths in other run
flags are relative to it, the paths in a suite file to the suite file. The programs' standard output
is discarded, their standard error shown only when a run fails, and the report
goes to standard output (or --output). The worktree is removed afterwards, also
when a build or a run fails and on SIGINT or SIGTERM.

Exit status: 0, or 3 for a regression (see 'icount exit-codes'); 126 when a
build fails or does not produce the binary; a failing benchmark's own status.`,
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
	head := report.Side{Label: "working tree"}
	if c, err := git(ctx, "", "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		head = report.Side{Label: "HEAD", Commit: shortCommit(c)}
		if dirty, _ := git(ctx, "", "status", "--porcelain", "--untracked-files=no"); dirty != "" {
			head.Label = "HEAD with uncommitted changes"
		}
	}
	base := report.Side{Label: f.base, Commit: shortCommit(baseCommit)}

	wt, err := addWorktree(ctx, top, baseCommit)
	if err != nil {
		return interrupted(ctx, err)
	}
	defer wt.remove()
	baseDir := filepath.Join(wt.dir, prefix)
	headDir, _ := os.Getwd()

	if err := build(ctx, f.build, baseDir, "base "+f.base); err != nil {
		return interrupted(ctx, err)
	}
	if err := build(ctx, f.build, headDir, "head"); err != nil {
		return interrupted(ctx, err)
	}

	var bms, hms []member
	if suite != nil {
		abs, _ := filepath.Abs(filepath.Dir(f.suite))
		rel, err := filepath.Rel(headDir, abs)
		if inRepo, err2 := filepath.Rel(top, abs); err != nil || err2 != nil || strings.HasPrefix(inRepo, "..") {
			return &exitError{exitUsage, fmt.Errorf("--suite %s: the suite file must lie in the repository, to be found in both trees", f.suite)}
		}
		bms = suiteMembers(suite, baseDir, rel, "base")
		hms = suiteMembers(suite, headDir, rel, "head")
	} else {
		bms = []member{{side: "base", dir: baseDir, binary: f.bin, args: args}}
		hms = []member{{side: "head", dir: headDir, binary: f.bin, args: args}}
	}
	// A benchmark the base does not build is new: nothing to compare.
	var present []int
	for i, m := range bms {
		if _, err := os.Stat(inDir(m.dir, m.binary)); err == nil {
			present = append(present, i)
		} else if suite == nil {
			return &exitError{exitCannotRun, fmt.Errorf("base %s (%s): the build did not produce %s", f.base, base.Commit, f.bin)}
		}
	}
	for _, m := range hms {
		if _, err := os.Stat(inDir(m.dir, m.binary)); err != nil {
			return &exitError{exitCannotRun, fmt.Errorf("head: the build did not produce %s", m.binary)}
		}
	}
	runs := append([]member{}, hms...)
	for _, i := range present {
		runs = append(runs, bms[i])
	}
	profs, err := runMembers(ctx, runs, passThrough(cmd.Flags()), f.jobs)
	if err != nil {
		return interrupted(ctx, err)
	}
	pairs := make([]report.Pair, len(hms))
	for i, m := range hms {
		pairs[i] = report.Pair{Name: m.name, Head: profs[i]}
	}
	for k, i := range present {
		pairs[i].Base = profs[len(hms)+k]
	}
	return f.gate.emit(report.Compare(base, head, pairs, gates))
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
	cmd := commandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return strings.TrimSpace(out.String()), nil
}

func shortCommit(c string) string { return c[:min(len(c), 12)] }

// worktree is a temporary checkout of the base commit.
type worktree struct {
	top, dir string
}

func addWorktree(ctx context.Context, top, commit string) (*worktree, error) {
	parent, err := os.MkdirTemp("", "icount-ab-")
	if err != nil {
		return nil, &exitError{exitInternal, err}
	}
	wt := &worktree{top: top, dir: filepath.Join(parent, "base")}
	if _, err := git(ctx, top, "worktree", "add", "--detach", "--quiet", wt.dir, commit); err != nil {
		wt.remove()
		return nil, &exitError{exitInternal, fmt.Errorf("checking out the base: %v", err)}
	}
	return wt, nil
}

// remove deletes the worktree and git's record of it; it runs whatever
// happened before, so it does not use the (maybe interrupted) context.
func (w *worktree) remove() {
	ctx := context.Background()
	if _, err := git(ctx, w.top, "worktree", "remove", "--force", w.dir); err != nil {
		os.RemoveAll(w.dir)
		git(ctx, w.top, "worktree", "prune")
	}
	os.RemoveAll(filepath.Dir(w.dir))
}

// build runs the build command in dir; its output goes to stderr, since
// stdout is the report's.
func build(ctx context.Context, command, dir, what string) error {
	if command == "" {
		return nil
	}
	fmt.Fprintf(os.Stderr, "%sbuilding the %s tree: %s\n", report.Prefix, what, command)
	cmd := commandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return &exitError{exitCannotRun, fmt.Errorf("building the %s tree: %q failed: %v", what, command, err)}
	}
	return nil
}
