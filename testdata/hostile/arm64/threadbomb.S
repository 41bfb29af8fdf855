/* threadbomb.S: clone(CLONE_VM|CLONE_THREAD|...) in a loop, every thread
   cloning on: past 4096 threads clone fails with EAGAIN, and they loop
   forever until --max-instructions or --timeout ends the run. */
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
