/*
# icount: instructions=33 blocks=6 exit=47

sigfpframe.S: the FP/SIMD state in the signal frame, read and changed by
the handler, and loaded by rt_sigreturn from there. The program puts 42 in
d0 and sends itself SIGUSR1; the handler finds the fpsimd_context record
first in uc_mcontext.__reserved (its v0 at ucontext + 176 + 288 + 16 =
480), copies the saved d0 (42) to the saved x19, writes 5 in its place and
zeroes the live v0. Back from rt_sigreturn (through the trampoline) d0
holds the frame's 5 and x19 the 42: the exit status is d0 + x19 = 47, as
under qemu-aarch64 -cpu cortex-a72 (the CPU icount emulates; qemu's
default CPU has SVE, and its frame's SVE record then restores v0).

Translated blocks:

  A  _start: sub, adr, str, mov, str, str, str, mov, mov, mov, mov,
     mov, svc                                             13  x1
  B  mov #42, fmov, mov #172, svc (getpid)                4   x1
  C  mov, mov, mov #131, svc (tgkill)                     4   x1
  H  handler: ldr, str, mov, str, movi, ret               6   x1
  T  the trampoline: mov x8, #139; svc #0                 2   x1
  D  fmov, add, mov, svc                                  4   x1

  instructions = 13 + 4 + 4 + 6 + 2 + 4 = 33
  blocks       = 6
*/
#include "signal.inc"

	.text
	.globl	_start
_start:
	install_handler 10	/* SIGUSR1 */
	mov	x0, #42
	fmov	d0, x0
	signal_self 10		/* SIGUSR1 */
	fmov	x3, d0
	add	x0, x3, x19
	mov	x8, #94			/* exit_group */
	svc	#0

handler:				/* x0 = signo, x1 = siginfo, x2 = ucontext */
	ldr	x9, [x2, #480]		/* the saved v0's low half */
	str	x9, [x2, #336]		/* uc_mcontext.regs[19] */
	mov	x10, #5
	str	x10, [x2, #480]
	movi	v0.2d, #0
	ret

	.section .note.GNU-stack,"",@progbits
