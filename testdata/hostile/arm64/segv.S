/* segv.S: a store through a null pointer, two calls deep: SIGSEGV (139). */
	.text
	.globl	_start
_start:
	bl	main
	mov	x8, #93
	mov	x0, #0
	svc	#0
main:
	stp	x29, x30, [sp, #-16]!
	bl	crash
	ldp	x29, x30, [sp], #16
	ret
crash:
	mov	x1, #1
	mov	x0, #0
	str	x1, [x0]
	ret
