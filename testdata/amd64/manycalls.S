/*
# icount: instructions=9005 blocks=6001 exit=184
# callgrind: irefs=9001

manycalls.S: _start calls 3,000 distinct functions f0 ... f2999 in turn,
each once, so that the block table grows (at 512, 1,024, 2,048 and 4,096
blocks) while blocks that follow calls are first seen: every function's
node in the call tree must still be entered by its call, at the call
instruction (cmd/icount: TestCallSitesAcrossTableGrowth). Each function
adds 1 to eax and returns. eax = 3000; the exit status is its low byte,
3000 mod 256 = 184.

Translated blocks:

  S  _start: xor, call f0                 2 insns   x1
  C  call fN (after the return of fN-1)   1 insn    x1 each, 2999 of them
  F  fN: add, ret                         2 insns   x1 each, 3000 of them
  X  mov, and, mov, syscall               4 insns   x1

  instructions = 2 + 2999 + 3000*2 + 4 = 9005
  blocks       = 1 + 2999 + 3000 + 1   = 6001

Cross-check: callgrind does not count the last block, whose exit_group
never returns, so its I refs = 9005 - 4 = 9001.
*/
	.altmacro
	.macro	callf n
	call	f\n
	.endm
	.macro	deff n
	.type	f\n, @function
f\n:
	add	$1, %eax
	ret
	.size	f\n, . - f\n
	.endm

	.text
	.globl	_start
	.type	_start, @function
_start:
	xor	%eax, %eax
	.set	i, 0
	.rept	3000
	callf	%i
	.set	i, i + 1
	.endr
	mov	%eax, %edi
	and	$0xff, %edi
	mov	$231, %eax		/* exit_group */
	syscall
	.size	_start, . - _start

	.set	i, 0
	.rept	3000
	deff	%i
	.set	i, i + 1
	.endr

	.section .note.GNU-stack,"",@progbits
