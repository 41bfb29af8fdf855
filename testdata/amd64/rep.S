/*
# icount: instructions=167 blocks=155 exit=100
# callgrind: irefs=162

rep.S: rep movsb with rcx=100 and with rcx=0, rep stosq with rcx=50 and with
rcx=0. Exit status = dst[99] (99, copied from src) + low byte of the last
qword stored (1) = 100.

How a rep string instruction runs (QEMU/Unicorn, and valgrind the same way):
a rep instruction ends its block; each execution of it does at most one
iteration (or, with rcx=0, none) and then jumps back to itself, or, when rcx
is 0 on entry, on to the next instruction. With rcx=N>0 it is executed N+1
times (N iterations plus a last entry that finds rcx=0); with rcx=0, once.
The first execution is the last instruction of the block that leads to it;
each re-entry is an execution of a one-instruction block starting at the rep.

  R1 _start: lea, lea, mov $100, rep movsb   4  x1    (iteration 1 of 100)
  M  rep movsb                               1  x100  (iterations 2..100, then rcx=0)
  R2 xor, rep movsb                          2  x1    (rcx=0: nothing copied)
  R3 lea, movabs, mov $50, rep stosq         4  x1    (iteration 1 of 50)
  Q  rep stosq                               1  x50   (iterations 2..50, then rcx=0)
  R4 xor, rep stosq                          2  x1    (rcx=0: nothing stored)
  X  movzbl, movzbl, add, mov, syscall       5  x1

  rep movsb counted 1 + 100 = 101 = N+1; rep stosq 1 + 50 = 51 = N+1;
  each rep with rcx=0 counted once.

  instructions = 4 + 100 + 2 + 4 + 50 + 2 + 5 = 167
  blocks       = 1 + 100 + 1 + 1 + 50 + 1 + 1 = 155

Cross-check: callgrind leaves out the last block X (exit_group never
returns): 167 - 5 = 162 (measured: 162).
*/
	.text
	.globl	_start
_start:
	lea	src(%rip), %rsi
	lea	dst(%rip), %rdi
	mov	$100, %ecx
	rep movsb
	xor	%ecx, %ecx
	rep movsb
	lea	buf(%rip), %rdi
	movabs	$0x0101010101010101, %rax
	mov	$50, %ecx
	rep stosq
	xor	%ecx, %ecx
	rep stosq
	movzbl	dst+99(%rip), %edi
	movzbl	buf+399(%rip), %eax
	add	%eax, %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.data
src:
	.set	i, 0
	.rept	100
	.byte	i
	.set	i, i+1
	.endr

	.bss
dst:	.zero	128
buf:	.zero	512

	.section .note.GNU-stack,"",@progbits
