/* avx.S: an AVX2 instruction, which the emulated x86-64 CPU (qemu64) does
   not have: SIGILL (132), the instruction named. */
	.text
	.globl	_start
_start:
	vpbroadcastb %xmm0, %ymm1
	mov	$60, %eax
	xor	%edi, %edi
	syscall
