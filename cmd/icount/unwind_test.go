package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// unwindDepth bounds how much deeper the calling-context tree of an unwind
// program may be than its returning mode's: an unusual exit's own machinery
// (the unwinder, a signal frame, Go's panic and scheduler) adds some
// levels, while a tree that kept the frames an exit left behind would grow
// a level or more per round (200).
const unwindDepth = 25

// TestUnwindProperty runs the programs that leave frames without returning
// in every way a C, C++ or Go program does (testdata/c/unwind.c,
// testdata/cxx/unwind.cc, testdata/go/unwind: longjmp, a signal handler
// that never returns, swapcontext to another stack, C++ exceptions, Go's
// panics, the stacks Go grows by moving them and goroutines that wait on
// each other deep in calls, on goroutines reused), on both arches, 200
// rounds each, and the same work returning normally. In every mode the
// output is the judge's, the tree holds its invariants and is not much
// deeper than returning's,
// and the work done before each exit is charged as without it (less the
// signals that interrupted it): work is called from rounds alone (every round runs in one frame of rounds, which
// each exit leaves behind), with the calls and inclusive cost of the
// return mode, and so is dive; the goroutine answering in Go's switch
// mode makes its 17 calls once, and each round's goroutine (grow, switch)
// starts once, though each reuses the last one's runtime structures.
func TestUnwindProperty(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog  string // a test program, or go/ARCH: testdata/go/unwind built for ARCH
		modes []string
	}{
		{"c/unwind-glibc", []string{"return", "longjmp", "signal", "ucontext"}},
		{"arm64/c/unwind-glibc", []string{"return", "longjmp", "signal", "ucontext"}},
		{"cxx/unwind", []string{"return", "throw"}},
		{"arm64/cxx/unwind", []string{"return", "throw"}},
		{"go/amd64", []string{"return", "panic", "grow", "switch", "switch --quantum 1024"}},
		{"go/arm64", []string{"return", "panic", "grow", "switch", "switch --quantum 1024"}},
	} {
		t.Run(c.prog, func(t *testing.T) {
			t.Parallel()
			var prog string
			var flags []string
			if arch, ok := strings.CutPrefix(c.prog, "go/"); ok {
				prog = buildGo(t, arch, "./unwind", false)
				// Go's scheduler preempts a goroutine when the clock
				// says it ran long: the fixed clock's steps make it
				// do so at the same points on every run.
				flags = []string{"--fixed-clock"}
			} else {
				prog = testProgram(t, c.prog)
			}
			type cost struct{ workCalls, workInclusive, diveCalls uint64 }
			var want cost
			var returnDepth int
			for i, mode := range c.modes {
				// A mode may take icount flags: the smallest quantum
				// switches threads in the middle of everything.
				mode, more, _ := strings.Cut(mode, " ")
				out, status := runJudge(t, nil, prog, mode)
				r := runIcount(t, nil, append(slices.Clip(flags), strings.Fields(more)...), prog, mode)
				if r.profile == nil || r.status != status || r.stdout != out {
					t.Fatalf("%s: status %d, stdout %q; the judge's %d, %q\n%s", mode, r.status, r.stdout, status, out, r.stderr)
				}
				checkTree(t, r.profile)
				d := treeDepth(r.profile.CallTree)
				if i == 0 {
					returnDepth = d
				} else if d > returnDepth+unwindDepth {
					t.Errorf("%s: the tree is %d deep, returning %d", mode, d, returnDepth)
				}
				var got cost
				var echoCalls uint64 // Go's switch mode: its other goroutine's calls, 17 deep
				var goCalls uint64   // Go's grow and switch modes: the goroutine started each round
				tree := r.profile.CallTree
				for _, n := range tree {
					parent := ""
					if n.Parent >= 0 {
						parent = demangledName(tree[n.Parent].Function)
					}
					if parent == "work" && interruption[n.Function] {
						// Go's scheduler interrupted work with a
						// signal: not work's own cost.
						got.workInclusive -= n.Inclusive
					}
					switch demangledName(n.Function) {
					case "work":
						got.workCalls += n.Calls
						got.workInclusive += n.Inclusive
						if parent != "rounds" {
							t.Errorf("%s: work called from %s, want rounds alone", mode, parent)
						}
					case "dive":
						got.diveCalls += n.Calls
					case "echo":
						echoCalls += n.Calls
					case "rounds.func1":
						goCalls += n.Calls
					}
				}
				var diffs []string
				if got.workCalls != 200 || got.diveCalls != 200*17 {
					diffs = append(diffs, fmt.Sprintf("%s: work called %d times, dive %d; want 200 and %d", mode, got.workCalls, got.diveCalls, 200*17))
				}
				if wantEcho := map[bool]uint64{true: 17}[mode == "switch"]; echoCalls != wantEcho {
					diffs = append(diffs, fmt.Sprintf("%s: echo called %d times, want %d", mode, echoCalls, wantEcho))
				}
				if wantGo := map[bool]uint64{true: 200}[mode == "grow" || mode == "switch"]; strings.HasPrefix(c.prog, "go/") && goCalls != wantGo {
					diffs = append(diffs, fmt.Sprintf("%s: the round's goroutine started %d times, want %d", mode, goCalls, wantGo))
				}
				if i == 0 {
					want = got
				} else if got != want {
					diffs = append(diffs, fmt.Sprintf("%s: work %d calls, %d inclusive, dive %d calls; returning: %+v", mode, got.workCalls, got.workInclusive, got.diveCalls, want))
				}
				if len(diffs) > 0 {
					t.Error(strings.Join(diffs, "\n"))
				}
			}
		})
	}
}

// interruption are the functions a Go program's thread runs when a signal
// interrupts it, called from where it was interrupted: the runtime's
// signal handler, and the call its handler makes the thread run as it
// returns, to preempt it (the fixed clock's steps make where the
// scheduler asks for that differ between modes, and be the same on every
// run).
var interruption = map[string]bool{"runtime.sigtramp.abi0": true, "runtime.asyncPreempt.abi0": true}

// demangledName is the name of one of the unwind programs' functions,
// without the C++ mangling of a static function taking an int or nothing,
// or Go's package.
func demangledName(f string) string {
	f = strings.TrimPrefix(f, "main.")
	if strings.HasPrefix(f, "_ZL") {
		f = strings.TrimLeft(f[3:], "0123456789")
		f = strings.TrimSuffix(strings.TrimSuffix(f, "i"), "v")
	}
	return f
}

// treeDepth is the depth of the deepest node of a calling-context tree
// (the root's is 0).
func treeDepth(tree []profile.CallNode) int {
	depth := make([]int, len(tree))
	deepest := 0
	for i, n := range tree {
		if n.Parent >= 0 && n.Parent < i {
			depth[i] = depth[n.Parent] + 1
		}
		deepest = max(deepest, depth[i])
	}
	return deepest
}
