package count

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/arch/arm64/arm64asm"
)

// The CPU exceptions Unicorn's arm64 CPU raises (QEMU's EXCP_* numbers).
// svc (2) is a system call and never reaches here.
const (
	excpUDEF          = 1  // undefined or unsupported instruction
	excpPrefetchAbort = 3  // instruction fetch abort
	excpDataAbort     = 4  // data abort: an alignment fault (Unicorn handles unmapped memory itself)
	excpBKPT          = 7  // brk
	excpHVC           = 11 // hvc
	excpSMC           = 13 // smc
)

// exceptionPCARM64 is the address of the instruction that raised the CPU
// exception f. QEMU takes hvc and smc, like svc, with the PC past the
// instruction; Linux refuses both at EL0 as undefined, so the instruction
// is the fault and did not complete.
func exceptionPCARM64(f *emu.Fault) uint64 {
	if f.Intno == excpHVC || f.Intno == excpSMC {
		return f.PC - 4
	}
	return f.PC
}

// describeExceptionARM64 says which signal Linux would deliver for an arm64
// CPU exception, and what happened.
func describeExceptionARM64(f *emu.Fault, read func(uint64, []byte) error) (signal, string) {
	switch f.Intno {
	case excpUDEF, excpHVC, excpSMC:
		return sigILL, unsupportedInsn(emu.ARM64, f.PC, read)
	case excpBKPT:
		return sigTRAP, "breakpoint" + faultingInsn(emu.ARM64, f.PC, read)
	case excpDataAbort:
		return sigBUS, "alignment fault" + faultingInsn(emu.ARM64, f.PC, read)
	case excpPrefetchAbort:
		return sigSEGV, fmt.Sprintf("instruction fetch abort at %#x", f.PC)
	}
	return sigILL, fmt.Sprintf("CPU exception %d%s", f.Intno, faultingInsn(emu.ARM64, f.PC, read))
}

// disasmARM64 returns the arm64 instruction at pc in GNU syntax, or "".
func disasmARM64(pc uint64, read func(uint64, []byte) error) string {
	code := make([]byte, 4)
	if read(pc, code) != nil {
		return ""
	}
	inst, err := arm64asm.Decode(code)
	if err != nil {
		return ""
	}
	return strings.ToLower(arm64asm.GNUSyntax(inst))
}

// unsupportedARM64 describes an instruction the disassembler does not
// know. Its encoding still tells the later extensions a program built for
// a newer CPU most often uses: SVE and the ARMv8.1 LSE atomics.
func unsupportedARM64(code []byte, pc uint64) string {
	w := binary.LittleEndian.Uint32(code)
	what := ""
	switch {
	case field(w, 28, 25) == 2:
		what = "an SVE instruction"
	case w&0x3b200c00 == 0x38200000 && field(w, 26, 26) == 0:
		// LSE atomic memory operations: o3 (bit 15) and opc (14:12).
		ops := [...]string{"ldadd", "ldclr", "ldeor", "ldset", "ldsmax", "ldsmin", "ldumax", "ldumin"}
		name := ""
		switch o3, opc := field(w, 15, 15), field(w, 14, 12); {
		case o3 == 0:
			name = ops[opc]
		case opc == 0:
			name = "swp"
		case opc == 4:
			what = "`ldapr` (ARMv8.3 RCpc)"
		}
		if name != "" {
			name += [...]string{"", "l", "a", "al"}[field(w, 23, 22)]
			what = fmt.Sprintf("`%s%s` (ARMv8.1 LSE atomics)", name, sizeSuffix(w))
		}
	case w&0x3f200000 == 0x08200000 && field(w, 23, 23) == 1:
		what = fmt.Sprintf("`cas%s%s` (ARMv8.1 LSE atomics)", [...]string{"", "l", "a", "al"}[field(w, 22, 22)<<1|field(w, 15, 15)], sizeSuffix(w))
	case w&0x3f200000 == 0x08200000 && field(w, 31, 31) == 0:
		what = fmt.Sprintf("`casp%s` (ARMv8.1 LSE atomics)", [...]string{"", "l", "a", "al"}[field(w, 22, 22)<<1|field(w, 15, 15)])
	case w&0xffff0000 == 0:
		return fmt.Sprintf("`udf #%#x` (bytes % x) at %#x: permanently undefined", w, code, pc)
	case w&0xffe0001e == 0xd4000002:
		// hvc and smc: calls to a hypervisor or secure monitor.
		name := [...]string{"hvc", "smc"}[w&1]
		return fmt.Sprintf("`%s #%#x` (bytes % x) at %#x: a user program cannot call the hypervisor or secure monitor", name, field(w, 20, 5), code, pc)
	}
	if what == "" {
		return fmt.Sprintf("illegal instruction (bytes % x) at %#x", code, pc)
	}
	return fmt.Sprintf("%s (bytes % x) at %#x is not supported by the emulated CPU; %s", what, code, pc, buildHintARM64)
}

// sizeSuffix is the b or h of a byte or halfword atomic.
func sizeSuffix(w uint32) string {
	return [...]string{"b", "h", "", ""}[field(w, 31, 30)]
}

// buildHintARM64 is how to build for the emulated CPU.
const buildHintARM64 = "build for -march=armv8-a (the emulated CPU is a cortex-a72: ARMv8.0-A with crypto and CRC)"
