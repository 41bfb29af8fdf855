package profile

import (
	"fmt"
)

// MaxCount bounds every count a Profile may hold: far beyond any run
// (2^62 instructions take a century at 10^9 a second), and small enough
// that a difference of two counts, or a sum of a Profile's own, never
// overflows an int64.
const MaxCount = 1 << 62

// Check rejects a Profile icount never writes, which the formats and the
// diff could not use safely, as pprof's CheckValid does for its model:
// settings it does not know, counts over MaxCount or that do not add up
// (the processes' totals to the run's, the functions' self costs to its
// instructions, and so the call tree's roots and the mappings (objects),
// each node's inclusive cost to its self cost and its children's), trees whose parents do not
// come before their children (each process's tree with its own root, in
// the processes' order), an item naming no process, and blocks whose
// instructions, cuts and contexts do not add up to their counts and their
// nodes' (checkBlocks).
func Check(p *Profile) error {
	if err := checkMeta(&p.Meta); err != nil {
		return err
	}
	if len(p.Processes) == 0 {
		return fmt.Errorf("it has no processes")
	}
	n := len(p.Processes)
	for i, pr := range p.Processes {
		if i == 0 && pr.Parent != -1 || i > 0 && (pr.Parent < 0 || pr.Parent >= i) {
			return fmt.Errorf("processes entry %d (pid %d) has parent %d", i, pr.PID, pr.Parent)
		}
	}
	if err := checkCounts(p); err != nil {
		return err
	}
	if sum, ok := sumTotals(p.Processes); !ok || sum != p.Totals {
		return fmt.Errorf("the processes' totals %s do not sum to the run's %s", totalsText(sum, ok), totalsText(p.Totals, true))
	}
	if p.Exit.Reason != "" && !stopReasons[p.Exit.Reason] {
		return fmt.Errorf("exit reason %q is not one icount gives", p.Exit.Reason)
	}
	if !p.Exit.Complete && p.Exit.Reason == "" {
		return fmt.Errorf("an incomplete run gives no reason")
	}
	if err := checkFunctions(p); err != nil {
		return err
	}
	if err := checkTree(p, n); err != nil {
		return err
	}
	if err := checkParts(p); err != nil {
		return err
	}
	if len(p.Mappings) > 0 {
		var sum uint64
		for _, m := range p.Mappings {
			if m.Instructions > MaxCount {
				return fmt.Errorf("mapping %s: a count of %d is over %d", m.File, m.Instructions, uint64(MaxCount))
			}
			sum += m.Instructions
		}
		if sum != p.Totals.Instructions {
			return fmt.Errorf("the mappings hold %d instructions, the run counted %d", sum, p.Totals.Instructions)
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
	return checkBlocks(p)
}

// arches are the guest architectures icount runs.
var arches = map[string]bool{"x86_64": true, "aarch64": true}

func checkMeta(m *Meta) error {
	switch {
	case !arches[m.Arch]:
		return fmt.Errorf("arch %q is not one icount runs", m.Arch)
	case m.Clock.Mode != "host" && m.Clock.Mode != "fixed":
		return fmt.Errorf("clock mode %q is neither host nor fixed", m.Clock.Mode)
	case m.Binary.Path == "":
		return fmt.Errorf("it names no binary")
	case len(m.Stdio) != 3:
		return fmt.Errorf("it gives %d standard descriptors' kinds, not 3", len(m.Stdio))
	}
	return nil
}

// checkCounts bounds every count by MaxCount.
func checkCounts(p *Profile) error {
	big := func(what string, vs ...uint64) error {
		for _, v := range vs {
			if v > MaxCount {
				return fmt.Errorf("%s: a count of %d is over %d", what, v, uint64(MaxCount))
			}
		}
		return nil
	}
	t := p.Totals
	if err := big("totals", t.Instructions, t.Blocks, t.DistinctBlocks, t.Syscalls); err != nil {
		return err
	}
	for i, pr := range p.Processes {
		t := pr.Totals
		if err := big(fmt.Sprintf("processes[%d]", i), t.Instructions, t.Blocks, t.DistinctBlocks, t.Syscalls); err != nil {
			return err
		}
		for _, f := range pr.Functions {
			if err := big(fmt.Sprintf("processes[%d] function %s", i, f.Name), f.Self, f.Inclusive, f.Calls, f.Blocks); err != nil {
				return err
			}
		}
	}
	for _, f := range p.Functions {
		if err := big("function "+f.Name, f.Self, f.Inclusive, f.Calls, f.Blocks); err != nil {
			return err
		}
	}
	for i, c := range p.CallTree {
		if err := big(fmt.Sprintf("call_tree node %d", i), c.Self, c.Inclusive, c.Calls); err != nil {
			return err
		}
	}
	for name, v := range p.Syscalls {
		if err := big("syscalls "+name, v); err != nil {
			return err
		}
	}
	return nil
}

// checkFunctions checks that the functions' self costs sum to the
// instructions counted, the run's and each process's.
func checkFunctions(p *Profile) error {
	if sum, ok := selfSum(p.Functions); !ok || sum != p.Totals.Instructions {
		return fmt.Errorf("the functions' self costs sum to %s, the run counted %d instructions", sumText(sum, ok), p.Totals.Instructions)
	}
	for i, pr := range p.Processes {
		if sum, ok := selfSum(pr.Functions); !ok || sum != pr.Totals.Instructions {
			return fmt.Errorf("processes[%d]: the functions' self costs sum to %s, it counted %d instructions", i, sumText(sum, ok), pr.Totals.Instructions)
		}
	}
	return nil
}

func selfSum(fs []FunctionCount) (uint64, bool) {
	var sum uint64
	for _, f := range fs {
		if sum += f.Self; sum < f.Self {
			return 0, false
		}
	}
	return sum, true
}

func sumText(sum uint64, ok bool) string {
	if !ok {
		return "more than 2^64"
	}
	return fmt.Sprint(sum)
}

// checkTree checks the call tree's shape and its counts: each node's
// inclusive cost is its self cost plus its children's, and the roots'
// sum to the instructions counted.
func checkTree(p *Profile, n int) error {
	if len(p.CallTree) == 0 {
		return nil
	}
	children := make([]uint64, len(p.CallTree))
	var roots uint64
	root := -1 // the process of the last tree's root
	for i, c := range p.CallTree {
		if c.Process < 0 || c.Process >= n {
			return fmt.Errorf("call_tree node %d names process %d of %d", i, c.Process, n)
		}
		switch {
		case c.Parent == -1 && c.Process > root:
			root = c.Process
			roots += c.Inclusive
		case c.Parent < 0 || c.Parent >= i:
			return fmt.Errorf("call_tree node %d has parent %d", i, c.Parent)
		case p.CallTree[c.Parent].Process != c.Process:
			return fmt.Errorf("call_tree node %d is in process %d, its parent %d in process %d", i, c.Process, c.Parent, p.CallTree[c.Parent].Process)
		default:
			children[c.Parent] += c.Inclusive
		}
	}
	for i, c := range p.CallTree {
		if c.Inclusive != c.Self+children[i] {
			return fmt.Errorf("call_tree node %d (%s): inclusive %d is not its self %d plus its children's %d", i, c.Function, c.Inclusive, c.Self, children[i])
		}
	}
	if roots != p.Totals.Instructions {
		return fmt.Errorf("the call tree's roots hold %d instructions, the run counted %d", roots, p.Totals.Instructions)
	}
	return nil
}

// sumTotals adds the processes' counts; ok is false when they overflow.
func sumTotals(ps []Process) (sum Totals, ok bool) {
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

func totalsText(t Totals, ok bool) string {
	if !ok {
		return "(overflowing)"
	}
	return fmt.Sprintf("(%d instructions, %d block executions, %d distinct blocks, %d system calls)",
		t.Instructions, t.Blocks, t.DistinctBlocks, t.Syscalls)
}
