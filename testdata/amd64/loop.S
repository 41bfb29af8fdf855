/*
# icount: instructions=3006 blocks=1001 exit=20
# callgrind: irefs=3002

loop.S: a counted loop of 1000 iterations of three instructions ending in a
conditional branch. eax = 1000 + 999 + ... + 1 = 500500; exit status is its
low byte, 500500 mod 256 = 20.

Translated blocks (a block ends at a branch or a syscall; a label does not
end a block, so the first iteration runs inside the entry block):

  S  _start: xor, mov, add, dec, jnz      5 insns   x1   (iteration 1)
  L  1:      add, dec, jnz                3 insns   x999 (iterations 2..1000)
  X  after:  mov, and, mov, syscall       4 insns   x1

  instructions = 5 + 999*3 + 4 = 3006      (= 2 + 1000*3 + 4)
  blocks       = 1 + 999 + 1   = 1001

Cross-check: callgrind does not count the last block, whose exit_group never
returns, so its I refs = 3006 - 4 = 3002 (measured: 3002).
*/
	.text
	.globl	_start
_start:
	xor	%eax, %eax
	mov	$1000, %ecx
1:	add	%ecx, %eax
	dec	%ecx
	jnz	1b
	mov	%eax, %edi
	and	$0xff, %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.section .note.GNU-stack,"",@progbits
