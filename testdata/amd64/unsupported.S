/*
# icount: instructions=5 blocks=1 exit=125

unsupported.S: a system call in a form icount does not emulate (recvmmsg,
299, with a timeout) stops the run with exit status 125 and a message
naming the call, its address, what of it is missing and the function. One
block: nop, nop, mov $1, %r8d, mov $299, syscall = 5 instructions; the
syscall instruction is counted, as it was executed up to the kernel.
*/
	.text
	.globl	_start
_start:
	nop
	nop
	mov	$1, %r8d		/* a timeout */
	mov	$299, %eax		/* recvmmsg */
	syscall
	mov	$60, %eax		/* never reached */
	xor	%edi, %edi
	syscall

	.section .note.GNU-stack,"",@progbits
