/* escape.S: f calls itself, and the inner call leaves by an indirect jump
   back into f with the stack pointer f had when the outer call entered it,
   as a longjmp within one function does: the inner call's frame is gone.
   The store through a null pointer after the jump faults (SIGSEGV, 139) in
   f called from _start, one frame of f and not two, after 13 instructions:
   _start 2, the outer f 5, the inner f 2 and its escape 3, the xor 1. */
	.text
	.globl	_start
_start:
	mov	$1, %edi
	call	f
	mov	$60, %eax
	xor	%edi, %edi
	syscall
f:
	test	%edi, %edi
	jz	.Linner
	mov	%rsp, %r12		/* the outer call's stack pointer at entry */
	xor	%edi, %edi
	call	f
	ret
.Linner:
	mov	%r12, %rsp		/* above the inner call's: its frame is left */
	lea	.Lback(%rip), %rax
	jmp	*%rax
.Lback:
	xor	%eax, %eax
	movq	$1, (%rax)
	ret
