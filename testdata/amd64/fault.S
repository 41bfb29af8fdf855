/*
# icount: instructions=11 blocks=4 exit=139
# callgrind: irefs=7

fault.S: a block cut short by a fault. After a three-iteration loop, a
straight-line block does four instructions and then loads from the unmapped
address 0x10, which faults (SIGSEGV, exit status 128 + 11 = 139). The load
does not complete and is not counted; neither is anything after it.

Translated blocks:

  S  _start: mov $3, dec, jnz                      3  x1
  L  1: dec, jnz                                   2  x2
  F  mov, mov, add, mov $0x10, [mov (%rdx) faults], add, mov, syscall
                                                   8 in the block, 4 completed

  instructions = 3 + 2*2 + 4 = 11
  blocks       = 1 + 2 + 1   = 4   (the cut block F was entered once and is
                                    counted as one block execution)

Cross-check: callgrind counts only whole blocks before the fault: 3 + 4 = 7
(measured: 7); the 4 completed instructions of F are not in its I refs.
*/
	.text
	.globl	_start
_start:
	mov	$3, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$1, %eax
	mov	$2, %ebx
	add	%ebx, %eax
	mov	$0x10, %edx
	mov	(%rdx), %rcx		/* faults: 0x10 is never mapped */
	add	%ecx, %eax
	mov	$231, %eax		/* exit_group, never reached */
	syscall

	.section .note.GNU-stack,"",@progbits
