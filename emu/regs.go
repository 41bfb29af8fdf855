package emu

/*
#include <unicorn/unicorn.h>
*/
import "C"

// Reg names a guest register, as Unicorn numbers them.
type Reg int

// x86-64 registers.
const (
	X86RAX    Reg = C.UC_X86_REG_RAX
	X86RBX    Reg = C.UC_X86_REG_RBX
	X86RCX    Reg = C.UC_X86_REG_RCX
	X86RDX    Reg = C.UC_X86_REG_RDX
	X86RSI    Reg = C.UC_X86_REG_RSI
	X86RDI    Reg = C.UC_X86_REG_RDI
	X86RBP    Reg = C.UC_X86_REG_RBP
	X86RSP    Reg = C.UC_X86_REG_RSP
	X86R8     Reg = C.UC_X86_REG_R8
	X86R9     Reg = C.UC_X86_REG_R9
	X86R10    Reg = C.UC_X86_REG_R10
	X86R11    Reg = C.UC_X86_REG_R11
	X86R12    Reg = C.UC_X86_REG_R12
	X86R13    Reg = C.UC_X86_REG_R13
	X86R14    Reg = C.UC_X86_REG_R14
	X86R15    Reg = C.UC_X86_REG_R15
	X86RIP    Reg = C.UC_X86_REG_RIP
	X86EFLAGS Reg = C.UC_X86_REG_EFLAGS
	X86FSBase Reg = C.UC_X86_REG_FS_BASE
	X86GSBase Reg = C.UC_X86_REG_GS_BASE
	// X86CR4 is control register 4: the operating system's CPU features
	// (OSFXSR, OSXMMEXCPT) are enabled there.
	X86CR4 Reg = C.UC_X86_REG_CR4
)

// arm64 registers. X0+n is register Xn for n in 0..28; X29 is the frame
// pointer and X30 the link register.
const (
	ARM64X0    Reg = C.UC_ARM64_REG_X0
	ARM64X29   Reg = C.UC_ARM64_REG_X29
	ARM64X30   Reg = C.UC_ARM64_REG_X30
	ARM64SP    Reg = C.UC_ARM64_REG_SP
	ARM64PC    Reg = C.UC_ARM64_REG_PC
	ARM64NZCV  Reg = C.UC_ARM64_REG_NZCV
	ARM64TPIDR Reg = C.UC_ARM64_REG_TPIDR_EL0
	ARM64CPACR Reg = C.UC_ARM64_REG_CPACR_EL1
)

// ARM64X returns register Xn for n in 0..30.
func ARM64X(n int) Reg {
	switch {
	case n <= 28:
		return ARM64X0 + Reg(n)
	case n == 29:
		return ARM64X29
	default:
		return ARM64X30
	}
}

// FP and SIMD registers: the 128-bit vector registers, the x87 stack
// (80-bit values) and their control and status registers, read and written
// whole with RegBytes and SetRegBytes (the others with Reg and SetReg).
const (
	X86MXCSR  Reg = C.UC_X86_REG_MXCSR
	X86FPCW   Reg = C.UC_X86_REG_FPCW
	X86FPSW   Reg = C.UC_X86_REG_FPSW
	X86FPTAG  Reg = C.UC_X86_REG_FPTAG // two bits a register, 3 for empty
	X86FOP    Reg = C.UC_X86_REG_FOP
	ARM64FPSR Reg = C.UC_ARM64_REG_FPSR
	ARM64FPCR Reg = C.UC_ARM64_REG_FPCR
)

// X86XMM returns register XMMn for n in 0..15.
func X86XMM(n int) Reg { return Reg(C.UC_X86_REG_XMM0) + Reg(n) }

// X86ST returns the x87 register ST(n) for n in 0..7 (10 bytes).
func X86ST(n int) Reg { return Reg(C.UC_X86_REG_ST0) + Reg(n) }

// ARM64Q returns the vector register Qn (Vn) for n in 0..31.
func ARM64Q(n int) Reg { return Reg(C.UC_ARM64_REG_Q0) + Reg(n) }
