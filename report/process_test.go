package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// tree is a run of four programs in three processes:
//
//	0: pid 1000  sh -c '/bin/true; (exit 3)'   10,000 instructions
//	1: pid 1001  sh (its fork), until it execs  1,500
//	2: pid 1001  /bin/true (the exec)             800
//	3: pid 1002  sh (a fork), exit 3              700
//
// sh and true are both mapped at 0x400000: sh's main and true's _start
// have one address. The run's functions, syscalls, totals are the
// entries' merged or summed.
func tree() *profile.Profile {
	argv := []string{"sh", "-c", "/bin/true; (exit 3)"}
	sh := profile.Binary{Path: "/bin/sh", Size: 125560, SHA256: "5h"}
	tr := profile.Binary{Path: "/bin/true", Size: 35336, SHA256: "7e"}
	fc := func(module, name string, addr, self, incl, blocks uint64) profile.FunctionCount {
		f := profile.FunctionCount{Name: name, Module: module, Addr: addr, Self: self, Inclusive: incl, Calls: 1, Blocks: blocks}
		if module == "true" && name == "main" {
			f.File, f.Line = "/src/true.c", 4
		}
		return f
	}
	procs := []profile.Process{
		{PID: 1000, Parent: -1, Argv: argv, Binary: sh, Exit: profile.ProcessExit{Status: 0},
			Totals:    profile.Totals{Instructions: 10000, Blocks: 2500, DistinctBlocks: 300, Syscalls: 20},
			Syscalls:  map[string]uint64{"clone": 2, "wait4": 2, "exit_group": 1, "rt_sigaction": 15},
			Functions: []profile.FunctionCount{fc("sh", "evaltree", 0x402000, 6000, 6000, 1500), fc("sh", "main", 0x401000, 4000, 10000, 1000)}},
		{PID: 1001, PPID: 1000, Parent: 0, Argv: argv, Binary: sh, Exit: profile.ProcessExit{Exec: true},
			Totals:    profile.Totals{Instructions: 1500, Blocks: 400, DistinctBlocks: 50, Syscalls: 3},
			Syscalls:  map[string]uint64{"execve": 1, "rt_sigaction": 2},
			Functions: []profile.FunctionCount{fc("sh", "evaltree", 0x402000, 1000, 1500, 250), fc("sh", "shellexec", 0x403000, 500, 500, 150)}},
		{PID: 1001, PPID: 1000, Parent: 1, Exec: true, Argv: []string{"/bin/true"}, Binary: tr, Exit: profile.ProcessExit{Status: 0},
			Totals:    profile.Totals{Instructions: 800, Blocks: 200, DistinctBlocks: 40, Syscalls: 2},
			Syscalls:  map[string]uint64{"brk": 1, "exit_group": 1},
			Functions: []profile.FunctionCount{fc("true", "_start", 0x401000, 500, 800, 120), fc("true", "main", 0x401100, 300, 300, 80)}},
		{PID: 1002, PPID: 1000, Parent: 0, Argv: argv, Binary: sh, Exit: profile.ProcessExit{Status: 3},
			Totals:    profile.Totals{Instructions: 700, Blocks: 180, DistinctBlocks: 30, Syscalls: 1},
			Syscalls:  map[string]uint64{"exit_group": 1},
			Functions: []profile.FunctionCount{fc("sh", "evaltree", 0x402000, 700, 700, 180)}},
	}
	return &profile.Profile{
		Schema: profile.Schema,
		Meta: profile.Meta{
			Settings: profile.Settings{IcountVersion: "1.0", UnicornVersion: "2.1.1", Arch: "x86_64", CPUModel: "qemu64", Args: argv, Env: []string{}, Clock: profile.Clock{Mode: "host"}},
			Inputs:   profile.Inputs{Stdio: []string{"pipe", "pipe", "pipe"}},
			Record:   profile.Record{Binary: sh}},
		Totals:   profile.Totals{Instructions: 13000, Blocks: 3280, DistinctBlocks: 420, Syscalls: 26},
		Syscalls: map[string]uint64{"clone": 2, "wait4": 2, "exit_group": 3, "rt_sigaction": 17, "execve": 1, "brk": 1},
		Functions: []profile.FunctionCount{
			{Name: "evaltree", Module: "sh", Addr: 0x402000, Self: 7700, Inclusive: 8200, Calls: 3, Blocks: 1930},
			fc("sh", "main", 0x401000, 4000, 10000, 1000),
			fc("true", "_start", 0x401000, 500, 800, 120),
			fc("sh", "shellexec", 0x403000, 500, 500, 150),
			fc("true", "main", 0x401100, 300, 300, 80),
		},
		CallTree: []profile.CallNode{
			{Parent: -1, Function: "main", Module: "sh", Self: 4000, Inclusive: 10000, Calls: 1},
			{Parent: 0, Function: "evaltree", Module: "sh", Self: 6000, Inclusive: 6000, Calls: 1},
			{Parent: -1, Function: "evaltree", Module: "sh", Self: 1000, Inclusive: 1500, Calls: 1, Process: 1},
			{Parent: 2, Function: "shellexec", Module: "sh", Self: 500, Inclusive: 500, Calls: 1, Process: 1},
			{Parent: -1, Function: "_start", Module: "true", Self: 500, Inclusive: 800, Calls: 1, Process: 2},
			{Parent: 4, Function: "main", Module: "true", Self: 300, Inclusive: 300, Calls: 1, Process: 2},
			{Parent: -1, Function: "evaltree", Module: "sh", Self: 700, Inclusive: 700, Calls: 1, Process: 3},
		},
		Mappings: []profile.Mapping{
			{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 10000, Blocks: 2500},
			{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 1500, Blocks: 400, Process: 1},
			{Start: 0x400000, Limit: 0x408000, File: "/bin/true", Module: "true", Instructions: 800, Blocks: 200, Process: 2},
			{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 700, Blocks: 180, Process: 3},
		},
		Lines: []profile.LineCount{
			{Function: "main", Module: "true", File: "/src/true.c", Line: 5, Self: 300, Process: 2},
		},
		HotBlocks: []profile.BlockCount{{Addr: 0x401000, Size: 8, Executions: 10, Instructions: 30, Function: "_start", Process: 2}},
		Processes: procs,
		Exit:      profile.Exit{Status: 0, Complete: true},
	}
}

func TestProcessesGolden(t *testing.T) {
	p := tree()
	var sum bytes.Buffer
	Summary(&sum, p, 2)
	golden(t, "processes-summary.golden", sum.Bytes())

	var cg bytes.Buffer
	if err := WriteCallgrind(&cg, p); err != nil {
		t.Fatal(err)
	}
	golden(t, "processes-callgrind.golden", cg.Bytes())

	var bench bytes.Buffer
	if err := WriteBench(&bench, p, "script"); err != nil {
		t.Fatal(err)
	}
	golden(t, "processes-bench.golden", bench.Bytes())

	var pp bytes.Buffer
	if err := WritePprof(&pp, p); err != nil {
		t.Fatal(err)
	}
	back, err := pprofile.Parse(&pp)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "processes-pprof.golden", []byte(back.String()))
}

// TestProcessSummaryRest: past maxProcessLines, the rest is summed on one
// line.
func TestProcessSummaryRest(t *testing.T) {
	p := tree()
	first := p.Processes[0]
	p.Processes = nil
	p.Totals = profile.Totals{}
	for i := range 10 {
		pr := first
		pr.PID, pr.Parent, pr.Exit = 1000+i, i-1, profile.ProcessExit{Status: i}
		pr.Totals = profile.Totals{Instructions: uint64(100 * (i + 1))}
		p.Processes = append(p.Processes, pr)
		p.Totals.Instructions += pr.Totals.Instructions
	}
	var b bytes.Buffer
	processLines(&b, p)
	want := `icount: instructions by process (10 programs in 10 processes):
icount:            1,000  18.2%  pid 1009   exit 9             sh -c /bin/true; (exit 3)
icount:              900  16.4%  pid 1008   exit 8             sh -c /bin/true; (exit 3)
icount:              800  14.5%  pid 1007   exit 7             sh -c /bin/true; (exit 3)
icount:              700  12.7%  pid 1006   exit 6             sh -c /bin/true; (exit 3)
icount:              600  10.9%  pid 1005   exit 5             sh -c /bin/true; (exit 3)
icount:              500   9.1%  pid 1004   exit 4             sh -c /bin/true; (exit 3)
icount:              400   7.3%  pid 1003   exit 3             sh -c /bin/true; (exit 3)
icount:              300   5.5%  pid 1002   exit 2             sh -c /bin/true; (exit 3)
icount:              300   5.5%  ... 2 more
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestProcessSums: every format gives each process its own counts.
func TestProcessSums(t *testing.T) {
	p := tree()
	back, err := Pprof(p)
	if err != nil {
		t.Fatal(err)
	}
	byPID := map[int64][2]int64{}
	roots := map[string]int64{}
	for _, s := range back.Sample {
		if len(s.NumLabel["pid"]) != 1 || len(s.Label["process"]) != 1 {
			t.Fatalf("sample without its process: %v %v", s.NumLabel, s.Label)
		}
		pid := s.NumLabel["pid"][0]
		v := byPID[pid]
		byPID[pid] = [2]int64{v[0] + s.Value[0], v[1] + s.Value[1]}
		root := s.Location[len(s.Location)-1].Line[0].Function.Name
		roots[root+" ["+s.Label["process"][0]+"]"] += s.Value[0]
	}
	want := map[int64][2]int64{1000: {10000, 2500}, 1001: {2300, 600}, 1002: {700, 180}}
	if !reflect.DeepEqual(byPID, want) {
		t.Errorf("pprof by pid %v, want %v", byPID, want)
	}
	wantRoots := map[string]int64{"pid 1000 sh [sh]": 10000, "pid 1001 sh [sh]": 1500, "pid 1001 true [true]": 800, "pid 1002 sh [sh]": 700}
	if !reflect.DeepEqual(roots, wantRoots) {
		t.Errorf("pprof roots %v, want %v", roots, wantRoots)
	}
	// true's _start shares sh's main's address, in another mapping.
	for _, l := range back.Location {
		if fn := l.Line[0].Function.Name; fn == "_start" && (l.Mapping == nil || l.Mapping.File != "/bin/true") {
			t.Errorf("true's _start is in mapping %+v", l.Mapping)
		}
	}

	for i, pr := range p.Processes {
		var b bytes.Buffer
		if err := WriteCallgrindPart(&b, p, i); err != nil {
			t.Fatal(err)
		}
		if got := callgrindSelf(t, b.String()); got != pr.Totals.Instructions {
			t.Errorf("part %d: costs sum to %d, want %d", i+1, got, pr.Totals.Instructions)
		}
		if !strings.Contains(b.String(), fmt.Sprintf("pid: %d\ncmd: %s\npart: %d\n", pr.PID, strings.Join(pr.Argv, " "), i+1)) {
			t.Errorf("part %d: no pid, cmd and part header:\n%s", i+1, b.String())
		}
	}
	if err := WriteCallgrindPart(io.Discard, p, 4); err == nil {
		t.Error("part 5 of 4 written")
	}
}

// callgrindSelf sums a callgrind file's self costs: the cost lines that do
// not follow calls=.
func callgrindSelf(t *testing.T, file string) uint64 {
	var sum uint64
	call := false
	for _, line := range strings.Split(file, "\n") {
		var pos, cost uint64
		switch {
		case strings.HasPrefix(line, "calls="):
			call = true
		case len(line) > 0 && line[0] >= '0' && line[0] <= '9':
			if _, err := fmt.Sscanf(line, "%d %d", &pos, &cost); err != nil {
				t.Fatalf("cost line %q: %v", line, err)
			}
			if !call {
				sum += cost
			}
			call = false
		}
	}
	return sum
}

// TestCallgrindAnnotateParts runs callgrind_annotate on each part: it
// reads the file and prints the part's total and command.
func TestCallgrindAnnotateParts(t *testing.T) {
	if _, err := exec.LookPath("callgrind_annotate"); err != nil {
		t.Skip("callgrind_annotate is not installed")
	}
	p := tree()
	dir := t.TempDir()
	for i, pr := range p.Processes {
		file := filepath.Join(dir, fmt.Sprintf("callgrind.out.%d", i+1))
		var b bytes.Buffer
		if err := WriteCallgrindPart(&b, p, i); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("callgrind_annotate", file).CombinedOutput()
		if err != nil {
			t.Fatalf("callgrind_annotate %s: %v\n%s", file, err, out)
		}
		s := string(out)
		target := fmt.Sprintf("Profiled target:  %s (PID %d, part %d)", strings.Join(pr.Argv, " "), pr.PID, i+1)
		total := fmt.Sprintf("%s (100.0%%)  PROGRAM TOTALS", Group(pr.Totals.Instructions))
		if !strings.Contains(s, target) || !strings.Contains(s, total) || strings.Contains(s, "WARNING") {
			t.Errorf("part %d: want %q and %q, no warning, in:\n%s", i+1, target, total, s)
		}
	}
}

// TestPprofTool: go tool pprof separates the processes, by the pid label
// (-tagfocus) and by the root frames (-traces).
func TestPprofTool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	file := filepath.Join(t.TempDir(), "tree.pb.gz")
	var b bytes.Buffer
	if err := WritePprof(&b, tree()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pprof := func(args ...string) string {
		out, err := exec.Command("go", append(append([]string{"tool", "pprof"}, args...), file)...).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	for _, c := range []struct {
		focus string
		total string
	}{{"pid=1000", "10000"}, {"pid=1001", "2300"}, {"pid=1002", "700"}, {"process=true", "800"}} {
		out := pprof("-top", "-nodefraction=0", "-tagfocus="+c.focus)
		if !strings.Contains(out, "Showing nodes accounting for "+c.total+", ") {
			t.Errorf("-tagfocus=%s: want a total of %s in:\n%s", c.focus, c.total, out)
		}
	}
	traces := pprof("-traces", "-tagfocus=pid=1001")
	if strings.Contains(traces, "pid 1000") || strings.Contains(traces, "pid 1002") {
		t.Errorf("-tagfocus=pid=1001 keeps other processes:\n%s", traces)
	}
	for _, want := range []string{
		"       300   main\n             _start\n             pid 1001 true\n",
		"       500   _start\n             pid 1001 true\n",
		"       500   shellexec\n             evaltree\n             pid 1001 sh\n",
		"      1000   evaltree\n             pid 1001 sh\n",
	} {
		if !strings.Contains(traces, want) {
			t.Errorf("-traces: want\n%s\nin:\n%s", want, traces)
		}
	}
}

// TestProcessTreeRoundTrip: a Profile of processes reads back as written.
func TestProcessTreeRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tree.json")
	var b bytes.Buffer
	if err := profile.Encode(&b, tree()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := profile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, tree()) {
		t.Errorf("reloaded profile differs:\n%+v\n%+v", back, tree())
	}
}

// TestProcessTreeRejects: a process tree icount would not write is
// refused, with the file and what is wrong.
func TestProcessTreeRejects(t *testing.T) {
	for _, c := range []struct {
		change func(p *profile.Profile)
		msg    string
	}{
		{func(p *profile.Profile) { p.Processes[0].Parent = 0 }, "processes entry 0 (pid 1000) has parent 0"},
		{func(p *profile.Profile) { p.Processes[2].Parent = 2 }, "processes entry 2 (pid 1001) has parent 2"},
		{func(p *profile.Profile) { p.Processes[3].Parent = -1 }, "processes entry 3 (pid 1002) has parent -1"},
		{func(p *profile.Profile) { p.Processes[3].Totals.Instructions++ }, "the processes' totals (13001 instructions, 3280 block executions, 420 distinct blocks, 26 system calls) do not sum to the run's (13000 instructions, 3280 block executions, 420 distinct blocks, 26 system calls)"},
		{func(p *profile.Profile) {
			p.Processes[1].Totals.Syscalls = 1 << 61
			p.Processes[2].Totals.Syscalls = 1 << 62
		}, "the processes' totals (13000 instructions, 3280 block executions, 420 distinct blocks, 6917529027641081877 system calls) do not sum"},
		{func(p *profile.Profile) { p.Processes[1].Totals.Syscalls = 1 << 63 }, "processes[1]: a count of 9223372036854775808 is over 4611686018427387904"},
		{func(p *profile.Profile) { p.CallTree[3].Process = 2 }, "call_tree node 3 is in process 2, its parent 2 in process 1"},
		{func(p *profile.Profile) { p.CallTree[6].Process = 4 }, "call_tree node 6 names process 4 of 4"},
		{func(p *profile.Profile) { p.CallTree[4].Process = 1 }, "call_tree node 4 has parent -1"},
		{func(p *profile.Profile) { p.CallTree[1].Parent = 1 }, "call_tree node 1 has parent 1"},
		{func(p *profile.Profile) { p.HotBlocks[0].Process = 7 }, "hot_blocks[0] names process 7 of 4"},
		{func(p *profile.Profile) { p.Blocks = []profile.BlockRuns{{BlockCount: profile.BlockCount{Process: 4}}} }, "blocks[0] names process 4 of 4"},
		{func(p *profile.Profile) { p.Lines[0].Process = 4 }, "lines[0] names process 4 of 4"},
		{func(p *profile.Profile) { p.Mappings[1].Process = -1 }, "mappings[1] names process -1 of 4"},
		{func(p *profile.Profile) { p.Processes = nil }, "it has no processes"},
	} {
		p := tree()
		c.change(p)
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = profile.Parse("tree.json", b)
		if err == nil || !strings.HasPrefix(err.Error(), "tree.json: not a valid icount profile: "+c.msg) {
			t.Errorf("got %v, want %q", err, c.msg)
		}
	}
}
