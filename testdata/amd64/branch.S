/*
# icount: instructions=557 blocks=251 exit=40
# callgrind: irefs=553

branch.S: a loop whose conditional branch is taken both ways. For ecx = 100
down to 1: if ecx is even, eax += ecx (the jz is taken), else edx += 1 (the
jz falls through). eax = 2 + 4 + ... + 100 = 2550, edx = 50; exit status is
the low byte of 2600, which is 40.

Translated blocks (labels 2 and 3 do not end blocks, so the even path runs
on through the dec/jnz of label 3 in one block):

  S  _start: xor, xor, mov, test, jz    5  x1    (ecx=100, even, jz taken)
  L  1: test, jz                        2  x99   (ecx = 99..1)
  O  add $1 edx, jmp 3f                 2  x50   (odd: jz not taken)
  E  2: add ecx eax, dec, jnz           3  x50   (even: jz taken)
  T  3: dec, jnz                        2  x50   (after the odd path)
  X  add, movzbl, mov, syscall          4  x1

  instructions = 5 + 99*2 + 50*2 + 50*3 + 50*2 + 4 = 557
                 (= 3 setup + 50 even * 5 + 50 odd * 6 + 4)
  blocks       = 1 + 99 + 50 + 50 + 50 + 1 = 251

Cross-check: callgrind leaves out the last block X (exit_group never
returns): 557 - 4 = 553 (measured: 553).
*/
	.text
	.globl	_start
_start:
	xor	%eax, %eax
	xor	%edx, %edx
	mov	$100, %ecx
1:	test	$1, %cl
	jz	2f
	add	$1, %edx
	jmp	3f
2:	add	%ecx, %eax
3:	dec	%ecx
	jnz	1b
	add	%edx, %eax
	movzbl	%al, %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.section .note.GNU-stack,"",@progbits
