/*
# icount: instructions=20 blocks=4 exit=139

memfault.S: testdata/amd64/memfault.S for arm64. With no argument, a
store after mprotect made its page read-only faults (SIGSEGV, exit status
139); with an argument, a load after munmap does. Both follow a store that
left the page writable in the emulator's TLB.

Translated blocks (svc or a branch ends one):

  M  _start: ldr argc, mov x7, svc (mmap)                      9  x1
  S  mov, mov, str (writable: completes), cmp, b.ne unmap      5  x1
  no argument:
  P  mov, mov, mov, svc (mprotect)                             4  x1
  W  ldr, add, [str faults], mov, svc  5 in the block, 2 completed

  instructions = 9 + 5 + 4 + 2 = 20
  blocks       = 4

  with an argument (TestMemoryFaultMessages):
  U  unmap: mov, mov, svc (munmap)                             3  x1
  L  [ldr faults], mov, svc            3 in the block, 0 completed

  instructions = 9 + 5 + 3 + 0 = 17
  blocks       = 4
*/
	.text
	.globl	_start
_start:
	ldr	x12, [sp]		/* argc */
	mov	x0, #0			/* mmap(NULL, 4096, PROT_READ|PROT_WRITE, */
	mov	x1, #4096
	mov	x2, #3
	mov	x3, #0x22		/* MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
	mov	x4, #-1
	mov	x5, #0
	mov	x8, #222
	svc	#0
	mov	x9, x0			/* the page; x0 stays it */
	mov	x10, #1
	str	x10, [x9, #8]		/* writable: completes */
	cmp	x12, #1
	b.ne	unmap
	mov	x1, #4096		/* mprotect(page, 4096, PROT_READ) */
	mov	x2, #1
	mov	x8, #226
	svc	#0
	ldr	x10, [x9, #8]		/* readable: completes */
	add	x10, x10, #1
	str	x10, [x9, #8]		/* read-only now: faults */
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

unmap:	mov	x1, #4096		/* munmap(page, 4096) */
	mov	x8, #215
	svc	#0
	ldr	x10, [x9, #8]		/* unmapped: faults */
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.section .note.GNU-stack,"",@progbits
