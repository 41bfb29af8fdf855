/*
# icount: instructions=75 blocks=35 exit=33

calls.S: nested bl/ret. _start calls f1 twice (_start -> f1 -> f2 -> f3,
call depth 3; f2 calls f3 twice; f1 and f2 save the link register on the
stack), then the recursive rec(5) (call depth 6 below _start, each level
saving its argument and link register with stp/ldp). x19 = 2*(1 + 3 + 3 + 2)
= 18, rec(5) = 15, exit status = 18 + 15 = 33.

Translated blocks (every bl, ret and cbz ends a block; the instruction after
a bl starts a new block when the callee returns to it):

  A   _start: mov, bl f1                  2   x1
  B   bl f1                               1   x1
  C   mov #5, bl rec                      2   x1
  D   add, mov, svc                       3   x1
  F1a f1: stp, add, bl f2                 3   x2
  F1b add, ldp, ret                       3   x2
  F2a f2: stp, bl f3                      2   x2
  F2b bl f3                               1   x2
  F2c ldp, ret                            2   x2
  F3  f3: add, ret                        2   x4
  R1  rec: cbz                            1   x6   (n = 5..0)
  R2  stp, sub, bl rec                    3   x5   (n = 5..1)
  R3  ldp, add, ret                       3   x5
  R4  1: ret                              1   x1   (n = 0)

  one call of f1 = F1a+F2a+F3+F2b+F3+F2c+F1b = 3+2+2+1+2+2+3 = 15 insns, 7 blocks
  rec(n) = 7n + 2 insns, 3n + 2 blocks; rec(5) = 37 insns, 17 blocks

  instructions = A 2 + 15 + B 1 + 15 + C 2 + 37 + D 3 = 75
  blocks       = 1 + 7 + 1 + 7 + 1 + 17 + 1             = 35
*/
	.text
	.globl	_start
_start:
	mov	x19, #0
	bl	f1
	bl	f1
	mov	x0, #5
	bl	rec
	add	x0, x0, x19
	mov	x8, #94			/* exit_group */
	svc	#0

f1:	stp	x29, x30, [sp, #-16]!
	add	x19, x19, #1
	bl	f2
	add	x19, x19, #2
	ldp	x29, x30, [sp], #16
	ret

f2:	stp	x29, x30, [sp, #-16]!
	bl	f3
	bl	f3
	ldp	x29, x30, [sp], #16
	ret

f3:	add	x19, x19, #3
	ret

/* rec(n) = n + rec(n-1), rec(0) = 0; argument and result in x0 */
rec:	cbz	x0, 1f
	stp	x0, x30, [sp, #-16]!
	sub	x0, x0, #1
	bl	rec
	ldp	x1, x30, [sp], #16
	add	x0, x0, x1
	ret
1:	ret

	.section .note.GNU-stack,"",@progbits
