/* writetext.S: a store into the program's own code, which is mapped
   read-only and executable: SIGSEGV (139), a protection fault. */
	.text
	.globl	_start
_start:
	lea	_start(%rip), %rax
	movb	$0x90, (%rax)
	mov	$60, %eax
	xor	%edi, %edi
	syscall
