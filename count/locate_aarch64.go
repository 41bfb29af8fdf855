package count

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/icount-dev/icount/emu"
)

// Finding the faulting instruction of an arm64 block.
//
// After a memory fault Unicorn leaves the PC at the start of the block and
// every other register as it was just before the faulting instruction: the
// instructions before it completed, with their base-register writeback;
// the faulting one did not, and its own writeback did not happen either.
//
// The faulting instruction is therefore one whose access, computed from the
// current registers, covers the faulting address. Several can: in
// `ldr x2, [x1, #8]!; ldr x3, [x1, #8]!` faulting in the second, the
// first also computes the faulting address from the current x1, which its
// own writeback moved there. So every such candidate j is tested, last
// first, against what the instructions before it did if it faulted: the
// registers before each earlier instruction k are recovered by undoing the
// writebacks and `add/sub #imm` between k and j (anything else that writes
// a register makes it unknown); if k, so placed, would itself have faulted
// (it touches the faulting address the same way, or unmapped memory), or
// loaded a value its destination does not hold, j is not the one. Nor is
// it when an earlier candidate's registers cannot be recovered (a load
// overwrote its base, as in `ldr x1, [x1]; ldr x2, [x1]`): nothing then
// explains why that one computes the faulting address, so it is taken.

// a64Mem is what one arm64 instruction does to memory, decoded from its
// encoding (the Arm ARM's load/store encoding classes, and DC ZVA) for the
// instructions the emulated ARMv8.0 CPU executes: arm64asm leaves the
// offsets it decodes unexported, so the address is worked out here, and
// a test checks this decoding against arm64asm's on every kind of load and
// store.
type a64Mem struct {
	base    int   // base register 0..30, 31 = SP; a64PC for a literal load
	index   int   // index register (register offset), a64None when none
	extend  uint8 // index extension: 2 UXTW, 3 LSL/UXTX, 6 SXTW, 7 SXTX
	shift   uint8 // index shift
	offset  int64 // immediate offset, or the literal's offset from the PC
	post    bool  // post-index: the address is the base before writeback
	wb      bool  // the base is written back
	wbImm   int64 // writeback amount when wbReg is a64None
	wbReg   int   // register holding the writeback amount (SIMD post-index)
	size    uint64
	align   uint64 // the address is rounded down to this (DC ZVA), 0 for none
	load    bool
	store   bool
	gpr     bool   // the transfer registers are general-purpose
	signed  bool   // a load that sign-extends
	rt, rt2 int    // transfer registers, a64None when absent
	status  int    // register written with a store-exclusive's status
	each    uint64 // bytes per transfer register, for loaded-value checks
	dstBits uint   // width of the destination register of a GPR load
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
	m = a64Mem{base: int(field(w, 9, 5)), index: a64None, wbReg: a64None,
		rt: int(field(w, 4, 0)), rt2: a64None, status: a64None}
	v := field(w, 26, 26) == 1
	m.gpr = !v
	switch {
	case w&0xffffffe0 == 0xd50b7420: // DC ZVA, Xt: zeroes DCZID_EL0's 64-byte block
		m.base, m.rt, m.size, m.align, m.store = m.rt, a64None, 64, 64, true
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
		m.each = 1 << size
		m.size = m.each
		m.load, m.store = l, !l
		switch {
		case o1 == 1 && (o2 == 1 || size < 2):
			return m, false // CAS, CASP
		case o1 == 1: // LDXP/LDAXP, STXP/STLXP
			m.each = 4 << (size & 1)
			m.size, m.rt2 = 2*m.each, int(field(w, 14, 10))
		}
		if o2 == 0 && !l {
			m.status = int(field(w, 20, 16)) // STXR/STLXR/STXP/STLXP
		}
		m.dstBits = 32
		if m.each == 8 {
			m.dstBits = 64
		}
		return m, true

	case w&0x3b000000 == 0x18000000:
		// Load register (literal).
		opc := field(w, 31, 30)
		if opc == 3 {
			return m, false // PRFM (literal), or unallocated
		}
		m.base, m.offset, m.load = a64PC, sext(field(w, 23, 5), 19)*4, true
		if v {
			m.size = 4 << opc
		} else {
			m.size = 4 << (opc & 1)
			m.signed = opc == 2
			m.dstBits = 64
			if opc == 0 {
				m.dstBits = 32
			}
		}
		m.each = m.size
		return m, true

	case w&0x3a000000 == 0x28000000:
		// Load/store pair: offset, post-index, pre-index, no-allocate.
		opc, mode, l := field(w, 31, 30), field(w, 24, 23), field(w, 22, 22) == 1
		var scale uint
		switch {
		case v && opc <= 2:
			scale = uint(opc) + 2
		case !v && opc == 0:
			scale = 2
		case !v && opc == 1 && l: // LDPSW
			scale, m.signed = 2, true
		case !v && opc == 2:
			scale = 3
		default:
			return m, false
		}
		m.each, m.size, m.rt2 = 1<<scale, 2<<scale, int(field(w, 14, 10))
		m.dstBits = max(32, uint(8<<scale))
		if m.signed {
			m.dstBits = 64
		}
		m.load, m.store = l, !l
		m.offset = sext(field(w, 21, 15), 7) << scale
		m.indexing(mode == 1, mode == 3)
		return m, true

	case w&0x3b000000 == 0x39000000:
		// Load/store register (unsigned immediate).
		if !m.register(w) {
			return m, false
		}
		m.offset = int64(field(w, 21, 10)) * int64(m.size)
		return m, true

	case w&0x3b200000 == 0x38000000:
		// Load/store register (unscaled, post-index, unprivileged, pre-index).
		if !m.register(w) {
			return m, false
		}
		m.offset = sext(field(w, 20, 12), 9)
		op4 := field(w, 11, 10)
		m.indexing(op4 == 1, op4 == 3)
		return m, true

	case w&0x3b200c00 == 0x38200800:
		// Load/store register (register offset).
		if !m.register(w) {
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
	m.load, m.store, m.gpr = field(w, 22, 22) == 1, field(w, 22, 22) == 0, false
	if field(w, 23, 23) == 1 { // post-index
		m.wb, m.post = true, true
		if rm := int(field(w, 20, 16)); rm != 31 {
			m.wbReg = rm
		} else {
			m.wbImm = int64(m.size)
		}
	}
}

// indexing sets post-index or pre-index writeback by the immediate offset.
func (m *a64Mem) indexing(post, pre bool) {
	switch {
	case post:
		m.wb, m.post, m.wbImm = true, true, m.offset
	case pre:
		m.wb, m.wbImm = true, m.offset
	}
}

// register decodes size and direction of the single-register load/store
// classes; false for prefetches and unallocated encodings.
func (m *a64Mem) register(w uint32) bool {
	size, opc := field(w, 31, 30), field(w, 23, 22)
	m.size = 1 << size
	if !m.gpr {
		if opc >= 2 {
			if size != 0 {
				return false
			}
			m.size = 16
		}
		m.load, m.store = opc&1 == 1, opc&1 == 0
		m.each = m.size
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
		m.load, m.signed = true, true
	}
	m.each = m.size
	m.dstBits = 32
	if size == 3 || opc == 2 {
		m.dstBits = 64
	}
	return true
}

// a64Regs is a view of the general-purpose registers x0..x30 and SP, each
// known or not.
type a64Regs struct {
	val   [32]uint64
	known [32]bool
}

func (r *a64Regs) get(n int) (uint64, bool) { return r.val[n], r.known[n] }

// operand reads a register used as an index or writeback amount, where
// 31 is the zero register.
func (r *a64Regs) operand(n int) (uint64, bool) {
	if n == 31 {
		return 0, true
	}
	return r.get(n)
}

func (r *a64Regs) forget(n int) {
	if n >= 0 && n < 32 {
		r.known[n] = false
	}
}

// address computes the address an instruction at pc accesses with regs.
func (m *a64Mem) address(pc uint64, regs *a64Regs) (uint64, bool) {
	if m.base == a64PC {
		return pc + uint64(m.offset), true
	}
	addr, ok := regs.get(m.base)
	if !ok {
		return 0, false
	}
	if m.index != a64None {
		x, ok := regs.operand(m.index)
		if !ok {
			return 0, false
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
	return addr, true
}

// a64Insn is one decoded instruction of a block.
type a64Insn struct {
	pc  uint64
	w   uint32
	mem a64Mem
	acc bool // accesses memory
}

// undo turns regs, the registers after the instruction, into the
// registers before it, as far as they can be known.
func (in *a64Insn) undo(regs *a64Regs) {
	w := in.w
	if in.acc {
		m := &in.mem
		if m.wb {
			delta, ok := uint64(m.wbImm), true
			if m.wbReg != a64None {
				delta, ok = regs.operand(m.wbReg)
			}
			if v, known := regs.get(m.base); ok && known {
				regs.val[m.base] = v - delta
			} else {
				regs.forget(m.base)
			}
		}
		if m.load && m.gpr {
			for _, r := range []int{m.rt, m.rt2} {
				if r != 31 {
					regs.forget(r)
				}
			}
		}
		regs.forget(m.status)
		return
	}
	rd, rn := int(field(w, 4, 0)), int(field(w, 9, 5))
	switch {
	case w&0x1f000000 == 0x11000000: // ADD/ADDS/SUB/SUBS (immediate)
		sf, sub, setFlags := field(w, 31, 31) == 1, field(w, 30, 30) == 1, field(w, 29, 29) == 1
		if setFlags && rd == 31 {
			return // CMP/CMN
		}
		imm := uint64(field(w, 21, 10)) << (12 * field(w, 22, 22))
		if sf && rd == rn {
			if v, ok := regs.get(rd); ok {
				if sub {
					regs.val[rd] = v + imm
				} else {
					regs.val[rd] = v - imm
				}
				return
			}
		}
		regs.forget(rd)
	case w&0x1f200000 == 0x0b200000 && field(w, 29, 29) == 0, // ADD/SUB (extended register): Rd may be SP
		w&0x1f800000 == 0x12000000 && field(w, 30, 29) != 3: // logical (immediate) but ANDS: Rd may be SP
		regs.forget(rd)
	case field(w, 28, 26) == 5: // branches, exceptions, system
		switch {
		case w&0xfc000000 == 0x94000000, w&0xfffffc1f == 0xd63f0000: // BL, BLR
			regs.forget(30)
		case w&0xfff00000 == 0xd5300000, w&0xfff80000 == 0xd5280000: // MRS, SYSL: write Rt
			if rd != 31 {
				regs.forget(rd)
			}
		}
	default:
		// Any other instruction may write its Rd field as a register;
		// 31 there is the zero register.
		if rd != 31 {
			regs.forget(rd)
		}
	}
}

// findAccessARM64 returns the address of the instruction of the block at
// blockAddr (code) that made the memory fault f, from the registers.
func findAccessARM64(code []byte, blockAddr uint64, f *emu.Fault, reg func(emu.Reg) uint64, read func(uint64, []byte) error) (uint64, bool) {
	insns := make([]a64Insn, len(code)/4)
	for i := range insns {
		w := binary.LittleEndian.Uint32(code[4*i:])
		m, ok := decodeA64Mem(w)
		insns[i] = a64Insn{pc: blockAddr + uint64(4*i), w: w, mem: m, acc: ok}
	}
	var now a64Regs
	for n := 0; n < 31; n++ {
		now.val[n], now.known[n] = reg(emu.ARM64X(n)), true
	}
	now.val[a64SP], now.known[a64SP] = reg(emu.ARM64SP), true

	var cands []int
	for i := range insns {
		if covers(&insns[i], &now, f) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return 0, false
	}
	for c := len(cands) - 1; c > 0; c-- {
		if !contradicted(insns, cands, c, now, f, read) {
			return insns[cands[c]].pc, true
		}
	}
	return insns[cands[0]].pc, true
}

// covers reports whether in, with regs before it, accesses f.Addr in the
// way that faulted (a store for a write fault, a load for a read fault).
func covers(in *a64Insn, regs *a64Regs, f *emu.Fault) bool {
	if !in.acc || f.Write && !in.mem.store || !f.Write && !in.mem.load {
		return false
	}
	addr, ok := in.mem.address(in.pc, regs)
	if !ok {
		return false
	}
	return f.Addr-addr < in.mem.size
}

// contradicted reports whether the instructions before insns[cands[c]],
// replayed backwards from the registers now, show that it cannot be the
// faulting one, or leave unexplained why an earlier candidate computes the
// faulting address (its own registers before it cannot be recovered): then
// the earlier one is taken.
func contradicted(insns []a64Insn, cands []int, c int, now a64Regs, f *emu.Fault, read func(uint64, []byte) error) bool {
	j := cands[c]
	regs := now // the registers before insns[k], for k going down from j
	for k := j - 1; k >= 0; k-- {
		in := &insns[k]
		in.undo(&regs)
		if !in.acc {
			continue
		}
		if covers(in, &regs, f) {
			return true // k would have faulted first
		}
		addr, ok := in.mem.address(in.pc, &regs)
		if !ok {
			if slices.Contains(cands[:c], k) {
				return true
			}
			continue
		}
		probe := make([]byte, in.mem.size)
		if read(addr, probe) != nil {
			return true // k would have touched unmapped memory
		}
		if in.mem.load && in.mem.gpr && in.mem.each > 0 && !loadedValuesHeld(insns[k+1:j], in, &now, probe) {
			return true
		}
	}
	return false
}

// loadedValuesHeld checks that the registers load k wrote still hold what
// memory holds (probe), when nothing between k and j wrote them or may have
// written that memory; it answers true when that cannot be checked.
func loadedValuesHeld(between []a64Insn, k *a64Insn, now *a64Regs, probe []byte) bool {
	for i := range between {
		in := &between[i]
		if in.acc && in.mem.store {
			return true // memory may have changed since
		}
		// Undoing in from all-zero registers shows which it writes.
		var after a64Regs
		for n := range after.known {
			after.known[n] = true
		}
		in.undo(&after)
		for _, r := range []int{k.mem.rt, k.mem.rt2} {
			if r >= 0 && r < 31 && (!after.known[r] || after.val[r] != 0) {
				return true // overwritten since
			}
		}
	}
	for i, r := range []int{k.mem.rt, k.mem.rt2} {
		if r < 0 || r == 31 || uint64(i+1)*k.mem.each > uint64(len(probe)) {
			continue
		}
		b := probe[uint64(i)*k.mem.each : uint64(i+1)*k.mem.each]
		var v uint64
		for n := len(b) - 1; n >= 0; n-- {
			v = v<<8 | uint64(b[n])
		}
		bitsLoaded := uint(8 * len(b))
		if k.mem.signed && bitsLoaded < 64 {
			v = uint64(int64(v<<(64-bitsLoaded)) >> (64 - bitsLoaded))
		}
		if k.mem.dstBits == 32 {
			v = uint64(uint32(v))
		}
		if got, ok := now.get(r); ok && got != v {
			return false
		}
	}
	return true
}
