package count

import (
	"fmt"
	"sort"
	"strings"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// An instruction with a known difference from the hardware (see
// fidelityX86), found in a block when it is first decoded.
type fidelityAt struct {
	index int    // of the instruction in its block
	name  string // the instruction's mnemonic
	why   string
}

// classifyFidelity lists the instructions of a decoded block (x86-64: its
// instructions decoded) that have a known difference from the hardware.
func classifyFidelity(arch emu.Arch, insts []x86asm.Inst) []fidelityAt {
	if arch != emu.X86_64 {
		return nil
	}
	var out []fidelityAt
	for i, inst := range insts {
		if why, ok := fidelityX86[inst.Op]; ok {
			out = append(out, fidelityAt{i, strings.ToLower(inst.Op.String()), why})
		}
	}
	return out
}

// fidelityWarnings says which instructions with a known difference from
// the hardware ran, and how many times each completed: the executions of
// its blocks less those cut short before it.
func fidelityWarnings(blocks []ranBlock) []string {
	type key struct{ name, why string }
	ran := map[key]uint64{}
	for i := range blocks {
		r := &blocks[i]
		if r.dec == nil || len(r.dec.differences()) == 0 {
			continue
		}
		runs := r.runs()
		for _, f := range r.dec.differences() {
			if f.index < len(runs) && runs[f.index] > 0 {
				ran[key{f.name, f.why}] += runs[f.index]
			}
		}
	}
	keys := make([]key, 0, len(ran))
	for k := range ran {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].name < keys[j].name })
	var out []string
	for _, k := range keys {
		out = append(out, fmt.Sprintf("`%s` ran %d %s and may give another result than on hardware: %s", k.name, ran[k], times(ran[k]), k.why))
	}
	return out
}

func times(n uint64) string {
	if n == 1 {
		return "time"
	}
	return "times"
}
