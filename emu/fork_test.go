package emu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// pattern returns n bytes that tell their offset and seed apart.
func pattern(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed ^ byte(i) ^ byte(i>>8)*7
	}
	return b
}

// region is a mapping of the fork tests, with what it holds.
type region struct {
	addr, size uint64
	prot       Prot
	data       map[uint64][]byte // offset: bytes written there
}

// forkRegions are mappings of every kind: several permissions, data made
// inaccessible after it was written, a hole unmapped, a mapping in a
// second slab, a large one mostly untouched, a reservation of 100 GiB.
var forkRegions = []region{
	{0x10000, 16 * PageSize, ProtRead | ProtWrite, map[uint64][]byte{0: pattern(1, 100), 5*PageSize - 3: pattern(2, 9)}},
	{0x40000, 4 * PageSize, ProtRead, map[uint64][]byte{PageSize: pattern(3, PageSize)}},
	{0x50000, 2 * PageSize, ProtNone, map[uint64][]byte{PageSize + 8: pattern(4, 8)}},
	{0x60000, 2 * PageSize, ProtRead | ProtWrite, nil},
	{0x64000, 2 * PageSize, ProtRead | ProtWrite, map[uint64][]byte{PageSize: pattern(5, 2)}},
	{0x70000, PageSize, ProtRead | ProtExec, map[uint64][]byte{0: pattern(6, 32)}},
	{0x22_0000_0000, 1 << 30, ProtRead | ProtWrite, map[uint64][]byte{512 << 20: pattern(7, 3*PageSize)}},
	{0x7000_0000_0000, 100 << 30, ProtNone, nil},
}

// mapForkRegions maps forkRegions in c: the one at 0x60000 and the one
// at 0x64000 are what is left of one mapping of 8 pages after its middle
// was unmapped, and the data of the one without access was written before
// it lost it.
func mapForkRegions(t testing.TB, c *CPU) {
	t.Helper()
	if err := c.Map(0x60000, 8*PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(0x62000, pattern(9, 2*PageSize)); err != nil {
		t.Fatal(err)
	}
	if err := c.Unmap(0x62000, 2*PageSize); err != nil {
		t.Fatal(err)
	}
	if err := c.Unmap(0x66000, 2*PageSize); err != nil {
		t.Fatal(err)
	}
	for _, r := range forkRegions {
		if r.addr == 0x60000 || r.addr == 0x64000 {
			continue
		}
		prot := r.prot
		if prot == ProtNone && r.data != nil {
			prot = ProtRead | ProtWrite
		}
		if err := c.Map(r.addr, r.size, prot); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range forkRegions {
		for off, b := range r.data {
			if err := c.Write(r.addr+off, b); err != nil {
				t.Fatal(err)
			}
		}
		if r.prot == ProtNone && r.data != nil {
			if err := c.Protect(r.addr, r.size, ProtNone); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkForkRegions checks that c has forkRegions: every page mapped with
// its permissions, the data written and zeros elsewhere, nothing mapped
// around them.
func checkForkRegions(t *testing.T, c *CPU) {
	t.Helper()
	for _, r := range forkRegions {
		// Large mappings are checked around what they hold.
		span := [][2]uint64{{0, min(r.size, 64*PageSize)}}
		for off, b := range r.data {
			lo := (off &^ (PageSize - 1)) - min(off&^(PageSize-1), PageSize)
			span = append(span, [2]uint64{lo, min(r.size, (off+uint64(len(b))+2*PageSize-1)&^(PageSize-1))})
		}
		for _, s := range span {
			want := make([]byte, s[1]-s[0])
			for off, b := range r.data {
				if off >= s[0] && off+uint64(len(b)) <= s[1] {
					copy(want[off-s[0]:], b)
				}
			}
			got := make([]byte, len(want))
			if err := c.Read(r.addr+s[0], got); err != nil {
				t.Errorf("%#x: %v", r.addr+s[0], err)
			} else if !bytes.Equal(got, want) {
				t.Errorf("%#x+%#x does not hold what was written", r.addr+s[0], len(got))
			}
		}
		last := r.addr + r.size - 1
		for _, a := range []uint64{r.addr, last} {
			var b [1]byte
			readable := c.ReadAsGuest(a, b[:]) == nil
			if want := r.prot&(ProtRead|ProtWrite) != 0 || (r.prot&ProtExec != 0 && c.arch == X86_64); readable != want {
				t.Errorf("%#x: readable %v, want %v", a, readable, want)
			}
			if err := c.Read(a, b[:]); err != nil {
				t.Errorf("%#x is not mapped: %v", a, err)
			}
		}
		var b [1]byte
		if err := c.Read(r.addr+r.size, b[:]); err == nil {
			t.Errorf("%#x, after the mapping, is mapped", r.addr+r.size)
		}
	}
	// Writes as the guest: allowed on the writable pages only.
	for _, r := range forkRegions {
		got := c.WriteAsGuest(r.addr+r.size-1, []byte{0xee}) == nil
		if want := r.prot&ProtWrite != 0; got != want {
			t.Errorf("%#x: writable %v, want %v", r.addr+r.size-1, got, want)
		}
	}
	var b [1]byte
	if err := c.Read(0x62000, b[:]); err == nil {
		t.Error("the hole unmapped at 0x62000 is mapped")
	}
}

// TestCopyMemory copies an address space of every kind of mapping, on
// both arches: the copy has each mapping with its permissions and
// contents, and the two are independent afterwards.
func TestCopyMemory(t *testing.T) {
	for _, arch := range []Arch{X86_64, ARM64} {
		t.Run(arch.String(), func(t *testing.T) {
			from := newTestCPU(t, arch)
			mapForkRegions(t, from)
			c := newTestCPU(t, arch)
			if err := c.CopyMemoryFrom(from); err != nil {
				t.Fatal(err)
			}
			checkForkRegions(t, c)
			// The parent is as it was, but for the checks' writes in the
			// child: a write in one is not seen in the other.
			if err := from.Write(0x10000, []byte{0xaa}); err != nil {
				t.Fatal(err)
			}
			var b [1]byte
			if err := c.Read(0x10000, b[:]); err != nil || b[0] != pattern(1, 1)[0] {
				t.Errorf("the child reads %#x at 0x10000 after the parent wrote there: %v", b[0], err)
			}
			if err := from.Read(0x10000+16*PageSize-1, b[:]); err != nil || b[0] != 0 {
				t.Errorf("the parent reads %#x where the child wrote: %v", b[0], err)
			}
			// The child's memory is its own to change.
			if err := c.Unmap(0x40000, 4*PageSize); err != nil {
				t.Fatal(err)
			}
			if err := from.Read(0x41000, b[:]); err != nil || b[0] != pattern(3, 1)[0] {
				t.Errorf("the parent lost its mapping at 0x41000 with the child's: %#x, %v", b[0], err)
			}

			if err := c.CopyMemoryFrom(from); err == nil {
				t.Error("a copy into a CPU with memory mapped was accepted")
			}
			other := newTestCPU(t, X86_64+ARM64-arch)
			if err := other.CopyMemoryFrom(from); err == nil {
				t.Error("a copy from a CPU of the other arch was accepted")
			}
		})
	}
}

// rss returns the host memory the process holds, in bytes.
func rss(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm:", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * uint64(os.Getpagesize())
}

// TestCopyMemoryHostPages copies a mapping of 4 GiB of which the parent
// touched 3 pages (and read one page more) and a reservation of 32 GiB
// in the same slab of host memory:
// the copy takes the host no more memory than those pages.
func TestCopyMemoryHostPages(t *testing.T) {
	from := newTestCPU(t, X86_64)
	const a, big = 0x1_0000_0000, 0x2_0000_0000
	if err := from.Map(a, 4<<30, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	for _, off := range []uint64{0, 1 << 30, 3<<30 + 5*PageSize} {
		if err := from.Write(a+off, pattern(byte(off>>20), PageSize)); err != nil {
			t.Fatal(err)
		}
	}
	var page [PageSize]byte
	if err := from.Read(a+2<<30, page[:]); err != nil {
		t.Fatal(err)
	}
	if err := from.Map(big, 32<<30, ProtNone); err != nil {
		t.Fatal(err)
	}
	c := newTestCPU(t, X86_64)
	before := rss(t)
	if err := c.CopyMemoryFrom(from); err != nil {
		t.Fatal(err)
	}
	// The page table and the bitmaps of the slabs come to less than a MiB.
	if grew := rss(t) - before; grew > 1<<20 {
		t.Errorf("the copy took %d KiB of host memory; the parent's data is 12 KiB", grew>>10)
	}
	for _, off := range []uint64{0, 1 << 30, 3<<30 + 5*PageSize} {
		if err := c.Read(a+off, page[:]); err != nil || !bytes.Equal(page[:], pattern(byte(off>>20), PageSize)) {
			t.Errorf("%#x does not hold what the parent wrote: %v", a+off, err)
		}
	}
}

// forkX86 runs, at 0x1000, code that reads the registers: RSI = the flags
// (pushfq), RAX = the quadword at FS:8 + XMM0.q0 + XMM1.q0 + R15, RBX =
// XMM0.q0 + XMM1.q0; at 0x1100, a division of XMM14 by XMM15 (0/0 sets
// invalid in softfloat's flags).
var forkX86 = map[uint64][]byte{
	0x1000: {0x9c, 0x5e, // pushfq; pop %rsi
		0x64, 0x48, 0x8b, 0x04, 0x25, 0x08, 0, 0, 0, // mov %fs:8, %rax
		0x66, 0x0f, 0xd4, 0xc1, // paddq %xmm1, %xmm0
		0x66, 0x48, 0x0f, 0x7e, 0xc3, // movq %xmm0, %rbx
		0x48, 0x01, 0xd8, // add %rbx, %rax
		0x4c, 0x01, 0xf8, // add %r15, %rax
		0x0f, 0x05}, // syscall
	0x1100: {0xf2, 0x45, 0x0f, 0x5e, 0xf7, 0x0f, 0x05}, // divsd %xmm15, %xmm14; syscall
}

// forkARM64 reads the registers: X0 = TPIDR_EL0 + V0.d0 + V1.d0 + X19,
// X1 = V0.d0 + V1.d0, X2 = FPCR, X3 = NZCV.
var forkARM64 = []uint32{
	0xd53bd040, // mrs x0, tpidr_el0
	0x4ee18400, // add v0.2d, v0.2d, v1.2d
	0x9e660001, // fmov x1, d0
	0x8b010000, // add x0, x0, x1
	0x8b130000, // add x0, x0, x19
	0xd53b4402, // mrs x2, fpcr
	0xd53b4203, // mrs x3, nzcv
	0xd4000001, // svc #0
}

// newForkCPU makes a CPU that stops at a system call, with its memory
// copied from from's when from is not nil.
func newForkCPU(t *testing.T, arch Arch, from *CPU) *CPU {
	t.Helper()
	var c *CPU
	c, err := New(arch, Hooks{
		Syscall:   func() { c.Stop() },
		Interrupt: func(intno uint32) bool { c.Stop(); return intno == 2 },
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if from != nil {
		if err := c.CopyMemoryFrom(from); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func vec(lo, hi uint64) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, lo), hi)
}

// TestCopyRegistersX86 sets every kind of x86-64 register to a value of
// its own (and leaves softfloat an invalid operation to report), copies
// them to a new CPU, and reads them back there, then runs code there that
// uses them.
func TestCopyRegistersX86(t *testing.T) {
	from := newForkCPU(t, X86_64, nil)
	if err := from.Map(0x1000, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	if err := from.Map(0x8000, 2*PageSize, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	for addr, code := range forkX86 {
		if err := from.Write(addr, code); err != nil {
			t.Fatal(err)
		}
	}
	const tls = 0x8100
	if err := from.Write(tls+8, binary.LittleEndian.AppendUint64(nil, 0x1111_0000_0000)); err != nil {
		t.Fatal(err)
	}
	set := func(c *CPU, r Reg, v uint64) {
		t.Helper()
		if err := c.SetReg(r, v); err != nil {
			t.Fatal(err)
		}
	}
	set(from, X86CR4, from.Reg(X86CR4)|1<<9|1<<10) // OSFXSR, OSXMMEXCPT
	set(from, X86MXCSR, 0x5f80)                    // all masked, rounding up
	if err := from.Run(0x1100, nil); err != nil {  // 0/0: invalid, in softfloat's flags only
		t.Fatal(err)
	}
	gprs := []Reg{X86RAX, X86RBX, X86RCX, X86RDX, X86RSI, X86RDI, X86RBP, X86RSP,
		X86R8, X86R9, X86R10, X86R11, X86R12, X86R13, X86R14, X86R15}
	want := map[Reg]uint64{}
	for i, r := range gprs {
		want[r] = 0x0101_0101_0000_0000*uint64(i+1) + uint64(i)
	}
	want[X86RSP] = 0x8ff0
	want[X86EFLAGS] = 0x202 | 1 | 1<<6 | 1<<7 | 1<<11 // IF, CF, ZF, SF, OF
	want[X86FSBase] = tls
	want[X86GSBase] = 0x7777_0000_1234
	want[X86FPCW] = 0x27f
	for r, v := range want {
		set(from, r, v)
	}
	for i := 0; i < 16; i++ {
		if err := from.SetRegBytes(X86XMM(i), vec(uint64(i)<<40|0xa0a0+uint64(i), ^uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	x87 := []byte{1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0x3f}
	if err := from.SetRegBytes(X86ST(0), x87); err != nil {
		t.Fatal(err)
	}
	want[X86RIP] = from.Reg(X86RIP)
	want[X86CR4] = from.Reg(X86CR4)
	want[X86FPTAG] = from.Reg(X86FPTAG)
	want[X86MXCSR] = 0x5f81 // the invalid operation, pending in softfloat

	c := newForkCPU(t, X86_64, from)
	if err := c.CopyRegistersFrom(from); err != nil {
		t.Fatal(err)
	}
	for r, v := range want {
		if got := c.Reg(r); got != v {
			t.Errorf("register %d is %#x in the copy, want %#x", r, got, v)
		}
	}
	for i := 0; i < 16; i++ {
		if got, w := c.RegBytes(X86XMM(i), 16), vec(uint64(i)<<40|0xa0a0+uint64(i), ^uint64(i)); !bytes.Equal(got, w) {
			t.Errorf("xmm%d is %x in the copy, want %x", i, got, w)
		}
	}
	if got := c.RegBytes(X86ST(0), 10); !bytes.Equal(got, x87) {
		t.Errorf("st0 is %x in the copy, want %x", got, x87)
	}

	if err := c.Run(0x1000, nil); err != nil {
		t.Fatal(err)
	}
	sum := uint64(0xa0a0) + (1<<40 | 0xa0a1)
	if got := c.Reg(X86RBX); got != sum {
		t.Errorf("rbx = %#x, want xmm0 + xmm1 = %#x", got, sum)
	}
	if got, w := c.Reg(X86RAX), 0x1111_0000_0000+sum+want[X86R15]; got != w {
		t.Errorf("rax = %#x, want %#x", got, w)
	}
	if got := c.Reg(X86RSI); got != want[X86EFLAGS] {
		t.Errorf("pushfq read %#x, want %#x", got, want[X86EFLAGS])
	}
	// The parent is untouched by the child's run.
	if got := from.Reg(X86RAX); got != want[X86RAX] {
		t.Errorf("the parent's rax is %#x, want %#x", got, want[X86RAX])
	}
}

// TestCopyRegistersARM64 is TestCopyRegistersX86 for arm64.
func TestCopyRegistersARM64(t *testing.T) {
	from := newForkCPU(t, ARM64, nil)
	if err := from.Map(0x1000, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	for i, insn := range forkARM64 {
		if err := from.Write(0x1000+4*uint64(i), binary.LittleEndian.AppendUint32(nil, insn)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[Reg]uint64{}
	for n := 0; n <= 30; n++ {
		want[ARM64X(n)] = 0x0303_0000_0000_0000*uint64(n+1) + uint64(n)
	}
	want[ARM64SP] = 0x7fff_0000_0010
	want[ARM64PC] = 0x1000
	want[ARM64NZCV] = 0xa000_0000 // N, C
	want[ARM64TPIDR] = 0x2222_0000_0000
	want[ARM64FPCR] = 0x0340_0000 // rounding towards -inf, FZ, DN
	want[ARM64FPSR] = 0x11        // IOC, IXC
	for r, v := range want {
		if err := from.SetReg(r, v); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 32; i++ {
		if err := from.SetRegBytes(ARM64Q(i), vec(uint64(i)<<44|0xb0b0+uint64(i), ^uint64(i)<<4)); err != nil {
			t.Fatal(err)
		}
	}
	want[ARM64CPACR] = from.Reg(ARM64CPACR)

	c := newForkCPU(t, ARM64, from)
	if err := c.CopyRegistersFrom(from); err != nil {
		t.Fatal(err)
	}
	for r, v := range want {
		if got := c.Reg(r); got != v {
			t.Errorf("register %d is %#x in the copy, want %#x", r, got, v)
		}
	}
	for i := 0; i < 32; i++ {
		if got, w := c.RegBytes(ARM64Q(i), 16), vec(uint64(i)<<44|0xb0b0+uint64(i), ^uint64(i)<<4); !bytes.Equal(got, w) {
			t.Errorf("q%d is %x in the copy, want %x", i, got, w)
		}
	}

	if err := c.Run(c.PC(), nil); err != nil {
		t.Fatal(err)
	}
	sum := uint64(0xb0b0) + (1<<44 | 0xb0b1)
	for r, v := range map[Reg]uint64{
		ARM64X(0): 0x2222_0000_0000 + sum + want[ARM64X(19)],
		ARM64X(1): sum,
		ARM64X(2): want[ARM64FPCR],
		ARM64X(3): want[ARM64NZCV],
	} {
		if got := c.Reg(r); got != v {
			t.Errorf("register %d is %#x after the run, want %#x", r, got, v)
		}
	}
	if got := from.Reg(ARM64X(0)); got != want[ARM64X(0)] {
		t.Errorf("the parent's x0 is %#x, want %#x", got, want[ARM64X(0)])
	}
}

// TestCopyRegistersArch refuses a copy between arches.
func TestCopyRegistersArch(t *testing.T) {
	if err := newTestCPU(t, X86_64).CopyRegistersFrom(newTestCPU(t, ARM64)); err == nil {
		t.Error("registers were copied from an arm64 CPU to an x86-64 one")
	}
}

// TestCodeBuffer checks that the translation buffer has the size asked,
// and the limits.
func TestCodeBuffer(t *testing.T) {
	for _, size := range []uint64{0, MinCodeBuffer, 32 << 20, MaxCodeBuffer} {
		c, err := New(ARM64, Hooks{}, Options{CodeBuffer: size})
		if err != nil {
			t.Fatal(err)
		}
		want := size
		if size == 0 {
			want = DefaultCodeBuffer
		}
		if got := c.CodeBuffer(); got != want {
			t.Errorf("asked for %d bytes, got %d", size, got)
		}
		c.Close()
	}
	for _, size := range []uint64{MinCodeBuffer - 1, MaxCodeBuffer + 1, 1 << 32} {
		if c, err := New(X86_64, Hooks{}, Options{CodeBuffer: size}); err == nil {
			c.Close()
			t.Errorf("a buffer of %d bytes was accepted", size)
		}
	}
}

// manyBlocks is x86-64 code at 0x10000 of n blocks of `inc %rax; jmp
// .+2` (5 bytes, 2 instructions), then `dec %rcx; jnz` back to the first
// (2 instructions) and `syscall`.
func manyBlocks(n int) []byte {
	code := make([]byte, 0, 5*n+11)
	for i := 0; i < n; i++ {
		code = append(code, 0x48, 0xff, 0xc0, 0xeb, 0x00)
	}
	code = append(code, 0x48, 0xff, 0xc9, 0x0f, 0x85)
	code = binary.LittleEndian.AppendUint32(code, uint32(-(len(code) + 4)))
	return append(code, 0x0f, 0x05)
}

// loadManyBlocks maps code, manyBlocks', at 0x10000 in c, to run passes
// times.
func loadManyBlocks(tb testing.TB, c *CPU, code []byte, passes int) {
	tb.Helper()
	if err := c.Map(0x10000, (uint64(len(code))+PageSize-1)&^(PageSize-1), ProtRead|ProtExec); err != nil {
		tb.Fatal(err)
	}
	if err := c.Write(0x10000, code); err != nil {
		tb.Fatal(err)
	}
	if err := c.SetReg(X86RCX, uint64(passes)); err != nil {
		tb.Fatal(err)
	}
}

// runManyBlocks runs manyBlocks(n) passes times with a translation buffer
// of the size given, and returns its block table.
func runManyBlocks(t *testing.T, n, passes int, buffer uint64) []Block {
	t.Helper()
	var c *CPU
	seen := map[[2]uint64]int{}
	c, err := New(X86_64, Hooks{
		NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo {
			seen[[2]uint64{addr, uint64(size)}]++
			if size == 2 {
				return BlockInfo{Instructions: 1}
			}
			return BlockInfo{Instructions: 2}
		},
		Syscall: func() { c.Stop() },
	}, Options{CodeBuffer: buffer})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	loadManyBlocks(t, c, manyBlocks(n), passes)
	if err := c.Run(0x10000, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Reg(X86RAX), uint64(n*passes); got != want {
		t.Errorf("rax = %d, want %d", got, want)
	}
	for k, times := range seen {
		if times != 1 {
			t.Errorf("block %#x+%d was new %d times", k[0], k[1], times)
		}
	}
	if len(seen) != n+2 {
		t.Errorf("%d blocks were new, want %d", len(seen), n+2)
	}
	return c.Blocks()
}

// TestCodeBufferFull runs 20,000 distinct blocks three times in the
// smallest translation buffer, which they fill many times over (a block
// takes some 650 bytes of it, its descriptor alone over 160): each fill
// discards every translation, and the block table keeps counting exactly,
// as with the default buffer. Unicorn 2.1.1 crashes at the first fill
// unless the buffer was flushed before (ic_init_code_buffer).
func TestCodeBufferFull(t *testing.T) {
	const n, passes = 20000, 3
	small := runManyBlocks(t, n, passes, MinCodeBuffer)
	if len(small) != n+2 {
		t.Fatalf("%d blocks in the table, want %d", len(small), n+2)
	}
	var insns uint64
	for i, b := range small {
		want := Block{ID: b.ID, Addr: 0x10000 + 5*uint64(i), Size: 5, Instructions: 2, Executions: passes}
		switch i {
		case n:
			want.Size = 9
		case n + 1:
			want.Addr, want.Size, want.Instructions, want.Executions = 0x10000+5*n+9, 2, 1, 1
		}
		if b != want {
			t.Errorf("block %d is %+v, want %+v", i, b, want)
		}
		insns += b.Executions*uint64(b.Instructions) - b.Cut
	}
	if want := uint64(2*n*passes + 2*passes + 1); insns != want {
		t.Errorf("%d instructions, want %d", insns, want)
	}
	large := runManyBlocks(t, n, passes, 0)
	if fmt.Sprint(small) != fmt.Sprint(large) {
		t.Error("the block tables differ between the smallest buffer and the default one")
	}
}

// vsz returns the process's virtual size, in bytes.
func vsz(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm:", err)
	}
	pages, err := strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * uint64(os.Getpagesize())
}

// BenchmarkLiveCPUs keeps 100 CPUs alive, each having run a small program
// (1,000 distinct blocks, 6,001 instructions), and reports the host memory
// and address space they take, by translation buffer size.
func BenchmarkLiveCPUs(b *testing.B) {
	for _, size := range []uint64{1 << 30, 256 << 20, 64 << 20, 32 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			code := manyBlocks(1000)
			for i := 0; i < b.N; i++ {
				r0, v0 := rss(b), vsz(b)
				var cpus []*CPU
				for j := 0; j < 100; j++ {
					var c *CPU
					c, err := New(X86_64, Hooks{
						NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo { return BlockInfo{Instructions: 2} },
						Syscall:  func() { c.Stop() },
					}, Options{CodeBuffer: size})
					if err != nil {
						b.Fatal(err)
					}
					cpus = append(cpus, c)
					if err := c.Map(0x10000, 2*PageSize, ProtRead|ProtExec); err != nil {
						b.Fatal(err)
					}
					if err := c.Write(0x10000, code); err != nil {
						b.Fatal(err)
					}
					c.SetReg(X86RCX, 3)
					if err := c.Run(0x10000, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(rss(b)-r0)/(1<<20), "rss-MiB")
				b.ReportMetric(float64(vsz(b)-v0)/(1<<20), "vsz-MiB")
				for _, c := range cpus {
					c.Close()
				}
			}
		})
	}
}

// BenchmarkNewClose is the cost of a CPU made and closed, by translation
// buffer size.
func BenchmarkNewClose(b *testing.B) {
	for _, size := range []uint64{1 << 30, 256 << 20, 64 << 20, 32 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c, err := New(X86_64, Hooks{}, Options{CodeBuffer: size})
				if err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}

// BenchmarkCopyMemory times CopyMemoryFrom, and reports the host memory
// the copy takes, for: a small static program's address space (1 MiB
// touched: code, data, heap and stack, in 8 MiB of mappings), 64 MiB
// touched in a mapping of 1 GiB, and 100 GiB of reservations without
// access beside a page of data in the same slab.
func BenchmarkCopyMemory(b *testing.B) {
	layouts := []struct {
		name string
		set  func(c *CPU) error
	}{
		{"static-1MiB", func(c *CPU) error {
			for _, m := range []struct {
				addr, size, touched uint64
				prot                Prot
			}{
				{0x400000, 640 << 10, 640 << 10, ProtRead | ProtExec},
				{0x4a0000, 128 << 10, 128 << 10, ProtRead},
				{0x4c0000, 64 << 10, 64 << 10, ProtRead | ProtWrite},
				{0x4d0000, 132 << 10, 100 << 10, ProtRead | ProtWrite},      // heap
				{0x7fff_ff00_0000, 8 << 20, 92 << 10, ProtRead | ProtWrite}, // stack, touched at its top
			} {
				if err := c.Map(m.addr, m.size, m.prot); err != nil {
					return err
				}
				at := m.addr
				if m.addr == 0x7fff_ff00_0000 {
					at = m.addr + m.size - m.touched
				}
				if err := c.Write(at, pattern(byte(m.addr>>12), int(m.touched))); err != nil {
					return err
				}
			}
			return nil
		}},
		{"64MiB-of-1GiB", func(c *CPU) error {
			if err := c.Map(0x1_0000_0000, 1<<30, ProtRead|ProtWrite); err != nil {
				return err
			}
			// 64 runs of 1 MiB, 16 MiB apart.
			for i := uint64(0); i < 64; i++ {
				if err := c.Write(0x1_0000_0000+i<<24, pattern(byte(i), 1<<20)); err != nil {
					return err
				}
			}
			return nil
		}},
		{"100GiB-PROT_NONE", func(c *CPU) error {
			if err := c.Map(0x7000_0000_0000, PageSize, ProtRead|ProtWrite); err != nil {
				return err
			}
			if err := c.Write(0x7000_0000_0000, pattern(1, PageSize)); err != nil {
				return err
			}
			for i := uint64(0); i < 100; i++ {
				if err := c.Map(0x7000_0000_0000+(i+1)<<30, 1<<30-PageSize, ProtNone); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			from, err := New(X86_64, Hooks{}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer from.Close()
			if err := l.set(from); err != nil {
				b.Fatal(err)
			}
			var grew uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				c, err := New(X86_64, Hooks{}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				before := rss(b)
				b.StartTimer()
				if err := c.CopyMemoryFrom(from); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				grew += rss(b) - before
				c.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(grew)/float64(b.N)/(1<<20), "rss-MiB")
		})
	}
}

// BenchmarkManyBlocks runs 200,000 distinct blocks twice (about 40 MiB of
// translations), by translation buffer size: a small one fills and is
// flushed, and everything is translated again.
func BenchmarkManyBlocks(b *testing.B) {
	for _, size := range []uint64{1 << 30, 256 << 20, 64 << 20, 32 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			code := manyBlocks(200000)
			for i := 0; i < b.N; i++ {
				var c *CPU
				c, err := New(X86_64, Hooks{
					NewBlock: func(id uint32, addr uint64, size uint32) BlockInfo { return BlockInfo{Instructions: 2} },
					Syscall:  func() { c.Stop() },
				}, Options{CodeBuffer: size})
				if err != nil {
					b.Fatal(err)
				}
				loadManyBlocks(b, c, code, 2)
				r0 := rss(b)
				if err := c.Run(0x10000, nil); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(rss(b)-r0)/(1<<20), "rss-MiB")
				c.Close()
			}
		})
	}
}

// TestCopyMemoryGuestStores copies memory the guest's own stores wrote
// (through the emulator's TLB, not icount's Write), in a mapping the host
// never wrote.
func TestCopyMemoryGuestStores(t *testing.T) {
	from := newForkCPU(t, X86_64, nil)
	if err := from.Map(0x1000, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	if err := from.Map(0x300_0000, 4<<20, ProtRead|ProtWrite); err != nil {
		t.Fatal(err)
	}
	// mov %rax, (%rbx); mov %rax, 0x200000(%rbx); syscall
	if err := from.Write(0x1000, []byte{0x48, 0x89, 0x03, 0x48, 0x89, 0x83, 0, 0, 0x20, 0, 0x0f, 0x05}); err != nil {
		t.Fatal(err)
	}
	from.SetReg(X86RAX, 0x0123_4567_89ab_cdef)
	from.SetReg(X86RBX, 0x310_0ff8)
	if err := from.Run(0x1000, nil); err != nil {
		t.Fatal(err)
	}
	c := newForkCPU(t, X86_64, from)
	for _, a := range []uint64{0x310_0ff8, 0x330_0ff8} {
		var b [8]byte
		if err := c.Read(a, b[:]); err != nil || binary.LittleEndian.Uint64(b[:]) != 0x0123_4567_89ab_cdef {
			t.Errorf("the child reads %x at %#x, want what the parent's store wrote: %v", b, a, err)
		}
	}
}

// TestCopyRegistersInHook copies the registers of a CPU stopped in its
// system call hook, as fork does: inside the emulator's run, where the
// x86-64 arithmetic flags and DF are kept apart from EFLAGS.
func TestCopyRegistersInHook(t *testing.T) {
	var child *CPU
	var from *CPU
	from, err := New(X86_64, Hooks{Syscall: func() {
		child = newForkCPU(t, X86_64, from)
		if err := child.CopyRegistersFrom(from); err != nil {
			t.Error(err)
		}
		from.Stop()
	}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(from.Close)
	for _, m := range []uint64{0x1000, 0x8000} {
		if err := from.Map(m, PageSize, ProtRead|ProtWrite|ProtExec); err != nil {
			t.Fatal(err)
		}
	}
	if err := from.Write(0x1000, forkX86[0x1000]); err != nil {
		t.Fatal(err)
	}
	// std; mov $-1, %eax; add $1, %eax (CF, PF, AF, ZF); syscall
	if err := from.Write(0x1200, []byte{0xfd, 0xb8, 0xff, 0xff, 0xff, 0xff, 0x83, 0xc0, 0x01, 0x0f, 0x05}); err != nil {
		t.Fatal(err)
	}
	from.SetReg(X86CR4, from.Reg(X86CR4)|1<<9)
	from.SetReg(X86RSP, 0x8ff0)
	from.SetReg(X86FSBase, 0x8000)
	if err := from.Run(0x1200, nil); err != nil {
		t.Fatal(err)
	}
	const want = 0x2 | 1 | 1<<2 | 1<<4 | 1<<6 | 1<<10 // CF PF AF ZF DF
	if got := from.Reg(X86EFLAGS); got != want {
		t.Fatalf("the parent's flags are %#x, want %#x", got, want)
	}
	if got := child.Reg(X86EFLAGS); got != want {
		t.Errorf("the child's flags are %#x, want %#x", got, want)
	}
	if err := child.Run(0x1000, nil); err != nil {
		t.Fatal(err)
	}
	if got := child.Reg(X86RSI); got != want {
		t.Errorf("pushfq in the child read %#x, want %#x", got, want)
	}
}

// TestCopyRegistersInHookARM64 is TestCopyRegistersInHook for arm64: the
// child goes on past the svc with the flags the parent set.
func TestCopyRegistersInHookARM64(t *testing.T) {
	var child, from *CPU
	from, err := New(ARM64, Hooks{Interrupt: func(intno uint32) bool {
		child = newForkCPU(t, ARM64, from)
		if err := child.CopyRegistersFrom(from); err != nil {
			t.Error(err)
		}
		from.Stop()
		return intno == 2
	}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(from.Close)
	if err := from.Map(0x1000, PageSize, ProtRead|ProtExec); err != nil {
		t.Fatal(err)
	}
	// mov x5, #0; subs x5, x5, #1 (N); svc #0; mrs x3, nzcv; svc #0
	for i, insn := range []uint32{0xd2800005, 0xf10004a5, 0xd4000001, 0xd53b4203, 0xd4000001} {
		if err := from.Write(0x1000+4*uint64(i), binary.LittleEndian.AppendUint32(nil, insn)); err != nil {
			t.Fatal(err)
		}
	}
	if err := from.Run(0x1000, nil); err != nil {
		t.Fatal(err)
	}
	if pc := child.PC(); pc != 0x100c {
		t.Fatalf("the child's pc is %#x, want 0x100c, past the svc", pc)
	}
	if err := child.Run(child.PC(), nil); err != nil {
		t.Fatal(err)
	}
	if got := child.Reg(ARM64X(3)); got != 0x8000_0000 {
		t.Errorf("the child read nzcv %#x, want N (0x80000000)", got)
	}
	if got := child.Reg(ARM64X(5)); got != ^uint64(0) {
		t.Errorf("the child's x5 is %#x, want -1", got)
	}
}
