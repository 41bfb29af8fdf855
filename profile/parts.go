package profile

import "fmt"

// Part is a stretch of a run counted apart, one benchmark case: the
// instructions of one process between two instants, with their own
// totals, functions and call tree. A program written for callgrind ends
// one at each dump it asks for (CALLGRIND_DUMP_STATS_AT names it) and
// one at its exit, as callgrind writes its dumps; a Go test binary makes
// one of each run of a benchmark function (b.N iterations). Parts may
// nest (a Go benchmark's sub-benchmarks run within its own run), and what
// ran outside every part is in none.
type Part struct {
	Name string `json:"name"`
	// Process is the entry of Profile.Processes it was counted in.
	Process int `json:"process,omitempty"`
	// Iterations is b.N of a Go benchmark's run; 0 for a dump.
	Iterations uint64 `json:"iterations,omitempty"`
	// Totals are its counts: instructions, block executions, the blocks
	// that ran in it and its system calls.
	Totals    Totals          `json:"totals"`
	Functions []FunctionCount `json:"functions"`
	// CallTree is the calling-context tree of what ran in it, rooted as
	// the process's is: the contexts it ran in and their ancestors, each
	// with what it counted in the part.
	CallTree []CallNode `json:"call_tree,omitempty"`
}

// checkParts checks that each part names a process of the Profile and that
// its counts add up as the run's do: its functions' self costs and its
// call tree's root to its instructions, each node's inclusive cost to its
// self cost and its children's; and that a run's parts fit in it.
func checkParts(p *Profile) error {
	for i := range p.Parts {
		pt := &p.Parts[i]
		what := fmt.Sprintf("parts[%d] (%q)", i, pt.Name)
		if pt.Name == "" {
			return fmt.Errorf("parts[%d] has no name", i)
		}
		if pt.Process < 0 || pt.Process >= len(p.Processes) {
			return fmt.Errorf("%s names process %d of %d", what, pt.Process, len(p.Processes))
		}
		t := pt.Totals
		for _, v := range []uint64{t.Instructions, t.Blocks, t.DistinctBlocks, t.Syscalls, pt.Iterations} {
			if v > MaxCount {
				return fmt.Errorf("%s: a count of %d is over %d", what, v, uint64(MaxCount))
			}
		}
		if pt.Totals.Instructions > p.Processes[pt.Process].Totals.Instructions {
			return fmt.Errorf("%s counts %d instructions, more than its process's %d", what, pt.Totals.Instructions, p.Processes[pt.Process].Totals.Instructions)
		}
		for _, f := range pt.Functions {
			if f.Self > MaxCount || f.Inclusive > MaxCount || f.Calls > MaxCount || f.Blocks > MaxCount {
				return fmt.Errorf("%s function %s: a count is over %d", what, f.Name, uint64(MaxCount))
			}
		}
		if sum, ok := selfSum(pt.Functions); !ok || sum != t.Instructions {
			return fmt.Errorf("%s: the functions' self costs sum to %s, it counted %d instructions", what, sumText(sum, ok), t.Instructions)
		}
		if err := checkPartTree(pt.CallTree, t.Instructions); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
	}
	return nil
}

// checkPartTree checks a part's call tree: one root first, parents before
// children, and the counts adding up to the part's instructions.
func checkPartTree(tree []CallNode, instructions uint64) error {
	if len(tree) == 0 {
		return nil
	}
	children := make([]uint64, len(tree))
	for i, c := range tree {
		if c.Self > MaxCount || c.Inclusive > MaxCount || c.Calls > MaxCount {
			return fmt.Errorf("call_tree node %d: a count is over %d", i, uint64(MaxCount))
		}
		switch {
		case i == 0 && c.Parent != -1, i > 0 && (c.Parent < 0 || c.Parent >= i):
			return fmt.Errorf("call_tree node %d has parent %d", i, c.Parent)
		case i > 0:
			children[c.Parent] += c.Inclusive
		}
	}
	for i, c := range tree {
		if c.Inclusive != c.Self+children[i] {
			return fmt.Errorf("call_tree node %d (%s): inclusive %d is not its self %d plus its children's %d", i, c.Function, c.Inclusive, c.Self, children[i])
		}
	}
	if tree[0].Inclusive != instructions {
		return fmt.Errorf("the call tree's root holds %d instructions, the part counted %d", tree[0].Inclusive, instructions)
	}
	return nil
}
