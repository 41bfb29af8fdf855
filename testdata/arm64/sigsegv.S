/*
# icount: instructions=44 blocks=8 exit=88

sigsegv.S: a SIGSEGV handler that skips the faulting load. rt_sigaction
installs handler with SA_SIGINFO and no SA_RESTORER, as glibc, musl and Go
do on arm64: the handler returns through the kernel's sigreturn trampoline
(the vDSO's; icount maps a page of its own holding the same two
instructions, mov x8, #139; svc #0). The program loads from the unmapped
address 0x10 twice. Each time the handler adds up what the frame says
(signo 11, si_code SEGV_MAPERR 1, si_addr 0x10 and the sigcontext's
fault_address 0x10), 44 in all, writes it to the saved x0, moves the saved
pc past the load and returns. The second fault is delivered too:
rt_sigreturn unblocked SIGSEGV again. The exit status is 44 + 44 = 88.

Translated blocks:

  A  _start: sub, adr, str, mov, str, str, str, mov, mov, mov, mov,
     mov, svc                                             13  x1
  B  mov x19, [ldr x0, [x19] faults], mov, ldr, ...       1 completed
  H  handler: ldr, add, ldrsw, add, ldr, add, str, ldr, add, str, ret
                                                          11  x2
  T  the trampoline: mov x8, #139; svc #0                 2   x2
  C  mov x20, x0, [ldr x0, [x19] faults], add, ...        1 completed
  D  add, mov, svc                                        3   x1

  instructions = 13 + 1 + 11 + 2 + 1 + 11 + 2 + 3 = 44
  blocks       = 8 (the cut blocks B and C count one execution each)

The faulting loads do not count; the handler's and the trampoline's
instructions do, as they ran.
*/
#include "signal.inc"

	.text
	.globl	_start
_start:
	install_handler 11	/* SIGSEGV */
	mov	x19, #0x10
	ldr	x0, [x19]		/* faults */
	mov	x20, x0
	ldr	x0, [x19]		/* faults again */
	add	x0, x0, x20
	mov	x8, #94			/* exit_group */
	svc	#0

handler:				/* x0 = signo, x1 = siginfo, x2 = ucontext */
	ldr	x9, [x1, #16]		/* si_addr */
	add	x9, x9, x0
	ldrsw	x10, [x1, #8]		/* si_code */
	add	x9, x9, x10
	ldr	x10, [x2, #176]		/* uc_mcontext.fault_address */
	add	x9, x9, x10
	str	x9, [x2, #184]		/* uc_mcontext.regs[0] */
	ldr	x10, [x2, #440]		/* uc_mcontext.pc */
	add	x10, x10, #4
	str	x10, [x2, #440]
	ret

	.section .note.GNU-stack,"",@progbits
