/*
# icount: instructions=12 blocks=4 exit=139

fault.S: a block cut short by a fault. After a three-iteration loop, a
straight-line block walks x1 up to the end of buf, the last page of .bss,
with pre-indexed loads; the second load reads the first byte past it,
which is not mapped (the program never calls brk), and faults (SIGSEGV,
exit status 128 + 11 = 139). The load does not complete and is not
counted; neither is anything after it.

Unicorn leaves the PC at the start of the block and x1 as the first load's
writeback left it, buf + 4088: from that x1 both loads compute the faulting
address buf + 4096, and icount must tell that the second one faulted (the
first, undone, read buf + 4088, which is mapped and holds the 0 in x2).

Translated blocks:

  S  _start: mov #3, subs, b.ne                          3  x1
  L  1: subs, b.ne                                       2  x2
  F  adrp, add, add, mov, ldr [x1,#8]!, [ldr [x1,#8]! faults], add, mov, svc
                                                         9 in the block, 5 completed

  instructions = 3 + 2*2 + 5 = 12
  blocks       = 1 + 2 + 1   = 4   (the cut block F was entered once and is
                                    counted as one block execution)
*/
	.text
	.globl	_start
_start:
	mov	x1, #3
1:	subs	x1, x1, #1
	b.ne	1b
	adrp	x1, buf
	add	x1, x1, :lo12:buf
	add	x1, x1, #4080		/* buf + 4096 - 16 */
	mov	x2, #7
	ldr	x2, [x1, #8]!		/* buf + 4088: the last word of the page */
	ldr	x3, [x1, #8]!		/* buf + 4096: not mapped, faults */
	add	x0, x2, x3
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.bss
	.balign	4096
buf:	.skip	4096

	.section .note.GNU-stack,"",@progbits
