package count

import "github.com/icount-dev/icount/emu"

// fastOp is what x86Fast knows of an opcode (or, for a group, of one
// ModRM.reg value of it). The zero fastOp is an opcode it does not know.
type fastOp struct {
	// reg is the kind of the instruction with a register ModRM operand,
	// or without ModRM; mem its kind with a memory operand.
	reg, mem kind
	form     uint8 // fModRM, fGroup, fReg, fMem
	imm      uint8 // the immediate that follows: immNone, imm8, ...
	rules    uint8 // the prefixes it is not sure of, and the block end
	group    uint8 // with fGroup, the index in fastGroups
}

// fastOp.form bits.
const (
	fModRM uint8 = 1 << iota // a ModRM byte follows the opcode
	fGroup                   // ModRM.reg selects the instruction: fastGroups[group]
	fReg                     // known with a register operand (or without ModRM)
	fMem                     // known with a memory operand
)

// fastOp.imm values.
const (
	immNone   = iota
	imm8      // 1 byte
	imm16     // 2 bytes
	imm16and8 // 3 bytes (enter)
	immZ      // 2 bytes with operand size 16, else 4
	immV      // 2, 4 or 8 bytes by operand size (mov r, imm)
	immAddr   // 4 or 8 bytes by address size (mov to or from moffs)
)

// fastOp.rules: its low two bits are the block end (fastEnds), the others
// the prefixes with which x86Fast is not sure of the instruction.
const (
	endCall uint8 = 1 + iota
	endReturn
	endIndirectJump
	fEndMask uint8 = 3

	fNo66   uint8 = 1 << 2
	fNoRep  uint8 = 1 << 3 // F2 or F3
	fNoLock uint8 = 1 << 4
	fNo67   uint8 = 1 << 5
	fNoRexW uint8 = 1 << 6
)

var fastEnds = [4]emu.BlockEnd{emu.EndPlain, emu.EndCall, emu.EndReturn, emu.EndIndirectJump}

// The columns of the 0F maps, by mandatory prefix.
const (
	colNone = iota
	colF3
	colF2
	col66
)

var (
	// fastPrefix marks the legacy prefixes.
	fastPrefix [256]bool
	// The opcode maps: one byte, 0F, 0F 38 and 0F 3A, the last three by
	// column.
	fastOneByte [256]fastOp
	fast0F      [4][256]fastOp
	fast0F38    [4][256]fastOp
	fast0F3A    [4][256]fastOp
	// fastGroups are the instructions of the groups, by ModRM.reg.
	fastGroups [][8]fastOp
)

// rm is an instruction with a ModRM operand, of kind reg with a register
// and mem with memory; rmMem and rmReg allow only one of them.
func rm(reg, mem kind) fastOp { return fastOp{reg: reg, mem: mem, form: fModRM | fReg | fMem} }
func rmMem(mem kind) fastOp   { return fastOp{mem: mem, form: fModRM | fMem} }
func rmReg(reg kind) fastOp   { return fastOp{reg: reg, form: fModRM | fReg} }

// plain is an instruction without ModRM.
func plain(k kind) fastOp { return fastOp{reg: k, form: fReg} }

// group is an opcode whose ModRM.reg selects the instruction.
func group(g [8]fastOp) fastOp {
	if len(fastGroups) == 256 {
		panic("x86Fast: more groups than fastOp.group can index")
	}
	fastGroups = append(fastGroups, g)
	return fastOp{form: fModRM | fGroup, group: uint8(len(fastGroups) - 1)}
}

func (o fastOp) with(imm uint8) fastOp { o.imm = imm; return o }
func (o fastOp) rule(r uint8) fastOp   { o.rules |= r; return o }

const (
	kRW = kLoad | kStore
	kS  = kSIMDFP
)

// Common SSE and MMX forms: simd reads its xmm or mm source operand
// (register or memory) into a register, simdStore writes a register to
// its xmm, mm or memory destination.
var (
	simd      = rm(kS, kS|kLoad)
	simdStore = rm(kS, kS|kStore)
)

func init() {
	for _, p := range []byte{0x66, 0x67, 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e, 0x26, 0x64, 0x65} {
		fastPrefix[p] = true
	}
	initOneByte()
	init0F()
	init0F38()
	init0F3A()
}

// grp1 is the group of 80, 81 and 83: add, or, adc, sbb, and, sub, xor
// and cmp of r/m and an immediate.
func grp1(imm uint8) [8]fastOp {
	var g [8]fastOp
	for r := range 7 {
		g[r] = rm(0, kRW).with(imm)
	}
	g[7] = rm(0, kLoad).with(imm)
	return g
}

// grp2 is the group of the shifts and rotations (C0, C1, D0-D3): rol,
// ror, rcl, rcr, shl, shr and sar (/6 is not one).
func grp2(imm uint8) [8]fastOp {
	var g [8]fastOp
	for _, r := range []int{0, 1, 2, 3, 4, 5, 7} {
		g[r] = rm(0, kRW).with(imm)
	}
	return g
}

// grp3 is the group of F6 and F7: test with an immediate, not, neg
// (whose locked form is a site), mul, imul, div, idiv.
func grp3(imm uint8) [8]fastOp {
	g := [8]fastOp{0: rm(0, kLoad).with(imm), 2: rm(0, kRW), 3: rm(0, kRW).rule(fNoLock)}
	for r := 4; r < 8; r++ {
		g[r] = rm(0, kRW)
	}
	return g
}

func initOneByte() {
	t := &fastOneByte
	for op := 0; op < 0x40; op += 8 { // add, or, adc, sbb, and, sub, xor, cmp
		rw := kRW
		if op == 0x38 {
			rw = kLoad
		}
		t[op], t[op+1] = rm(0, rw), rm(0, rw)
		t[op+2], t[op+3] = rm(0, kLoad), rm(0, kLoad)
		t[op+4], t[op+5] = plain(0).with(imm8), plain(0).with(immZ)
	}
	for r := range 8 {
		t[0x50+r] = plain(kStore) // push
		t[0x58+r] = plain(kLoad)  // pop
		t[0x90+r] = plain(0)      // xchg with eax, nop, pause
		t[0xb0+r] = plain(0).with(imm8)
		t[0xb8+r] = plain(0).with(immV)
	}
	t[0x63] = rm(0, kLoad)             // movsxd
	t[0x68] = plain(kStore).with(immZ) // push
	t[0x69] = rm(0, kLoad).with(immZ)  // imul
	t[0x6a] = plain(kStore).with(imm8) // push
	t[0x6b] = rm(0, kLoad).with(imm8)  // imul
	for cc := range 16 {
		t[0x70+cc] = plain(kBranch).with(imm8).rule(fNo66) // jcc
	}
	t[0x80], t[0x81], t[0x83] = group(grp1(imm8)), group(grp1(immZ)), group(grp1(imm8))
	t[0x84], t[0x85] = rm(0, kLoad), rm(0, kLoad)                               // test
	t[0x86], t[0x87] = rm(0, kRW), rm(0, kRW)                                   // xchg
	t[0x88], t[0x89] = rm(0, kStore), rm(0, kStore)                             // mov
	t[0x8a], t[0x8b] = rm(0, kLoad), rm(0, kLoad)                               // mov
	t[0x8d] = rmMem(0)                                                          // lea
	t[0x8f] = group([8]fastOp{0: rm(kLoad, kLoad|kStore)})                      // pop
	t[0x98], t[0x99] = plain(0), plain(0)                                       // cdqe, cqo and their kin
	t[0x9c] = plain(kStore)                                                     // pushf
	t[0x9e], t[0x9f] = plain(0), plain(0)                                       // sahf, lahf
	t[0xa0], t[0xa1] = plain(kLoad).with(immAddr), plain(kLoad).with(immAddr)   // mov from moffs
	t[0xa2], t[0xa3] = plain(kStore).with(immAddr), plain(kStore).with(immAddr) // mov to moffs
	t[0xa4], t[0xa5] = plain(kRW), plain(kRW)                                   // movs
	t[0xa6], t[0xa7] = plain(kLoad), plain(kLoad)                               // cmps
	t[0xa8], t[0xa9] = plain(0).with(imm8), plain(0).with(immZ)                 // test
	t[0xaa], t[0xab] = plain(kStore), plain(kStore)                             // stos
	t[0xac], t[0xad] = plain(kLoad), plain(kLoad)                               // lods
	t[0xae], t[0xaf] = plain(kLoad), plain(kLoad)                               // scas
	t[0xc0], t[0xc1] = group(grp2(imm8)), group(grp2(imm8))
	t[0xc2] = plain(kReturn).with(imm16).rule(endReturn | fNo66) // ret
	t[0xc3] = plain(kReturn).rule(endReturn | fNo66)             // ret
	t[0xc6] = group([8]fastOp{0: rm(0, kStore).with(imm8)})      // mov
	t[0xc7] = group([8]fastOp{0: rm(0, kStore).with(immZ)})      // mov
	t[0xc8] = plain(kStore).with(imm16and8)                      // enter
	t[0xc9] = plain(kLoad)                                       // leave
	for op := 0xd0; op <= 0xd3; op++ {
		t[op] = group(grp2(immNone))
	}
	for op := 0xe0; op <= 0xe3; op++ {
		t[op] = plain(kBranch).with(imm8) // loopne, loope, loop, jrcxz
	}
	t[0xe8] = plain(kCall).with(immZ).rule(endCall | fNo66) // call
	t[0xe9] = plain(kBranch).with(immZ).rule(fNo66)         // jmp
	t[0xeb] = plain(kBranch).with(imm8).rule(fNo66)         // jmp
	for _, op := range []byte{0xf5, 0xf8, 0xf9, 0xfc, 0xfd} {
		t[op] = plain(0) // cmc, clc, stc, cld, std
	}
	t[0xf6], t[0xf7] = group(grp3(imm8)), group(grp3(immZ))
	t[0xfe] = group([8]fastOp{0: rm(0, kRW), 1: rm(0, kRW)}) // inc, dec
	t[0xff] = group([8]fastOp{
		0: rm(0, kRW), 1: rm(0, kRW), // inc, dec
		2: rm(kCall, kCall|kLoad).rule(endCall | fNo66),
		4: rm(kBranch, kBranch|kLoad).rule(endIndirectJump | fNo66),
		6: rm(kStore, kStore|kLoad), // push
	})
}

// set0F sets an opcode of a 0F map in its columns: without a mandatory
// prefix, and with 66, F3 and F2. The zero fastOp leaves one unknown.
func set0F(m *[4][256]fastOp, op byte, none, p66, f3, f2 fastOp) {
	m[colNone][op], m[col66][op], m[colF3][op], m[colF2][op] = none, p66, f3, f2
}

// any0F sets an opcode of the 0F map that has no mandatory prefix: 66 is
// its operand size, F2 and F3 ignored.
func any0F(op byte, o fastOp) { set0F(&fast0F, op, o, o, o, o) }

func init0F() {
	var no fastOp
	m := &fast0F
	any0F(0x05, plain(kSyscall))                                          // syscall
	any0F(0x0b, plain(0))                                                 // ud2
	any0F(0x18, group([8]fastOp{rmMem(0), rmMem(0), rmMem(0), rmMem(0)})) // prefetch
	any0F(0x1f, group([8]fastOp{0: rm(0, 0).rule(fNoRexW)}))              // nop: x86asm knows no 64-bit form
	set0F(m, 0x10, simd, simd, simd, simd)                                // movups, movupd, movss, movsd
	set0F(m, 0x11, simdStore, simdStore, simdStore, simdStore)
	set0F(m, 0x12, simd, rmMem(kS|kLoad), simd, simd) // movlps, movhlps, movlpd, movsldup, movddup
	set0F(m, 0x13, rmMem(kS|kStore), rmMem(kS|kStore), no, no)
	set0F(m, 0x14, simd, simd, no, no)              // unpcklps, unpcklpd
	set0F(m, 0x15, simd, simd, no, no)              // unpckhps, unpckhpd
	set0F(m, 0x16, simd, rmMem(kS|kLoad), simd, no) // movhps, movlhps, movhpd, movshdup
	set0F(m, 0x17, rmMem(kS|kStore), rmMem(kS|kStore), no, no)
	set0F(m, 0x28, simd, simd, no, no) // movaps, movapd
	set0F(m, 0x29, simdStore, simdStore, no, no)
	set0F(m, 0x2a, simd, simd, simd, simd)                     // cvtpi2ps, cvtpi2pd, cvtsi2ss, cvtsi2sd
	set0F(m, 0x2b, rmMem(kS|kStore), rmMem(kS|kStore), no, no) // movntps, movntpd
	for _, op := range []byte{0x2c, 0x2d} {                    // cvt(t)ps2pi, cvt(t)pd2pi, cvt(t)ss2si, cvt(t)sd2si
		set0F(m, op, simd, simd, rm(kS, kLoad), rm(kS, kLoad))
	}
	set0F(m, 0x2e, simd, simd, no, no) // ucomiss, ucomisd
	set0F(m, 0x2f, simd, simd, no, no) // comiss, comisd
	for cc := range byte(16) {
		any0F(0x40+cc, rm(0, kLoad))                          // cmovcc
		any0F(0x80+cc, plain(kBranch).with(immZ).rule(fNo66)) // jcc
		any0F(0x90+cc, rm(0, kStore))                         // setcc
	}
	set0F(m, 0x50, rmReg(kS), rmReg(kS), no, no) // movmskps, movmskpd
	set0F(m, 0x51, simd, simd, simd, simd)       // sqrt
	// 52 and 53 (rsqrt, rcp) are in fidelityX86.
	for op := byte(0x54); op <= 0x57; op++ { // and, andn, or, xor
		set0F(m, op, simd, simd, no, no)
	}
	for _, op := range []byte{0x58, 0x59, 0x5a, 0x5c, 0x5d, 0x5e, 0x5f} { // add, mul, cvt, sub, min, div, max
		set0F(m, op, simd, simd, simd, simd)
	}
	set0F(m, 0x5b, simd, simd, simd, no)     // cvtdq2ps, cvtps2dq, cvttps2dq
	for op := byte(0x60); op <= 0x6b; op++ { // punpck*, pack*, pcmpgt*
		set0F(m, op, simd, simd, no, no)
	}
	set0F(m, 0x6c, no, simd, no, no)                                                   // punpcklqdq
	set0F(m, 0x6d, no, simd, no, no)                                                   // punpckhqdq
	set0F(m, 0x6e, simd, simd, no, no)                                                 // movd, movq
	set0F(m, 0x6f, simd, simd, simd, no)                                               // movq, movdqa, movdqu
	set0F(m, 0x70, simd.with(imm8), simd.with(imm8), simd.with(imm8), simd.with(imm8)) // pshuf*
	shift := rmReg(kS).with(imm8)
	set0F(m, 0x71, group([8]fastOp{2: shift, 4: shift, 6: shift}), group([8]fastOp{2: shift, 4: shift, 6: shift}), no, no)
	set0F(m, 0x72, group([8]fastOp{2: shift, 4: shift, 6: shift}), group([8]fastOp{2: shift, 4: shift, 6: shift}), no, no)
	set0F(m, 0x73, group([8]fastOp{2: shift, 6: shift}), group([8]fastOp{2: shift, 3: shift, 6: shift, 7: shift}), no, no)
	for op := byte(0x74); op <= 0x76; op++ { // pcmpeq*
		set0F(m, op, simd, simd, no, no)
	}
	set0F(m, 0x77, plain(kS), no, no, no)               // emms
	set0F(m, 0x7c, no, simd, no, simd)                  // haddpd, haddps
	set0F(m, 0x7d, no, simd, no, simd)                  // hsubpd, hsubps
	set0F(m, 0x7e, simdStore, simdStore, simd, no)      // movd, movq
	set0F(m, 0x7f, simdStore, simdStore, simdStore, no) // movq, movdqa, movdqu
	any0F(0xa2, plain(0))                               // cpuid
	any0F(0xa3, rm(0, kLoad))                           // bt
	any0F(0xa4, rm(0, kRW).with(imm8))                  // shld
	any0F(0xa5, rm(0, kRW))                             // shld
	any0F(0xab, rm(0, kRW))                             // bts
	any0F(0xac, rm(0, kRW).with(imm8))                  // shrd
	any0F(0xad, rm(0, kRW))                             // shrd
	any0F(0xaf, rm(0, kLoad))                           // imul
	// B0 and B1 (cmpxchg) are sites.
	any0F(0xb3, rm(0, kRW))   // btr
	any0F(0xb6, rm(0, kLoad)) // movzx
	any0F(0xb7, rm(0, kLoad))
	set0F(m, 0xb8, no, no, rm(0, kLoad), no) // popcnt
	bt := rm(0, kLoad).with(imm8)
	btw := rm(0, kRW).with(imm8)
	any0F(0xba, group([8]fastOp{4: bt, 5: btw, 6: btw, 7: btw})) // bt, bts, btr, btc
	any0F(0xbb, rm(0, kRW))                                      // btc
	// BC and BD (bsf, bsr, tzcnt, lzcnt) are sites.
	any0F(0xbe, rm(0, kLoad)) // movsx
	any0F(0xbf, rm(0, kLoad))
	any0F(0xc0, rm(0, kRW)) // xadd
	any0F(0xc1, rm(0, kRW))
	set0F(m, 0xc2, simd.with(imm8), simd.with(imm8), simd.with(imm8), simd.with(imm8)) // cmp*
	set0F(m, 0xc3, rmMem(kStore), no, no, no)                                          // movnti
	set0F(m, 0xc4, simd.with(imm8), simd.with(imm8), no, no)                           // pinsrw
	set0F(m, 0xc5, rmReg(kS).with(imm8), rmReg(kS).with(imm8), no, no)                 // pextrw
	set0F(m, 0xc6, simd.with(imm8), simd.with(imm8), no, no)                           // shufps, shufpd
	for r := range byte(8) {
		any0F(0xc8+r, plain(0).rule(fNo66)) // bswap
	}
	set0F(m, 0xd0, no, simd, no, simd)                         // addsubpd, addsubps
	set0F(m, 0xd6, no, simdStore, rmReg(kS), rmReg(kS))        // movq, movq2dq, movdq2q
	set0F(m, 0xd7, rmReg(kS), rmReg(kS), no, no)               // pmovmskb
	set0F(m, 0xe6, no, simd, simd, simd)                       // cvttpd2dq, cvtdq2pd, cvtpd2dq
	set0F(m, 0xe7, rmMem(kS|kStore), rmMem(kS|kStore), no, no) // movntq, movntdq
	set0F(m, 0xf0, no, no, no, rmMem(kS|kLoad))                // lddqu
	set0F(m, 0xf7, rmReg(kS), rmReg(kS), no, no)               // maskmovq, maskmovdqu
	for op := 0xd1; op <= 0xfe; op++ {                         // the MMX and SSE2 integer operations
		switch op {
		case 0xd6, 0xd7, 0xe6, 0xe7, 0xf0, 0xf7:
			continue
		}
		set0F(m, byte(op), simd, simd, no, no)
	}
}

func init0F38() {
	var no fastOp
	m := &fast0F38
	for op := byte(0x00); op <= 0x0b; op++ { // pshufb, phadd*, pmaddubsw, phsub*, psign*, pmulhrsw
		set0F(m, op, simd, simd, no, no)
	}
	for op := byte(0x1c); op <= 0x1e; op++ { // pabs*
		set0F(m, op, simd, simd, no, no)
	}
	for _, op := range []byte{0x10, 0x14, 0x15, 0x17, // pblendvb, blendvps, blendvpd, ptest
		0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x28, 0x29, 0x2b, // pmovsx*, pmuldq, pcmpeqq, packusdw
		0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x37, 0x38, 0x39, 0x3a, 0x3b, // pmovzx*, pcmpgtq, pmin*
		0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, // pmax*, pmulld, phminposuw
		0xdb, 0xdc, 0xdd, 0xde, 0xdf} { // aes*
		set0F(m, op, no, simd, no, no)
	}
	set0F(m, 0x2a, no, rmMem(kS|kLoad), no, no) // movntdqa
}

func init0F3A() {
	var no fastOp
	m := &fast0F3A
	x := simd.with(imm8)
	for _, op := range []byte{0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, // round*, blend*
		0x20, 0x21, 0x22, // pinsrb, insertps, pinsrd
		0x40, 0x41, 0x42, 0x44, // dpps, dppd, mpsadbw, pclmulqdq
		0x60, 0x61, 0x62, 0x63, 0xdf} { // pcmp[ei]str[im], aeskeygenassist
		set0F(m, op, no, x, no, no)
	}
	set0F(m, 0x0f, x, x, no, no)             // palignr
	for op := byte(0x14); op <= 0x17; op++ { // pextrb, pextrw, pextrd, extractps
		set0F(m, op, no, simdStore.with(imm8), no, no)
	}
}
