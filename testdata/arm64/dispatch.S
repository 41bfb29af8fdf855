/*
# icount: instructions=134 blocks=43 exit=0
# function: _start self=10 inclusive=134 calls=1
# function: run self=100 inclusive=124 calls=2
# function: fa self=8 inclusive=8 calls=4
# function: fb self=12 inclusive=12 calls=4
# function: fend self=4 inclusive=4 calls=2

dispatch.S: an interpreter's moves, whose costs can be worked out by hand
(testdata/amd64/dispatch.S on x86-64). _start calls run twice. run
interprets the program prog: each of its opcodes is reached through an
indirect branch within run (br, a computed goto). Opcode 0 calls the
function of table funcs its operand names, all of them through one blr;
opcode 1 calls fb directly; opcode 2 leaves run by an indirect branch into
fend (a tail call) with the link register run was entered with, so that
fend's ret returns to run's caller. prog is: call fa, call fb, call fb
directly, call fa, tail call fend. No call moves the stack pointer: every
frame is entered at the same one.

The tables hold offsets from their own start, so that the static-PIE
build needs no relocation.

Self costs, one run:
  entry       mov x20, x30; adr x21, prog                         =  2
  dispatch    (ldrb, adr, ldrsw, add, br) x 5                     = 25
  opcode 0    (ldrb, adr, ldrsw, add, blr; b) x 3                 = 18
  opcode 1    bl fb; b                                            =  2
  opcode 2    mov x30, x20; adr; br                               =  3
  run                                                             = 50
  fa (nop, ret) x 2 = 4; fb (nop, nop, ret) x 2 = 6; fend (nop, ret) = 2
Two runs: run 100, fa 8, fb 12, fend 4; run inclusive 100 + 24 = 124.
_start: mov + (bl, subs, b.ne) x 2 + mov, mov, svc = 1 + 6 + 3 = 10.
Total 134. Calls: run 2, fa 4, fb 4 (from two sites, one node), fend 2
(entered by a branch from run, left by the ret that returns from run).

Translated blocks:
  _start: [mov, bl run] x1, [subs, b.ne] x2, [bl run] x1,
          [mov, mov, svc] x1                                      =  5
  run, each: [mov, adr, dispatch] x1, [dispatch] x4,
          [opcode 0 to its blr] x3, [b] x3, [bl fb] x1, [b] x1,
          [mov, adr, br] x1                                       = 14
  fa x2, fb x2, fend x1, each one block                           =  5
  total 5 + 2 x (14 + 5)                                          = 43
*/
	.text
	.globl	_start
	.type	_start, %function
_start:
	mov	w19, #2
1:	bl	run
	subs	w19, w19, #1
	b.ne	1b
	mov	x8, #94			/* exit_group(0) */
	mov	x0, #0
	svc	#0
	.size	_start, .-_start

/* entry reads the program's next byte and sets x0 to the address the
   offset table at table gives for it: ldrb, adr, ldrsw, add. */
	.macro	entry table
	ldrb	w0, [x21], #1
	adr	x1, \table
	ldrsw	x0, [x1, x0, lsl #2]
	add	x0, x1, x0
	.endm

	.type	run, %function
run:
	mov	x20, x30
	adr	x21, .Lprog
.Lnext:
	entry	.Lops
	br	x0
.Lcall:
	entry	.Lfuncs
	blr	x0
	b	.Lnext
.Ldirect:
	bl	fb
	b	.Lnext
.Ltail:
	mov	x30, x20
	adr	x16, fend
	br	x16
	.size	run, .-run

	.type	fa, %function
fa:	nop
	ret
	.size	fa, .-fa

	.type	fb, %function
fb:	nop
	nop
	ret
	.size	fb, .-fb

	.type	fend, %function
fend:	nop
	ret
	.size	fend, .-fend

/* In .text, within adr's reach. */
	.balign	4
.Lops:	.word	.Lcall - .Lops, .Ldirect - .Lops, .Ltail - .Lops
.Lfuncs: .word	fa - .Lfuncs, fb - .Lfuncs
.Lprog:	.byte	0, 0, 0, 1, 1, 0, 0, 2

	.section .note.GNU-stack,"",@progbits
