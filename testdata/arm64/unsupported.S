/*
# icount: instructions=5 blocks=1 exit=125

unsupported.S: a system call in a form icount does not emulate (recvmmsg,
243 in the generic numbering, with a timeout) stops the run with exit
status 125 and a message naming the call, its address, what of it is
missing and the function. One block: nop, nop, mov x4, #1, mov x8, #243,
svc = 5 instructions; the svc is counted, as it was executed up to the
kernel.
*/
	.text
	.globl	_start
_start:
	nop
	nop
	mov	x4, #1			/* a timeout */
	mov	x8, #243		/* recvmmsg */
	svc	#0
	mov	x8, #94			/* never reached */
	mov	x0, #0
	svc	#0

	.section .note.GNU-stack,"",@progbits
