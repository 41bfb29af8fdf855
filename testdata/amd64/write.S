/*
# icount: instructions=10 blocks=2 exit=42
# callgrind: irefs=5

write.S: a write syscall in the middle of straight-line code. Writes
"hello, icount\n" (14 bytes) to stdout, then computes its exit status from
write's return value: 14 + 20 + 8 = 42.

Translated blocks (a syscall ends its block; execution resumes in a new block
at the next instruction):

  W1 _start: mov, mov, lea, mov, syscall(write)          5  x1
  W2 mov, add, add, mov, syscall(exit_group)             5  x1

  instructions = 5 + 5 = 10
  blocks       = 2

Cross-check: callgrind leaves out the last block W2 (exit_group never
returns): 10 - 5 = 5 (measured: 5).
Expected stdout: "hello, icount\n".
*/
	.text
	.globl	_start
_start:
	mov	$1, %eax		/* write */
	mov	$1, %edi		/* stdout */
	lea	msg(%rip), %rsi
	mov	$msglen, %edx
	syscall
	mov	%eax, %edi		/* 14 bytes written */
	add	$20, %edi
	add	$8, %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.section .rodata
msg:	.ascii	"hello, icount\n"
	.set	msglen, . - msg

	.section .note.GNU-stack,"",@progbits
