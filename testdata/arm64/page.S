/*
# icount: instructions=303 blocks=3 exit=43

page.S: where the emulator ends a block in straight-line code. Unicorn
2.1.1 runs arm64 with QEMU's ARM page size of 1 KiB (TARGET_PAGE_BITS 10),
and a translated block never crosses a page: a 1 KiB page holds 256
instructions, so no arm64 block is longer than that. (Blocks of
instructions that expand to many TCG ops end sooner, when the op buffer
fills: 11 ld4s, or 175 fmlas, make a block. That is Unicorn's to decide,
and deterministic.)

_start lies 4 instructions before a 1 KiB boundary; 295 adds and the exit
follow in straight-line code:

Translated blocks:

  P1 _start: mov, add x3 (up to the boundary)           4  x1
  P2 add x256 (the whole next 1 KiB page)             256  x1
  P3 add x40, and, mov, svc                            43  x1

  instructions = 4 + 256 + 43 = 303
  blocks       = 3
  x0 = 3 + 256 + 40 = 299 adds of 1; exit status = 299 & 0xff = 43
*/
	.text
	.balign	1024
	.skip	1008			/* 252 instructions' worth of zeros */
	.globl	_start
_start:
	mov	x0, #0
	.rept	3 + 256 + 40
	add	x0, x0, #1
	.endr
	and	x0, x0, #0xff
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .note.GNU-stack,"",@progbits
