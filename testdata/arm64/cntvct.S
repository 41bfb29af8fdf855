/*
# icount: instructions=28 blocks=6 exit=7

cntvct.S: reads of the generic timer in the middle of translated blocks. A
loop reads CNTVCT_EL0 three times; then CNTFRQ_EL0 and CNTVCTSS_EL0 are
read. The five values (8 bytes each, little-endian) are written to stdout,
40 bytes. The exit status is 7.

icount serves mrs of the timer registers from a UC_HOOK_INSN hook on mrs,
which writes Xt and skips the instruction: the block goes on, nothing is
split. CNTFRQ_EL0 reads the nominal frequency (1 GHz) and is not a clock
read. The cortex-a72 has no CNTVCTSS_EL0 (FEAT_ECV): its mrs ends the
block it is in, and the hook moves the PC past it, so the rest runs as a
new block. Under --fixed-clock read k gives CNTVCT = ns(k) at 1 GHz.

Translated blocks as they run:

  A  _start: adrp, add, mov, mrs CNTVCT, str, subs, b.ne   7  x1
  L  1: mrs CNTVCT, str, subs, b.ne      (taken twice)    4  x2
  X  mrs CNTFRQ, str, mrs CNTVCTSS       (ends there)     3  x1
  Y  str, mov, mov, adrp, add, mov, svc(write)            7  x1
  E  mov, mov, svc(exit_group)                            3  x1

  instructions = 7 + 8 + 3 + 7 + 3 = 28
  blocks       = 1 + 2 + 1 + 1 + 1 = 6

With `--clock-table` of 1000, 2500, 2600 (ns) stdout holds 1000, 2500, 2600
(CNTVCT), 1000000000 (CNTFRQ) and 2700 (CNTVCTSS: the table ran out and
went on by its last step) (cmd/icount/clock_test.go).
*/
	.text
	.globl	_start
_start:
	adrp	x9, buf
	add	x9, x9, :lo12:buf
	mov	x10, #3
1:	mrs	x0, cntvct_el0
	str	x0, [x9], #8
	subs	x10, x10, #1
	b.ne	1b
	mrs	x1, cntfrq_el0
	str	x1, [x9], #8
	mrs	x2, s3_3_c14_c0_6	/* CNTVCTSS_EL0 */
	str	x2, [x9], #8
	mov	x8, #64			/* write */
	mov	x0, #1			/* stdout */
	adrp	x1, buf
	add	x1, x1, :lo12:buf
	mov	x2, #40
	svc	#0
	mov	x0, #7
	mov	x8, #94			/* exit_group */
	svc	#0

	.bss
	.align	3
buf:	.skip	64

	.section .note.GNU-stack,"",@progbits
