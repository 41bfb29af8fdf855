package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/icount-dev/icount/atomicfile"
	"github.com/icount-dev/icount/count"
)

// WriteJSON writes the Profile as indented JSON to path, whole or not at
// all (atomicfile): a failure leaves the file as it was.
func WriteJSON(path string, p *count.Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the profile: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("writing the profile: %w", err)
	}
	return nil
}

// ReadJSON loads a Profile saved by WriteJSON, rejecting anything else
// with a message naming the file.
func ReadJSON(path string) (*count.Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseJSON(path, b)
}

// ParseJSON decodes a saved Profile; path names it in errors. A Profile of
// the schema before processes (count.PreviousSchema) gets one entry in
// Processes made of its own fields, and keeps its schema so that a diff
// can say so. One of today's schema without Processes reads as one
// process too (see processes).
func ParseJSON(path string, b []byte) (*count.Profile, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p count.Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not an icount profile: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not an icount profile: data after the profile", path)
	}
	switch p.Schema {
	case count.Schema:
	case count.PreviousSchema:
		if len(p.Processes) > 0 {
			return nil, fmt.Errorf("%s: not a valid icount profile: schema %s has no processes", path, p.Schema)
		}
		p.Processes = []count.Process{soleProcess(&p)}
	default:
		return nil, fmt.Errorf("%s: profile schema %q, this icount reads %q and %q", path, p.Schema, count.Schema, count.PreviousSchema)
	}
	if err := check(&p); err != nil {
		return nil, fmt.Errorf("%s: not a valid icount profile: %v", path, err)
	}
	return &p, nil
}

// check rejects what icount never writes and what the formats and the diff
// could not use safely: a process tree whose parents do not come before
// their children or whose counts do not sum to the run's, a call tree whose
// parents do not come before their children (each process's tree with its
// own root, in the processes' order), and an item naming no process.
func check(p *count.Profile) error {
	n := len(processes(p))
	for i, pr := range p.Processes {
		if i == 0 && pr.Parent != -1 || i > 0 && (pr.Parent < 0 || pr.Parent >= i) {
			return fmt.Errorf("processes entry %d (pid %d) has parent %d", i, pr.PID, pr.Parent)
		}
	}
	if len(p.Processes) > 0 {
		if sum, ok := sumTotals(p.Processes); !ok || sum != p.Totals {
			return fmt.Errorf("the processes' totals %s do not sum to the run's %s", totalsText(sum, ok), totalsText(p.Totals, true))
		}
	}
	root := -1 // the process of the last tree's root
	for i, c := range p.CallTree {
		if c.Process < 0 || c.Process >= n {
			return fmt.Errorf("call_tree node %d names process %d of %d", i, c.Process, n)
		}
		switch {
		case c.Parent == -1 && c.Process > root:
			root = c.Process
		case c.Parent < 0 || c.Parent >= i:
			return fmt.Errorf("call_tree node %d has parent %d", i, c.Parent)
		case p.CallTree[c.Parent].Process != c.Process:
			return fmt.Errorf("call_tree node %d is in process %d, its parent %d in process %d", i, c.Process, c.Parent, p.CallTree[c.Parent].Process)
		}
	}
	items := []struct {
		what string
		at   func(i int) int
		len  int
	}{
		{"hot_blocks", func(i int) int { return p.HotBlocks[i].Process }, len(p.HotBlocks)},
		{"blocks", func(i int) int { return p.Blocks[i].Process }, len(p.Blocks)},
		{"lines", func(i int) int { return p.Lines[i].Process }, len(p.Lines)},
		{"mappings", func(i int) int { return p.Mappings[i].Process }, len(p.Mappings)},
	}
	for _, it := range items {
		for i := range it.len {
			if x := it.at(i); x < 0 || x >= n {
				return fmt.Errorf("%s[%d] names process %d of %d", it.what, i, x, n)
			}
		}
	}
	return nil
}

// sumTotals adds the processes' counts; ok is false when they overflow.
func sumTotals(ps []count.Process) (sum count.Totals, ok bool) {
	add := func(a *uint64, b uint64) bool {
		*a += b
		return *a >= b
	}
	for _, pr := range ps {
		t := pr.Totals
		if !add(&sum.Instructions, t.Instructions) || !add(&sum.Blocks, t.Blocks) ||
			!add(&sum.DistinctBlocks, t.DistinctBlocks) || !add(&sum.Syscalls, t.Syscalls) {
			return sum, false
		}
	}
	return sum, true
}

func totalsText(t count.Totals, ok bool) string {
	if !ok {
		return "(overflowing)"
	}
	return fmt.Sprintf("(%d instructions, %d block executions, %d distinct blocks, %d system calls)",
		t.Instructions, t.Blocks, t.DistinctBlocks, t.Syscalls)
}
