/*
# icount: instructions=17 blocks=3 exit=139

mprotect.S: a store into memory that mprotect made read-only faults at
that store. The program maps a page read-write, stores into it, makes it
read-only, loads from it and stores into it again: that store faults
(SIGSEGV, exit status 128 + 11 = 139); it does not complete and is not
counted, nor is anything after it. The first store left the page in the
emulator's TLB as writable: lowering a permission must flush it.

Translated blocks (svc ends one):

  M  _start: mov x7, svc (mmap)                                8  x1
  P  mov, mov, str, mov, mov, mov, svc (mprotect)              7  x1
  S  ldr, add, [str faults], mov, svc          5 in the block, 2 completed

  instructions = 8 + 7 + 2 = 17
  blocks       = 3
*/
	.text
	.globl	_start
_start:
	mov	x0, #0			/* mmap(NULL, 4096, PROT_READ|PROT_WRITE, */
	mov	x1, #4096
	mov	x2, #3
	mov	x3, #0x22		/* MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) */
	mov	x4, #-1
	mov	x5, #0
	mov	x8, #222
	svc	#0
	mov	x9, x0
	mov	x10, #1
	str	x10, [x9, #8]		/* writable: completes */
	mov	x1, #4096		/* mprotect(page, 4096, PROT_READ) */
	mov	x2, #1
	mov	x8, #226
	svc	#0
	ldr	x10, [x9, #8]		/* readable: completes */
	add	x10, x10, #1
	str	x10, [x9, #8]		/* read-only now: faults */
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.section .note.GNU-stack,"",@progbits
