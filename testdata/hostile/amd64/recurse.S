/* recurse.S: unbounded recursion: each call pushes a return address and
   a frame pointer until the 8 MiB stack runs out: SIGSEGV (139) below the
   stack, the repeated frames counted in the backtrace. */
	.text
	.globl	_start
_start:
	call	recurse
	mov	$60, %eax
	xor	%edi, %edi
	syscall
recurse:
	push	%rbp
	mov	%rsp, %rbp
	call	recurse
	pop	%rbp
	ret
