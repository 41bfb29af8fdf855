package count

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
)

// sitesARM64 returns the instructions of an arm64 block (code at addr)
// that need a site hook. The guest runs at EL1, where Unicorn halts on
// wfi and executes the system instructions that Linux's user programs,
// at EL0, may not:
//   - wfi and wfe return at once at EL0 under Linux: each runs as a no-op;
//   - the system instructions EL0 may not execute are undefined there,
//     and Linux delivers SIGILL (ILL_ILLOPC) for them (arm64SystemDenied).
func sitesARM64(code []byte, addr uint64) []emu.Site {
	var out []emu.Site
	for off := 0; off+4 <= len(code); off += 4 {
		w := binary.LittleEndian.Uint32(code[off:])
		pc := addr + uint64(off)
		switch {
		case w == 0xd503207f || w == 0xd503205f: // wfi, wfe
			out = append(out, emu.Site{PC: pc, Len: 4, Kind: emu.SiteNop})
		case arm64SystemDenied(w):
			out = append(out, emu.Site{PC: pc, Len: 4, Kind: emu.SitePrivileged})
		}
	}
	return out
}

// arm64SystemDenied tells whether w is a system instruction that is
// undefined at EL0 as Linux configures it (SCTLR_EL1.UMA clear, the PMU and
// the timers' EL0 controls off), leaving what EL0 may do: the hints and
// barriers, NZCV, FPCR, FPSR, TPIDR_EL0 and the other EL0 registers, the
// cache maintenance Linux allows (dc zva, dc cvac, dc cvau, dc civac, ic
// ivau), and the registers served elsewhere: the ID registers (op0 3,
// op1 0, CRn 0), which Linux emulates for EL0, and the generic timer's
// counters and frequency (CRn 14, CRm 0).
func arm64SystemDenied(w uint32) bool {
	switch w {
	case 0xd69f03e0, 0xd69f0bff, 0xd69f0fff, 0xd6bf03e0: // eret, eretaa, eretab, drps
		return true
	}
	if w&0xffe0001f == 0xd4400000 || w&0xffe0001c == 0xd4a00000 && w&3 != 0 { // hlt #imm, dcps1-3
		return true
	}
	if w&0xffc00000 != 0xd5000000 {
		return false // not a system instruction
	}
	l := field(w, 21, 21)
	op0, op1 := field(w, 20, 19), field(w, 18, 16)
	crn, crm, op2 := field(w, 15, 12), field(w, 11, 8), field(w, 7, 5)
	switch op0 {
	case 0:
		// msr (immediate) to PSTATE: EL0 may set only fields of op1 3,
		// and not DAIF (daifset, daifclr) without SCTLR_EL1.UMA.
		if crn != 4 || l != 0 {
			return false // hints, barriers, clrex
		}
		return op1 != 3 || op2 == 6 || op2 == 7
	case 1:
		// sys, sysl: dc, ic, at, tlbi. EL0's are those of op1 3.
		return op1 != 3
	case 2:
		// Debug registers: EL1's, but for the debug communication channel.
		return op1 != 3
	}
	// op0 3: mrs, msr (register).
	switch {
	case op1 == 0 && crn == 0:
		// The ID registers: Linux emulates reads of MIDR_EL1, MPIDR_EL1,
		// REVIDR_EL1 and the AArch64 feature registers (CRm 4 to 7); the
		// AArch32 ones (CRm 1 to 3), the rest and every write are
		// undefined at EL0.
		return l == 0 || !(crm == 0 && (op2 == 0 || op2 == 5 || op2 == 6) || crm >= 4 && crm <= 7)
	case op1 != 3:
		return true // EL1, EL2 and EL3 registers
	case crn == 4 && crm == 2 && op2 == 1:
		return true // DAIF (SCTLR_EL1.UMA clear)
	case crn == 9 && crm >= 12:
		return true // the PMU (PMUSERENR_EL0 clear)
	case crn == 14 && crm >= 1:
		return true // the timers' EL0 registers (CNTKCTL_EL1.EL0PTEN, EL0VTEN clear), the PMU's event counters
	case l == 0 && crn == 0 && crm == 0 && (op2 == 1 || op2 == 7), l == 0 && crn == 13 && crm == 0 && op2 == 3:
		return true // writes of read-only registers: CTR_EL0, DCZID_EL0, TPIDRRO_EL0
	}
	return false
}
