/* jumpdata.S: a call into writable data, which is not executable:
   SIGSEGV (139) at the data's address; the caller is named. */
	.text
	.globl	_start
_start:
	call	main
	mov	$60, %eax
	xor	%edi, %edi
	syscall
main:
	lea	payload(%rip), %rax
	call	*%rax
	ret
	.data
payload:
	.byte	0x90, 0x90, 0xc3	/* nop; nop; ret: never runs */
