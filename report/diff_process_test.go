package report

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// resum makes a Profile's totals and functions its processes' summed and
// merged, as the count side does.
func resum(p *profile.Profile) {
	p.Totals = profile.Totals{}
	for _, pr := range p.Processes {
		p.Totals.Instructions += pr.Totals.Instructions
		p.Totals.Blocks += pr.Totals.Blocks
		p.Totals.DistinctBlocks += pr.Totals.DistinctBlocks
		p.Totals.Syscalls += pr.Totals.Syscalls
	}
	type key struct{ module, name string }
	at := map[key]int{}
	p.Functions = nil
	for _, pr := range p.Processes {
		for _, f := range pr.Functions {
			k := key{f.Module, f.Name}
			i, ok := at[k]
			if !ok {
				i = len(p.Functions)
				at[k] = i
				p.Functions = append(p.Functions, profile.FunctionCount{Name: f.Name, Module: f.Module, Addr: f.Addr, File: f.File, Line: f.Line})
			}
			g := &p.Functions[i]
			g.Self += f.Self
			g.Inclusive += f.Inclusive
			g.Calls += f.Calls
			g.Blocks += f.Blocks
		}
	}
	sort.SliceStable(p.Functions, func(i, j int) bool { return p.Functions[i].Self > p.Functions[j].Self })
}

// treeHead is tree() one commit later: true runs 100 instructions more,
// the subshell exits 4 instead of 3, and a third child runs echo.
func treeHead() *profile.Profile {
	p := tree()
	p.Meta.Binary.SHA256 = "5h2"
	tr := &p.Processes[2]
	tr.Totals.Instructions += 100
	tr.Functions[1].Self += 100
	tr.Functions[1].Inclusive += 100
	tr.Functions[0].Inclusive += 100
	p.Processes[3].Exit.Status = 4
	fork := p.Processes[3]
	fork.PID, fork.Exit = 1003, profile.ProcessExit{Exec: true}
	fork.Totals = profile.Totals{Instructions: 400, Blocks: 100, DistinctBlocks: 20, Syscalls: 1}
	fork.Functions = []profile.FunctionCount{{Name: "shellexec", Module: "sh", Addr: 0x403000, Self: 400, Inclusive: 400, Calls: 1, Blocks: 100}}
	echo := profile.Process{PID: 1003, PPID: 1000, Parent: 4, Exec: true, Argv: []string{"/bin/echo", "hi"},
		Binary: profile.Binary{Path: "/bin/echo", SHA256: "ec"}, Exit: profile.ProcessExit{Status: 0},
		Totals:    profile.Totals{Instructions: 900, Blocks: 200, DistinctBlocks: 30, Syscalls: 3},
		Functions: []profile.FunctionCount{{Name: "main", Module: "echo", Addr: 0x401000, Self: 900, Inclusive: 900, Calls: 1, Blocks: 200}}}
	p.Processes = append(p.Processes, fork, echo)
	p.CallTree = append(p.CallTree, profile.CallNode{Parent: -1, Function: "shellexec", Module: "sh", Self: 400, Inclusive: 400, Calls: 1, Process: 4},
		profile.CallNode{Parent: -1, Function: "main", Module: "echo", Self: 900, Inclusive: 900, Calls: 1, Process: 5})
	p.CallTree[5].Self += 100
	p.CallTree[5].Inclusive += 100
	p.CallTree[4].Inclusive += 100
	p.Mappings = append(p.Mappings, profile.Mapping{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 400, Blocks: 100, Process: 4},
		profile.Mapping{Start: 0x400000, Limit: 0x408000, File: "/bin/echo", Module: "echo", Instructions: 900, Blocks: 200, Process: 5})
	resum(p)
	return p
}

// processScenarios are the process reports the golden files hold.
func processScenarios() map[string]*Report {
	base, head := Side{Label: "base.json"}, Side{Label: "head.json"}
	// A process tree that changed.
	tree := Compare(base, head, []Pair{{Base: tree(), Head: treeHead()}}, nil)
	return map[string]*Report{"processes": tree}
}

func TestDiffProcessesGolden(t *testing.T) {
	for name, r := range processScenarios() {
		for _, f := range goldenFormats {
			var b bytes.Buffer
			if err := WriteDiff(&b, r, f.format, f.opts); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "diff", name+"."+f.ext)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from the golden file; got:\n%s", golden, b.String())
			}
		}
	}
}

// TestDiffProcesses: the programs are matched by their place in the tree
// and their names; the gates still apply to the run's total.
func TestDiffProcesses(t *testing.T) {
	c := processScenarios()["processes"].Comparisons[0]
	var got []string
	for _, r := range c.Processes {
		b, h := -1, -1
		if r.Base != nil {
			b = r.Base.Index
		}
		if r.Head != nil {
			h = r.Head.Index
		}
		got = append(got, strings.Repeat(" ", r.Depth)+r.Status+" "+string(rune('0'+b+1))+string(rune('0'+h+1))+" "+SignedGroup(r.Instructions.Change()))
	}
	want := []string{"unchanged 11 0", " unchanged 22 0", "  changed 33 +100", " changed 44 0", " new 05 +400", "  new 06 +900"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows (status, base and head entry + 1, change):\n%q\nwant\n%q", got, want)
	}
	if c.Verdict.Kind != VerdictChanged || c.Totals[0].Change() != 1400 {
		t.Errorf("verdict %+v, total change %d", c.Verdict, c.Totals[0].Change())
	}
	gated := Compare(Side{}, Side{}, []Pair{{Base: tree(), Head: treeHead()}}, &Gates{FailAbove: mustLimitOf("10%")})
	if v := gated.Verdict; v.Kind != VerdictRegression || !strings.Contains(v.Line, "total instructions +1,400 (+10.77%)") {
		t.Errorf("gate on the total: %+v", v)
	}
	var back []string
	for _, r := range Compare(Side{}, Side{}, []Pair{{Base: treeHead(), Head: tree()}}, nil).Comparisons[0].Processes {
		back = append(back, r.Status)
	}
	if got := strings.Join(back, " "); got != "unchanged unchanged changed changed vanished vanished" {
		t.Errorf("head and base swapped: %s", got)
	}
	same := Compare(Side{}, Side{}, []Pair{{Base: tree(), Head: tree()}}, nil).Comparisons[0]
	if same.Verdict.Kind != VerdictUnchanged || len(same.Processes) != 4 {
		t.Errorf("a tree against itself: %+v, %d rows", same.Verdict, len(same.Processes))
	}
	// One process more and nothing else: not "unchanged".
	h := tree()
	h.Meta.Binary.SHA256 = "5h2"
	h.Processes = append(h.Processes, profile.Process{PID: 1003, PPID: 1000, Parent: 0, Argv: []string{"sh"}})
	if v := Compare(Side{}, Side{}, []Pair{{Base: tree(), Head: h}}, nil).Verdict; v.Kind != VerdictChanged {
		t.Errorf("a process more: %+v", v)
	}
}

func mustLimitOf(s string) *Limit {
	l, err := ParseLimit(s)
	if err != nil {
		panic(err)
	}
	return l
}

// TestMatchChildren: children of one signature pair by whole argv first,
// then in the order they started; fork and exec do not pair, nor forks
// that exec other programs.
func TestMatchChildren(t *testing.T) {
	pr := func(parent int, exec bool, argv ...string) profile.Process {
		return profile.Process{Parent: parent, Exec: exec, Argv: argv}
	}
	b := []profile.Process{pr(-1, false, "sh"), pr(0, false, "sort", "-n"), pr(0, false, "sort", "-r"), pr(0, false, "cc", "-O1", "a.c"),
		pr(0, false, "cc", "-O1", "b.c"), pr(0, true, "tr"), pr(0, false, "sh"), pr(0, false, "sh"), pr(7, true, "tr")}
	h := []profile.Process{pr(-1, false, "sh"), pr(0, false, "sort", "-r"), pr(0, false, "cc", "-O2", "a.c"), pr(0, false, "cc", "-O2", "b.c"),
		pr(0, false, "tr"), pr(0, false, "sh"), pr(5, true, "tr")}
	bc, hc := childrenOf(b), childrenOf(h)
	got := matchChildren(b, h, bc, hc, bc[0], hc[0])
	// sort -r with sort -r; the cc in order; the sh that runs tr with the
	// sh that runs tr; the sh that runs nothing, the exec'd tr and sort -n
	// with none.
	want := map[int]int{2: 1, 3: 2, 4: 3, 7: 5}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs %v, want %v", got, want)
	}
}
