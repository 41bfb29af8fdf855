package report

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// attributed is a Profile with everything the formats show: a call tree
// with recursion and two contexts of one function, a C++ name, per-line
// costs with inlined and unknown lines, a mapping and the mix.
//
//	_start (self 10)
//	└── main (self 100)
//	    ├── work (self 500, called 4 times)
//	    │   └── leaf (self 300, 30 calls)
//	    └── _ZN3foo3barEi = foo::bar(int) (self 80, 2 calls)
//	        └── leaf (self 10, 1 call)
func attributed() *profile.Profile {
	tree := []profile.CallNode{
		{Parent: -1, Function: "_start", Module: "prog", Self: 10, Inclusive: 1000, Calls: 1},
		{Parent: 0, Function: "main", Module: "prog", Self: 100, Inclusive: 990, Calls: 1},
		{Parent: 1, Function: "work", Module: "prog", Self: 500, Inclusive: 800, Calls: 4},
		{Parent: 2, Function: "leaf", Module: "prog", Self: 300, Inclusive: 300, Calls: 30},
		{Parent: 1, Function: "_ZN3foo3barEi", Module: "prog", Self: 80, Inclusive: 90, Calls: 2},
		{Parent: 4, Function: "leaf", Module: "prog", Self: 10, Inclusive: 10, Calls: 1},
	}
	src := "/src/prog.c"
	mix := func(loads, other uint64) *profile.Mix { return &profile.Mix{Loads: loads, Other: other} }
	return oneProcess(&profile.Profile{
		Schema: profile.Schema,
		Meta: profile.Meta{
			Settings: profile.Settings{IcountVersion: "1.0", UnicornVersion: "2.1.1", Arch: "x86_64", CPUModel: "qemu64", Args: []string{"prog", "--fast"}, Env: []string{}, Clock: profile.Clock{Mode: "host"}},
			Inputs:   profile.Inputs{Stdio: []string{"pipe", "pipe", "pipe"}},
			Record:   profile.Record{Binary: profile.Binary{Path: "build/prog", Size: 8192, SHA256: "cc", BuildID: "0123abcd"}}},
		Mappings: []profile.Mapping{{Start: 0x401000, Limit: 0x402000, Offset: 0x1000, File: "build/prog", BuildID: "0123abcd"}},
		Totals:   profile.Totals{Instructions: 1000, Blocks: 260, DistinctBlocks: 9, Syscalls: 1},
		Syscalls: map[string]uint64{"exit_group": 1},
		Functions: []profile.FunctionCount{
			{Name: "work", Module: "prog", Addr: 0x401100, File: src, Line: 10, Self: 500, Inclusive: 800, Calls: 4, Blocks: 120, Mix: mix(100, 400)},
			{Name: "leaf", Module: "prog", Addr: 0x401200, File: src, Line: 3, Self: 310, Inclusive: 310, Calls: 31, Blocks: 62, Mix: mix(0, 310)},
			{Name: "main", Module: "prog", Addr: 0x401300, File: src, Line: 20, Self: 100, Inclusive: 990, Calls: 1, Blocks: 50, Mix: mix(10, 90)},
			{Name: "_ZN3foo3barEi", Module: "prog", Addr: 0x401400, File: "/src/foo.cc", Line: 7, Self: 80, Inclusive: 90, Calls: 2, Blocks: 20, Mix: mix(0, 80)},
			{Name: "_start", Module: "prog", Addr: 0x401000, Self: 10, Inclusive: 1000, Calls: 1, Blocks: 8, Mix: mix(0, 10)},
		},
		CallTree: tree,
		Mix:      &profile.Mix{Loads: 110, Stores: 40, Branches: 200, Calls: 38, Returns: 37, Syscalls: 1, SIMDFP: 5, Other: 590},
		Lines: []profile.LineCount{
			{Function: "work", Module: "prog", File: src, Line: 11, Self: 300},
			{Function: "work", Module: "prog", File: src, Line: 12, Self: 150},
			{Function: "work", Module: "prog", Inlined: "square", File: "/src/util.h", Line: 2, Self: 50},
			{Function: "leaf", Module: "prog", File: src, Line: 4, Self: 310},
			{Function: "main", Module: "prog", File: src, Line: 21, Self: 100},
			{Function: "_ZN3foo3barEi", Module: "prog", File: "/src/foo.cc", Line: 8, Self: 80},
			{Function: "_start", Module: "prog", Self: 10},
		},
		HotBlocks: []profile.BlockCount{},
		Exit:      profile.Exit{Status: 0, Complete: true},
	})
}

// countOnly is the same run under --count-only: self costs, no tree.
func countOnly() *profile.Profile {
	p := attributed()
	p.CallTree, p.Lines = nil, nil
	for i := range p.Functions {
		p.Functions[i].Inclusive, p.Functions[i].Calls = 0, 0
	}
	return p
}

// golden compares got with testdata/formats/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "formats", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./report -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestSummaryGolden(t *testing.T) {
	for name, p := range map[string]*profile.Profile{"summary.golden": attributed(), "summary-count-only.golden": countOnly()} {
		var b bytes.Buffer
		Summary(&b, p, 3)
		MixSummary(&b, p)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if !strings.HasPrefix(line, Prefix) {
				t.Errorf("%s: line without the prefix: %q", name, line)
			}
		}
		golden(t, name, b.Bytes())
	}
}

func TestCallgrindGolden(t *testing.T) {
	for name, p := range map[string]*profile.Profile{"callgrind.golden": attributed(), "callgrind-count-only.golden": countOnly()} {
		var b bytes.Buffer
		if err := WriteCallgrind(&b, p); err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
	}
}

func TestBenchGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBench(&b, attributed(), "Prog fast"); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench.golden", b.Bytes())
}

// TestPprofGolden writes the profile.proto, reads it back with pprof's own
// parser and compares its text form; and checks the sums: each sample type
// totals the Profile's, and each function's flat cost is its self cost.
func TestPprofGolden(t *testing.T) {
	for name, p := range map[string]*profile.Profile{"pprof.golden": attributed(), "pprof-count-only.golden": countOnly()} {
		var b bytes.Buffer
		if err := WritePprof(&b, p); err != nil {
			t.Fatal(err)
		}
		back, err := pprofile.Parse(io.Reader(&b))
		if err != nil {
			t.Fatalf("%s: pprof cannot parse it: %v", name, err)
		}
		golden(t, name, []byte(back.String()))

		var insns, blocks int64
		flat := map[string][2]int64{}
		for _, s := range back.Sample {
			insns += s.Value[0]
			blocks += s.Value[1]
			leaf := s.Location[0].Line[0].Function.SystemName
			f := flat[leaf]
			flat[leaf] = [2]int64{f[0] + s.Value[0], f[1] + s.Value[1]}
		}
		if uint64(insns) != p.Totals.Instructions {
			t.Errorf("%s: instructions sum to %d, want %d", name, insns, p.Totals.Instructions)
		}
		var wantBlocks uint64
		for _, f := range p.Functions {
			wantBlocks += f.Blocks
			if got := flat[f.Name]; uint64(got[0]) != f.Self || uint64(got[1]) != f.Blocks {
				t.Errorf("%s: %s flat %v, want self %d blocks %d", name, f.Name, got, f.Self, f.Blocks)
			}
		}
		if uint64(blocks) != wantBlocks {
			t.Errorf("%s: blocks sum to %d, want %d", name, blocks, wantBlocks)
		}
	}
}

func TestDisplayName(t *testing.T) {
	for raw, want := range map[string]string{
		"main":                   "main",
		"_ZN3foo3barEi":          "foo::bar(int)",
		"_ZL7catcherv":           "catcher()",
		"prog+0x1234":            "prog+0x1234",
		"_RNvCs1234_5crate4func": "crate::func",
	} {
		if got := DisplayName(raw); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestShareBlocks(t *testing.T) {
	tree := []profile.CallNode{
		{Parent: -1, Function: "a", Self: 1},
		{Parent: 0, Function: "b", Self: 1},
		{Parent: 0, Function: "b", Self: 1},
		{Parent: 0, Function: "b", Self: 1},
		{Parent: 1, Function: "c", Self: 0},
	}
	got := shareBlocks(tree, func(_ int, _, name string) uint64 { return map[string]uint64{"a": 5, "b": 10, "c": 7}[name] })
	want := []uint64{5, 4, 3, 3, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("shares %v, want %v", got, want)
		}
	}
}
