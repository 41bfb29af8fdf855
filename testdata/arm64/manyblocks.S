/*
# icount: instructions=40005 blocks=20002 exit=32

manyblocks.S: 20,000 distinct translated blocks, each run once: the cost
of a block icount sees for the first time (count.BenchmarkNewBlock). Each
block adds 1 to x0 and branches to the next instruction, which ends it.
The blocks start on a 1 KiB boundary, the emulator's page on arm64, so
that none of them (8 bytes each) is split by a page end. x0 = 20000; the
exit status is its low byte, 20000 mod 256 = 32.

Translated blocks:

  S  _start: mov, b                       2 insns   x1
  B  add, b                               2 insns   x1 each, 20000 of them
  X  and, mov, svc                        3 insns   x1

  instructions = 2 + 20000*2 + 3 = 40005
  blocks       = 1 + 20000 + 1   = 20002
*/
	.text
	.globl	_start
_start:
	mov	x0, #0
	b	2f
	.balign	1024
2:
	.rept	20000
	add	x0, x0, #1
	b	1f
1:
	.endr
	and	x0, x0, #0xff
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .note.GNU-stack,"",@progbits
