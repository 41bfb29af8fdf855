/*
# icount: instructions=9 blocks=2 exit=42

write.S: an svc (write) in the middle of straight-line code. Writes
"hello, icount\n" (14 bytes) to stdout, then computes its exit status from
write's return value: 14 + 20 + 8 = 42.

Translated blocks (svc ends its block; execution resumes in a new block at
the next instruction):

  W1 _start: mov, mov, adr, mov, svc(write)             5  x1
  W2 add, add, mov, svc(exit_group)                     4  x1

  instructions = 5 + 4 = 9
  blocks       = 2
Expected stdout: "hello, icount\n".
*/
	.text
	.globl	_start
_start:
	mov	x8, #64			/* write */
	mov	x0, #1			/* stdout */
	adr	x1, msg
	mov	x2, #msglen
	svc	#0
	add	x0, x0, #20		/* 14 bytes written */
	add	x0, x0, #8
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .rodata
msg:	.ascii	"hello, icount\n"
	.set	msglen, . - msg

	.section .note.GNU-stack,"",@progbits
