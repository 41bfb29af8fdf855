/*
# icount: instructions=21 blocks=2 exit=10

intfix.S: the integer instructions whose results Unicorn gets wrong, each
fixed at its site: by a hook before it, which saves what it needs, and one
at the next instruction, which repairs the result (cmpxchg, bsf), or by
a hook that executes it (lock neg):

  cmpxchg %ecx,%edx with EAX equal to EDX writes EDX and leaves RAX
  whole (Unicorn zeroes its upper half): RAX >> 32 = 5;
  bsf %ecx,%ebx with ECX 0 leaves RBX unchanged (Unicorn zeroes its
  upper half): RBX >> 32 = 3;
  lock negl of 1 gives -1, with SF and PF set (Unicorn takes both from
  the old value, 1: clear): 1 + 1.

The exit status is 5 + 3 + 1 + 1 = 10, as natively (0 unfixed).

Translated blocks:

  A  movabs, mov, mov, cmpxchg, shr, mov, movabs, xor, bsf, shr, add,
     movl, lock negl                                      13  x1
  B  sets, movzbl, add, setp, movzbl, add, mov, syscall   8   x1

  instructions = 13 + 8 = 21
  blocks       = 2

A is translated through the syscall, but its first sight hooked the
three sites and the instructions after the first two and restarted it
(that entry is not counted). lock neg is executed by its hook, which
moves RIP past it: that ends the translated block (whose code after it
assumes the flags as the emulator computes them), so the 8 instructions
from sets on are taken back from A and run as block B.
*/
	.text
	.globl	_start
_start:
	movabs	$0x500000007, %rax
	mov	$7, %edx
	mov	$9, %ecx
	cmpxchg	%ecx, %edx		/* equal: EDX = 9, RAX kept */
	shr	$32, %rax
	mov	%rax, %rdi		/* 5 */
	movabs	$0x300000000, %rbx
	xor	%ecx, %ecx
	bsf	%ecx, %ebx		/* zero source: RBX kept */
	shr	$32, %rbx
	add	%rbx, %rdi		/* 8 */
	movl	$1, -8(%rsp)
	lock negl -8(%rsp)		/* -1: SF, PF */
	sets	%al
	movzbl	%al, %eax
	add	%rax, %rdi		/* 9 */
	setp	%al
	movzbl	%al, %eax
	add	%rax, %rdi		/* 10 */
	mov	$231, %eax		/* exit_group */
	syscall

	.section .note.GNU-stack,"",@progbits
