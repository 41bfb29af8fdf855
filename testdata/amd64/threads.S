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

#include "threads_main.inc"

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

	.section .note.GNU-stack,"",@progbits
