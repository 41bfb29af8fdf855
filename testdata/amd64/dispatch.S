/*
# icount: instructions=146 blocks=43 exit=0
# function: _start self=10 inclusive=146 calls=1
# function: run self=112 inclusive=136 calls=2
# function: fa self=8 inclusive=8 calls=4
# function: fb self=12 inclusive=12 calls=4
# function: fend self=4 inclusive=4 calls=2

dispatch.S: an interpreter's moves, whose costs can be worked out by hand.
_start calls run twice. run interprets the program prog: each of its
opcodes is reached through an indirect jump within run (a computed goto,
as CPython's loop and gcc's switch tables do). Opcode 0 calls the function
of table funcs its operand names, all of them through one indirect call
site; opcode 1 calls fb directly; opcode 2 leaves run by an indirect jump
into fend (a tail call), whose ret returns to run's caller. prog is:
call fa, call fb, call fb directly, call fa, tail call fend.

The tables hold offsets from their own start, so that the static-PIE
build needs no relocation.

Self costs, one run:
  entry       lea prog                                            =  1
  dispatch    (movzbl, inc, lea, movslq, add, jmp) x 5            = 30
  opcode 0    (movzbl, inc, lea, movslq, add, call; jmp) x 3      = 21
  opcode 1    call fb; jmp                                        =  2
  opcode 2    lea, jmp                                            =  2
  run                                                             = 56
  fa (nop, ret) x 2 = 4; fb (nop, nop, ret) x 2 = 6; fend (nop, ret) = 2
Two runs: run 112, fa 8, fb 12, fend 4; run inclusive 112 + 24 = 136.
_start: mov + (call, dec, jnz) x 2 + mov, xor, syscall = 1 + 6 + 3 = 10.
Total 146. Calls: run 2, fa 4, fb 4 (from two sites, one node), fend 2
(entered by a jump from run, left by the ret that returns from run).

Translated blocks:
  _start: [mov, call run] x1, [dec, jnz] x2, [call run] x1,
          [mov, xor, syscall] x1                                  =  5
  run, each: [lea prog, dispatch] x1, [dispatch] x4,
          [opcode 0 to its call] x3, [jmp] x3, [call fb] x1, [jmp] x1,
          [lea, jmp] x1                                           = 14
  fa x2, fb x2, fend x1, each one block                           =  5
  total 5 + 2 x (14 + 5)                                          = 43
*/
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	$2, %r12d
1:	call	run
	dec	%r12d
	jnz	1b
	mov	$231, %eax		/* exit_group(0) */
	xor	%edi, %edi
	syscall
	.size	_start, .-_start

/* entry reads the program's next byte and sets %rax to the address the
   offset table at table gives for it: movzbl, inc, lea, movslq, add. */
	.macro	entry table
	movzbl	(%rsi), %eax
	inc	%rsi
	lea	\table(%rip), %rdx
	movslq	(%rdx,%rax,4), %rax
	add	%rdx, %rax
	.endm

	.type	run, @function
run:
	lea	.Lprog(%rip), %rsi
.Lnext:
	entry	.Lops
	jmp	*%rax
.Lcall:
	entry	.Lfuncs
	call	*%rax
	jmp	.Lnext
.Ldirect:
	call	fb
	jmp	.Lnext
.Ltail:
	lea	fend(%rip), %rax
	jmp	*%rax
	.size	run, .-run

	.type	fa, @function
fa:	nop
	ret
	.size	fa, .-fa

	.type	fb, @function
fb:	nop
	nop
	ret
	.size	fb, .-fb

	.type	fend, @function
fend:	nop
	ret
	.size	fend, .-fend

	.section .rodata
.Lops:	.long	.Lcall - .Lops, .Ldirect - .Lops, .Ltail - .Lops
.Lfuncs: .long	fa - .Lfuncs, fb - .Lfuncs
.Lprog:	.byte	0, 0, 0, 1, 1, 0, 0, 2

	.section .note.GNU-stack,"",@progbits
