/*
# icount: instructions=75 blocks=35 exit=33
# callgrind: irefs=71

calls.S: nested calls and returns. _start calls f1 twice (_start -> f1 ->
f2 -> f3, call depth 3; f2 calls f3 twice), then the recursive rec(5)
(call depth 6 below _start). ebx = 2*(1 + 3 + 3 + 2) = 18, rec(5) = 15,
exit status = 18 + 15 = 33.

Translated blocks (every call and ret ends a block; the instruction after a
call starts a new block when the callee returns to it):

  A   _start: xor, call f1                2   x1
  B   call f1                             1   x1
  C   mov $5, call rec                    2   x1
  D   add, mov, mov, syscall              4   x1
  F1a f1: add, call f2                    2   x2
  F1b add, ret                            2   x2
  F2a f2: call f3                         1   x2
  F2b call f3                             1   x2
  F2c ret                                 1   x2
  F3  f3: add, ret                        2   x4
  R1  rec: test, jz                       2   x6   (n = 5..0)
  R2  push, dec, call rec                 3   x5   (n = 5..1)
  R3  pop, add, ret                       3   x5
  R4  1: xor, ret                         2   x1   (n = 0)

  one call of f1 = F1a+F2a+F3+F2b+F3+F2c+F1b = 2+1+2+1+2+1+2 = 11 insns, 7 blocks
  rec(n) = 8n + 4 insns, 3n + 2 blocks; rec(5) = 44 insns, 17 blocks

  instructions = A 2 + 11 + B 1 + 11 + C 2 + 44 + D 4 = 75
  blocks       = 1 + 7 + 1 + 7 + 1 + 17 + 1             = 35

Cross-check: callgrind leaves out the last block D (exit_group never
returns): 75 - 4 = 71 (measured: 71).
*/
	.text
	.globl	_start
_start:
	xor	%ebx, %ebx
	call	f1
	call	f1
	mov	$5, %edi
	call	rec
	add	%eax, %ebx
	mov	%ebx, %edi
	mov	$231, %eax		/* exit_group */
	syscall

f1:	add	$1, %ebx
	call	f2
	add	$2, %ebx
	ret

f2:	call	f3
	call	f3
	ret

f3:	add	$3, %ebx
	ret

/* rec(n) = n + rec(n-1), rec(0) = 0; argument in edi, result in eax */
rec:	test	%edi, %edi
	jz	1f
	push	%rdi
	dec	%edi
	call	rec
	pop	%rdi
	add	%edi, %eax
	ret
1:	xor	%eax, %eax
	ret

	.section .note.GNU-stack,"",@progbits
