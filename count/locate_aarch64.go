package count

import (
	"math/bits"

	"github.com/icount-dev/icount/emu"
)

// The data address of an arm64 memory fault.
//
// The emulator reports a refused access by its page only, with the PC at
// the faulting instruction and every register as it was before it: the
// address the instruction accessed is worked out from its encoding and
// those registers.

// a64Mem is what one arm64 instruction does to memory, decoded from its
// encoding (the Arm ARM's load/store encoding classes, and DC ZVA) for the
// instructions the emulated ARMv8.0 CPU executes: arm64asm leaves the
// offsets it decodes unexported, so the address is worked out here, and
// a test checks this decoding against arm64asm's on every kind of load and
// store.
type a64Mem struct {
	base   int   // base register 0..30, 31 = SP; a64PC for a literal load
	index  int   // index register (register offset), a64None when none
	extend uint8 // index extension: 2 UXTW, 3 LSL/UXTX, 6 SXTW, 7 SXTX
	shift  uint8 // index shift
	offset int64 // immediate offset, or the literal's offset from the PC
	post   bool  // post-index: the address is the base before writeback
	size   uint64
	align  uint64 // the address is rounded down to this (DC ZVA), 0 for none
	load   bool
	store  bool
}

const (
	a64SP   = 31
	a64PC   = 32
	a64None = -1
)

// simdStructRegs is how many registers a SIMD multiple-structure load or
// store transfers, by its opcode field (LD4/ST4, LD1 x4, LD3, LD1 x3,
// LD1 x1, LD2, LD1 x2); 0 for unallocated opcodes.
var simdStructRegs = [16]uint64{0: 4, 2: 4, 4: 3, 6: 3, 7: 1, 8: 2, 10: 2}

// field extracts bits hi..lo of an instruction word.
func field(w uint32, hi, lo uint) uint32 { return w >> lo & (1<<(hi-lo+1) - 1) }

func sext(v uint32, width uint) int64 { return int64(v) << (64 - width) >> (64 - width) }

// decodeA64Mem decodes the memory access of the instruction w; ok is false
// for an instruction that does not access data memory (prefetches
// included: they never fault).
func decodeA64Mem(w uint32) (m a64Mem, ok bool) {
	m = a64Mem{base: int(field(w, 9, 5)), index: a64None}
	simd := field(w, 26, 26) == 1
	switch {
	case w&0xffffffe0 == 0xd50b7420: // DC ZVA, Xt: zeroes DCZID_EL0's 64-byte block
		m.base, m.size, m.align, m.store = int(field(w, 4, 0)), 64, 64, true
		return m, true

	case w&0xbfbf0000 == 0x0c000000, w&0xbfa00000 == 0x0c800000:
		// SIMD load/store multiple structures, without and with post-index.
		regs := simdStructRegs[field(w, 15, 12)]
		if regs == 0 {
			return m, false
		}
		m.size = regs * 8 << field(w, 30, 30)
		m.simdTransfer(w)
		return m, true

	case w&0xbf9f0000 == 0x0d000000, w&0xbf800000 == 0x0d800000:
		// SIMD load/store single structure (one lane, or LDnR).
		opcode := field(w, 15, 13)
		selem := uint64(opcode&1<<1|field(w, 21, 21)) + 1
		scale := opcode >> 1
		switch {
		case scale == 3:
			scale = field(w, 11, 10)
		case scale == 2 && field(w, 10, 10) == 1:
			scale = 3
		}
		m.size = selem << scale
		m.simdTransfer(w)
		return m, true

	case w&0x3f000000 == 0x08000000:
		// Load/store exclusive, load-acquire/store-release. (CAS and CASP
		// share the class, but the emulated CPU lacks LSE: they raise an
		// undefined-instruction exception before touching memory.)
		size, o2, l, o1 := field(w, 31, 30), field(w, 23, 23), field(w, 22, 22) == 1, field(w, 21, 21)
		m.size = 1 << size
		m.load, m.store = l, !l
		switch {
		case o1 == 1 && (o2 == 1 || size < 2):
			return m, false // CAS, CASP
		case o1 == 1: // LDXP/LDAXP, STXP/STLXP
			m.size = 8 << (size & 1)
		}
		return m, true

	case w&0x3b000000 == 0x18000000:
		// Load register (literal).
		opc := field(w, 31, 30)
		if opc == 3 {
			return m, false // PRFM (literal), or unallocated
		}
		m.base, m.offset, m.load = a64PC, sext(field(w, 23, 5), 19)*4, true
		if simd {
			m.size = 4 << opc
		} else {
			m.size = 4 << (opc & 1)
		}
		return m, true

	case w&0x3a000000 == 0x28000000:
		// Load/store pair: offset, post-index, pre-index, no-allocate.
		opc, mode, l := field(w, 31, 30), field(w, 24, 23), field(w, 22, 22) == 1
		var scale uint
		switch {
		case simd && opc <= 2:
			scale = uint(opc) + 2
		case !simd && opc == 0, !simd && opc == 1 && l: // LDPSW
			scale = 2
		case !simd && opc == 2:
			scale = 3
		default:
			return m, false
		}
		m.size = 2 << scale
		m.load, m.store = l, !l
		m.offset = sext(field(w, 21, 15), 7) << scale
		m.post = mode == 1
		return m, true

	case w&0x3b000000 == 0x39000000:
		// Load/store register (unsigned immediate).
		if !m.register(w, simd) {
			return m, false
		}
		m.offset = int64(field(w, 21, 10)) * int64(m.size)
		return m, true

	case w&0x3b200000 == 0x38000000:
		// Load/store register (unscaled, post-index, unprivileged, pre-index).
		if !m.register(w, simd) {
			return m, false
		}
		m.offset = sext(field(w, 20, 12), 9)
		m.post = field(w, 11, 10) == 1
		return m, true

	case w&0x3b200c00 == 0x38200800:
		// Load/store register (register offset).
		if !m.register(w, simd) {
			return m, false
		}
		m.index, m.extend = int(field(w, 20, 16)), uint8(field(w, 15, 13))
		if field(w, 12, 12) == 1 {
			m.shift = uint8(bits.TrailingZeros64(m.size))
		}
		return m, true
	}
	return m, false
}

// simdTransfer fills in the direction and post-index of a SIMD structure
// load or store.
func (m *a64Mem) simdTransfer(w uint32) {
	m.load, m.store = field(w, 22, 22) == 1, field(w, 22, 22) == 0
	m.post = field(w, 23, 23) == 1
}

// register decodes size and direction of the single-register load/store
// classes; false for prefetches and unallocated encodings.
func (m *a64Mem) register(w uint32, simd bool) bool {
	size, opc := field(w, 31, 30), field(w, 23, 22)
	m.size = 1 << size
	if simd {
		if opc >= 2 {
			if size != 0 {
				return false
			}
			m.size = 16
		}
		m.load, m.store = opc&1 == 1, opc&1 == 0
		return true
	}
	switch opc {
	case 0:
		m.store = true
	case 1:
		m.load = true
	default:
		if size == 3 || size == 2 && opc == 3 {
			return false // PRFM, PRFUM, unallocated
		}
		m.load = true // sign-extending
	}
	return true
}

// address computes the address the instruction at pc accesses, from the
// registers before it.
func (m *a64Mem) address(pc uint64, reg func(emu.Reg) uint64) uint64 {
	if m.base == a64PC {
		return pc + uint64(m.offset)
	}
	addr := reg(emu.ARM64SP)
	if m.base != a64SP {
		addr = reg(emu.ARM64X(m.base))
	}
	if m.index != a64None {
		var x uint64 // register 31 is the zero register here
		if m.index != 31 {
			x = reg(emu.ARM64X(m.index))
		}
		switch m.extend {
		case 2: // UXTW
			x = uint64(uint32(x))
		case 6: // SXTW
			x = uint64(int64(int32(x)))
		}
		addr += x << m.shift
	} else if !m.post {
		addr += uint64(m.offset)
	}
	if m.align != 0 {
		addr &^= m.align - 1
	}
	return addr
}

// accessARM64 is the memory the arm64 instruction w at pc accesses, from
// the registers before it.
func accessARM64(w uint32, pc uint64, reg func(emu.Reg) uint64) (access, bool) {
	m, ok := decodeA64Mem(w)
	if !ok {
		return access{}, false
	}
	return access{m.address(pc, reg), m.size}, true
}
