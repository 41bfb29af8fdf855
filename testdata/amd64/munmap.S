/*
# icount: instructions=14 blocks=3 exit=139

munmap.S: a load from memory after munmap faults at that load. The
program maps a page, stores into it, unmaps it and loads from it: the
load faults (SIGSEGV, exit status 139) as an access to unmapped memory.
The store left the page in the emulator's TLB: unmapping must flush it.

Translated blocks (a system call ends one):

  M  _start: mov, xor, mov, mov, mov, mov, xor, syscall (mmap)     8  x1
  U  mov, movq, mov, mov, mov, syscall (munmap)                    6  x1
  L  [mov faults], mov, syscall                    3 in the block, 0 completed

  instructions = 8 + 6 + 0 = 14
  blocks       = 3   (the cut block L was entered once)
*/
	.text
	.globl	_start
_start:
	mov	$9, %eax		/* mmap(NULL, 4096, PROT_READ|PROT_WRITE, */
	xor	%edi, %edi
	mov	$4096, %esi
	mov	$3, %edx
	mov	$0x22, %r10d		/* MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
	mov	$-1, %r8
	xor	%r9d, %r9d
	syscall
	mov	%rax, %rbx
	movq	$7, 16(%rbx)
	mov	$11, %eax		/* munmap(page, 4096) */
	mov	%rbx, %rdi
	mov	$4096, %esi
	syscall
	mov	16(%rbx), %rcx		/* unmapped: faults */
	mov	$231, %eax		/* exit_group, never reached */
	syscall

	.section .note.GNU-stack,"",@progbits
