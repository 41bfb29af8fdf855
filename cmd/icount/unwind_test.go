package main

import (
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// unwindDepth bounds the calling-context tree of the unwind programs: the
// dive is 16 deep below a few frames of start-up, and a tree that keeps
// frames an unusual exit left behind grows a level per round (200).
const unwindDepth = 40

// TestUnwindProperty runs the programs that leave frames without returning
// in every way a C or C++ program does (testdata/c/unwind.c,
// testdata/cxx/unwind.cc: longjmp, a signal handler that never returns,
// swapcontext to another stack, C++ exceptions), on both arches, 200
// rounds each, and the same work returning normally. In every mode the
// output is the judge's, the tree holds its invariants and stays shallow,
// and the work done before each exit is charged as without it: work is
// called from rounds alone (every round runs in one frame of rounds, which
// each exit leaves behind), with the calls and inclusive cost of the
// return mode, and so is dive.
func TestUnwindProperty(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog  string
		modes []string
	}{
		{"c/unwind-glibc", []string{"return", "longjmp", "signal", "ucontext"}},
		{"arm64/c/unwind-glibc", []string{"return", "longjmp", "signal", "ucontext"}},
		{"cxx/unwind", []string{"return", "throw"}},
		{"arm64/cxx/unwind", []string{"return", "throw"}},
	} {
		t.Run(c.prog, func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, c.prog)
			type cost struct{ workCalls, workInclusive, diveCalls uint64 }
			var want cost
			for i, mode := range c.modes {
				out, status := runJudge(t, nil, prog, mode)
				r := runIcount(t, nil, nil, prog, mode)
				if r.profile == nil || r.status != status || r.stdout != out {
					t.Fatalf("%s: status %d, stdout %q; the judge's %d, %q\n%s", mode, r.status, r.stdout, status, out, r.stderr)
				}
				checkTree(t, r.profile)
				if d := treeDepth(r.profile.CallTree); d > unwindDepth {
					t.Errorf("%s: the tree is %d deep, want at most %d", mode, d, unwindDepth)
				}
				var got cost
				tree := r.profile.CallTree
				for _, n := range tree {
					parent := ""
					if n.Parent >= 0 {
						parent = demangledName(tree[n.Parent].Function)
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
					}
				}
				if got.workCalls != 200 || got.diveCalls != 200*17 {
					t.Errorf("%s: work called %d times, dive %d; want 200 and %d", mode, got.workCalls, got.diveCalls, 200*17)
				}
				if i == 0 {
					want = got
				} else if got != want {
					t.Errorf("%s: work %d calls, %d inclusive, dive %d calls; returning: %+v", mode, got.workCalls, got.workInclusive, got.diveCalls, want)
				}
			}
		})
	}
}

// demangledName is the name of one of the unwind programs' functions,
// without the C++ mangling of a static function taking an int or nothing.
func demangledName(f string) string {
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
