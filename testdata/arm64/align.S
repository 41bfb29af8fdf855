/*
# icount: instructions=4 blocks=2 exit=135

align.S: an alignment fault. Ordinary arm64 loads may be unaligned, but an
exclusive load must be aligned to its size; ldxr from an odd address raises
an alignment fault, which Linux delivers as SIGBUS (exit status 128 + 7 =
135). The emulated CPU takes it as a data abort with the PC at the ldxr,
which did not complete and is not counted. The unaligned ldr before it is
fine.

Translated blocks:

  A  _start: adr, add, bl load              3  x1
  B  load: ldr (unaligned), ldxr, ret       3 in the block, 1 completed

  instructions = 3 + 1 = 4
  blocks       = 2
*/
	.text
	.globl	_start
_start:
	adr	x1, data
	add	x1, x1, #1		/* misaligned by one byte */
	bl	load
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.type	load, %function
load:
	ldr	x2, [x1]		/* unaligned: allowed */
	ldxr	x3, [x1]		/* exclusive, unaligned: alignment fault */
	ret
	.size	load, . - load

	.data
	.balign	16
data:	.quad	1, 2

	.section .note.GNU-stack,"",@progbits
