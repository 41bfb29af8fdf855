/*
# icount: instructions=33 blocks=6 exit=47

sigfpframe.S: the FP state in the signal frame, read and changed by the
handler, and loaded by rt_sigreturn from there. The program puts 42 in
xmm0 and sends itself SIGUSR1; the handler finds the saved xmm0 through
uc_mcontext.fpstate (FXSAVE layout: xmm0 at offset 160), copies it (42) to
the saved r12, writes 5 in its place and zeroes the live xmm0. Back from
rt_sigreturn xmm0 holds the frame's 5 and r12 the 42: the exit status is
xmm0 + r12 = 47, natively too.

Translated blocks:

  A  _start: push, lea, push, push, lea, push, mov, mov, xor, mov,
     mov, syscall                                         12  x1
  B  mov $42, movq, mov $39, syscall (getpid)             4   x1
  C  mov, mov, mov, mov $234, syscall (tgkill)            5   x1
  H  handler: mov, mov, mov, movq, pxor, ret              6   x1
  R  restorer: mov $15, syscall                           2   x1
  D  movq, add, mov, syscall                              4   x1

  instructions = 12 + 4 + 5 + 6 + 2 + 4 = 33
  blocks       = 6
*/
#include "signal.inc"

	.text
	.globl	_start
_start:
	install_handler 10	/* SIGUSR1 */
	mov	$42, %eax
	movq	%rax, %xmm0
	signal_self 10		/* SIGUSR1 */
	movq	%xmm0, %rdi
	add	%r12, %rdi
	mov	$231, %eax		/* exit_group */
	syscall

handler:				/* rdi = signo, rsi = siginfo, rdx = ucontext */
	mov	224(%rdx), %rcx		/* uc_mcontext.fpstate */
	mov	160(%rcx), %r8		/* the saved xmm0's low half */
	mov	%r8, 72(%rdx)		/* uc_mcontext.r12 */
	movq	$5, 160(%rcx)
	pxor	%xmm0, %xmm0
	ret

	restorer_code

	.section .note.GNU-stack,"",@progbits
