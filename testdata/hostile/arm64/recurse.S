/* recurse.S: unbounded recursion until the 8 MiB stack runs out:
   SIGSEGV (139). */
	.text
	.globl	_start
_start:
	bl	recurse
	mov	x8, #93
	mov	x0, #0
	svc	#0
recurse:
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	recurse
	ldp	x29, x30, [sp], #16
	ret
