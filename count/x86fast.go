package count

import "github.com/icount-dev/icount/emu"

// x86Fast is a table-driven decoder of the common x86-64 instructions, for
// the blocks decode sees: it gives an instruction's length, its kind (as
// classifyX86 classifies what x86asm decodes) and how it ends a block,
// from the bytes alone, several times faster than x86asm. It knows only
// instructions that are not instruction sites (sitesX86) nor in
// fidelityX86, and says it is not sure (ok false) of every other: a block
// holding one is decoded the long way, with x86asm, whole.
//
// The tables (x86fast_tables.go) follow the opcode maps of the Intel SDM
// (volume 2, appendix A); TestX86FastMatchesX86asm holds them to what
// x86asm decodes, over every opcode, ModRM and prefix combination.
func x86Fast(code []byte) (n int, k kind, end emu.BlockEnd, ok bool) {
	var (
		i                      int
		opsize16, addr32, lock bool
		rep                    byte // the F2 or F3 prefix, 0 if none
	)
	// Legacy prefixes, in any order.
	for ; i < len(code) && fastPrefix[code[i]]; i++ {
		switch b := code[i]; b {
		case 0x66:
			opsize16 = true
		case 0x67:
			addr32 = true
		case 0xf0:
			lock = true
		case 0xf2, 0xf3:
			if rep != 0 && rep != b {
				return 0, 0, 0, false // which wins is x86asm's own rule
			}
			rep = b
		}
	}
	// REX, right before the opcode.
	var rexW bool
	if i < len(code) && code[i]&0xf0 == 0x40 {
		rexW = code[i]&8 != 0
		i++
	}
	if i >= len(code) {
		return 0, 0, 0, false
	}
	// The opcode, in one of four maps; a mandatory prefix (66, F3, F2)
	// selects the column of the 0F maps, F2 and F3 before 66.
	var op *fastOp
	if b := code[i]; b != 0x0f {
		op = &fastOneByte[b]
		i++
	} else {
		if i+1 >= len(code) {
			return 0, 0, 0, false
		}
		col := colNone
		switch {
		case rep == 0xf3:
			col = colF3
		case rep == 0xf2:
			col = colF2
		case opsize16:
			col = col66
		}
		switch b := code[i+1]; {
		case (b == 0x38 || b == 0x3a) && i+2 >= len(code):
			return 0, 0, 0, false
		case b == 0x38:
			op = &fast0F38[col][code[i+2]]
			i += 3
		case b == 0x3a:
			op = &fast0F3A[col][code[i+2]]
			i += 3
		default:
			op = &fast0F[col][b]
			i += 2
		}
	}
	// ModRM, SIB and displacement.
	k = op.reg
	valid := op.form&fReg != 0
	if op.form&fModRM != 0 {
		if i >= len(code) {
			return 0, 0, 0, false
		}
		modrm := code[i]
		i++
		if op.form&fGroup != 0 {
			op = &fastGroups[op.group][modrm>>3&7]
			k, valid = op.reg, op.form&fReg != 0
		}
		if mod, rm := modrm>>6, modrm&7; mod != 3 {
			k, valid = op.mem, op.form&fMem != 0
			if rm == 4 { // SIB
				if i >= len(code) {
					return 0, 0, 0, false
				}
				if mod == 0 && code[i]&7 == 5 {
					i += 4 // no base: disp32
				}
				i++
			}
			switch {
			case mod == 1:
				i++
			case mod == 2, mod == 0 && rm == 5:
				i += 4
			}
		}
	}
	if !valid || op.rules&fNo66 != 0 && opsize16 || op.rules&fNoRep != 0 && rep != 0 ||
		op.rules&fNoLock != 0 && lock || op.rules&fNo67 != 0 && addr32 || op.rules&fNoRexW != 0 && rexW {
		return 0, 0, 0, false
	}
	// Immediate.
	switch op.imm {
	case imm8:
		i++
	case imm16:
		i += 2
	case imm16and8:
		i += 3
	case immZ: // 16 or 32 bits, by operand size
		if opsize16 && !rexW {
			i += 2
		} else {
			i += 4
		}
	case immV: // 16, 32 or 64 bits, by operand size
		switch {
		case rexW:
			i += 8
		case opsize16:
			i += 2
		default:
			i += 4
		}
	case immAddr: // an address, 32 or 64 bits by address size
		if addr32 {
			i += 4
		} else {
			i += 8
		}
	}
	if i > len(code) || i > 15 {
		return 0, 0, 0, false
	}
	return i, k, fastEnds[op.rules&fEndMask], true
}

// decodeFastX86 decodes the x86-64 block sh.code with x86Fast alone, if it
// is sure of all of its instructions: then the block has no instruction
// site and no fidelity entry, and its kinds and end are x86asm's. It
// returns false, leaving sh as it was, when it is not sure of one.
func (d *decoder) decodeFastX86(sh *blockShape) bool {
	code := sh.code
	if len(code) == 0 {
		return false
	}
	starts, kinds := d.fastStarts[:0], d.fastKinds[:0]
	defer func() { d.fastStarts, d.fastKinds = starts[:0], kinds[:0] }()
	var end emu.BlockEnd
	for off := 0; off < len(code); {
		size, k, e, ok := x86Fast(code[off:])
		if !ok {
			return false
		}
		starts, kinds, end = append(starts, uint32(off)), append(kinds, k), e
		off += size
	}
	sh.starts = carve(&d.startSlab, len(starts), 4096)
	sh.kind = carve(&d.kindSlab, len(kinds), 4096)
	copy(sh.starts, starts)
	copy(sh.kind, kinds)
	sh.end = end
	return true
}
