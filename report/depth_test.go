package report

import (
	"bytes"
	"io"
	"testing"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// depth is a run with per-line attribution at full depth: its blocks with
// their instructions, positions and contexts, and its call sites.
//
//	main (self 8): its block ends with the call of f at 0x401008 (line 21)
//	└── f (self 6, 2 calls): square inlined (util.h:2, called at line 11),
//	    │   its block ends with a jump to g at 0x401104 (line 10)
//	    └── g (self 3, 2 entries, one cut short after its first instruction)
func depth() *profile.Profile {
	src := "/src/prog.c"
	return oneProcess(&profile.Profile{
		Schema: profile.Schema,
		Meta: profile.Meta{
			Settings: profile.Settings{IcountVersion: "1.0", UnicornVersion: "2.1.1", Arch: "x86_64", CPUModel: "qemu64", Args: []string{"prog"}, Env: []string{}, Clock: profile.Clock{Mode: "host"}},
			Inputs:   profile.Inputs{Stdio: []string{"pipe", "pipe", "pipe"}},
			Record:   profile.Record{Binary: profile.Binary{Path: "build/prog", Size: 8192, SHA256: "cc"}}},
		Mappings: []profile.Mapping{{Start: 0x401000, Limit: 0x402000, Offset: 0x1000, File: "build/prog", Module: "prog", Instructions: 17, Blocks: 6}},
		Totals:   profile.Totals{Instructions: 17, Blocks: 6, DistinctBlocks: 3, Syscalls: 0},
		Functions: []profile.FunctionCount{
			{Name: "main", Module: "prog", Addr: 0x401000, File: src, Line: 20, Self: 8, Inclusive: 17, Calls: 1, Blocks: 2},
			{Name: "f", Module: "prog", Addr: 0x401100, File: src, Line: 10, Self: 6, Inclusive: 9, Calls: 2, Blocks: 2},
			{Name: "g", Module: "prog", Addr: 0x401200, File: src, Line: 3, Self: 3, Inclusive: 3, Calls: 2, Blocks: 2},
		},
		CallTree: []profile.CallNode{
			{Parent: -1, Function: "main", Module: "prog", Self: 8, Inclusive: 17, Calls: 1},
			{Parent: 0, Function: "f", Module: "prog", Self: 6, Inclusive: 9, Calls: 2, Call: &profile.CallSite{Addr: 0x401008, Position: 1}},
			{Parent: 1, Function: "g", Module: "prog", Self: 3, Inclusive: 3, Calls: 2, Call: &profile.CallSite{Addr: 0x401104, Position: 2, Jump: true}},
		},
		Positions: []profile.Position{
			{File: src, Line: 20}, {File: src, Line: 21}, {File: src, Line: 10},
			{File: "/src/util.h", Line: 2, Inlined: []profile.InlinedCall{{Function: "square", CallFile: src, CallLine: 11}}},
			{File: src, Line: 3},
		},
		Blocks: []profile.BlockRuns{
			{BlockCount: profile.BlockCount{Addr: 0x401000, Size: 13, Executions: 2, Instructions: 8, Function: "main"},
				Length: 4, Offsets: []uint32{0, 4, 6, 8}, Positions: []int{0, 0, 1, 1}, Contexts: []profile.BlockContext{{Node: 0, Executions: 2}}},
			{BlockCount: profile.BlockCount{Addr: 0x401100, Size: 6, Executions: 2, Instructions: 6, Function: "f"},
				Length: 3, Offsets: []uint32{0, 2, 4}, Positions: []int{2, 3, 2}, Contexts: []profile.BlockContext{{Node: 1, Executions: 2}}},
			{BlockCount: profile.BlockCount{Addr: 0x401200, Size: 2, Executions: 2, Instructions: 3, Function: "g"},
				Length: 2, Offsets: []uint32{0, 1}, Positions: []int{4, 4}, Cuts: []profile.Cut{{Index: 1, Executions: 1}},
				Contexts: []profile.BlockContext{{Node: 2, Executions: 2, Cuts: []profile.Cut{{Index: 1, Executions: 1}}}}},
		},
		Lines: []profile.LineCount{
			{Function: "main", Module: "prog", File: src, Line: 20, Self: 4},
			{Function: "main", Module: "prog", File: src, Line: 21, Self: 4},
			{Function: "f", Module: "prog", File: src, Line: 10, Self: 4},
			{Function: "f", Module: "prog", Inlined: "square", File: "/src/util.h", Line: 2, Self: 2},
			{Function: "g", Module: "prog", File: src, Line: 3, Self: 3},
		},
		HotBlocks: []profile.BlockCount{},
		Exit:      profile.Exit{Status: 0, Complete: true},
	})
}

// TestDepthGolden writes the run at full depth as callgrind (instructions,
// calls at their sites) and pprof (a location per instruction, inlined
// frames, stacks through the call sites), checks that the Profile is
// valid and that pprof's samples total its counts.
func TestDepthGolden(t *testing.T) {
	p := depth()
	if err := profile.Check(p); err != nil {
		t.Fatalf("the Profile: %v", err)
	}
	var cg bytes.Buffer
	if err := WriteCallgrind(&cg, p); err != nil {
		t.Fatal(err)
	}
	golden(t, "callgrind-depth.golden", cg.Bytes())
	var b bytes.Buffer
	if err := WritePprof(&b, p); err != nil {
		t.Fatal(err)
	}
	back, err := pprofile.Parse(io.Reader(&b))
	if err != nil {
		t.Fatalf("pprof cannot parse it: %v", err)
	}
	golden(t, "pprof-depth.golden", []byte(back.String()))
	// The samples written as they are made (writeProto) read back as
	// pprof's own encoder's of the same profile, held whole.
	held, err := Pprof(p)
	if err != nil {
		t.Fatal(err)
	}
	var hb bytes.Buffer
	if err := held.Write(&hb); err != nil {
		t.Fatal(err)
	}
	heldBack, err := pprofile.Parse(&hb)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.String(), heldBack.String(); got != want {
		t.Errorf("streamed:\n%s\npprof's encoder:\n%s", got, want)
	}
	var insns, blocks int64
	for _, s := range back.Sample {
		insns += s.Value[0]
		blocks += s.Value[1]
	}
	if insns != int64(p.Totals.Instructions) || blocks != int64(p.Totals.Blocks) {
		t.Errorf("samples total %d instructions and %d blocks, the Profile %d and %d", insns, blocks, p.Totals.Instructions, p.Totals.Blocks)
	}
}
