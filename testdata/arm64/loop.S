/*
# icount: instructions=3005 blocks=1001 exit=20

loop.S: a counted loop of 1000 iterations of three instructions ending in a
conditional branch. x0 = 1000 + 999 + ... + 1 = 500500; the exit status is
its low byte, 500500 mod 256 = 20.

Translated blocks (a block ends at a branch or an svc; a label does not end
a block, so the first iteration runs inside the entry block):

  S  _start: mov, mov, add, subs, b.ne    5 insns   x1   (iteration 1)
  L  1:      add, subs, b.ne              3 insns   x999 (iterations 2..1000)
  X  and, mov, svc                        3 insns   x1

  instructions = 5 + 999*3 + 3 = 3005      (= 2 + 1000*3 + 3)
  blocks       = 1 + 999 + 1   = 1001
*/
	.text
	.globl	_start
_start:
	mov	x0, #0
	mov	x1, #1000
1:	add	x0, x0, x1
	subs	x1, x1, #1
	b.ne	1b
	and	x0, x0, #0xff
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .note.GNU-stack,"",@progbits
