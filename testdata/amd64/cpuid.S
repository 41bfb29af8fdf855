/*
# icount: instructions=22 blocks=1 exit=80

cpuid.S: cpuid in the middle of a block, answered from icount's fixed
table by a cpuid hook that skips the instruction: the block goes on, and
each cpuid counts as one instruction.

Reads leaf 1 ECX, leaf 7 EBX, leaf 0x80000001 EDX and leaf 0x15 EBX (the
TSC's ratio to its 25 MHz crystal: 80, for the nominal 2 GHz), then
exit status = 80 + RDRAND (leaf 1 ECX bit 30) + RDSEED (leaf 7 EBX bit 18)
+ no RDTSCP (leaf 0x80000001 EDX bit 27 clear) = 80: RDRAND and RDSEED are
hidden, RDTSCP is advertised (icount emulates it).

One translated block, run once:

  mov, cpuid, mov, mov, xor, cpuid, mov, mov, cpuid, mov, mov, cpuid,
  mov, bt, adc, bt, adc, bt, cmc, adc, mov, syscall(exit_group)    22  x1

  instructions = 22
  blocks       = 1
*/
	.text
	.globl	_start
_start:
	mov	$1, %eax
	cpuid
	mov	%ecx, %r8d
	mov	$7, %eax
	xor	%ecx, %ecx
	cpuid
	mov	%ebx, %r9d
	mov	$0x80000001, %eax
	cpuid
	mov	%edx, %r10d
	mov	$0x15, %eax
	cpuid
	mov	%ebx, %edi		/* 80 */
	bt	$30, %r8d		/* RDRAND */
	adc	$0, %edi
	bt	$18, %r9d		/* RDSEED */
	adc	$0, %edi
	bt	$27, %r10d		/* RDTSCP */
	cmc
	adc	$0, %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.section .note.GNU-stack,"",@progbits
