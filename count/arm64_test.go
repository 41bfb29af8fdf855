package count

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/arm64/arm64asm"
)

// TestDecodeA64Mem checks the decoded accesses of one of each kind of
// arm64 load and store, written out by hand from the Arm ARM.
func TestDecodeA64Mem(t *testing.T) {
	type want struct {
		base              int
		offset            int64
		size              uint64
		load, store, post bool
		wb                bool
		wbImm             int64
	}
	cases := []struct {
		w    uint32
		asm  string
		want want
	}{
		{0xf9400064, "ldr x4, [x3]", want{base: 3, size: 8, load: true}},
		{0xf8480c22, "ldr x2, [x1, #128]!", want{base: 1, offset: 128, size: 8, load: true, wb: true, wbImm: 128}},
		{0xf8408423, "ldr x3, [x1], #8", want{base: 1, offset: 8, size: 8, load: true, post: true, wb: true, wbImm: 8}},
		{0xa9400420, "ldp x0, x1, [x1]", want{base: 1, size: 16, load: true}},
		{0xa9ff0fe2, "ldp x2, x3, [sp, #-16]!", want{base: 31, offset: -16, size: 16, load: true, wb: true, wbImm: -16}},
		{0xa9be7bfd, "stp x29, x30, [sp, #-32]!", want{base: 31, offset: -32, size: 16, store: true, wb: true, wbImm: -32}},
		{0xb8237822, "str w2, [x1, x3, lsl #2]", want{base: 1, size: 4, store: true}},
		{0x3863c822, "ldrb w2, [x1, w3, sxtw]", want{base: 1, size: 1, load: true}},
		{0x4cdfa000, "ld1 {v0.16b, v1.16b}, [x0], #32", want{base: 0, size: 32, load: true, post: true, wb: true, wbImm: 32}},
		{0x4cc27800, "ld1 {v0.4s}, [x0], x2", want{base: 0, size: 16, load: true, post: true, wb: true}},
		{0x0d009020, "st1 {v0.s}[1], [x1]", want{base: 1, size: 4, store: true}},
		{0x4d60e4a0, "ld4r {v0.8h-v3.8h}, [x5]", want{base: 5, size: 8, load: true}},
		{0xd50b7421, "dc zva, x1", want{base: 1, size: 64, store: true}},
		{0xc85f7c23, "ldxr x3, [x1]", want{base: 1, size: 8, load: true}},
		{0xc8057c23, "stxr w5, x3, [x1]", want{base: 1, size: 8, store: true}},
		{0xc87f8c82, "ldaxp x2, x3, [x4]", want{base: 4, size: 16, load: true}},
		{0x3dc00440, "ldr q0, [x2, #16]", want{base: 2, offset: 16, size: 16, load: true}},
		{0x58000041, "ldr x1, .+8", want{base: a64PC, offset: 8, size: 8, load: true}},
		{0xb89fc041, "ldursw x1, [x2, #-4]", want{base: 2, offset: -4, size: 4, load: true}},
	}
	for _, c := range cases {
		m, ok := decodeA64Mem(c.w)
		got := want{m.base, m.offset, m.size, m.load, m.store, m.post, m.wb, m.wbImm}
		if !ok || got != c.want {
			t.Errorf("%s (%#08x): got %+v (ok %v), want %+v", c.asm, c.w, got, ok, c.want)
		}
	}
	for _, w := range []uint32{0x91002021, 0xd10043ff, 0xaa0203e1, 0x94000000, 0xf9800020, 0xd4000001} {
		if _, ok := decodeA64Mem(w); ok {
			t.Errorf("%#08x is no data access", w)
		}
	}
	m, _ := decodeA64Mem(0xa9400420) // ldp x0, x1, [x1]
	if m.rt != 0 || m.rt2 != 1 || m.each != 8 || m.dstBits != 64 {
		t.Errorf("ldp x0, x1: rt %d rt2 %d each %d bits %d", m.rt, m.rt2, m.each, m.dstBits)
	}
	if m, _ := decodeA64Mem(0xc8057c23); m.status != 5 { // stxr w5, x3, [x1]
		t.Errorf("stxr status register %d, want 5", m.status)
	}
}

var asmImm = regexp.MustCompile(`#(-?\d+)`)

// TestDecodeA64MemAgainstArm64asm decodes a million random words of the
// load/store encoding space with both this package and arm64asm, and checks
// that they agree on which access memory, base register, addressing mode,
// offset, index register and direction.
func TestDecodeA64MemAgainstArm64asm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	var buf [4]byte
	checked := 0
	for i := 0; i < n; i++ {
		// Bit 27 set and bit 25 clear: the load/store space.
		w := rng.Uint32()&^(1<<25) | 1<<27
		binary.LittleEndian.PutUint32(buf[:], w)
		inst, err := arm64asm.Decode(buf[:])
		if err != nil {
			continue
		}
		op := inst.Op.String()
		var memArg arm64asm.Arg
		for _, a := range inst.Args {
			switch a.(type) {
			case arm64asm.MemImmediate, arm64asm.MemExtend, arm64asm.PCRel:
				memArg = a
			}
		}
		m, ok := decodeA64Mem(w)
		if strings.HasPrefix(op, "PRF") || memArg == nil {
			if ok {
				t.Fatalf("%#08x %s: decoded as an access", w, arm64asm.GNUSyntax(inst))
			}
			continue
		}
		if !ok {
			t.Fatalf("%#08x %s: not decoded as an access", w, arm64asm.GNUSyntax(inst))
		}
		checked++
		load := strings.HasPrefix(op, "LD")
		if m.load != load || m.store != !load {
			t.Fatalf("%#08x %s: load %v store %v", w, arm64asm.GNUSyntax(inst), m.load, m.store)
		}
		switch a := memArg.(type) {
		case arm64asm.PCRel:
			if m.base != a64PC || m.offset != int64(a) {
				t.Fatalf("%#08x %s: literal offset %d", w, arm64asm.GNUSyntax(inst), m.offset)
			}
		case arm64asm.MemExtend:
			if m.base != regNum(arm64asm.Reg(a.Base)) || m.index != regNum(a.Index) || m.wb {
				t.Fatalf("%#08x %s: base %d index %d", w, arm64asm.GNUSyntax(inst), m.base, m.index)
			}
		case arm64asm.MemImmediate:
			imm := int64(0)
			if s := asmImm.FindStringSubmatch(a.String()); s != nil {
				imm, _ = strconv.ParseInt(s[1], 10, 64)
			}
			if m.base != regNum(arm64asm.Reg(a.Base)) {
				t.Fatalf("%#08x %s: base %d", w, arm64asm.GNUSyntax(inst), m.base)
			}
			bad := false
			switch a.Mode {
			case arm64asm.AddrOffset:
				bad = m.wb || m.offset != imm
			case arm64asm.AddrPreIndex:
				bad = !m.wb || m.post || m.offset != imm || m.wbImm != imm
			case arm64asm.AddrPostIndex:
				bad = !m.wb || !m.post || m.wbImm != imm || m.wbReg != a64None
			case arm64asm.AddrPostReg:
				bad = !m.wb || !m.post || m.wbReg == a64None
			}
			if bad {
				t.Fatalf("%#08x %s (%v): got %+v", w, arm64asm.GNUSyntax(inst), a.Mode, m)
			}
		}
	}
	if checked < n/10 {
		t.Errorf("only %d of %d words were loads or stores", checked, n)
	}
}

// regNum numbers an arm64asm register as decodeA64Mem does: 0..30, 31 SP.
func regNum(r arm64asm.Reg) int {
	switch {
	case r >= arm64asm.X0 && r <= arm64asm.X30:
		return int(r - arm64asm.X0)
	case r >= arm64asm.W0 && r <= arm64asm.W30:
		return int(r - arm64asm.W0)
	case r == arm64asm.SP || r == arm64asm.WSP:
		return 31
	}
	return -2
}

// fakeARM64 is a register file and a memory map for findAccessARM64.
type fakeARM64 struct {
	x      [31]uint64
	sp     uint64
	mapped [][2]uint64 // [start, end)
	mem    map[uint64]byte
}

func (f *fakeARM64) reg(r emu.Reg) uint64 {
	if r == emu.ARM64SP {
		return f.sp
	}
	for n := 0; n < 31; n++ {
		if emu.ARM64X(n) == r {
			return f.x[n]
		}
	}
	return 0
}

func (f *fakeARM64) read(addr uint64, b []byte) error {
	for i := range b {
		a := addr + uint64(i)
		ok := false
		for _, m := range f.mapped {
			ok = ok || a >= m[0] && a < m[1]
		}
		if !ok {
			return errors.New("unmapped")
		}
		b[i] = f.mem[a]
	}
	return nil
}

func block(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// TestFindAccessARM64 checks which instruction of a block is found to
// have faulted, from registers as Unicorn leaves them: as before the
// faulting instruction, its own writeback not done.
func TestFindAccessARM64(t *testing.T) {
	const pc = 0x10000
	mapped := [][2]uint64{{0x20000, 0x30000}}
	cases := []struct {
		name  string
		code  []byte
		regs  func(f *fakeARM64)
		fault emu.Fault
		want  uint64 // index of the faulting instruction
	}{
		{
			name: "plain load",
			// mov x1, #1; ldr x4, [x3]; add x0, x0, x4
			code:  block(0xd2800021, 0xf9400064, 0x8b040000),
			regs:  func(f *fakeARM64) { f.x[3] = 0x10 },
			fault: emu.Fault{Addr: 0x10},
			want:  1,
		},
		{
			name: "pre-index: the first also computes the address after its writeback",
			// ldr x2, [x1, #128]!; ldr x3, [x1, #128]!; ldr x3, [x1, #128]!
			// x3 does not hold what is at 0x2ff80: the second did not complete.
			code:  block(0xf8480c22, 0xf8480c23, 0xf8480c23),
			regs:  func(f *fakeARM64) { f.x[1], f.x[3] = 0x2ff80, 0x20300 },
			fault: emu.Fault{Addr: 0x30000},
			want:  1,
		},
		{
			name: "the first load faults, the second would compute the same address",
			// ldr x4, [x3]; ldr x5, [x3]
			code:  block(0xf9400064, 0xf9400065),
			regs:  func(f *fakeARM64) { f.x[3] = 0x30000 },
			fault: emu.Fault{Addr: 0x30000},
			want:  0,
		},
		{
			name: "post-index then a load at the new base, which faults",
			// ldr x3, [x1], #8; ldr x4, [x1]  (x3 holds what was at x1-8)
			code: block(0xf8408423, 0xf9400024),
			regs: func(f *fakeARM64) {
				f.x[1], f.x[3] = 0x30000, 0x1122334455667788
				for i := 0; i < 8; i++ {
					f.mem[0x2fff8+uint64(i)] = byte(f.x[3] >> (8 * i))
				}
			},
			fault: emu.Fault{Addr: 0x30000},
			want:  1,
		},
		{
			name: "post-index load that faults itself, the next at the same base",
			// ldr x3, [x1], #8; ldr x4, [x1]  (x3 does not hold what is at x1-8)
			code:  block(0xf8408423, 0xf9400024),
			regs:  func(f *fakeARM64) { f.x[1], f.x[3] = 0x30000, 7 },
			fault: emu.Fault{Addr: 0x30000},
			want:  0,
		},
		{
			name: "pointer chasing: the load that overwrote the base is taken",
			// ldr x1, [x1]; ldr x2, [x1]
			code:  block(0xf9400021, 0xf9400022),
			regs:  func(f *fakeARM64) { f.x[1] = 0x10 },
			fault: emu.Fault{Addr: 0x10},
			want:  0,
		},
		{
			name: "pointer chasing: a later load at another offset is told apart",
			// ldr x1, [x1]; ldr x2, [x1, #8]
			code:  block(0xf9400021, 0xf9400422),
			regs:  func(f *fakeARM64) { f.x[1] = 0x10 },
			fault: emu.Fault{Addr: 0x18},
			want:  1,
		},
		{
			name: "pair crossing into an unmapped page",
			// mov x2, #5; ldp x0, x1, [x1]
			code:  block(0xd28000a2, 0xa9400420),
			regs:  func(f *fakeARM64) { f.x[1] = 0x2fff8 },
			fault: emu.Fault{Addr: 0x30000, Size: 8},
			want:  1,
		},
		{
			name: "a write fault is a store's, not a load's at the same address",
			// ldr x4, [x3]; stp x29, x30, [sp, #-32]!
			code:  block(0xf9400064, 0xa9be7bfd),
			regs:  func(f *fakeARM64) { f.x[3], f.sp = 0x1ffe0, 0x20000 },
			fault: emu.Fault{Addr: 0x1ffe0, Write: true},
			want:  1,
		},
		{
			name: "stack pointer moved by sub before the faulting store",
			// sub sp, sp, #0x10; str x1, [sp]; sub sp, sp, #0x10; str x1, [sp]
			code:  block(0xd10043ff, 0xf90003e1, 0xd10043ff, 0xf90003e1),
			regs:  func(f *fakeARM64) { f.sp = 0x1fff0 },
			fault: emu.Fault{Addr: 0x1fff0, Write: true},
			want:  3,
		},
		{
			name: "SIMD post-index by immediate",
			// ld1 {v0.16b, v1.16b}, [x0], #32; ld1 {v0.16b, v1.16b}, [x0], #32
			code:  block(0x4cdfa000, 0x4cdfa000),
			regs:  func(f *fakeARM64) { f.x[0] = 0x2fff0 },
			fault: emu.Fault{Addr: 0x30000},
			want:  1,
		},
		{
			name: "dc zva rounds the address down to its 64-byte block",
			// mov x2, #5; dc zva, x1
			code:  block(0xd28000a2, 0xd50b7421),
			regs:  func(f *fakeARM64) { f.x[1] = 0x30020 },
			fault: emu.Fault{Addr: 0x30000, Write: true},
			want:  1,
		},
	}
	for _, c := range cases {
		f := &fakeARM64{mapped: mapped, mem: map[uint64]byte{}}
		c.regs(f)
		got, ok := findAccessARM64(c.code, pc, &c.fault, f.reg, f.read)
		if !ok || got != pc+4*c.want {
			t.Errorf("%s: found %#x (ok %v), want %#x", c.name, got, ok, pc+4*c.want)
		}
	}
	f := &fakeARM64{mapped: mapped}
	if _, ok := findAccessARM64(block(0xd2800021, 0xd28000a2), pc, &emu.Fault{Addr: 0x10}, f.reg, f.read); ok {
		t.Error("a block with no access to the address must not be given a faulting instruction")
	}
}
