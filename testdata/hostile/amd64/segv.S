/* segv.S: a store through a null pointer, two calls deep: SIGSEGV (139),
   the message names the address, the instruction, the function and its
   callers. */
	.text
	.globl	_start
_start:
	call	main
	mov	$60, %eax
	xor	%edi, %edi
	syscall
main:
	call	crash
	ret
crash:
	xor	%eax, %eax
	movq	$1, (%rax)
	ret
