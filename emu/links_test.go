package emu

import (
	"bytes"
	"errors"
	"testing"
)

// newJumpLoop makes a CPU with n blocks at 0x10000, each a jump to the
// next, then a loop's end that goes round again while RCX counts down
// and ends with ud2 at last; it returns the CPU and the loop end's address.
func newJumpLoop(t testing.TB, n int, opts Options) (*CPU, uint64) {
	t.Helper()
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
	}}, opts, code)
	return c, uint64(loop)
}

// TestLinksFollowTheTable runs 2,000 blocks, each a jump to the next,
// three times around a loop. The block table's index starts with 1,024
// slots and its entries come in chunks of 1,024 (blocks.c): both grow
// while the first round's translated blocks hold links to their entries
// (links.c), and every block must be counted three times.
func TestLinksFollowTheTable(t *testing.T) {
	const n, rounds = 2000, 3
	c, loop := newJumpLoop(t, n, Options{})
	runJumpLoop(t, c, loop, n, rounds, rounds)
}

// runJumpLoop runs newJumpLoop's n jumps rounds times around, and checks
// that the block table holds each jump, of 2 bytes, with execs executions.
func runJumpLoop(t *testing.T, c *CPU, loop uint64, n int, rounds, execs uint64) {
	t.Helper()
	c.SetReg(X86RCX, rounds)
	var f *Fault
	if err := c.Run(0x10000, nil); !errors.As(err, &f) {
		t.Fatalf("the loop ended with %v, want its ud2's fault", err)
	}
	jumps := 0
	for _, b := range c.Blocks() {
		if b.Addr >= loop {
			continue
		}
		jumps++
		if b.Size != 2 || b.Executions != execs {
			t.Errorf("block %#x: %d bytes, %d executions, want 2 bytes, %d", b.Addr, b.Size, b.Executions, execs)
		}
	}
	if jumps != n {
		t.Errorf("the table holds %d jumps, want %d", jumps, n)
	}
}

// TestLinksForgetChangedCode changes the code of a loop's block, keeping
// its address and size, between two runs: the block of the new code is a
// new block, though its translated code finds the link the old one was
// bound to, and the old block keeps its executions.
func TestLinksForgetChangedCode(t *testing.T) {
	// loop: inc %rax; dec %rcx; jnz loop; ud2
	code := []byte{0x48, 0xff, 0xc0, 0x48, 0xff, 0xc9, 0x75, 0xf8, 0x0f, 0x0b}
	var seen []uint32
	c := newCodeCPU(t, Hooks{NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
		if addr == 0x10000 {
			seen = append(seen, id)
			return BlockInfo{Instructions: 3}
		}
		return BlockInfo{Instructions: 1}
	}}, Options{}, code)
	run := func(rounds uint64) {
		t.Helper()
		c.SetReg(X86RCX, rounds)
		var f *Fault
		if err := c.Run(0x10000, nil); !errors.As(err, &f) {
			t.Fatalf("the loop ended with %v, want its ud2's fault", err)
		}
	}
	run(5)
	code[2] = 0xc8 // dec %rax: the same size
	if err := c.Write(0x10000, code); err != nil {
		t.Fatal(err)
	}
	if err := c.InvalidateCode(0x10000, uint64(len(code))); err != nil {
		t.Fatal(err)
	}
	run(4)
	if len(seen) != 2 {
		t.Fatalf("the loop's block was first seen %d times, want 2 (old code, new code)", len(seen))
	}
	execs := map[uint32]uint64{}
	for _, b := range c.Blocks() {
		if b.Addr == 0x10000 {
			execs[b.ID] = b.Executions
		}
	}
	if execs[seen[0]] != 5 || execs[seen[1]] != 4 || len(execs) != 2 {
		t.Errorf("the loop's blocks ran %v times by id, want %d: 5, %d: 4", execs, seen[0], seen[1])
	}
	if rax := c.Reg(X86RAX); rax != 1 {
		t.Errorf("rax = %d, want 5 - 4", rax)
	}
}

// TestBlockCallDescribedOnce runs 2,000 blocks, each a jump to the next,
// twice around a loop: Unicorn adds the first block's call to the block
// hook, with the hook's helper description, and icount adds the other
// blocks' calls itself (translation.c), which call the same hook with
// their own links: every block is counted twice. A new block hook (a
// slice's) is described anew, once, and counts as well.
func TestBlockCallDescribedOnce(t *testing.T) {
	const n, rounds = 2000, 2
	c, loop := newJumpLoop(t, n, Options{})
	runJumpLoop(t, c, loop, n, rounds, rounds)
	if d := c.blockCallDescriptions(); d != 1 {
		t.Errorf("Unicorn described the block hook %d times for %d translated blocks, want once", d, n+2)
	}
	if err := c.SetSlice(1 << 20); err != nil {
		t.Fatal(err)
	}
	runJumpLoop(t, c, loop, n, rounds, 2*rounds)
	if d := c.blockCallDescriptions(); d != 2 {
		t.Errorf("after a new block hook, Unicorn described hooks %d times in all, want twice", d)
	}
}
