/*
# icount: instructions=4009 blocks=2003 exit=1

syscalls.S: the cost of a system call (count's BenchmarkSyscall). Run as
`syscalls [N [jump]]`, it makes N getppid calls in a loop (1000 without
arguments, N >= 1); with a second argument it runs the same loop with a
branch to the next instruction where the svc was, which ends its block as
the svc does: the two loops differ by the system call alone. The exit
status is getppid's answer, 1 for the first process (0 after the branch
loop).

Translated blocks without arguments (an svc ends its block; execution
resumes in a new block at the next instruction):

  S  _start: ldr, mov, cmp, b.lo           4 insns   x1
  C  call:   mov, svc(getppid)             2 insns   x1000
  D          subs, b.ne                    2 insns   x1000
  E          mov, b                        2 insns   x1
  X  exit:   mov, mov, svc(exit_group)     3 insns   x1

  instructions = 4 + 1000*4 + 2 + 3 = 4009
  blocks       = 1 + 1000*2 + 1 + 1 = 2003
*/
	.text
	.globl	_start
_start:
	ldr	x9, [sp]		/* argc */
	mov	x19, #1000		/* the calls to make */
	cmp	x9, #2
	b.lo	call
	ldr	x1, [sp, #16]		/* argv[1]: N in decimal */
	mov	x19, #0
	mov	x3, #10
digit:	ldrb	w2, [x1], #1
	cbz	w2, parsed
	sub	x2, x2, #'0'
	madd	x19, x19, x3, x2
	b	digit
parsed:	cmp	x9, #3
	b.hs	jump
call:	mov	x8, #173		/* getppid */
	svc	#0
	subs	x19, x19, #1
	b.ne	call
	mov	x1, x0
	b	exit
jump:	mov	x8, #173
	b	1f			/* as long as svc, and a block end */
1:	subs	x19, x19, #1
	b.ne	jump
	mov	x1, #0
exit:	mov	x0, x1
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .note.GNU-stack,"",@progbits
