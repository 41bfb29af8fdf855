/*
# icount: instructions=65 blocks=22 exit=0
# mix: loads=25 stores=25 branches=4 calls=4 returns=4 syscalls=1 simd_fp=12 other=11

mix.S: every kind of instruction the instruction mix counts, a known number
of times. A loop of 4 iterations stores, loads, adds to memory, pushes and
pops, moves and adds SSE registers and calls a function that returns; then
rep movsb copies 8 bytes; then exit_group.

Kinds (an instruction may have several):
  mov %ecx,(%rdi)        store                 x4
  add (%rdi),%eax        load                  x4
  addl $1,(%rdi)         load, store           x4
  push %rcx              store                 x4
  pop %rcx               load                  x4
  movups (%rdi),%xmm0    load, SIMD/FP         x4
  addps %xmm0,%xmm1      SIMD/FP               x4
  movups %xmm1,(%rdi)    store, SIMD/FP        x4
  call f                 call                  x4
  ret                    return                x4
  dec %ecx               other                 x4
  jnz 1b                 branch                x4
  rep movsb              load, store           x9 (8 iterations + the last entry)
  syscall                syscall               x1
  lea, mov (before)      other                 x2
  lea, lea, mov, mov, xor (after the loop)     x5 other

  loads   = 4 + 4 + 4 + 4 + 9           = 25
  stores  = 4 + 4 + 4 + 4 + 9           = 25
  SIMD/FP = 4 + 4 + 4                   = 12
  other   = 4 + 2 + 5                   = 11

Translated blocks:
  A _start: lea, mov, mov .. call f (iteration 1)   11 insns  x1
  F f: ret                                           1        x4
  D dec, jnz                                         2        x4
  L 1: mov .. call f (iterations 2..4)               9        x3
  R lea, lea, mov, rep movsb (iteration 1 of 8)      4        x1
  M rep movsb (iterations 2..8, then rcx=0)          1        x8
  X mov, xor, syscall                                3        x1

  instructions = 11 + 4 + 8 + 27 + 4 + 8 + 3 = 65
  blocks       = 1 + 4 + 4 + 3 + 1 + 8 + 1   = 22
*/
	.text
	.globl	_start
	.type	_start, @function
_start:
	lea	buf(%rip), %rdi
	mov	$4, %ecx
1:	mov	%ecx, (%rdi)
	add	(%rdi), %eax
	addl	$1, (%rdi)
	push	%rcx
	pop	%rcx
	movups	(%rdi), %xmm0
	addps	%xmm0, %xmm1
	movups	%xmm1, (%rdi)
	call	f
	dec	%ecx
	jnz	1b
	lea	buf(%rip), %rsi
	lea	buf+64(%rip), %rdi
	mov	$8, %ecx
	rep movsb
	mov	$231, %eax		/* exit_group(0) */
	xor	%edi, %edi
	syscall
	.size	_start, .-_start

	.type	f, @function
f:	ret
	.size	f, .-f

	.bss
buf:	.space	128

	.section .note.GNU-stack,"",@progbits
