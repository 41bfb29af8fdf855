/*
# icount: instructions=40006 blocks=20002 exit=32
# callgrind: irefs=40002

manyblocks.S: 20,000 distinct translated blocks, each run once: the cost
of a block icount sees for the first time (count.BenchmarkNewBlock). Each
block adds 1 to eax and jumps to the next instruction, which ends it. eax
= 20000; the exit status is its low byte, 20000 mod 256 = 32.

Translated blocks:

  S  _start: xor, jmp                     2 insns   x1
  B  add, jmp                             2 insns   x1 each, 20000 of them
  X  mov, and, mov, syscall               4 insns   x1

  instructions = 2 + 20000*2 + 4 = 40006
  blocks       = 1 + 20000 + 1   = 20002

Cross-check: callgrind does not count the last block, whose exit_group
never returns, so its I refs = 40006 - 4 = 40002.
*/
	.text
	.globl	_start
_start:
	xor	%eax, %eax
	jmp	2f
2:
	.rept	20000
	add	$1, %eax
	jmp	1f
1:
	.endr
	mov	%eax, %edi
	and	$0xff, %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.section .note.GNU-stack,"",@progbits
