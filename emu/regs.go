package emu

/*
#include <unicorn/unicorn.h>
#include "hotpath.h"
#include "fpstatus.h"

// Register access neither keeps the pointers it is given nor calls Go:
// the values passed need not escape to the heap.
#cgo noescape uc_reg_read
#cgo nocallback uc_reg_read
#cgo noescape uc_reg_write
#cgo nocallback uc_reg_write
#cgo noescape ic_reg_read_batch
#cgo nocallback ic_reg_read_batch
#cgo nocallback ic_reg_read
#cgo nocallback ic_reg_write

// ic_reg_read and ic_reg_write access a register of 64 bits or fewer by
// value: no pointer for cgo to check.
static uint64_t ic_reg_read(uc_engine *uc, int reg) {
	uint64_t v = 0;
	uc_reg_read(uc, reg, &v);
	return v;
}
static uc_err ic_reg_write(uc_engine *uc, int reg, uint64_t v) {
	return uc_reg_write(uc, reg, &v);
}

// IC_REG_BATCH is the most registers ic_reg_read_batch reads at once.
enum { IC_REG_BATCH = 8 };

// ic_reg_read_batch reads the n registers regs (each of 64 bits or fewer)
// into vals, in one call into Unicorn.
static uc_err ic_reg_read_batch(uc_engine *uc, int *regs, uint64_t *vals, int n) {
	void *ptrs[IC_REG_BATCH];
	for (int i = 0; i < n; i++) {
		vals[i] = 0;
		ptrs[i] = &vals[i];
	}
	return uc_reg_read_batch(uc, regs, ptrs, n);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

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
	ARM64X28   Reg = C.UC_ARM64_REG_X28
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

// Reg reads a register; reading an invalid register returns 0.
func (c *CPU) Reg(r Reg) uint64 {
	if r == X86MXCSR || r == X86FPSW {
		C.ic_fp_fold(c.st) // the exceptions raised so far are in them
	}
	return uint64(C.ic_reg_read(c.uc, C.int(r)))
}

// MaxRegs is the most registers Regs reads at once.
const MaxRegs = C.IC_REG_BATCH

// Regs reads the registers regs (at most MaxRegs, each of 64 bits or
// fewer) into vals, as Reg reads each, in one call into the emulator: a
// system call's number and arguments at the cost of one register.
func (c *CPU) Regs(regs []Reg, vals []uint64) {
	n := len(regs)
	if n > MaxRegs || len(vals) < n {
		panic(fmt.Sprintf("emu: Regs of %d registers into %d values (at most %d)", n, len(vals), MaxRegs))
	}
	if n == 0 {
		return
	}
	var ids [MaxRegs]C.int
	for i, r := range regs {
		if r == X86MXCSR || r == X86FPSW {
			C.ic_fp_fold(c.st)
		}
		ids[i] = C.int(r)
	}
	var out [MaxRegs]C.uint64_t
	C.ic_reg_read_batch(c.uc, &ids[0], &out[0], C.int(n))
	for i := range n {
		vals[i] = uint64(out[i])
	}
}

// SetReg writes a register.
func (c *CPU) SetReg(r Reg, v uint64) error {
	if err := C.ic_reg_write(c.uc, C.int(r), C.uint64_t(v)); err != C.UC_ERR_OK {
		return regError("write", r, err)
	}
	switch r {
	case X86MXCSR:
		C.ic_fp_loaded(c.st, 1, 0)
	case X86FPSW:
		C.ic_fp_loaded(c.st, 0, 1)
	}
	return nil
}

// RegBytes reads the n bytes of a wide register (a vector register: 16,
// an x87 register: 10).
func (c *CPU) RegBytes(r Reg, n int) []byte {
	var buf [64]byte // room for any register Unicorn writes
	C.uc_reg_read(c.uc, C.int(r), unsafe.Pointer(&buf[0]))
	return append([]byte(nil), buf[:n]...)
}

// SetRegBytes writes a wide register from its bytes.
func (c *CPU) SetRegBytes(r Reg, b []byte) error {
	var buf [64]byte
	copy(buf[:], b)
	if err := C.uc_reg_write(c.uc, C.int(r), unsafe.Pointer(&buf[0])); err != C.UC_ERR_OK {
		return regError("write", r, err)
	}
	return nil
}

// regError is the error of Unicorn's failed op on register r, its text
// made only when there is one.
func regError(op string, r Reg, err C.uc_err) error {
	return check(fmt.Sprintf("%s register %d", op, r), err)
}
