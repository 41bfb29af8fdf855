/*
# icount: instructions=9 blocks=3 exit=139

crossing.S: straight-line code that runs into a page it may not execute.
The program takes execute permission from the page after `run` (mprotect
PROT_READ) and jumps to `run`, 7 bytes before that page: two 2-byte incs
fit before it, then a 5-byte mov straddles the boundary. A CPU runs the
incs and faults at the mov (SIGSEGV, exit status 139), the fault address
being the page's first byte.

The emulator translates a block whole, and an x86-64 block may cross a
page: it cannot translate this one, and runs none of it. icount then runs
the instructions wholly before the page as a block of their own, stopping
at the mov, and reports the fault there.

Translated blocks:

  S  _start: mov, lea, mov, mov, syscall (mprotect)        5  x1
  J  xor, jmp run                                          2  x1
  R  run: inc, inc (up to the mov that straddles)          2  x1

  instructions = 5 + 2 + 2 = 9
  blocks       = 3
*/
	.text
	.globl	_start
_start:
	mov	$10, %eax		/* mprotect(tail, 4096, PROT_READ) */
	lea	tail(%rip), %rdi
	mov	$4096, %esi
	mov	$1, %edx
	syscall
	xor	%ecx, %ecx
	jmp	run

	.balign	4096
	.skip	4096 - 7
run:	inc	%ecx			/* 2 bytes */
	inc	%ecx			/* 2 bytes */
	mov	$0x11223344, %eax	/* 5 bytes, 3 of them on the next page */
	.globl	tail
	.set	tail, run + 7		/* the next page */
	inc	%ecx
	mov	$231, %eax		/* exit_group, never reached */
	syscall
	.skip	4096

	.section .note.GNU-stack,"",@progbits
