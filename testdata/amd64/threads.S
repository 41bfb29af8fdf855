/*
# icount: instructions=186157 blocks=62026 exit=152
# icount-threads: 6109 30016 60016 90016

threads.S: three threads made with a raw clone (no libc), each summing a
counted loop; futex wait and wake; thread exit; the main thread joining
each child on its CHILD_CLEARTID futex. cmd/icount/threads_test.go also
asserts the same counts at --quantum 1024 (the children are switched out
mid-loop dozens of times) and each thread's share (the icount-threads
line: main's, then children 0, 1 and 2's, tids 1000 to 1003, as worked
out below).

  clone(CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|
        CLONE_SYSVSEM|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID = 0x350f00,
        stack top, ptid = &tids[i], ctid = &tids[i], tls = 0)

The main thread makes children 0, 1 and 2 (ebp = i, inherited), sums
2000 + 1999 + ... + 1 = 2001000 in ebx, sets go = 1 and wakes every waiter
on it, then joins each child with one FUTEX_WAIT on tids[i] for the value
clone returned (its tid, which PARENT_SETTID wrote there): the wait returns
EAGAIN if the child has exited (its exit wrote 0), or blocks until that
exit's wake. Child i waits once on go while it is 0 (EAGAIN if main has
set it), sums n = 10000*(i+1) + ... + 1 into results[i] and exits with
exit (60), not exit_group. Every wait is one system call whether it blocks
or not, and the guest runs the same instructions either way: the count does
not depend on how the threads interleave. Main ends with exit (60) too: as
the last thread, it ends the process.

  exit status = low byte of results[0..2] + tids[0..2] (all 0) + ebx
              = 50005000 + 200010000 + 450015000 + 0 + 2001000
              = 702031000 = 0x29d82498 -> 0x98 = 152

Translated blocks (a branch or a syscall ends a block; a label does not; a
child starts at the instruction after clone's syscall, as the parent
returns there):

main thread
  S1 _start: xor, then spawn: lea, shl, lea, add, lea, lea,
             mov, xor, mov, mov, syscall(clone)               12  x1
  S2 spawn: the same 11 (iterations 2 and 3)                   11  x2
  T  test, jz                                                   2  x3 (+ x3 in the children)
  S3 lea, mov, inc, cmp, jne                                    5  x3
  W1 mov, xor, add, dec, jnz (the first iteration)              5  x1
  W2 add, dec, jnz                                              3  x1999
  G  lea, movl, mov, mov, mov, syscall(futex wake)              6  x1
  J1 xor, then join: lea, lea, lea, mov, xor, xor, mov,
     syscall(futex wait)                                        9  x1
  J2 join: the same 8 (children 1 and 2)                        8  x2
  J3 inc, cmp, jne                                              3  x3
  E  lea, mov, add, add, lea, add, add, add, add, and, mov,
     syscall(exit)                                             12  x1

  main instructions = 12 + 22 + 6 + 15 + 5 + 5997 + 6 + 9 + 16 + 9 + 12
                    = 6109
  main blocks       = 1 + 2 + 3 + 3 + 1 + 1999 + 1 + 1 + 2 + 3 + 1 = 2017

child i (n = 10000*(i+1))
  T  test, jz                                                   2  x1
  C1 child: lea, mov, xor, xor, mov, syscall(futex wait)        6  x1
  C2 lea, imul, xor, add, dec, jnz (the first iteration)        6  x1
  C3 add, dec, jnz                                              3  x(n-1)
  C4 lea, mov, xor, mov, syscall(exit)                          5  x1

  child instructions = 2 + 6 + 6 + 3(n-1) + 5 = 3n + 16
  child blocks       = 1 + 1 + 1 + (n-1) + 1  = n + 3
  children 0, 1, 2: 30016, 60016, 90016 instructions (180048);
                    10003, 20003, 30003 blocks (60009)

  instructions = 6109 + 180048 = 186157
  blocks       = 2017 + 60009  = 62026
*/
#define CLONE_FLAGS	0x350f00
#define LOOP		10000
#define WORK		2000

	.text
	.globl	_start
_start:
	xor	%ebp, %ebp		/* ebp: the index of the child to make */
spawn:
	lea	1(%rbp), %esi
	shl	$12, %esi
	lea	stacks(%rip), %rax
	add	%rax, %rsi		/* stack top: stacks + 4096*(i+1) */
	lea	tids(%rip), %rdx
	lea	(%rdx,%rbp,4), %rdx	/* ptid: &tids[i] */
	mov	%rdx, %r10		/* ctid: &tids[i] */
	xor	%r8d, %r8d		/* tls: none (no CLONE_SETTLS) */
	mov	$CLONE_FLAGS, %edi
	mov	$56, %eax		/* clone */
	syscall
	test	%rax, %rax
	jz	child
	lea	expect(%rip), %rdx
	mov	%eax, (%rdx,%rbp,4)	/* its tid, for the join */
	inc	%ebp
	cmp	$3, %ebp
	jne	spawn

	mov	$WORK, %ecx		/* main's own work */
	xor	%ebx, %ebx
1:	add	%ecx, %ebx
	dec	%ecx
	jnz	1b

	lea	go(%rip), %rdi
	movl	$1, (%rdi)
	mov	$129, %esi		/* FUTEX_WAKE_PRIVATE */
	mov	$0x7fffffff, %edx	/* every waiter */
	mov	$202, %eax		/* futex */
	syscall

	xor	%ebp, %ebp
join:
	lea	tids(%rip), %rdi
	lea	(%rdi,%rbp,4), %rdi	/* &tids[i] */
	lea	expect(%rip), %rdx
	mov	(%rdx,%rbp,4), %edx	/* while it holds the child's tid */
	xor	%esi, %esi		/* FUTEX_WAIT (the kernel's wake is shared) */
	xor	%r10d, %r10d		/* no timeout */
	mov	$202, %eax		/* futex */
	syscall
	inc	%ebp
	cmp	$3, %ebp
	jne	join

	lea	results(%rip), %rsi
	mov	(%rsi), %edi
	add	4(%rsi), %edi
	add	8(%rsi), %edi
	lea	tids(%rip), %rsi	/* each 0 once its thread exited */
	add	(%rsi), %edi
	add	4(%rsi), %edi
	add	8(%rsi), %edi
	add	%ebx, %edi
	and	$0xff, %edi
	mov	$60, %eax		/* exit: the last thread's ends the process */
	syscall

child:					/* ebp = i, rsp = its own stack */
	lea	go(%rip), %rdi
	mov	$128, %esi		/* FUTEX_WAIT_PRIVATE */
	xor	%edx, %edx		/* while go == 0 */
	xor	%r10d, %r10d		/* no timeout */
	mov	$202, %eax		/* futex */
	syscall
	lea	1(%rbp), %ecx
	imul	$LOOP, %ecx, %ecx	/* n = 10000*(i+1) */
	xor	%eax, %eax
1:	add	%ecx, %eax
	dec	%ecx
	jnz	1b
	lea	results(%rip), %rdx
	mov	%eax, (%rdx,%rbp,4)
	xor	%edi, %edi
	mov	$60, %eax		/* exit: this thread only */
	syscall

	.bss
	.balign	4096
stacks:	.space	3*4096
go:	.space	4
tids:	.space	3*4
expect:	.space	3*4
results: .space	3*4

	.section .note.GNU-stack,"",@progbits
