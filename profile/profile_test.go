package profile

import (
	"reflect"
	"testing"
)

func TestRuns(t *testing.T) {
	b := BlockRuns{BlockCount: BlockCount{Executions: 10}, Cuts: []Cut{{Index: 1, Executions: 1}, {Index: 3, Executions: 2}}}
	if got := b.Runs(5); !reflect.DeepEqual(got, []uint64{10, 9, 9, 7, 7}) {
		t.Errorf("runs %v", got)
	}
	var sum uint64
	for _, n := range b.Runs(5) {
		sum += n
	}
	if sum != 10*5-8 {
		t.Errorf("runs sum to %d", sum)
	}
}

// TestCheckBlocks checks the per-instruction facts of blocks: a block's
// contexts must sum to its runs instruction by instruction and give each
// node its self cost; blocks from before instructions were kept (no
// length) pass as they are.
func TestCheckBlocks(t *testing.T) {
	good := func() *Profile {
		return &Profile{
			CallTree:  []CallNode{{Parent: -1, Function: "main", Self: 6}, {Parent: 0, Function: "f", Self: 5, Call: &CallSite{Addr: 0x1004, Position: 1}}},
			Positions: []Position{{}, {File: "a.c", Line: 3, Inlined: []InlinedCall{{Function: "g", CallFile: "a.c", CallLine: 9}}}},
			Blocks: []BlockRuns{{BlockCount: BlockCount{Addr: 0x1000, Size: 8, Executions: 4, Instructions: 9}, Length: 3,
				Offsets: []uint32{0, 2, 4}, Positions: []int{0, 1, 1},
				Cuts:     []Cut{{Index: 1, Executions: 1}, {Index: 2, Executions: 1}},
				Contexts: []BlockContext{{Node: 0, Executions: 3, Cuts: []Cut{{Index: 1, Executions: 1}, {Index: 2, Executions: 1}}}, {Node: 1, Executions: 1}}},
				{BlockCount: BlockCount{Addr: 0x2000, Size: 4, Executions: 1, Instructions: 2}, Length: 2, Contexts: []BlockContext{{Node: 1, Executions: 1}}}},
		}
	}
	if err := checkBlocks(good()); err != nil {
		t.Errorf("a good Profile: %v", err)
	}
	old := good()
	for i := range old.Blocks {
		b := &old.Blocks[i]
		b.Length, b.Offsets, b.Positions, b.Contexts = 0, nil, nil, nil
	}
	old.Positions = nil
	for i := range old.CallTree {
		old.CallTree[i].Call = nil
	}
	if err := checkBlocks(old); err != nil {
		t.Errorf("a Profile without the instructions' facts: %v", err)
	}
	for name, spoil := range map[string]func(p *Profile){
		"context executions":   func(p *Profile) { p.Blocks[0].Contexts[1].Executions = 2 },
		"context cut":          func(p *Profile) { p.Blocks[0].Contexts[0].Cuts[0].Index = 0 },
		"node self":            func(p *Profile) { p.CallTree[1].Self = 6 },
		"context node":         func(p *Profile) { p.Blocks[1].Contexts[0].Node = 2 },
		"position":             func(p *Profile) { p.Blocks[0].Positions[2] = 2 },
		"offsets":              func(p *Profile) { p.Blocks[0].Offsets = []uint32{0, 4, 2} },
		"offsets' count":       func(p *Profile) { p.Blocks[0].Offsets = []uint32{0, 2} },
		"instructions":         func(p *Profile) { p.Blocks[1].Instructions = 3 },
		"call site position":   func(p *Profile) { p.CallTree[1].Call.Position = 5 },
		"length over its size": func(p *Profile) { p.Blocks[1].Length, p.Blocks[1].Instructions = 5, 5; p.Blocks[1].Contexts = nil },
		"length over the bound": func(p *Profile) {
			b := &p.Blocks[1]
			b.Size, b.Length, b.Executions, b.Instructions = 1<<20, MaxBlockInstructions+1, 0, 0
			b.Contexts = []BlockContext{{Node: 1}}
			p.CallTree[1].Self = 3 // what block 0 ran there
		},
	} {
		p := good()
		spoil(p)
		if err := checkBlocks(p); err == nil {
			t.Errorf("%s spoilt: no error", name)
		}
	}
}
