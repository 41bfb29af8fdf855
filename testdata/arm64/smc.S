/*
# icount: instructions=2 blocks=1 exit=132

smc.S: a secure monitor call, which Linux refuses at EL0 as an undefined
instruction (SIGILL, exit status 128 + 4 = 132). The emulated CPU runs the
guest at EL1 with EL3 present, and takes smc as its own exception with the
PC already past it, as it takes svc: icount must step back to the smc,
which did not complete and is not counted.

Translated blocks (an exception-raising instruction ends its block):

  A  _start: mov, mov, smc                  3 in the block, 2 completed

  instructions = 2
  blocks       = 1
*/
	.text
	.globl	_start
_start:
	mov	x0, #1
	mov	x1, #2
	smc	#0
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.section .note.GNU-stack,"",@progbits
