package count

import "golang.org/x/arch/x86/x86asm"

// fidelityX86 lists the x86-64 instructions the emulated CPU (Unicorn's
// qemu64) executes differently from the hardware, in a way icount neither
// fixes nor refuses: a run that executes one gets a warning naming it,
// how often it ran and why (fidelityWarnings). Each is found when its
// block is first decoded, so the warning costs nothing per execution. An
// instruction icount comes to emulate or refuse at its site leaves this
// table.
var fidelityX86 = map[x86asm.Op]string{
	// The program reads the floating-point exception flags (MXCSR, the x87
	// status word), which the emulated CPU never sets.
	x86asm.STMXCSR: flagsNeverSet,
	x86asm.FNSTSW:  flagsNeverSet,
	x86asm.FNSTENV: flagsNeverSet,
	x86asm.FNSAVE:  flagsNeverSet,

	x86asm.LDMXCSR: "the emulated CPU ignores MXCSR's flush-to-zero and denormals-are-zero modes",

	x86asm.RCPSS:   approximations,
	x86asm.RCPPS:   approximations,
	x86asm.RSQRTSS: approximations,
	x86asm.RSQRTPS: approximations,

	x86asm.FISTTP: "the emulated CPU saturates a value out of the integer's range instead of storing the integer indefinite",

	// x87 functions the emulated CPU computes at double precision (64-bit
	// significand rounding aside, with other special cases): glibc's and
	// musl's long double functions give other results.
	x86asm.FSIN:    x87Double,
	x86asm.FCOS:    x87Double,
	x86asm.FSINCOS: x87Double,
	x86asm.FPTAN:   x87Double,
	x86asm.FPATAN:  x87Double,
	x86asm.FYL2X:   x87Double,
	x86asm.FYL2XP1: x87Double,
	x86asm.F2XM1:   x87Double,
	x86asm.FPREM:   x87Double,
	x86asm.FPREM1:  x87Double,
	x86asm.FXTRACT: x87Double,
	x86asm.FSCALE:  x87Double,
}

const (
	flagsNeverSet  = "it reads floating-point exception flags, which the emulated CPU never sets"
	approximations = "the emulated CPU computes it exactly, where the hardware gives its own 12-bit approximation"
	x87Double      = "the emulated CPU computes it in double precision, not the x87's extended precision, with other special cases"
)
