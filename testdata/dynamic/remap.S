# remap: code mapped executable from a file and run, then replaced at the
# same address, each new code run and counted:
#   1. mmap CODE1 at 0x20000000 (PROT_READ|PROT_EXEC), call it (7);
#   2. munmap, mmap CODE2 there, call it (30);
#   3. mprotect to read-write, pread CODE1 over it, mprotect back to
#      read-exec, call it (7);
#   4. with CODE3 only: mprotect to read-write-exec, pread CODE3 over it (a
#      system call writing into executable memory), call it (1).
# Code3's block has code1's address and size (6 bytes) with 4 instructions
# to code1's 2: a count keyed by a block's address and size that outlived
# the code it was made for counts it wrong (cmd/icount/dynamic_test.go).
#
#   remap CODE1 CODE2 [CODE3]      (code1.S, code2.S, code3.S as flat code)
#
# It exits with the sum of what the calls returned: 7+30+7 = 44, or 45.
#
# Count, block by block (a block ends at a syscall, call, ret or jump):
#   _start to the open syscall:  xor, mov, xor, mov, syscall       5
#   to the mmap syscall:         mov, mov, mov, mov, mov, mov, xor, mov, syscall   9
#   to the call:                 mov, call                         2
#   code1:                       mov, ret                          2
#   to the munmap syscall:       add, mov, mov, mov, syscall       5
#   to the open syscall:         mov, xor, mov, syscall            4
#   to the mmap syscall:         mov, mov, mov, mov, mov, xor, mov, syscall   8
#   to the call:                 call                              1
#   code2:                       2 + 3*10 + 1 (blocks: 1 + 9 + 1) 33
#   to the mprotect syscall:     add, mov, mov, mov, mov, syscall  6
#   to the pread syscall:        mov, mov, mov, xor, mov, syscall  6
#   to the mprotect syscall:     mov, mov, mov, mov, syscall       5
#   to the call:                 call                              1
#   code1:                       mov, ret                          2
#   to the jb:                   add, cmpq, jb                     3
# Without CODE3:
#   done, to exit_group:         mov, mov, syscall                 3
# 5+9+2+2+5+4+8+1+33+6+6+5+1+2+3+3 = 95 instructions, 15+11 = 26 blocks.
# icount: instructions=95 blocks=26 exit=44
# With CODE3, after the jb:
#   to the mprotect syscall:     mov, mov, mov, mov, syscall       5
#   to the open syscall:         mov, xor, mov, syscall            4
#   to the pread syscall:        mov, mov, mov, xor, mov, syscall  6
#   to the call:                 call                              1
#   code3:                       xor, inc, nop, ret                4
#   to exit_group:               add, mov, mov, syscall            4
# 92+5+4+6+1+4+4 = 116 instructions, 14+11+6 = 31 blocks.
# icount-with-code3: instructions=116 blocks=31 exit=45
	.globl _start
	.text
_start:
	xor %r12d, %r12d          # the sum
	mov 16(%rsp), %rdi        # open(argv[1], O_RDONLY)
	xor %esi, %esi
	mov $2, %eax
	syscall
	mov %rax, %r13            # mmap(0x20000000, 4096, R|X, MAP_PRIVATE|MAP_FIXED, fd, 0)
	mov $0x20000000, %edi
	mov $4096, %esi
	mov $5, %edx
	mov $0x12, %r10d
	mov %r13, %r8
	xor %r9d, %r9d
	mov $9, %eax
	syscall
	mov %rax, %rbx
	call *%rbx                # code1
	add %eax, %r12d
	mov %rbx, %rdi            # munmap(0x20000000, 4096)
	mov $4096, %esi
	mov $11, %eax
	syscall
	mov 24(%rsp), %rdi        # open(argv[2], O_RDONLY)
	xor %esi, %esi
	mov $2, %eax
	syscall
	mov %rax, %r8             # mmap(0x20000000, 4096, R|X, MAP_PRIVATE|MAP_FIXED, fd, 0)
	mov %rbx, %rdi
	mov $4096, %esi
	mov $5, %edx
	mov $0x12, %r10d
	xor %r9d, %r9d
	mov $9, %eax
	syscall
	call *%rbx                # code2
	add %eax, %r12d
	mov %rbx, %rdi            # mprotect(0x20000000, 4096, R|W)
	mov $4096, %esi
	mov $3, %edx
	mov $10, %eax
	syscall
	mov %r13, %rdi            # pread64(fd1, 0x20000000, 4096, 0)
	mov %rbx, %rsi
	mov $4096, %edx
	xor %r10d, %r10d
	mov $17, %eax
	syscall
	mov %rbx, %rdi            # mprotect(0x20000000, 4096, R|X)
	mov $4096, %esi
	mov $5, %edx
	mov $10, %eax
	syscall
	call *%rbx                # code1 again
	add %eax, %r12d
	cmpq $4, (%rsp)           # CODE3 given?
	jb done
	mov %rbx, %rdi            # mprotect(0x20000000, 4096, R|W|X)
	mov $4096, %esi
	mov $7, %edx
	mov $10, %eax
	syscall
	mov 32(%rsp), %rdi        # open(argv[3], O_RDONLY)
	xor %esi, %esi
	mov $2, %eax
	syscall
	mov %rax, %rdi            # pread64(fd3, 0x20000000, 4096, 0)
	mov %rbx, %rsi
	mov $4096, %edx
	xor %r10d, %r10d
	mov $17, %eax
	syscall
	call *%rbx                # code3
	add %eax, %r12d
done:
	mov %r12d, %edi           # exit_group(sum)
	mov $231, %eax
	syscall
