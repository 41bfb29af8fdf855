/*
# icount: instructions=36 blocks=6 exit=42

sigtgkill.S: a signal the program sends itself with tgkill, delivered as
the call returns, and the registers the handler changes restored by
rt_sigreturn, FP/SIMD ones too. The program puts 42 in d0 and sends
SIGUSR1 to its own thread (tgid = tid = getpid()); the handler zeroes v0,
puts 7 in x0 and writes si_code + si_pid (SI_TKILL -6 + pid 1000 = 994) to
the saved x19, and returns through the sigreturn trampoline (no
SA_RESTORER); back from rt_sigreturn, x0 holds tgkill's 0 again, d0 its
42 and x19 the handler's 994: the exit status is d0 + x0 + x19 - 994 = 42.

Translated blocks:

  A  _start: sub, adr, str, mov, str, str, str, mov, mov, mov, mov,
     mov, svc                                             13  x1
  B  mov #42, fmov, mov #172, svc (getpid)                4   x1
  C  mov, mov, mov #131, svc (tgkill)                     4   x1
  H  handler: movi, ldrsw, ldrsw, add, str, mov, ret      7   x1
  T  the trampoline: mov x8, #139; svc #0                 2   x1
  D  fmov, add, add, sub, mov, svc                        6   x1

  instructions = 13 + 4 + 4 + 7 + 2 + 6 = 36
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
	add	x0, x0, x3
	add	x0, x0, x19
	sub	x0, x0, #994
	mov	x8, #94			/* exit_group */
	svc	#0

handler:				/* x0 = signo, x1 = siginfo, x2 = ucontext */
	movi	v0.2d, #0
	ldrsw	x9, [x1, #8]		/* si_code */
	ldrsw	x10, [x1, #16]		/* si_pid */
	add	x9, x9, x10
	str	x9, [x2, #336]		/* uc_mcontext.regs[19] */
	mov	x0, #7
	ret

	.section .note.GNU-stack,"",@progbits
