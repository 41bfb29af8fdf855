/*
# icount: instructions=8 blocks=1 exit=125

unsupported.S: a system call in a form icount does not emulate (openat2,
437, of /proc/self/exe with RESOLVE_NO_SYMLINKS: icount answers /proc's
links itself) stops the run with exit status 125 and a message naming
the call, its address, what of it is missing and the function. One block:
nop, nop, four arguments, the number, syscall = 8 instructions; the
syscall instruction is counted, as it was executed up to the kernel.
*/
	.text
	.globl	_start
_start:
	nop
	nop
	mov	$-100, %rdi		/* AT_FDCWD */
	lea	path(%rip), %rsi
	lea	how(%rip), %rdx
	mov	$24, %r10d		/* sizeof(struct open_how) */
	mov	$437, %eax		/* openat2 */
	syscall
	mov	$60, %eax		/* never reached */
	xor	%edi, %edi
	syscall

	.balign	8
how:	.quad	0, 0, 4			/* O_RDONLY, mode 0, RESOLVE_NO_SYMLINKS */
path:	.asciz	"/proc/self/exe"

	.section .note.GNU-stack,"",@progbits
