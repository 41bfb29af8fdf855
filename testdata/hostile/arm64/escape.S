/* escape.S: f calls itself, and the inner call leaves by an indirect branch
   back into f with the stack pointer f had when the outer call entered it
   (before its prologue), as a longjmp within one function does: the inner
   call's frame, entered below it, is gone. The store through a null
   pointer after the branch faults (SIGSEGV, 139) in f called from _start,
   one frame of f and not two, after 12 instructions: _start 2, the outer f
   5, the inner f 1 and its escape 3, the mov 1. */
	.text
	.globl	_start
_start:
	mov	x0, #1
	bl	f
	mov	x8, #93
	mov	x0, #0
	svc	#0
f:
	cbz	x0, .Linner
	mov	x19, sp			/* the outer call's stack pointer at entry */
	stp	x29, x30, [sp, #-16]!
	mov	x0, #0
	bl	f
	ldp	x29, x30, [sp], #16
	ret
.Linner:
	mov	sp, x19			/* above the inner call's: its frame is left */
	adr	x1, .Lback
	br	x1
.Lback:
	mov	x0, #0
	str	x1, [x0]
	ret
