/* threadbomb.S: clone(CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|
   CLONE_THREAD|CLONE_SYSVSEM) in a loop, as a thread bomb does: every
   thread clones on. Past 4096 threads clone fails with EAGAIN, and they
   loop forever: only --max-instructions or --timeout ends it. */
	.text
	.globl	_start
_start:
1:	mov	$56, %eax		/* clone */
	mov	$0x50f00, %edi
	lea	-4096(%rsp), %rsi	/* child stack */
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	syscall
	test	%rax, %rax
	jz	1b			/* the child clones too */
	jmp	1b
