/*
# icount: instructions=4 blocks=1 exit=125

unsupported.S: a system call icount does not emulate (remap_file_pages,
216) stops the run with exit status 125 and a message naming the call, its
address and function. One block: nop, nop, mov $216, syscall = 4 instructions; the
syscall instruction is counted, as it was executed up to the kernel.
*/
	.text
	.globl	_start
_start:
	nop
	nop
	mov	$216, %eax		/* remap_file_pages */
	syscall
	mov	$60, %eax		/* never reached */
	xor	%edi, %edi
	syscall

	.section .note.GNU-stack,"",@progbits
