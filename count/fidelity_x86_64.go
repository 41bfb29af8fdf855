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
	// status word): icount folds in what the emulated CPU raised, which is
	// what the hardware raises but for the denormal-operand flag and the
	// x87's C1 after a result rounded up.
	x86asm.STMXCSR: flagsPartial,
	x86asm.FNSTSW:  flagsPartial,
	x86asm.FNSTENV: flagsPartial,
	x86asm.FNSAVE:  flagsPartial,

	x86asm.RCPSS:   approximations,
	x86asm.RCPPS:   approximations,
	x86asm.RSQRTSS: approximations,
	x86asm.RSQRTPS: approximations,
}

const (
	flagsPartial   = "it reads floating-point exception flags, of which the emulated CPU never sets the denormal-operand flag (DE), nor the x87's C1 for a result rounded up"
	approximations = "the emulated CPU computes it exactly, where the hardware gives its own 12-bit approximation"
)
