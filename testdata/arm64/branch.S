/*
# icount: instructions=457 blocks=251 exit=40

branch.S: a loop whose conditional branch is taken both ways. For x1 = 100
down to 1: if x1 is even, x0 += x1 (the tbz is taken), else x2 += 1 (the tbz
falls through). x0 = 2 + 4 + ... + 100 = 2550, x2 = 50; the exit status is
the low byte of 2600, which is 40.

Translated blocks (labels 2 and 3 do not end blocks, so the even path runs
on through the subs/b.ne of label 3 in one block):

  S  _start: mov, mov, mov, tbz         4  x1    (x1 = 100, even: tbz taken)
  L  1: tbz                             1  x99   (x1 = 99..1)
  O  add #1 x2, b 3f                    2  x50   (odd: tbz not taken)
  E  2: add x1 x0, subs, b.ne           3  x50   (even: tbz taken)
  T  3: subs, b.ne                      2  x50   (after the odd path)
  X  add, and, mov, svc                 4  x1

  instructions = 4 + 99*1 + 50*2 + 50*3 + 50*2 + 4 = 457
                 (= 3 setup + 50 even * 4 + 50 odd * 5 + 4)
  blocks       = 1 + 99 + 50 + 50 + 50 + 1 = 251
*/
	.text
	.globl	_start
_start:
	mov	x0, #0
	mov	x2, #0
	mov	x1, #100
1:	tbz	x1, #0, 2f
	add	x2, x2, #1
	b	3f
2:	add	x0, x0, x1
3:	subs	x1, x1, #1
	b.ne	1b
	add	x0, x0, x2
	and	x0, x0, #0xff
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .note.GNU-stack,"",@progbits
