/* undefined.S: a permanently undefined instruction (udf): SIGILL (132). */
	.text
	.globl	_start
_start:
	udf	#0
	mov	x8, #93
	mov	x0, #0
	svc	#0
