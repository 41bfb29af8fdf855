/*
# icount: instructions=36 blocks=6 exit=42

sigtgkill.S: a signal the program sends itself with tgkill, delivered as
the call returns, and the registers the handler changes restored by
rt_sigreturn, FP/SIMD ones too. The program puts 42 in xmm0 and sends
SIGUSR1 to its own thread (tgid = tid = getpid()); the handler zeroes xmm0,
puts 7 in rax and writes si_code + si_pid (SI_TKILL -6 + pid 1000 = 994)
to the saved r12; back from rt_sigreturn, rax holds tgkill's 0 again and
xmm0 its 42, and r12 the handler's 994: the exit status is
xmm0 + rax + r12 - 994 = 42.

Translated blocks:

  A  _start: push, lea, push, push, lea, push, mov, mov, xor, mov,
     mov, syscall                                         12  x1
  B  mov $42, movq, mov $39, syscall (getpid)             4   x1
  C  mov, mov, mov, mov $234, syscall (tgkill)            5   x1
  H  handler: pxor, movslq, movslq, add, mov, mov, ret    7   x1
  R  restorer: mov $15, syscall                           2   x1
  D  movq, add, add, sub, mov, syscall                    6   x1

  instructions = 12 + 4 + 5 + 7 + 2 + 6 = 36
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
	add	%rax, %rdi
	add	%r12, %rdi
	sub	$994, %rdi
	mov	$231, %eax		/* exit_group */
	syscall

handler:				/* rdi = signo, rsi = siginfo, rdx = ucontext */
	pxor	%xmm0, %xmm0
	movslq	8(%rsi), %rcx		/* si_code */
	movslq	16(%rsi), %r8		/* si_pid */
	add	%r8, %rcx
	mov	%rcx, 72(%rdx)		/* uc_mcontext.r12 */
	mov	$7, %eax
	ret

	restorer_code

	.section .note.GNU-stack,"",@progbits
