/*
# icount: instructions=17 blocks=3 exit=139

mprotect.S: a store into memory that mprotect made read-only faults at
that store. The program maps a page read-write, stores into it, makes it
read-only, loads from it and stores into it again: that store faults
(SIGSEGV, exit status 128 + 11 = 139); it does not complete and is not
counted, nor is anything after it. The first store left the page in the
emulator's TLB as writable: lowering a permission must flush it.

Translated blocks (a system call ends one):

  M  _start: mov, xor, mov, mov, mov, mov, xor, syscall (mmap)     8  x1
  P  mov, movq, mov, mov, mov, mov, syscall (mprotect)             7  x1
  S  mov, add, [movq faults], mov, syscall         5 in the block, 2 completed

  instructions = 8 + 7 + 2 = 17
  blocks       = 3
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
	movq	$1, 8(%rbx)		/* writable: completes */
	mov	$10, %eax		/* mprotect(page, 4096, PROT_READ) */
	mov	%rbx, %rdi
	mov	$4096, %esi
	mov	$1, %edx
	syscall
	mov	8(%rbx), %rcx		/* readable: completes */
	add	$1, %rcx
	movq	$2, 8(%rbx)		/* read-only now: faults */
	mov	$231, %eax		/* exit_group, never reached */
	syscall

	.section .note.GNU-stack,"",@progbits
