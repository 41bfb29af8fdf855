/*
# icount: instructions=24 blocks=1 exit=165

simd.S: Advanced SIMD, floating-point, CRC32 and crypto instructions, which
run only because FP/SIMD is enabled (CPACR_EL1.FPEN) and the emulated CPU
has every feature AT_HWCAP advertises (FP, ASIMD, AES, PMULL, SHA1, SHA2,
CRC32).

  a = {1, 2, 3, 4}, b = {5, 6, 7, 8} (32-bit lanes)
  a + b = {6, 8, 10, 12}, a * b = {5, 12, 21, 32}; addv of their sum: 36 + 70 = 106
  106 as a double, times 0.5, back to an integer: 53
  crc = CRC-32 of the 8 little-endian bytes of 53 (crc32x from ~0, then
        inverted, as zlib computes it) = 0xa80f8270
  exit status = (53 + 0xa80f8270) & 0xff = (53 + 0x70) & 0xff = 165

The aese/aesmc, pmull, sha1c and sha256h results are not used: they only
have to execute.

One translated block, straight-line code ending at the svc:

  mov, adr, ld1, add, mul, add, addv, fmov, scvtf, fmov, fmul, fcvtzs  12
  aese, aesmc, pmull, sha1c, sha256h                                    5
  mvn, crc32x, mvn, add, and                                            5
  mov, svc                                                              2

  instructions = 12 + 5 + 5 + 2 = 24
  blocks       = 1
*/
	.text
	.globl	_start
_start:
	mov	x0, #0
	adr	x1, vec
	ld1	{v0.4s, v1.4s}, [x1]
	add	v2.4s, v0.4s, v1.4s
	mul	v3.4s, v0.4s, v1.4s
	add	v2.4s, v2.4s, v3.4s
	addv	s4, v2.4s
	fmov	w0, s4
	scvtf	d5, x0
	fmov	d6, #0.5
	fmul	d5, d5, d6
	fcvtzs	x0, d5
	.arch	armv8-a+crypto+crc
	aese	v7.16b, v0.16b
	aesmc	v7.16b, v7.16b
	pmull	v8.1q, v0.1d, v1.1d
	sha1c	q9, s10, v1.4s
	sha256h	q11, q12, v1.4s
	mvn	w13, wzr
	crc32x	w12, w13, x0
	mvn	w12, w12
	add	x0, x0, x12
	and	x0, x0, #0xff
	mov	x8, #94			/* exit_group */
	svc	#0

	.section .rodata
	.balign	16
vec:	.word	1, 2, 3, 4
	.word	5, 6, 7, 8

	.section .note.GNU-stack,"",@progbits
