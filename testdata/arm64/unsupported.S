/*
# icount: instructions=8 blocks=1 exit=125

unsupported.S: a system call in a form icount does not emulate (openat2,
437, of /proc/self/exe with RESOLVE_NO_SYMLINKS: icount answers /proc's
links itself) stops the run with exit status 125 and a message naming
the call, its address, what of it is missing and the function. One block:
nop, nop, four arguments, the number, svc = 8 instructions; the svc is
counted, as it was executed up to the kernel.
*/
	.text
	.globl	_start
_start:
	nop
	nop
	mov	x0, #-100		/* AT_FDCWD */
	adr	x1, path
	adr	x2, how
	mov	x3, #24			/* sizeof(struct open_how) */
	mov	x8, #437		/* openat2 */
	svc	#0
	mov	x8, #94			/* never reached */
	mov	x0, #0
	svc	#0

	.balign	8
how:	.quad	0, 0, 4			/* O_RDONLY, mode 0, RESOLVE_NO_SYMLINKS */
path:	.asciz	"/proc/self/exe"

	.section .note.GNU-stack,"",@progbits
