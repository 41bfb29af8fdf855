package count

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/x86/x86asm"
)

// sitesX86 returns the instructions of an x86-64 block (code at addr,
// instructions at starts, decoded as insts) that need a site hook:
//   - every VEX- (C4, C5) and EVEX- (62) encoded instruction, refused as
//     undefined (#UD: SIGILL): the emulated CPU does not advertise AVX,
//     yet Unicorn runs VEX.128 forms of the 0F map as legacy SSE, ignoring
//     VEX.vvvv;
//   - the privileged instructions, refused as a CPU refuses them at CPL 3
//     (#GP: SIGSEGV): the guest runs at CPL 0, where they execute;
//   - cmpxchg r/m32, bsf and bsr of 32 bits, and lock neg, whose results
//     Unicorn gets wrong (see emu.SiteKind).
func sitesX86(code []byte, starts []uint32, insts []x86asm.Inst, addr uint64) []emu.Site {
	var out []emu.Site
	for i, inst := range insts {
		off := starts[i]
		pc := addr + uint64(off)
		if inst.Len == 0 {
			// Not decoded (a hint NOP, or the end of what could be): a
			// VEX prefix is refused all the same, its length unknown.
			if isVEX(code[off:]) {
				out = append(out, emu.Site{PC: pc, Len: 1, Kind: emu.SiteIllegal})
			}
			continue
		}
		if isVEX(code[off : int(off)+inst.Len]) {
			out = append(out, emu.Site{PC: pc, Len: inst.Len, Kind: emu.SiteIllegal})
			continue
		}
		if privilegedX86(inst) {
			out = append(out, emu.Site{PC: pc, Len: inst.Len, Kind: emu.SitePrivileged})
			continue
		}
		if s, ok := fpSiteX86(inst); ok {
			s.PC, s.Len = pc, inst.Len
			out = append(out, s)
			continue
		}
		if s, ok := fixX86(inst); ok && !harmlessFix(insts, i, s) {
			s.PC, s.Len = pc, inst.Len
			out = append(out, s)
		}
	}
	return out
}

// isVEX tells whether an instruction is VEX- or EVEX-encoded: after its
// legacy and REX prefixes comes C4 or C5 (in 64-bit mode always VEX, not
// LES or LDS) or 62 (EVEX, not BOUND). A prefix before one is itself #UD.
func isVEX(insn []byte) bool {
	i := 0
	for i < len(insn) && isX86Prefix(insn[i]) {
		i++
	}
	return i < len(insn) && (insn[i] == 0xc4 || insn[i] == 0xc5 || insn[i] == 0x62)
}

// privilegedOps are the instructions that raise #GP at CPL 3 (with IOPL 0,
// as Linux runs user programs, and CR4.PCE clear for rdpmc), each of
// which Linux turns into SIGSEGV with si_code SI_KERNEL.
var privilegedOps = map[x86asm.Op]bool{
	x86asm.HLT: true, x86asm.CLI: true, x86asm.STI: true,
	x86asm.IN: true, x86asm.OUT: true, x86asm.INSB: true, x86asm.INSW: true, x86asm.INSD: true,
	x86asm.OUTSB: true, x86asm.OUTSW: true, x86asm.OUTSD: true,
	x86asm.LGDT: true, x86asm.LIDT: true, x86asm.LLDT: true, x86asm.LTR: true, x86asm.LMSW: true,
	x86asm.CLTS: true, x86asm.INVD: true, x86asm.WBINVD: true, x86asm.INVLPG: true,
	x86asm.WRMSR: true, x86asm.RDMSR: true, x86asm.RDPMC: true,
	x86asm.SWAPGS: true, x86asm.SYSRET: true, x86asm.SYSEXIT: true,
}

// privilegedX86 tells whether inst raises #GP at CPL 3: one of
// privilegedOps, or a move to or from a control or debug register.
func privilegedX86(inst x86asm.Inst) bool {
	if privilegedOps[inst.Op] {
		return true
	}
	if inst.Op == x86asm.MOV {
		for _, a := range inst.Args[:2] {
			if r, ok := a.(x86asm.Reg); ok && (r >= x86asm.CR0 && r <= x86asm.CR15 || r >= x86asm.DR0 && r <= x86asm.DR15) {
				return true
			}
		}
	}
	return false
}

// fpReads are the instructions that read the FP exception flags, which
// are folded into MXCSR and the x87 status word before they run.
var fpReads = map[x86asm.Op]bool{
	x86asm.STMXCSR: true, x86asm.FNSTSW: true, x86asm.FNSTENV: true, x86asm.FNSAVE: true,
	x86asm.FXSAVE: true, x86asm.FXSAVE64: true,
}

// fpLoads are the instructions that load MXCSR (1), the x87 state (2) or
// both (3), whose exceptions raised before are forgotten, and fldcw (4),
// which loads the x87's masks only (emu.SiteFPLoad).
var fpLoads = map[x86asm.Op]int{
	x86asm.LDMXCSR: 1, x86asm.FXRSTOR: 3, x86asm.FXRSTOR64: 3,
	x86asm.FLDENV: 2, x86asm.FRSTOR: 2, x86asm.FNCLEX: 2, x86asm.FNINIT: 2,
	x86asm.FLDCW: 4,
}

// x87Ops are the x87 instructions icount executes on the host's FPU, which
// the emulated CPU computes in double precision, with other special
// cases, without flags, or (the constants) rounded to nearest whatever
// the rounding control.
var x87Ops = map[x86asm.Op]int{
	x86asm.FSIN: emu.X87Fsin, x86asm.FCOS: emu.X87Fcos, x86asm.FSINCOS: emu.X87Fsincos,
	x86asm.FPTAN: emu.X87Fptan, x86asm.FPATAN: emu.X87Fpatan, x86asm.FYL2X: emu.X87Fyl2x,
	x86asm.FYL2XP1: emu.X87Fyl2xp1, x86asm.F2XM1: emu.X87F2xm1, x86asm.FPREM: emu.X87Fprem,
	x86asm.FPREM1: emu.X87Fprem1, x86asm.FXTRACT: emu.X87Fxtract, x86asm.FSCALE: emu.X87Fscale,
	x86asm.FLDL2T: emu.X87Fldl2t, x86asm.FLDL2E: emu.X87Fldl2e, x86asm.FLDPI: emu.X87Fldpi,
	x86asm.FLDLG2: emu.X87Fldlg2, x86asm.FLDLN2: emu.X87Fldln2,
}

// fpSiteX86 returns the site of an instruction of the FP state: a read or
// a load of the exception flags, or an x87 instruction executed on the
// host (fisttp with its memory operand); and of popf, whose IF and IOPL a
// user program cannot change.
func fpSiteX86(inst x86asm.Inst) (emu.Site, bool) {
	switch {
	case fpReads[inst.Op]:
		return emu.Site{Kind: emu.SiteFPRead}, true
	case inst.Op == x86asm.POPF || inst.Op == x86asm.POPFQ || inst.Op == x86asm.POPFD:
		return emu.Site{Kind: emu.SitePopf}, true
	case fpLoads[inst.Op] != 0:
		return emu.Site{Kind: emu.SiteFPLoad, Op: fpLoads[inst.Op]}, true
	case x87Ops[inst.Op] != 0:
		return emu.Site{Kind: emu.SiteX87, Op: x87Ops[inst.Op]}, true
	case inst.Op == x86asm.FISTTP:
		m, ok := inst.Args[0].(x86asm.Mem)
		if !ok {
			return emu.Site{}, false
		}
		op, ok := memOperand(inst, m)
		if !ok {
			return emu.Site{}, false
		}
		kind := map[int]int{2: emu.X87Fisttp16, 4: emu.X87Fisttp32, 8: emu.X87Fisttp64}[inst.MemBytes]
		if kind == 0 {
			return emu.Site{}, false
		}
		return emu.Site{Kind: emu.SiteX87, Op: kind, Size: inst.MemBytes, Mem: op}, true
	}
	return emu.Site{}, false
}

// fixX86 returns the fixing site of an instruction Unicorn computes wrongly.
func fixX86(inst x86asm.Inst) (emu.Site, bool) {
	switch inst.Op {
	case x86asm.CMPXCHG:
		// cmpxchg r/m32, r32 (0F B1 without REX.W or 66); x86asm gives
		// the byte form (0F B0) a DataSize of 32 too, so the source
		// register's width tells them apart.
		if src, ok := inst.Args[1].(x86asm.Reg); !ok || inst.DataSize != 32 || !(src >= x86asm.EAX && src <= x86asm.R15L) {
			return emu.Site{}, false
		}
		s := emu.Site{Kind: emu.SiteCmpxchg32}
		if r, ok := inst.Args[0].(x86asm.Reg); ok {
			s.Reg = gpr64(r)
		}
		return s, true
	case x86asm.BSF, x86asm.BSR, x86asm.TZCNT, x86asm.LZCNT:
		// tzcnt and lzcnt are rep bsf and rep bsr to the emulated CPU,
		// which has neither BMI1 nor ABM.
		if inst.DataSize != 32 {
			return emu.Site{}, false
		}
		r, ok := inst.Args[0].(x86asm.Reg)
		if !ok || gpr64(r) == 0 {
			return emu.Site{}, false
		}
		return emu.Site{Kind: emu.SiteBitScan32, Reg: gpr64(r)}, true
	case x86asm.NEG:
		m, ok := inst.Args[0].(x86asm.Mem)
		if !ok || !hasPrefix(inst, x86asm.PrefixLOCK) {
			return emu.Site{}, false
		}
		op, ok := memOperand(inst, m)
		if !ok {
			return emu.Site{}, false
		}
		return emu.Site{Kind: emu.SiteLockNeg, Size: inst.MemBytes, Mem: op}, true
	}
	return emu.Site{}, false
}

func hasPrefix(inst x86asm.Inst, p x86asm.Prefix) bool {
	for _, q := range inst.Prefix {
		if q == 0 {
			break
		}
		if q&0xff == p&0xff {
			return true
		}
	}
	return false
}

// gpr64 is the emulator's 64-bit register holding a 32- or 64-bit
// general-purpose register; 0 for any other.
func gpr64(r x86asm.Reg) emu.Reg {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return x86GPR[r-x86asm.RAX]
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return x86GPR[r-x86asm.EAX]
	}
	return 0
}

// memOperand converts a decoded memory operand for a site's hook.
func memOperand(inst x86asm.Inst, m x86asm.Mem) (*emu.MemOperand, bool) {
	op := &emu.MemOperand{Scale: uint32(m.Scale), Disp: m.Disp, Addr32: inst.AddrSize == 32}
	switch {
	case m.Base == x86asm.RIP:
		op.RIPRelative = true
	case m.Base != 0:
		if op.Base = gpr64(m.Base); op.Base == 0 {
			return nil, false
		}
	}
	if m.Index != 0 {
		if op.Index = gpr64(m.Index); op.Index == 0 {
			return nil, false
		}
	}
	switch m.Segment {
	case x86asm.FS:
		op.Seg = emu.X86FSBase
	case x86asm.GS:
		op.Seg = emu.X86GSBase
	}
	return op, true
}

// harmlessFix tells whether the difference a fix repairs cannot show at
// instruction i of a block: what Unicorn gets wrong about cmpxchg r32 and
// bsf/bsr r32 is the upper half of a register (RAX, the destination),
// which it zeroes. When an earlier instruction of the block wrote that
// register as 32 bits, which zero-extends, its upper half is 0 already
// and the hardware's result is Unicorn's. So glibc's locks (xor %eax,%eax;
// mov $1,%edx; lock cmpxchg %edx,(%rdi)) need no hook.
func harmlessFix(insts []x86asm.Inst, i int, s emu.Site) bool {
	switch s.Kind {
	case emu.SiteCmpxchg32:
		return upperZero(insts, i, emu.X86RAX) && (s.Reg == 0 || upperZero(insts, i, s.Reg))
	case emu.SiteBitScan32:
		return upperZero(insts, i, s.Reg)
	}
	return false
}

// upperZero tells whether register r's upper 32 bits are known to be 0
// before instruction i: the last instruction before it in the block that
// writes r wrote it as 32 bits. Only instructions known to write nothing
// but their first operand (and the flags) are looked past.
func upperZero(insts []x86asm.Inst, i int, r emu.Reg) bool {
	for j := i - 1; j >= 0; j-- {
		inst := insts[j]
		if !writesFirstOnly(inst) {
			return false
		}
		if dst, ok := inst.Args[0].(x86asm.Reg); ok {
			if reg, width := gprOf(dst); reg == r {
				return width == 32
			}
		}
	}
	return false
}

// firstOnly are the instructions whose only effect on the registers is
// their first operand and the flags (bsf and bsr, which may leave their
// destination unchanged, and cmpxchg are not).
var firstOnly = map[x86asm.Op]bool{
	x86asm.MOV: true, x86asm.MOVZX: true, x86asm.MOVSX: true, x86asm.MOVSXD: true, x86asm.LEA: true,
	x86asm.ADD: true, x86asm.SUB: true, x86asm.AND: true, x86asm.OR: true, x86asm.XOR: true,
	x86asm.ADC: true, x86asm.SBB: true, x86asm.NEG: true, x86asm.NOT: true, x86asm.INC: true, x86asm.DEC: true,
	x86asm.SHL: true, x86asm.SHR: true, x86asm.SAR: true, x86asm.ROL: true, x86asm.ROR: true,
	x86asm.CMP: true, x86asm.TEST: true, x86asm.BT: true, x86asm.NOP: true,
	x86asm.POPCNT: true, x86asm.PMOVMSKB: true, x86asm.MOVD: true, x86asm.MOVQ: true,
}

// writesFirstOnly tells whether inst is one of firstOnly: the two- and
// three-operand imul is too, not the one-operand form (RDX:RAX).
func writesFirstOnly(inst x86asm.Inst) bool {
	if inst.Op == x86asm.IMUL {
		return inst.Args[1] != nil
	}
	return firstOnly[inst.Op]
}

// gprOf is the emulator's 64-bit register holding a general-purpose
// register of any width, and the width; 0 for any other register.
func gprOf(r x86asm.Reg) (emu.Reg, int) {
	switch {
	case r >= x86asm.AL && r <= x86asm.BL:
		return x86GPR[r-x86asm.AL], 8
	case r >= x86asm.AH && r <= x86asm.BH:
		return x86GPR[r-x86asm.AH], 8
	case r >= x86asm.SPB && r <= x86asm.R15B:
		return x86GPR[4+r-x86asm.SPB], 8
	case r >= x86asm.AX && r <= x86asm.R15W:
		return x86GPR[r-x86asm.AX], 16
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return x86GPR[r-x86asm.EAX], 32
	case r >= x86asm.RAX && r <= x86asm.R15:
		return x86GPR[r-x86asm.RAX], 64
	}
	return 0, 0
}
