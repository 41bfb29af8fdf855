/* writetext.S: a store into the program's own code: SIGSEGV (139). */
	.text
	.globl	_start
_start:
	adr	x0, _start
	ldr	w1, =0xd503201f
	str	w1, [x0]
	mov	x8, #93
	mov	x0, #0
	svc	#0
