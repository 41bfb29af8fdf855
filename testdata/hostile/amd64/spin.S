/* spin.S: a loop that never ends and makes no system call, for
   --max-instructions and --timeout. */
	.text
	.globl	_start
_start:
	call	main
main:
	call	spin
spin:
1:	inc	%rax
	jmp	1b
