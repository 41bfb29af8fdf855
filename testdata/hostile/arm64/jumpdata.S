/* jumpdata.S: a call into writable data, which is not executable:
   SIGSEGV (139). */
	.text
	.globl	_start
_start:
	bl	main
	mov	x8, #93
	mov	x0, #0
	svc	#0
main:
	stp	x29, x30, [sp, #-16]!
	adrp	x0, payload
	add	x0, x0, :lo12:payload
	blr	x0
	ldp	x29, x30, [sp], #16
	ret
	.data
	.balign	4
payload:
	.inst	0xd503201f		/* nop: never runs */
	.inst	0xd65f03c0		/* ret */
