/*
# icount: instructions=50 blocks=28 exit=0
# function: _start self=15 inclusive=50 calls=1
# function: a self=6 inclusive=15 calls=3
# function: b self=8 inclusive=20 calls=2
# function: c self=21 inclusive=21 calls=7

callgraph.S: a call graph whose costs can be worked out by hand.
_start calls a three times in a loop and b twice; a calls c once, b calls
c twice.

Self costs:
  _start  mov + 3 x (call a, dec, jnz) + 2 x call b + mov, xor, syscall
          = 1 + 9 + 2 + 3                                         = 15
  a       (call c, ret) x 3                                       =  6
  b       (nop, call c, call c, ret) x 2                          =  8
  c       (nop, nop, ret) x 7                                     = 21
  total                                                           = 50
Inclusive: c 21; a 6 + 3 x 3 = 15; b 8 + 4 x 3 = 20; _start 50.
Calls: a 3, b 2, c 3 + 4 = 7, _start 1 (the root).

Translated blocks (ending at each call, ret and branch):
  _start: [mov, call a] x1, [dec, jnz] x3, [call a] x2, [call b] x1,
          [call b] x1, [mov, xor, syscall] x1                     =  9
  a: [call c] x3, [ret] x3                                       =  6
  b: [nop, call c] x2, [call c] x2, [ret] x2                     =  6
  c: [nop, nop, ret] x7                                          =  7
  total                                                          = 28
*/
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	$3, %r12d
1:	call	a
	dec	%r12d
	jnz	1b
	call	b
	call	b
	mov	$231, %eax		/* exit_group(0) */
	xor	%edi, %edi
	syscall
	.size	_start, .-_start

	.type	a, @function
a:	call	c
	ret
	.size	a, .-a

	.type	b, @function
b:	nop
	call	c
	call	c
	ret
	.size	b, .-b

	.type	c, @function
c:	nop
	nop
	ret
	.size	c, .-c

	.section .note.GNU-stack,"",@progbits
