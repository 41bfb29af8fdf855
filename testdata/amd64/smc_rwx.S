# smc_rwx: code the program writes, runs and rewrites in place in memory
# that is writable and executable at once, as a JIT does; every call must
# run the code as last written.
#
#   1. mmap three pages read-write-exec; write `mov $imm32, %eax; ret` at
#      page 0 and call it 100 times, storing the loop counter as its
#      immediate before each call (0 + 1 + ... + 99 = 4950);
#   2. copy a routine into page 1 that stores %dil into the immediate of
#      the `mov` after it, in its own block, and returns it: called with 5
#      and 37;
#   3. a system call writes code into page 0: read() from a pipe of
#      `mov $200, %eax; ret`, then call it (200);
#   4. page 2 holds `mov $3, %eax; ret`, made read-exec and called (3),
#      then made read-write-exec again (the execute permission does not
#      change), its immediate stored as 4 and called (4).
# It exits with the sum: 4950 + 5 + 37 + 200 + 3 + 4 = 5199, status
# 5199 & 255 = 79.
#
# A block is first seen in a writable page marks it as holding code; a
# store into it then stops the block at the store (its instructions from
# the store on are taken back), the page's code is discarded, and the
# store and what follows run as new blocks. A store into the block's own
# page runs by itself, as a block of one instruction.
#
# Blocks (a block ends at a syscall, call, ret or jump):
#   A  _start to the mmap syscall: xor, mov, mov, mov, mov, xor, mov, syscall   8
#   B  to the first call: mov, xor, movb, movb, xor, movl, call                 7
#   R  page 0: mov, ret                                                         2
#   T  after the call: add, inc, cmp, jne                                       4
#   Calls 2 to 100, each: L (movl, call) cut at its store (0 run), L again
#      from the store (2), R translated anew (2), T (4): 8 in 4 blocks.
#   Part 1: 8+7+2+4 + 99*8 = 813 instructions, 4 + 99*4 = 400 blocks.
#   C  copy and first call: mov, mov, mov, mov, mov, lea, call                  7
#   S  page 1: movb, mov, ret cut at the movb (0), the movb alone (1),
#      mov, ret as written (2): 3 in 3 blocks
#   D  add, mov, call                                                           3
#   S  again: 3 in 3 blocks
#   Part 2: 7+3+3+3 = 16 instructions, 8 blocks.
#   E  add, sub, mov, xor, mov, syscall (pipe2)                                 6
#   F  mov, lea, mov, mov, syscall (write)                                      5
#   G  mov, mov, mov, xor, syscall (read into page 0)                           5
#   H  call                                                                     1
#   R  as read: mov, ret                                                        2
#   Part 3: 19 instructions, 5 blocks.
#   I  add, movb, movl, movb, lea, mov, mov, mov, mov, syscall (mprotect)      10
#   J  call                                                                     1
#   P  page 2: mov, ret                                                         2
#   K  add, mov, mov, mov, mov, syscall (mprotect)                              6
#   M  movl, call: cut at the movl (0), again from it (2)                       2
#   P  as stored: mov, ret                                                      2
#   N  add, mov, mov, syscall (exit_group)                                      4
#   Part 4: 10+1+2+6+2+2+4 = 27 instructions, 8 blocks.
# 813+16+19+27 = 875 instructions, 400+8+5+8 = 421 blocks.
# icount: instructions=875 blocks=421 exit=79
	.globl _start
	.text
_start:
	xor %edi, %edi            # mmap(0, 3 pages, R|W|X, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)
	mov $12288, %esi
	mov $7, %edx
	mov $0x22, %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	mov $9, %eax
	syscall
	mov %rax, %rbx            # the pages
	xor %r12d, %r12d          # the sum
	movb $0xb8, (%rbx)        # mov $imm32, %eax
	movb $0xc3, 5(%rbx)       # ret
	xor %ecx, %ecx
loop:
	movl %ecx, 1(%rbx)        # the immediate
	call *%rbx
	add %eax, %r12d
	inc %ecx
	cmp $100, %ecx
	jne loop

	mov selfmod(%rip), %rax   # copy selfmod to page 1
	mov %rax, 4096(%rbx)
	mov selfmod+8(%rip), %rax
	mov %rax, 4104(%rbx)
	mov $5, %edi
	lea 4096(%rbx), %r13
	call *%r13
	add %eax, %r12d
	mov $37, %edi
	call *%r13
	add %eax, %r12d

	sub $16, %rsp             # pipe2(fds, 0)
	mov %rsp, %rdi
	xor %esi, %esi
	mov $293, %eax
	syscall
	mov 4(%rsp), %edi         # write(fds[1], code200, 6)
	lea code200(%rip), %rsi
	mov $6, %edx
	mov $1, %eax
	syscall
	mov (%rsp), %edi          # read(fds[0], page 0, 6)
	mov %rbx, %rsi
	mov $6, %edx
	xor %eax, %eax
	syscall
	call *%rbx
	add %eax, %r12d

	movb $0xb8, 8192(%rbx)    # page 2: mov $3, %eax; ret
	movl $3, 8193(%rbx)
	movb $0xc3, 8197(%rbx)
	lea 8192(%rbx), %r14      # mprotect(page 2, 4096, R|X)
	mov %r14, %rdi
	mov $4096, %esi
	mov $5, %edx
	mov $10, %eax
	syscall
	call *%r14
	add %eax, %r12d
	mov %r14, %rdi            # mprotect(page 2, 4096, R|W|X)
	mov $4096, %esi
	mov $7, %edx
	mov $10, %eax
	syscall
	movl $4, 1(%r14)
	call *%r14
	add %eax, %r12d

	mov %r12d, %edi           # exit_group(sum)
	mov $231, %eax
	syscall

# Copied to page 1 and run there: stores its argument into its own
# immediate, in the same block, and returns it.
selfmod:
	movb %dil, patch+1(%rip)
patch:
	mov $0, %eax
	ret
	.skip 3                   # the copy takes 16 bytes

	.data
code200:
	.byte 0xb8
	.long 200
	.byte 0xc3

	.section .note.GNU-stack,"",@progbits
