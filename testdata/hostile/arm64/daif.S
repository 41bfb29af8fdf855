/* daif.S: wfi returns at once at EL0; msr daifset, which EL0 may not
   execute, is undefined there: SIGILL (132) after 3 instructions, the
   instruction named. */
	.text
	.globl	_start
_start:
	mov	x0, #3
	wfi
	add	x0, x0, #1
	msr	daifset, #2
	mov	x8, #93
	svc	#0
