/* divzero.S: an unsigned division by zero: SIGFPE (136). */
	.text
	.globl	_start
_start:
	mov	$7, %eax
	xor	%edx, %edx
	xor	%ecx, %ecx
	div	%rcx
	mov	$60, %eax
	xor	%edi, %edi
	syscall
