/*
# icount: instructions=4008 blocks=2003 exit=1

syscalls.S: the cost of a system call (count's BenchmarkSyscall). Run as
`syscalls [N [jump]]`, it makes N getppid calls in a loop (1000 without
arguments, N >= 1); with a second argument it runs the same loop with a
two-byte jmp to the next instruction where the syscall was, which ends its
block as the syscall does: the two loops differ by the system call alone.
The exit status is getppid's answer, 1 for the first process (0 after the
jmp loop).

Translated blocks without arguments (a syscall ends its block; execution
resumes in a new block at the next instruction):

  S  _start: mov, mov, cmp, jb             4 insns   x1
  C  call:   mov, syscall(getppid)         2 insns   x1000
  D          dec, jnz                      2 insns   x1000
  E          mov, jmp                      2 insns   x1
  X  exit:   mov, syscall(exit_group)      2 insns   x1

  instructions = 4 + 1000*4 + 2 + 2 = 4008
  blocks       = 1 + 1000*2 + 1 + 1 = 2003
*/
	.text
	.globl	_start
_start:
	mov	(%rsp), %rax		/* argc */
	mov	$1000, %r12d		/* the calls to make */
	cmp	$2, %rax
	jb	call
	mov	16(%rsp), %rsi		/* argv[1]: N in decimal */
	xor	%r12d, %r12d
digit:	movzbl	(%rsi), %edx
	test	%edx, %edx
	jz	parsed
	sub	$'0', %edx
	imul	$10, %r12, %r12
	add	%rdx, %r12
	inc	%rsi
	jmp	digit
parsed:	cmp	$3, %rax
	jae	jump
call:	mov	$110, %eax		/* getppid; r12 survives, rcx and r11 do not */
	syscall
	dec	%r12
	jnz	call
	mov	%eax, %edi
	jmp	exit
jump:	mov	$110, %eax
	jmp	1f			/* eb 00: as long as syscall, and a block end */
1:	dec	%r12
	jnz	jump
	xor	%edi, %edi
exit:	mov	$231, %eax		/* exit_group */
	syscall

	.section .note.GNU-stack,"",@progbits
