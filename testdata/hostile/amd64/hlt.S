/* hlt.S: hlt at user level, which the CPU refuses with a general
   protection fault: SIGSEGV (139) after 2 instructions, the instruction
   named. */
	.text
	.globl	_start
_start:
	mov	$1, %eax
	mov	$2, %ebx
	hlt
	mov	$60, %eax
	xor	%edi, %edi
	syscall
