/*
# icount: instructions=3 blocks=2 exit=132

lse.S: an instruction the emulated CPU lacks. The cortex-a72 is ARMv8.0: it
has no LSE atomics (ARMv8.1), and AT_HWCAP does not advertise them, but
this program uses ldaddal regardless. The CPU raises an undefined-
instruction exception, and the run ends as Linux ends it, with SIGILL
(exit status 128 + 4 = 132), and one message naming ldaddal, its address
and the function add_atomic.

Translated blocks (an instruction that raises an exception ends its block):

  A  _start: adr, mov, bl add_atomic        3  x1
  B  add_atomic: ldaddal                    1 in the block, 0 completed

  instructions = 3 + 0 = 3
  blocks       = 2
*/
	.text
	.globl	_start
_start:
	adr	x1, counter
	mov	x2, #1
	bl	add_atomic
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.type	add_atomic, %function
add_atomic:
	.arch	armv8.1-a
	ldaddal	x2, x3, [x1]
	ret
	.size	add_atomic, . - add_atomic

	.data
	.balign	8
counter: .quad	0

	.section .note.GNU-stack,"",@progbits
