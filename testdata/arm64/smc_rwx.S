/*
# icount: instructions=1618 blocks=526 exit=79

smc_rwx: code the program writes, runs and rewrites in place in memory
that is writable and executable at once, as a JIT does; every call must
run the code as last written (as qemu-aarch64 runs it).

  1. mmap three pages read-write-exec; write `movz w0, #imm; ret` at page
     0 and call it 100 times, storing the loop counter as its immediate
     before each call, with the cache maintenance __builtin___clear_cache
     does (0 + 1 + ... + 99 = 4950);
  2. copy a routine into page 1 that stores `movz w0, #arg` into its own
     code, past the cache maintenance and isb the architecture asks for
     before new code runs (without them a CPU may run either, and
     qemu-aarch64 runs the old code to the end of its block), and returns
     it: called with 5 and 37;
  3. a system call writes code into page 0: read() from a pipe of
     `movz w0, #200; ret`, then call it (200);
  4. page 2 holds `movz w0, #3; ret`, made read-exec and called (3), then
     made read-write-exec again (the execute permission does not change),
     stored as `movz w0, #4` and called (4).
It exits with the sum: 4950 + 5 + 37 + 200 + 3 + 4 = 5199, status
5199 & 255 = 79.

A block first seen in a writable page marks it as holding code; a store
into it then stops the block at the store (its instructions from the
store on are taken back), the page's code is discarded, and the store and
what follows run as new blocks. A store into the block's own page runs by
itself, as a block of one instruction.

Blocks (a block ends at an svc, a branch or an isb):
  A  _start to the mmap svc: mov x7, svc                                8
  B  mov, mov, mov, movz, movz, movk, str, then the loop's lsl, orr,
     str, dc, dsb, ic, dsb, isb                                         15
  L2 blr                                                                 1
  R  page 0: movz, ret                                                   2
  T  add, add, cmp, b.ne                                                 4
  Calls 2 to 100, each: L1 (lsl, orr, str, dc, dsb, ic, dsb, isb) cut
     at its str (2 run), L1 again from the str (6), L2 (1), R translated
     anew (2), T (4): 15 in 5 blocks.
  Part 1: 8+15+1+2+4 + 99*15 = 1515 instructions, 5 + 99*5 = 500 blocks.
  C  adr, add, ldp, stp, ldp, stp, ldp, stp, dc, dsb, ic, dsb, isb     13
  C2 mov, blr                                                            2
  S  page 1: lsl, movz, orr, adr, str, dc, dsb, ic, dsb, isb cut at the
     str (4 run), the str alone (1), dc, dsb, ic, dsb, isb (5), movz,
     ret as written (2): 12 in 4 blocks
  D  add, mov, blr                                                       3
  S  again: 12 in 4 blocks
  Part 2: 13+2+12+3+12 = 42 instructions, 11 blocks.
  E  add, sub, mov, mov, mov, svc (pipe2)                                6
  F  ldr, adr, mov, mov, svc (write)                                     5
  G  ldr, mov, mov, mov, svc (read into page 0)                          5
  H  blr                                                                 1
  R  as read: movz, ret                                                  2
  Part 3: 19 instructions, 5 blocks.
  I  add, add, movz, movk, str, movz, movk, str, dc, dsb, ic, dsb, isb  13
  I2 mov, mov, mov, mov, svc (mprotect)                                  5
  J  blr                                                                 1
  P  page 2: movz, ret                                                   2
  K  add, mov, mov, mov, mov, svc (mprotect)                             6
  M  movz, movk, str, dc, dsb, ic, dsb, isb cut at the str (2 run), and
     again from the str (6)                                              8
  N  blr                                                                 1
  P  as stored: movz, ret                                                2
  O  add, mov, mov, svc (exit_group)                                     4
  Part 4: 13+5+1+2+6+8+1+2+4 = 42 instructions, 10 blocks.
1515+42+19+42 = 1618 instructions, 500+11+5+10 = 526 blocks.
*/
	.text
	.globl	_start
_start:
	mov	x0, #0			/* mmap(0, 3 pages, R|W|X, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
	mov	x1, #12288
	mov	x2, #7
	mov	x3, #0x22
	mov	x4, #-1
	mov	x5, #0
	mov	x8, #222
	svc	#0
	mov	x21, x0			/* the pages */
	mov	w22, #0			/* the sum */
	mov	w19, #0			/* the loop counter */
	movz	w20, #0x5280, lsl #16	/* movz w0, #0 */
	movz	w9, #0x03c0		/* ret */
	movk	w9, #0xd65f, lsl #16
	str	w9, [x21, #4]
loop:
	lsl	w10, w19, #5		/* movz w0, #counter */
	orr	w10, w10, w20
	str	w10, [x21]
	dc	cvau, x21		/* as __builtin___clear_cache does */
	dsb	ish
	ic	ivau, x21
	dsb	ish
	isb
	blr	x21
	add	w22, w22, w0
	add	w19, w19, #1
	cmp	w19, #100
	b.ne	loop

	adr	x9, selfmod		/* copy selfmod to page 1 */
	add	x23, x21, #4096
	ldp	x10, x11, [x9]
	stp	x10, x11, [x23]
	ldp	x10, x11, [x9, #16]
	stp	x10, x11, [x23, #16]
	ldp	x10, x11, [x9, #32]
	stp	x10, x11, [x23, #32]
	dc	cvau, x23
	dsb	ish
	ic	ivau, x23
	dsb	ish
	isb
	mov	w0, #5
	blr	x23
	add	w22, w22, w0
	mov	w0, #37
	blr	x23
	add	w22, w22, w0

	sub	sp, sp, #16		/* pipe2(fds, 0) */
	mov	x0, sp
	mov	x1, #0
	mov	x8, #59
	svc	#0
	ldr	w0, [sp, #4]		/* write(fds[1], code200, 8) */
	adr	x1, code200
	mov	x2, #8
	mov	x8, #64
	svc	#0
	ldr	w0, [sp]		/* read(fds[0], page 0, 8) */
	mov	x1, x21
	mov	x2, #8
	mov	x8, #63
	svc	#0
	blr	x21
	add	w22, w22, w0

	add	x24, x21, #8192		/* page 2: movz w0, #3; ret */
	movz	w9, #0x0060
	movk	w9, #0x5280, lsl #16
	str	w9, [x24]
	movz	w9, #0x03c0
	movk	w9, #0xd65f, lsl #16
	str	w9, [x24, #4]
	dc	cvau, x24
	dsb	ish
	ic	ivau, x24
	dsb	ish
	isb
	mov	x0, x24			/* mprotect(page 2, 4096, R|X) */
	mov	x1, #4096
	mov	x2, #5
	mov	x8, #226
	svc	#0
	blr	x24
	add	w22, w22, w0
	mov	x0, x24			/* mprotect(page 2, 4096, R|W|X) */
	mov	x1, #4096
	mov	x2, #7
	mov	x8, #226
	svc	#0
	movz	w9, #0x0080		/* movz w0, #4 */
	movk	w9, #0x5280, lsl #16
	str	w9, [x24]
	dc	cvau, x24
	dsb	ish
	ic	ivau, x24
	dsb	ish
	isb
	blr	x24
	add	w22, w22, w0

	mov	w0, w22			/* exit_group(sum) */
	mov	x8, #94
	svc	#0

/* Copied to page 1 and run there: stores `movz w0, #w0` into its own
   code, a few instructions on, and returns it. */
	.p2align 3
selfmod:
	lsl	w9, w0, #5
	movz	w10, #0x5280, lsl #16
	orr	w9, w9, w10
	adr	x11, patch
	str	w9, [x11]
	dc	cvau, x11
	dsb	ish
	ic	ivau, x11
	dsb	ish
	isb
patch:
	movz	w0, #0
	ret

	.data
	.p2align 2
code200:
	.word	0x52801900		/* movz w0, #200 */
	.word	0xd65f03c0		/* ret */

	.section .note.GNU-stack,"",@progbits
