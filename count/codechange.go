package count

import (
	"bytes"
	"fmt"

	"github.com/icount-dev/icount/emu"
)

// codeCPU is the CPU as the kernel drives it, watching for changes to code
// that already ran: the kernel discards the translations of executable
// memory that changes (munmap, MAP_FIXED, mprotect, a system call writing
// into it), and the emulator then translates the new code afresh. Its
// block table, though, keeps one entry per block address and size, with
// the instruction count the decoder gave the first code seen there: new
// code whose block has an old block's address and size would be counted
// as the old. Such blocks are found and named in a warning.
type codeCPU struct {
	*emu.CPU
	dec   *decoder
	since map[blockKey]uint64 // block executions when its memory last changed
}

// InvalidateCode notes the executions so far of every block decoded from
// [addr, addr+size) before discarding their translations.
func (c *codeCPU) InvalidateCode(addr, size uint64) error {
	var keys []blockKey
	for k := range c.dec.blocks {
		if k.addr < addr+size && addr < k.addr+uint64(k.size) {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		execs := map[blockKey]uint64{}
		for _, b := range c.CPU.Blocks() {
			execs[blockKey{b.Addr, b.Size}] = b.Executions
		}
		if c.since == nil {
			c.since = map[blockKey]uint64{}
		}
		for _, k := range keys {
			c.since[k] = execs[k]
		}
	}
	return c.CPU.InvalidateCode(addr, size)
}

// warnings names the blocks that ran again after their memory changed and
// whose bytes are not, at the end, those decoded: their executions since
// may have been of other code, counted as the first.
func (c *codeCPU) warnings(blocks []emu.Block) []string {
	var out []string
	n := 0
	for _, b := range blocks {
		k := blockKey{b.Addr, b.Size}
		before, changed := c.since[k]
		if !changed || b.Executions <= before {
			continue
		}
		d := c.dec.blocks[k]
		now := make([]byte, b.Size)
		if d != nil && d.code != nil && c.CPU.Read(b.Addr, now) == nil && bytes.Equal(now, d.code) {
			continue
		}
		if n++; n <= 3 {
			out = append(out, fmt.Sprintf("count may be inexact: the code of the %d-byte block at %#x changed after it ran, and a block at that address and size ran again (%d executions), counted as the code first seen there",
				b.Size, b.Addr, b.Executions-before))
		}
	}
	if n > 3 {
		out = append(out, fmt.Sprintf("count may be inexact: %d more blocks like it", n-3))
	}
	return out
}
