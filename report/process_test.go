package report

import (
	"github.com/icount-dev/icount/count"
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
func tree() *count.Profile {
	argv := []string{"sh", "-c", "/bin/true; (exit 3)"}
	sh := count.Binary{Path: "/bin/sh", Size: 125560, SHA256: "5h"}
	tr := count.Binary{Path: "/bin/true", Size: 35336, SHA256: "7e"}
	fc := func(module, name string, addr, self, incl, blocks uint64) count.FunctionCount {
		f := count.FunctionCount{Name: name, Module: module, Addr: addr, Self: self, Inclusive: incl, Calls: 1, Blocks: blocks}
		if module == "true" && name == "main" {
			f.File, f.Line = "/src/true.c", 4
		}
		return f
	}
	procs := []count.Process{
		{PID: 1000, Parent: -1, Argv: argv, Binary: sh, Exit: count.ProcessExit{Status: 0},
			Totals:    count.Totals{Instructions: 10000, Blocks: 2500, DistinctBlocks: 300, Syscalls: 20},
			Syscalls:  map[string]uint64{"clone": 2, "wait4": 2, "exit_group": 1, "rt_sigaction": 15},
			Functions: []count.FunctionCount{fc("sh", "evaltree", 0x402000, 6000, 6000, 1500), fc("sh", "main", 0x401000, 4000, 10000, 1000)}},
		{PID: 1001, PPID: 1000, Parent: 0, Argv: argv, Binary: sh, Exit: count.ProcessExit{Exec: true},
			Totals:    count.Totals{Instructions: 1500, Blocks: 400, DistinctBlocks: 50, Syscalls: 3},
			Syscalls:  map[string]uint64{"execve": 1, "rt_sigaction": 2},
			Functions: []count.FunctionCount{fc("sh", "evaltree", 0x402000, 1000, 1500, 250), fc("sh", "shellexec", 0x403000, 500, 500, 150)}},
		{PID: 1001, PPID: 1000, Parent: 1, Exec: true, Argv: []string{"/bin/true"}, Binary: tr, Exit: count.ProcessExit{Status: 0},
			Totals:    count.Totals{Instructions: 800, Blocks: 200, DistinctBlocks: 40, Syscalls: 2},
			Syscalls:  map[string]uint64{"brk": 1, "exit_group": 1},
			Functions: []count.FunctionCount{fc("true", "_start", 0x401000, 500, 800, 120), fc("true", "main", 0x401100, 300, 300, 80)}},
		{PID: 1002, PPID: 1000, Parent: 0, Argv: argv, Binary: sh, Exit: count.ProcessExit{Status: 3},
			Totals:    count.Totals{Instructions: 700, Blocks: 180, DistinctBlocks: 30, Syscalls: 1},
			Syscalls:  map[string]uint64{"exit_group": 1},
			Functions: []count.FunctionCount{fc("sh", "evaltree", 0x402000, 700, 700, 180)}},
	}
	return &count.Profile{
		Schema: count.Schema,
		Meta: count.Meta{IcountVersion: "1.0", UnicornVersion: "2.1.1", Arch: "x86_64", CPUModel: "qemu64",
			Binary: sh, Args: argv, Env: []string{}, Clock: count.Clock{Mode: "host"}},
		Totals:   count.Totals{Instructions: 13000, Blocks: 3280, DistinctBlocks: 420, Syscalls: 26},
		Syscalls: map[string]uint64{"clone": 2, "wait4": 2, "exit_group": 3, "rt_sigaction": 17, "execve": 1, "brk": 1},
		Functions: []count.FunctionCount{
			fc("sh", "evaltree", 0x402000, 7700, 8200, 1930),
			fc("sh", "main", 0x401000, 4000, 10000, 1000),
			fc("true", "_start", 0x401000, 500, 800, 120),
			fc("sh", "shellexec", 0x403000, 500, 500, 150),
			fc("true", "main", 0x401100, 300, 300, 80),
		},
		CallTree: []count.CallNode{
			{Parent: -1, Function: "main", Module: "sh", Self: 4000, Inclusive: 10000, Calls: 1},
			{Parent: 0, Function: "evaltree", Module: "sh", Self: 6000, Inclusive: 6000, Calls: 1},
			{Parent: -1, Function: "evaltree", Module: "sh", Self: 1000, Inclusive: 1500, Calls: 1, Process: 1},
			{Parent: 2, Function: "shellexec", Module: "sh", Self: 500, Inclusive: 500, Calls: 1, Process: 1},
			{Parent: -1, Function: "_start", Module: "true", Self: 500, Inclusive: 800, Calls: 1, Process: 2},
			{Parent: 4, Function: "main", Module: "true", Self: 300, Inclusive: 300, Calls: 1, Process: 2},
			{Parent: -1, Function: "evaltree", Module: "sh", Self: 700, Inclusive: 700, Calls: 1, Process: 3},
		},
		Mappings: []count.Mapping{
			{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 10000, Blocks: 2500},
			{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 1500, Blocks: 400, Process: 1},
			{Start: 0x400000, Limit: 0x408000, File: "/bin/true", Module: "true", Instructions: 800, Blocks: 200, Process: 2},
			{Start: 0x400000, Limit: 0x420000, File: "/bin/sh", Module: "sh", Instructions: 700, Blocks: 180, Process: 3},
		},
		Lines: []count.LineCount{
			{Function: "main", Module: "true", File: "/src/true.c", Line: 5, Self: 300, Process: 2},
		},
		HotBlocks: []count.BlockCount{{Addr: 0x401000, Size: 8, Executions: 10, Instructions: 30, Function: "_start", Process: 2}},
		Processes: procs,
		Exit:      count.Exit{Status: 0, Complete: true},
	}
}
