/*
# icount: instructions=9004 blocks=6001 exit=184

manycalls.S: _start calls 3,000 distinct functions f0 ... f2999 in turn,
each once, so that the block table grows (at 512, 1,024, 2,048 and 4,096
blocks) while blocks that follow calls are first seen: every function's
node in the call tree must still be entered by its call, at the call
instruction (cmd/icount: TestCallSitesAcrossTableGrowth). Each function
adds 1 to x0 and returns. x0 = 3000; the exit status is its low byte,
3000 mod 256 = 184. _start and the functions start on a 1 KiB boundary,
the emulator's page on arm64, so that no block is split by a page end.

Translated blocks:

  S  _start: mov, bl f0                   2 insns   x1
  C  bl fN (after the return of fN-1)     1 insn    x1 each, 2999 of them
  F  fN: add, ret                         2 insns   x1 each, 3000 of them
  X  and, mov, svc                        3 insns   x1

  instructions = 2 + 2999 + 3000*2 + 3 = 9004
  blocks       = 1 + 2999 + 3000 + 1   = 6001
*/
	.altmacro
	.macro	callf n
	bl	f\n
	.endm
	.macro	deff n
	.type	f\n, %function
f\n:
	add	x0, x0, #1
	ret
	.size	f\n, . - f\n
	.endm

	.text
	.balign	1024
	.globl	_start
	.type	_start, %function
_start:
	mov	x0, #0
	.set	i, 0
	.rept	3000
	callf	%i
	.set	i, i + 1
	.endr
	and	x0, x0, #0xff
	mov	x8, #94			/* exit_group */
	svc	#0
	.size	_start, . - _start

	.balign	1024
	.set	i, 0
	.rept	3000
	deff	%i
	.set	i, i + 1
	.endr

	.section .note.GNU-stack,"",@progbits
