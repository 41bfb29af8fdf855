/*
# icount: instructions=186187 blocks=62026 exit=152
# icount-threads: 6133 30018 60018 90018

threads.S: three threads made with a raw clone (no libc), each summing a
counted loop; futex wait and wake; thread exit; the main thread joining
each child on its CHILD_CLEARTID futex. cmd/icount/threads_test.go also
asserts the same counts at --quantum 1024 (the children are switched out
mid-loop dozens of times) and each thread's share (the icount-threads
line: main's, then children 0, 1 and 2's, tids 1000 to 1003, as worked
out below).

  clone(CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|
        CLONE_SYSVSEM|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID = 0x350f00,
        stack top, ptid = &tids[i], tls = 0, ctid = &tids[i])
  (arm64's order: flags, stack, ptid, tls, ctid)

The main thread makes children 0, 1 and 2 (x19 = i, inherited), sums
2000 + 1999 + ... + 1 = 2001000 in w20, sets go = 1 and wakes every waiter
on it, then joins each child with one FUTEX_WAIT on tids[i] for the value
clone returned (its tid, which PARENT_SETTID wrote there): the wait returns
EAGAIN if the child has exited (its exit wrote 0), or blocks until that
exit's wake. Child i waits once on go while it is 0 (EAGAIN if main has
set it), sums n = 10000*(i+1) + ... + 1 into results[i] and exits with
exit (93), not exit_group. Every wait is one system call whether it blocks
or not, and the guest runs the same instructions either way: the count does
not depend on how the threads interleave. Main ends with exit (93) too: as
the last thread, it ends the process.

  exit status = low byte of results[0..2] + tids[0..2] (all 0) + w20
              = 50005000 + 200010000 + 450015000 + 0 + 2001000
              = 702031000 = 0x29d82498 -> 0x98 = 152

Translated blocks (a branch or an svc ends a block; a label does not; a
child starts at the instruction after clone's svc, as the parent returns
there):

main thread
  S1 _start: mov, then spawn: add, lsl, adrp, add, add, adrp,
             add, add, mov, mov, mov, movk, mov, svc(clone)       15  x1
  S2 spawn: the same 14 (iterations 2 and 3)                       14  x2
  T  cbz                                                            1  x3 (+ x3 in the children)
  S3 adrp, add, str, add, cmp, b.ne                                 6  x3
  W1 mov, mov, add, subs, b.ne (the first iteration)                5  x1
  W2 add, subs, b.ne                                                3  x1999
  G  adrp, add, mov, str, mov, mov, mov, svc(futex wake)            8  x1
  J1 mov, then join: adrp, add, add, adrp, add, ldr, mov, mov,
     mov, svc(futex wait)                                          11  x1
  J2 join: the same 10 (children 1 and 2)                          10  x2
  J3 add, cmp, b.ne                                                 3  x3
  E  adrp, add, ldr, ldr, add, ldr, add, adrp, add, ldr, add,
     ldr, add, ldr, add, add, and, mov, svc(exit)                  19  x1

  main instructions = 15 + 28 + 3 + 18 + 5 + 5997 + 8 + 11 + 20 + 9 + 19
                    = 6133
  main blocks       = 1 + 2 + 3 + 3 + 1 + 1999 + 1 + 1 + 2 + 3 + 1 = 2017

child i (n = 10000*(i+1))
  T  cbz                                                            1  x1
  C1 child: adrp, add, mov, mov, mov, mov, svc(futex wait)          7  x1
  C2 add, mov, mul, mov, add, subs, b.ne (the first iteration)      7  x1
  C3 add, subs, b.ne                                                3  x(n-1)
  C4 adrp, add, str, mov, mov, svc(exit)                            6  x1

  child instructions = 1 + 7 + 7 + 3(n-1) + 6 = 3n + 18
  child blocks       = 1 + 1 + 1 + (n-1) + 1  = n + 3
  children 0, 1, 2: 30018, 60018, 90018 instructions (180054);
                    10003, 20003, 30003 blocks (60009)

  instructions = 6133 + 180054 = 186187
  blocks       = 2017 + 60009  = 62026
*/
#define CLONE_FLAGS_LO	0x0f00
#define CLONE_FLAGS_HI	0x35		/* 0x350f00 */
#define LOOP		10000
#define WORK		2000

	.text
	.globl	_start
_start:
	mov	x19, #0			/* x19: the index of the child to make */
spawn:
	add	x1, x19, #1
	lsl	x1, x1, #12
	adrp	x9, stacks
	add	x9, x9, :lo12:stacks
	add	x1, x1, x9		/* stack top: stacks + 4096*(i+1) */
	adrp	x2, tids
	add	x2, x2, :lo12:tids
	add	x2, x2, x19, lsl #2	/* ptid: &tids[i] */
	mov	x3, #0			/* tls: none (no CLONE_SETTLS) */
	mov	x4, x2			/* ctid: &tids[i] */
	mov	x0, #CLONE_FLAGS_LO
	movk	x0, #CLONE_FLAGS_HI, lsl #16
	mov	x8, #220		/* clone */
	svc	#0
	cbz	x0, child
	adrp	x9, expect
	add	x9, x9, :lo12:expect
	str	w0, [x9, x19, lsl #2]	/* its tid, for the join */
	add	x19, x19, #1
	cmp	x19, #3
	b.ne	spawn

	mov	w10, #WORK		/* main's own work */
	mov	w20, #0
1:	add	w20, w20, w10
	subs	w10, w10, #1
	b.ne	1b

	adrp	x0, go
	add	x0, x0, :lo12:go
	mov	w9, #1
	str	w9, [x0]
	mov	x1, #129		/* FUTEX_WAKE_PRIVATE */
	mov	x2, #0x7fffffff		/* every waiter */
	mov	x8, #98			/* futex */
	svc	#0

	mov	x19, #0
join:
	adrp	x0, tids
	add	x0, x0, :lo12:tids
	add	x0, x0, x19, lsl #2	/* &tids[i] */
	adrp	x9, expect
	add	x9, x9, :lo12:expect
	ldr	w2, [x9, x19, lsl #2]	/* while it holds the child's tid */
	mov	x1, #0			/* FUTEX_WAIT (the kernel's wake is shared) */
	mov	x3, #0			/* no timeout */
	mov	x8, #98			/* futex */
	svc	#0
	add	x19, x19, #1
	cmp	x19, #3
	b.ne	join

	adrp	x9, results
	add	x9, x9, :lo12:results
	ldr	w0, [x9]
	ldr	w1, [x9, #4]
	add	w0, w0, w1
	ldr	w1, [x9, #8]
	add	w0, w0, w1
	adrp	x9, tids		/* each 0 once its thread exited */
	add	x9, x9, :lo12:tids
	ldr	w1, [x9]
	add	w0, w0, w1
	ldr	w1, [x9, #4]
	add	w0, w0, w1
	ldr	w1, [x9, #8]
	add	w0, w0, w1
	add	w0, w0, w20
	and	w0, w0, #0xff
	mov	x8, #93			/* exit: the last thread's ends the process */
	svc	#0

child:					/* x19 = i, sp = its own stack */
	adrp	x0, go
	add	x0, x0, :lo12:go
	mov	x1, #128		/* FUTEX_WAIT_PRIVATE */
	mov	x2, #0			/* while go == 0 */
	mov	x3, #0			/* no timeout */
	mov	x8, #98			/* futex */
	svc	#0
	add	w10, w19, #1
	mov	w11, #LOOP
	mul	w10, w10, w11		/* n = 10000*(i+1) */
	mov	w12, #0
1:	add	w12, w12, w10
	subs	w10, w10, #1
	b.ne	1b
	adrp	x9, results
	add	x9, x9, :lo12:results
	str	w12, [x9, x19, lsl #2]
	mov	x0, #0
	mov	x8, #93			/* exit: this thread only */
	svc	#0

	.bss
	.balign	4096
stacks:	.space	3*4096
go:	.space	4
tids:	.space	3*4
expect:	.space	3*4
results: .space	3*4

	.section .note.GNU-stack,"",@progbits
