package emu

import (
	"bytes"
	"errors"
	"testing"
)

// TestLinksFollowTheTable runs 2,000 blocks, each a jump to the next,
// three times around a loop. The block table starts with 1,024 slots, so
// it grows twice while the first round's translated blocks hold links to
// their entries (links.c); every block must be counted in the table it
// ends in, three times.
func TestLinksFollowTheTable(t *testing.T) {
	const n, rounds = 2000, 3
	code := bytes.Repeat([]byte{0xeb, 0x00}, n) // jmp to the next instruction
	loop := 0x10000 + len(code)
	rel := 0x10000 - (loop + 3 + 6)
	// dec %rcx; jnz 0x10000; ud2
	code = append(code, 0x48, 0xff, 0xc9, 0x0f, 0x85, byte(rel), byte(rel>>8), byte(rel>>16), byte(rel>>24), 0x0f, 0x0b)
	c := newCodeCPU(t, Hooks{NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
		if addr == uint64(loop) {
			return BlockInfo{Instructions: 2}
		}
		return BlockInfo{Instructions: 1}
	}}, Options{}, code)
	c.SetReg(X86RCX, rounds)
	var f *Fault
	if err := c.Run(0x10000, nil); !errors.As(err, &f) {
		t.Fatalf("the loop ended with %v, want its ud2's fault", err)
	}
	jumps := 0
	for _, b := range c.Blocks() {
		if b.Addr >= uint64(loop) {
			continue
		}
		jumps++
		if b.Size != 2 || b.Executions != rounds {
			t.Errorf("block %#x: %d bytes, %d executions, want 2 bytes, %d", b.Addr, b.Size, b.Executions, rounds)
		}
	}
	if jumps != n {
		t.Errorf("the table holds %d jumps, want %d", jumps, n)
	}
}
