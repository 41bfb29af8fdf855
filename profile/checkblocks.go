package profile

import "fmt"

// MaxBlockInstructions bounds a block's instructions (Unicorn translates
// at most 512 into one block).
const MaxBlockInstructions = 4096

// checkBlocks checks the per-instruction facts of the blocks (with
// per-line attribution): each block's instructions, offsets, positions
// and cuts agree with its counts; its contexts name nodes of its process
// and sum to its runs, instruction by instruction; and when blocks have
// contexts, every node's self cost is what its contexts completed.
func checkBlocks(p *Profile) error {
	self := make([]uint64, len(p.CallTree))
	contexts := false
	for i := range p.Blocks {
		b := &p.Blocks[i]
		if err := checkBlock(p, b); err != nil {
			return fmt.Errorf("blocks[%d] (%#x): %v", i, b.Addr, err)
		}
		if len(b.Contexts) == 0 {
			continue
		}
		contexts = true
		runs := make([]uint64, b.Length)
		for _, c := range b.Contexts {
			if c.Node < 0 || c.Node >= len(p.CallTree) || p.CallTree[c.Node].Process != b.Process {
				return fmt.Errorf("blocks[%d] (%#x): a context names node %d, not one of its process's", i, b.Addr, c.Node)
			}
			if err := checkCuts(c.Executions, c.Cuts, b.Length); err != nil {
				return fmt.Errorf("blocks[%d] (%#x) in node %d: %v", i, b.Addr, c.Node, err)
			}
			for j, n := range c.Runs(b.Length) {
				runs[j] += n
				self[c.Node] += n
			}
		}
		for j, n := range b.Runs(b.Length) {
			if runs[j] != n {
				return fmt.Errorf("blocks[%d] (%#x): its contexts ran its instruction %d %d times, the block %d", i, b.Addr, j, runs[j], n)
			}
		}
	}
	if contexts {
		for i, c := range p.CallTree {
			if self[i] != c.Self {
				return fmt.Errorf("call_tree node %d (%s): self %d, its blocks' contexts completed %d", i, c.Function, c.Self, self[i])
			}
		}
	}
	for i, c := range p.CallTree {
		if c.Call != nil && (c.Call.Position < -1 || c.Call.Position >= len(p.Positions)) {
			return fmt.Errorf("call_tree node %d (%s): its call site names position %d of %d", i, c.Function, c.Call.Position, len(p.Positions))
		}
	}
	return nil
}

// checkBlock checks one block's own facts.
func checkBlock(p *Profile, b *BlockRuns) error {
	if b.Executions > MaxCount || b.Instructions > MaxCount {
		return fmt.Errorf("a count over %d", uint64(MaxCount))
	}
	if b.Length == 0 {
		if len(b.Offsets) > 0 || len(b.Positions) > 0 || len(b.Contexts) > 0 {
			return fmt.Errorf("offsets, positions or contexts without its length")
		}
		return nil
	}
	if b.Length < 0 || uint64(b.Length) > uint64(b.Size) || b.Length > MaxBlockInstructions {
		return fmt.Errorf("%d instructions in %d bytes", b.Length, b.Size)
	}
	if len(b.Offsets) > 0 {
		if len(b.Offsets) != b.Length {
			return fmt.Errorf("%d offsets for %d instructions", len(b.Offsets), b.Length)
		}
		for j, o := range b.Offsets {
			if o >= b.Size || j > 0 && o <= b.Offsets[j-1] || j == 0 && o != 0 {
				return fmt.Errorf("instruction %d at offset %d", j, o)
			}
		}
	}
	if len(b.Positions) > 0 && len(b.Positions) != b.Length {
		return fmt.Errorf("%d positions for %d instructions", len(b.Positions), b.Length)
	}
	for j, x := range b.Positions {
		if x < 0 || x >= len(p.Positions) {
			return fmt.Errorf("instruction %d names position %d of %d", j, x, len(p.Positions))
		}
	}
	if err := checkCuts(b.Executions, b.Cuts, b.Length); err != nil {
		return err
	}
	var done uint64
	for _, n := range b.Runs(b.Length) {
		done += n
	}
	if done != b.Instructions {
		return fmt.Errorf("its runs complete %d instructions, it counts %d", done, b.Instructions)
	}
	return nil
}

// checkCuts checks that cuts fall on instructions of a block of n and are
// at most the executions.
func checkCuts(executions uint64, cuts []Cut, n int) error {
	if executions > MaxCount {
		return fmt.Errorf("a count over %d", uint64(MaxCount))
	}
	var sum uint64
	for _, c := range cuts {
		if c.Index < 0 || c.Index >= n || c.Executions > MaxCount {
			return fmt.Errorf("a cut of %d executions at instruction %d of %d", c.Executions, c.Index, n)
		}
		sum += c.Executions
	}
	if sum > executions {
		return fmt.Errorf("%d executions cut short of %d", sum, executions)
	}
	return nil
}
