/*
# icount: instructions=4 blocks=1 exit=125

unsupported.S: a system call icount does not emulate (remap_file_pages,
234 in the generic numbering) stops the run with exit status 125 and a
message naming the call, its address and function. One block: nop, nop, mov #234, svc = 4
instructions; the svc is counted, as it was executed up to the kernel.
*/
	.text
	.globl	_start
_start:
	nop
	nop
	mov	x8, #234		/* remap_file_pages */
	svc	#0
	mov	x8, #94			/* never reached */
	mov	x0, #0
	svc	#0

	.section .note.GNU-stack,"",@progbits
