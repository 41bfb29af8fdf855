/*
# icount: instructions=20 blocks=4 exit=139

memfault.S: memory taken away under a running program faults at the
access. The program maps a page read-write and stores into it, which
leaves the page in the emulator's TLB as writable; then, with no argument,
it makes the page read-only (mprotect), loads from it and stores into it
again: that store faults (SIGSEGV, exit status 128 + 11 = 139). With an
argument it unmaps the page (munmap) and loads from it: that load faults.
Taking a permission away or unmapping must flush the TLB. The faulting
access does not complete and is not counted, nor is anything after it.

Translated blocks (a system call or a branch ends one):

  M  _start: mov argc, mov, xor, mov, mov, mov, mov, xor, syscall (mmap)   9  x1
  S  mov, movq (writable: completes), cmp, jne unmap                       4  x1
  no argument:
  P  mov, mov, mov, mov, syscall (mprotect)                                5  x1
  W  mov, add, [movq faults], mov, syscall      5 in the block, 2 completed

  instructions = 9 + 4 + 5 + 2 = 20
  blocks       = 4

  with an argument (TestMemoryFaultMessages):
  U  unmap: mov, mov, mov, syscall (munmap)                                4  x1
  L  [mov faults], mov, syscall                 3 in the block, 0 completed

  instructions = 9 + 4 + 4 + 0 = 17
  blocks       = 4
*/
	.text
	.globl	_start
_start:
	mov	(%rsp), %r12		/* argc */
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
	cmp	$1, %r12
	jne	unmap
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

unmap:	mov	$11, %eax		/* munmap(page, 4096) */
	mov	%rbx, %rdi
	mov	$4096, %esi
	syscall
	mov	8(%rbx), %rcx		/* unmapped: faults */
	mov	$231, %eax		/* exit_group, never reached */
	syscall

	.section .note.GNU-stack,"",@progbits
