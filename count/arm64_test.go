package count

import (
	"encoding/binary"
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
	}
	cases := []struct {
		w    uint32
		asm  string
		want want
	}{
		{0xf9400064, "ldr x4, [x3]", want{base: 3, size: 8, load: true}},
		{0xf8480c22, "ldr x2, [x1, #128]!", want{base: 1, offset: 128, size: 8, load: true}},
		{0xf8408423, "ldr x3, [x1], #8", want{base: 1, offset: 8, size: 8, load: true, post: true}},
		{0xa9400420, "ldp x0, x1, [x1]", want{base: 1, size: 16, load: true}},
		{0xa9ff0fe2, "ldp x2, x3, [sp, #-16]!", want{base: 31, offset: -16, size: 16, load: true}},
		{0xa9be7bfd, "stp x29, x30, [sp, #-32]!", want{base: 31, offset: -32, size: 16, store: true}},
		{0xb8237822, "str w2, [x1, x3, lsl #2]", want{base: 1, size: 4, store: true}},
		{0x3863c822, "ldrb w2, [x1, w3, sxtw]", want{base: 1, size: 1, load: true}},
		{0x4cdfa000, "ld1 {v0.16b, v1.16b}, [x0], #32", want{base: 0, size: 32, load: true, post: true}},
		{0x4cc27800, "ld1 {v0.4s}, [x0], x2", want{base: 0, size: 16, load: true, post: true}},
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
		got := want{m.base, m.offset, m.size, m.load, m.store, m.post}
		if !ok || got != c.want {
			t.Errorf("%s (%#08x): got %+v (ok %v), want %+v", c.asm, c.w, got, ok, c.want)
		}
	}
	for _, w := range []uint32{0x91002021, 0xd10043ff, 0xaa0203e1, 0x94000000, 0xf9800020, 0xd4000001} {
		if _, ok := decodeA64Mem(w); ok {
			t.Errorf("%#08x is no data access", w)
		}
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
			if m.base != regNum(arm64asm.Reg(a.Base)) || m.index != regNum(a.Index) || m.post {
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
			case arm64asm.AddrOffset, arm64asm.AddrPreIndex:
				bad = m.post || m.offset != imm
			case arm64asm.AddrPostIndex, arm64asm.AddrPostReg:
				bad = !m.post
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

// TestAccessARM64 checks the address an instruction accesses, from the
// registers before it, as a memory fault's address is worked out.
func TestAccessARM64(t *testing.T) {
	const pc = 0x10000
	var x [31]uint64
	var sp uint64
	reg := func(r emu.Reg) uint64 {
		if r == emu.ARM64SP {
			return sp
		}
		for n := range x {
			if emu.ARM64X(n) == r {
				return x[n]
			}
		}
		return 0
	}
	x[1], x[2], x[3], sp = 0x2fff8, 0xffff_ffff_ffff_fffc, 0x30020, 0x20000
	for _, c := range []struct {
		w    uint32
		asm  string
		addr uint64
		size uint64
	}{
		{0xf9400064, "ldr x4, [x3]", 0x30020, 8},
		{0xf8480c22, "ldr x2, [x1, #128]!", 0x30078, 8},
		{0xf8408423, "ldr x3, [x1], #8", 0x2fff8, 8},
		{0xa9400420, "ldp x0, x1, [x1]", 0x2fff8, 16},
		{0xa9be7bfd, "stp x29, x30, [sp, #-32]!", 0x1ffe0, 16},
		{0x3862c822, "ldrb w2, [x1, w2, sxtw]", 0x2fff4, 1},
		{0xb8237822, "str w2, [x1, x3, lsl #2]", 0x2fff8 + 0x30020*4, 4},
		{0x4cdfa020, "ld1 {v0.16b, v1.16b}, [x1], #32", 0x2fff8, 32},
		{0xd50b7423, "dc zva, x3", 0x30000, 64},
		{0x58000041, "ldr x1, .+8", pc + 8, 8},
	} {
		a, ok := accessARM64(c.w, pc, reg)
		if !ok || a.addr != c.addr || a.size != c.size {
			t.Errorf("%s (%#08x): %#x+%d (ok %v), want %#x+%d", c.asm, c.w, a.addr, a.size, ok, c.addr, c.size)
		}
	}
	if _, ok := accessARM64(0xd2800021, pc, reg); ok { // mov x1, #1
		t.Error("mov x1, #1 accesses no memory")
	}
}
