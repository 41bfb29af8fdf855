/*
# icount: instructions=37 blocks=9 exit=7

rdtsc.S: rdtsc and rdtscp in the middle of translated blocks. A loop reads
rdtsc three times, then rdtscp once; the four counter values (8 bytes each,
little-endian) and the TSC_AUX rdtscp returned in ECX (4 bytes) are written
to stdout, 36 bytes. The exit status is 7 + TSC_AUX = 7 (TSC_AUX is 0).

icount emulates rdtsc and rdtscp with a code hook at each one that writes
RIP past it; Unicorn then ends the block there and goes on with a new
block at the next instruction. So each counter read splits its block in
two: the instructions after it are taken back from the first part and
counted in a block of their own. Under --fixed-clock read k of the clock
gives TSC = ns(k) * 2 GHz / 1e9 (the nominal frequency, also what CPUID
leaves 0x15 and 0x16 report).

Translated blocks as they run:

  A  _start: lea, mov, xor, rdtsc | mov, mov, add, dec, jnz
        runs lea, mov, xor, rdtsc                          4  x1
  R  mov, mov, add, dec, jnz         (after rdtsc)         5  x3
  L  1: xor, rdtsc | ...             (loop head, taken)
        runs xor, rdtsc                                    2  x2
  X  mov $0x55, rdtscp | mov, ... syscall
        runs mov, rdtscp                                   2  x1
  Y  mov, mov, mov, mov, mov, mov, lea, mov, syscall(write)
                                     (after rdtscp)        9  x1
  E  lea, mov, syscall(exit_group)                         3  x1

  instructions = 4 + 15 + 4 + 2 + 9 + 3 = 37
                 (the same as without the split: 2 + 3*7 + 11 + 3)
  blocks       = 1 + 3 + 2 + 1 + 1 + 1 = 9

With `--clock-table` of 1000, 2500, 2600 (ns) the reads give 1000, 2500,
2600 and then, the table run out, 2700 by its last step: stdout holds TSC
values 2000, 5000, 5200, 5400 and TSC_AUX 0 (cmd/icount/clock_test.go).
*/
	.text
	.globl	_start
_start:
	lea	buf(%rip), %rdi
	mov	$3, %esi
1:	xor	%eax, %eax
	rdtsc
	mov	%eax, (%rdi)
	mov	%edx, 4(%rdi)
	add	$8, %rdi
	dec	%esi
	jnz	1b
	mov	$0x55, %ecx
	rdtscp
	mov	%ecx, %r12d		/* TSC_AUX */
	mov	%eax, (%rdi)
	mov	%edx, 4(%rdi)
	mov	%r12d, 8(%rdi)
	mov	$1, %eax		/* write */
	mov	$1, %edi		/* stdout */
	lea	buf(%rip), %rsi
	mov	$36, %edx
	syscall
	lea	7(%r12), %edi
	mov	$231, %eax		/* exit_group */
	syscall

	.bss
	.align	8
buf:	.skip	64

	.section .note.GNU-stack,"",@progbits
