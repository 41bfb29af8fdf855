/*
# icount: instructions=40 blocks=8 exit=92

sigsegv.S: a SIGSEGV handler that skips the faulting load. rt_sigaction
installs handler with SA_SIGINFO|SA_RESTORER; the program loads from the
unmapped address 0x10 twice. Each time the handler adds up what the frame
says (signo 11, si_code SEGV_MAPERR 1, si_addr 0x10, the sigcontext's
trapno 14 and err 4: a user-mode read of an unmapped page), 46 in all,
writes it to the saved rax, moves the saved rip past the 3-byte load and
returns to restorer, whose rt_sigreturn resumes after the load. The second
fault is delivered too: rt_sigreturn unblocked SIGSEGV again. The exit
status is 46 + 46 = 92.

Translated blocks:

  A  _start: push, lea, push, push, lea, push, mov, mov, xor, mov,
     mov, syscall                                         12  x1
  B  mov $0x10, [mov (%rbx) faults], mov, mov, add, ...   1 completed
  H  handler: mov, add, movslq, add, add, add, mov, addq, ret
                                                          9   x2
  R  restorer: mov $15, syscall                           2   x2
  C  mov %rax, %r12, [mov (%rbx) faults], add, ...        1 completed
  D  add, mov, mov, syscall                               4   x1

  instructions = 12 + 1 + 9 + 2 + 1 + 9 + 2 + 4 = 40
  blocks       = 8 (the cut blocks B and C count one execution each)

The faulting loads do not count; the handler's and restorer's
instructions do, as they ran.
*/
#include "signal.inc"

	.text
	.globl	_start
_start:
	install_handler 11	/* SIGSEGV */
	mov	$0x10, %ebx
	mov	(%rbx), %rax		/* faults: 48 8b 03 */
	mov	%rax, %r12
	mov	(%rbx), %rax		/* faults again */
	add	%r12, %rax
	mov	%eax, %edi
	mov	$231, %eax		/* exit_group */
	syscall

handler:				/* rdi = signo, rsi = siginfo, rdx = ucontext */
	mov	16(%rsi), %rax		/* si_addr */
	add	%rdi, %rax
	movslq	8(%rsi), %rcx		/* si_code */
	add	%rcx, %rax
	add	200(%rdx), %rax		/* uc_mcontext.trapno */
	add	192(%rdx), %rax		/* uc_mcontext.err */
	mov	%rax, 144(%rdx)		/* uc_mcontext.rax */
	addq	$3, 168(%rdx)		/* uc_mcontext.rip: past the load */
	ret

	restorer_code

	.section .note.GNU-stack,"",@progbits
