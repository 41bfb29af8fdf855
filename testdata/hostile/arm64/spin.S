/* spin.S: a loop that never ends and makes no system call. */
	.text
	.globl	_start
_start:
	bl	main
main:
	bl	spin
spin:
1:	add	x0, x0, #1
	b	1b
