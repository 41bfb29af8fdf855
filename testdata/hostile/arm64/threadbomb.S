/* threadbomb.S: clone(CLONE_VM|CLONE_THREAD|...) in a loop: icount does
   not emulate threads yet, so the first clone stops the run (exit 125). */
	.text
	.globl	_start
_start:
1:	mov	x8, #220		/* clone */
	ldr	x0, =0x50f00
	sub	x1, sp, #4096
	mov	x2, #0
	mov	x3, #0
	mov	x4, #0
	svc	#0
	b	1b
