package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// checkTree asserts the invariants of attribution: function self costs sum
// to the total, the root's inclusive cost is the total, and every node's
// inclusive cost is its self cost plus its children's inclusive costs.
func checkTree(t *testing.T, p *profile.Profile) {
	t.Helper()
	var self uint64
	for _, f := range p.Functions {
		self += f.Self
	}
	tree := p.CallTree
	if len(tree) == 0 {
		t.Fatal("no call tree")
	}
	if self != p.Totals.Instructions || tree[0].Inclusive != p.Totals.Instructions {
		t.Errorf("total %d, sum of self %d, root inclusive %d", p.Totals.Instructions, self, tree[0].Inclusive)
	}
	children := make([]uint64, len(tree))
	for i, n := range tree[1:] {
		if n.Parent < 0 || n.Parent > i {
			t.Fatalf("node %d has parent %d", i+1, n.Parent)
		}
		children[n.Parent] += n.Inclusive
	}
	for i, n := range tree {
		if n.Inclusive != n.Self+children[i] {
			t.Errorf("node %d (%s): inclusive %d, self %d + children %d", i, n.Function, n.Inclusive, n.Self, children[i])
		}
	}
}

func functionByName(p *profile.Profile, name string) (profile.FunctionCount, bool) {
	for _, f := range p.Functions {
		if f.Name == name {
			return f, true
		}
	}
	return profile.FunctionCount{}, false
}

var functionLine = regexp.MustCompile(`(?m)^# function: (\S+) self=(\d+) inclusive=(\d+) calls=(\d+)$`)

// TestAttributionExact checks every function's self and inclusive cost and
// call count on hand-written assembly whose call graph is worked out in
// its header, on both arches: nested calls (callgraph.S), and an
// interpreter's moves (dispatch.S: indirect jumps within a function, one
// call site calling several functions, a tail call by an indirect jump).
func TestAttributionExact(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"amd64/callgraph", "amd64/dispatch", "arm64/dispatch"} {
		src := filepath.Join(repoRoot, "testdata", prog+".S")
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		want := functionLine.FindAllStringSubmatch(string(b), -1)
		if len(want) == 0 {
			t.Fatalf("%s has no `# function:` lines", src)
		}
		for _, variant := range []string{prog, prog + "-pie"} {
			t.Run(variant, func(t *testing.T) {
				t.Parallel()
				r := runIcount(t, nil, nil, testProgram(t, variant))
				if r.profile == nil {
					t.Fatalf("no profile\n%s", r.stderr)
				}
				checkTree(t, r.profile)
				for _, w := range want {
					f, ok := functionByName(r.profile, w[1])
					got := []string{strconv.FormatUint(f.Self, 10), strconv.FormatUint(f.Inclusive, 10), strconv.FormatUint(f.Calls, 10)}
					if !ok || strings.Join(got, " ") != strings.Join(w[2:], " ") {
						t.Errorf("%s self, inclusive, calls = %v; want %v", w[1], got, w[2:])
					}
				}
			})
		}
	}
}

// TestAttributionInvariants runs programs with deep recursion, longjmp out
// of a deep call chain and C++ exceptions across frames: the tree stays
// consistent, and after each longjmp or catch the stack is back where it
// was.
func TestAttributionInvariants(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"c/crunch-glibc", "c/textstat-musl", "c/longjmp-glibc", "c/longjmp-musl", "cxx/throw"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			r := runIcount(t, nil, nil, testProgram(t, prog))
			if r.profile == nil || r.status != 0 {
				t.Fatalf("status %d\n%s", r.status, r.stderr)
			}
			checkTree(t, r.profile)
			// Nothing a longjmp or throw left behind: body and catcher are
			// children of main only, and after follows body.
			for _, n := range r.profile.CallTree {
				parent := ""
				if n.Parent >= 0 {
					parent = r.profile.CallTree[n.Parent].Function
				}
				switch n.Function {
				case "after":
					if parent != "body" {
						t.Errorf("after called from %s, want body", parent)
					}
				case "body", "_ZL7catcherv":
					if parent != "main" {
						t.Errorf("%s called from %s, want main", n.Function, parent)
					}
				}
			}
		})
	}
}

// TestAttributionMatchesCallgrind compares the self cost of a musl-static
// program's own functions with callgrind's per-function Ir: equal, exactly.
// (Functions that call musl's size-less assembly symbols, such as memcpy or
// setjmp, differ: valgrind gives those symbols' cost to the caller, icount
// to the symbol. callgraph.c calls none of them.)
func TestAttributionMatchesCallgrind(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "c/callgraph-musl")
	out := filepath.Join(t.TempDir(), "callgrind.out")
	cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file="+out, prog)
	cmd.Env = []string{}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("valgrind: %v\n%s", err, b)
	}
	ann, err := exec.Command("callgrind_annotate", "--threshold=100", out).Output()
	if err != nil {
		t.Fatalf("callgrind_annotate: %v", err)
	}
	// Lines like "13,200 (31.41%)  ???:mid [/path]"; recursion shows as fib'2.
	line := regexp.MustCompile(`(?m)^\s*([\d,]+) \([^)]*\)\s+\S*?:([A-Za-z_][\w.]*?)(?:'\d+)? \[`)
	cg := map[string]uint64{}
	for _, m := range line.FindAllStringSubmatch(string(ann), -1) {
		n, _ := strconv.ParseUint(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		cg[m[2]] += n
	}
	r := runIcount(t, nil, []string{"--argv0", prog}, prog)
	if r.profile == nil {
		t.Fatal(r.stderr)
	}
	for _, name := range []string{"main", "setup", "body", "mid", "leaf", "fib"} {
		f, _ := functionByName(r.profile, name)
		if f.Self == 0 || f.Self != cg[name] {
			t.Errorf("%s: icount self %d, callgrind Ir %d", name, f.Self, cg[name])
		}
	}
}

// TestCollect counts only the body of a program whose setup and body are
// separate functions: the total is the body's inclusive cost in a full run.
func TestCollect(t *testing.T) {
	t.Parallel()
	prog := testProgram(t, "c/callgraph-musl")
	full := runIcount(t, nil, nil, prog)
	body, ok := functionByName(full.profile, "body")
	if !ok {
		t.Fatal("no body in the full run")
	}
	r := runIcount(t, nil, []string{"--collect", "body"}, prog)
	if r.profile == nil || r.profile.Region == nil {
		t.Fatalf("no region in the profile\n%s", r.stderr)
	}
	got := r.profile.Totals.Instructions
	if got != body.Inclusive || got+r.profile.Region.OutsideInstructions != full.profile.Totals.Instructions {
		t.Errorf("collected %d (+%d outside), want body's inclusive %d of %d", got, r.profile.Region.OutsideInstructions, body.Inclusive, full.profile.Totals.Instructions)
	}
	if f, _ := functionByName(r.profile, "setup"); f.Self != 0 {
		t.Errorf("setup counted inside the region: %d", f.Self)
	}
	bad := runIcount(t, nil, []string{"--collect", "no_such_function"}, prog)
	if bad.status == 0 || !strings.Contains(bad.stderr, "no_such_function") {
		t.Errorf("--collect of a missing function: status %d, %s", bad.status, bad.stderr)
	}
}

// TestCallSitesAcrossTableGrowth runs manycalls (testdata/ARCH/manycalls.S:
// 3,000 calls of distinct functions, during which the block table grows
// four times as the blocks they enter are first seen) with per-line
// attribution, on both arches: every function is called once, from _start,
// at its own call instruction, the calls one instruction apart. A block
// entered as the table grew once followed another block than the call
// that preceded it, and was entered by a jump from nowhere.
func TestCallSitesAcrossTableGrowth(t *testing.T) {
	t.Parallel()
	for arch, callSize := range map[string]uint64{"amd64": 5, "arm64": 4} {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			r := runIcount(t, nil, []string{"--lines"}, testProgram(t, arch+"/manycalls"))
			if r.profile == nil || r.status != 184 {
				t.Fatalf("status %d\n%s", r.status, r.stderr)
			}
			checkTree(t, r.profile)
			sites := make([]uint64, 3000)
			for _, n := range r.profile.CallTree {
				var i int
				if _, err := fmt.Sscanf(n.Function, "f%d", &i); err != nil || i < 0 || i >= len(sites) {
					continue
				}
				switch {
				case n.Calls != 1 || n.Parent != 0 || n.Call == nil || n.Call.Jump || sites[i] != 0:
					t.Errorf("%s: %d calls from node %d, entered at %+v; want one call from _start", n.Function, n.Calls, n.Parent, n.Call)
				default:
					sites[i] = n.Call.Addr
				}
			}
			for i := 1; i < len(sites); i++ {
				if sites[i] != sites[i-1]+callSize {
					t.Errorf("f%d called at %#x, f%d at %#x: want %d bytes apart", i-1, sites[i-1], i, sites[i], callSize)
				}
			}
		})
	}
}
