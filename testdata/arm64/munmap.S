/*
# icount: instructions=14 blocks=3 exit=139

munmap.S: a load from memory after munmap faults at that load. The
program maps a page, stores into it, unmaps it and loads from it: the
load faults (SIGSEGV, exit status 139) as an access to unmapped memory.
The store left the page in the emulator's TLB: unmapping must flush it.

Translated blocks (svc ends one):

  M  _start: mov x7, svc (mmap)                                8  x1
  U  mov, mov, str, mov, mov, svc (munmap)                     6  x1
  L  [ldr faults], mov, svc                    3 in the block, 0 completed

  instructions = 8 + 6 + 0 = 14
  blocks       = 3   (the cut block L was entered once)
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
	mov	x10, #7
	str	x10, [x9, #16]
	mov	x1, #4096		/* munmap(page, 4096) */
	mov	x8, #215
	svc	#0
	ldr	x10, [x9, #16]		/* unmapped: faults */
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.section .note.GNU-stack,"",@progbits
