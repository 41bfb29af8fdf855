/*
# icount: instructions=108 blocks=23 exit=7

privileged.S: the privileged instructions of one byte, each refused as
the CPU refuses it at CPL 3: a general protection fault, which Linux
delivers as SIGSEGV with si_code SI_KERNEL (0x80), si_addr 0 and the
sigcontext's trapno 13 and err 0 (the emulated CPU runs the guest at CPL
0, where they would execute). The SIGSEGV handler adds to the saved rax
1 + (signo - 11) + (si_code - 0x80) + si_addr + err + (trapno - 13),
which is 1 when the frame is right, and moves the saved rip past the
1-byte instruction. hlt, cli, sti, in, out, insb and outsb: exit status 7
(as natively).

Translated blocks:

  A  _start: install_handler: push, lea, push, push, lea, push, mov,
     mov, xor, mov, mov, syscall                          12  x1
  B  xor %eax,%eax, mov $0x10,%edx, [hlt refused]          2 completed
  H  handler: lea, movslq, sub, add, add, add, add, sub, add, addq,
     ret                                                  11  x7
  R  restorer: mov $15, syscall                            2  x7
  C1-C6  cli, sti, in, out, insb, outsb: each block entered at the
     instruction the handler resumes at, refused there     0  x1 each
  D  mov %eax,%edi, mov $231,%eax, syscall                 3  x1

  instructions = 12 + 2 + 7*11 + 7*2 + 0 + 3 = 108
  blocks       = 1 + 1 + 7 + 7 + 6 + 1 = 23

Block B's first entry was not counted: its first sight hooked hlt and
restarted it, so that the hook is compiled into its translation; so were
the blocks at cli ... outsb. The refused instructions do not count.
*/
#include "signal.inc"

	.text
	.globl	_start
_start:
	install_handler 11	/* SIGSEGV */
	xor	%eax, %eax
	mov	$0x10, %edx
	hlt
	cli
	sti
	in	(%dx), %al
	out	%al, (%dx)
	insb
	outsb
	mov	%eax, %edi
	mov	$231, %eax		/* exit_group */
	syscall

handler:				/* rdi = signo, rsi = siginfo, rdx = ucontext */
	lea	-10(%rdi), %rax		/* signo 11: 1 */
	movslq	8(%rsi), %rcx		/* si_code */
	sub	$0x80, %rcx		/* SI_KERNEL */
	add	%rcx, %rax
	add	16(%rsi), %rax		/* si_addr: 0 */
	add	192(%rdx), %rax		/* uc_mcontext.err: 0 */
	add	200(%rdx), %rax		/* uc_mcontext.trapno */
	sub	$13, %rax		/* #GP */
	add	%rax, 144(%rdx)		/* uc_mcontext.rax */
	addq	$1, 168(%rdx)		/* uc_mcontext.rip: past the instruction */
	ret

	restorer_code

	.section .note.GNU-stack,"",@progbits
