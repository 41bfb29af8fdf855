/*
# icount: instructions=66178 blocks=62029 exit=107
# icount-threads: 6109 10023 20023 30023

threads_rep.S: threads.S with each child's loop replaced by one rep stosb
of n = 10000*(i+1) bytes: a rep string instruction runs as n + 1
executions of itself (rep.S), so at --quantum 1024 each child is switched
out in the middle of its rep dozens of times, and must resume it where it
stopped and count exactly the same (cmd/icount/threads_test.go runs it at
several quanta and checks each thread's share, the icount-threads line:
main's, then children 0, 1 and 2's).

The main thread is threads.S's (threads_main.inc): 6109
instructions in 2017 blocks (see threads.S). Child i stores n bytes of 1 at
buf + 65536*i and sets results[i] to the last byte it stored (1) plus rcx
(0 once the rep is done), then exits.

  exit status = low byte of results[0..2] + tids[0..2] (all 0) + ebx
              = 1 + 1 + 1 + 0 + 2001000 = 2001003 = 0x1e886b -> 0x6b = 107

child i (n = 10000*(i+1))
  T  test, jz                                                   2  x1
  C1 child: lea, mov, xor, xor, mov, syscall(futex wait)        6  x1
  C2 lea, imul, mov, shl, lea, add, mov, rep stosb
     (iteration 1)                                              8  x1
  R  rep stosb (iterations 2..n, then the entry finding rcx 0)  1  xn
  C3 movzbl, add, lea, mov, xor, mov, syscall(exit)             7  x1

  child instructions = 2 + 6 + 8 + n + 7 = n + 23
  child blocks       = 1 + 1 + 1 + n + 1 = n + 4
  children 0, 1, 2: 10023, 20023, 30023 instructions (60069);
                    10004, 20004, 30004 blocks (60012)

  instructions = 6109 + 60069 = 66178
  blocks       = 2017 + 60012 = 62029
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
	mov	%ebp, %edi
	shl	$16, %edi
	lea	buf(%rip), %rax
	add	%rax, %rdi		/* buf + 65536*i */
	mov	$1, %al
	rep stosb			/* n bytes of 1 */
	movzbl	-1(%rdi), %eax		/* the last byte stored: 1 */
	add	%ecx, %eax		/* + rcx, 0 when the rep is done */
	lea	results(%rip), %rdx
	mov	%eax, (%rdx,%rbp,4)
	xor	%edi, %edi
	mov	$60, %eax		/* exit: this thread only */
	syscall

	.bss
	.balign	4096
buf:	.space	3*65536

	.section .note.GNU-stack,"",@progbits
