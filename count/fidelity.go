package count

import (
	"fmt"
	"sort"

	"github.com/icount-dev/icount/emu"
)

// An instruction with a known difference from the hardware (see
// fidelityX86), found in a block when it is first decoded.
type fidelityAt struct {
	index int    // of the instruction in its block
	name  string // the instruction's mnemonic
	why   string
}

// classifyFidelity lists the instructions of a decoded block that have a
// known difference from the hardware.
func classifyFidelity(arch emu.Arch, b *decodedBlock) []fidelityAt {
	if arch != emu.X86_64 || b.code == nil {
		return nil
	}
	var out []fidelityAt
	for i, off := range b.starts {
		end := len(b.code)
		if i+1 < len(b.starts) {
			end = int(b.starts[i+1])
		}
		if name, why := fidelityOfX86(b.code[off:end]); name != "" {
			out = append(out, fidelityAt{i, name, why})
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
		if r.dec == nil || len(r.dec.fidelity) == 0 {
			continue
		}
		runs := r.runs()
		for _, f := range r.dec.fidelity {
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
