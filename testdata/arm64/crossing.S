/*
# icount: instructions=10 blocks=3 exit=139

crossing.S: straight-line code that runs into a page it may not execute.
The program takes execute permission from the page after `run` (mprotect
PROT_READ) and jumps to `run`, two instructions before that page: they
run, and the third, the page's first, faults (SIGSEGV, exit status 139).
An arm64 block never crosses the emulator's 1 KiB pages, so the block at
`run` ends at the boundary and the fault is the next block's fetch.

Translated blocks:

  S  _start: mov, adrp, add, mov, mov, svc (mprotect)      6  x1
  J  mov, b run                                            2  x1
  R  run: add, add (up to the page)                        2  x1

  instructions = 6 + 2 + 2 = 10
  blocks       = 3
*/
	.text
	.globl	_start
_start:
	mov	x8, #226		/* mprotect(tail, 4096, PROT_READ) */
	adrp	x0, tail
	add	x0, x0, :lo12:tail
	mov	x1, #4096
	mov	x2, #1
	svc	#0
	mov	x3, #0
	b	run

	.balign	4096
	.rept	1022			/* up to 8 bytes before the next page */
	nop
	.endr
run:	add	x3, x3, #1
	add	x3, x3, #1
tail:	add	x3, x3, #1		/* the next page: not executable */
	mov	x8, #94			/* exit_group, never reached */
	svc	#0
	.rept	1024			/* the rest of the page */
	nop
	.endr

	.section .note.GNU-stack,"",@progbits
