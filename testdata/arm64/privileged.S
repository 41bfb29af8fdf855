/*
# icount: instructions=104 blocks=19 exit=105

privileged.S: system instructions at EL0, as Linux runs user programs.
wfi and wfe return at once (each counts as one instruction and ends its
block); the cache maintenance EL0 may do runs (dc zva, dc cvau, dc civac,
ic ivau on the stack); and five instructions EL0 may not execute are
undefined there: msr daifset, mrs of SCTLR_EL1, dc ivac, tlbi vmalle1
and eret, each delivered as SIGILL with si_code ILL_ILLOPC (1) and
si_addr the instruction. The SIGILL handler adds to the saved x19
1 + (signo - 4) + (si_code - 1) + (si_addr - pc), which is 1 when the
frame is right, and moves the saved pc past the instruction. The exit
status is 100 + 5 = 105. (qemu-aarch64 exits 110: its user mode sends
ILL_ILLOPN for an undefined instruction, where Linux sends ILL_ILLOPC,
arch/arm64/kernel/traps.c do_undefinstr.)

Translated blocks:

  A  _start: install_handler                              13  x1
  B  mov x19, #100, [wfi]                                  2  x1
  C  [wfe]                                                 1  x1
  D  mov x0, sp, dc zva, dc cvau, dc civac, ic ivau, [msr daifset refused]
                                                           5 completed
  H  handler: sub, ldrsw, sub, add, ldr, ldr, sub, add, ldr, add,
     str, add, str, ret                                   14  x5
  T  the trampoline: mov x8, #139; svc #0                 2   x5
  E1-E4  mrs, dc ivac, tlbi, eret: each block entered at the
     instruction the handler resumes at, refused there     0  x1 each
  F  mov x0, x19, mov x8, #94, svc                         3  x1

  instructions = 13 + 2 + 1 + 5 + 5*14 + 5*2 + 0 + 3 = 104
  blocks       = 1 + 1 + 1 + 1 + 5 + 5 + 4 + 1 = 19

The first entries of B, C, D and E1-E4 were not counted: each first
sight hooked an instruction of the block and restarted it, so that the
hook is compiled into its translation. The refused instructions do not
count.
*/
#include "signal.inc"

	.text
	.globl	_start
_start:
	install_handler 4	/* SIGILL */
	mov	x19, #100
	wfi
	wfe
	mov	x0, sp
	dc	zva, x0
	dc	cvau, x0
	dc	civac, x0
	ic	ivau, x0
	msr	daifset, #2
	mrs	x1, sctlr_el1
	dc	ivac, x0
	tlbi	vmalle1
	eret
	mov	x0, x19
	mov	x8, #94			/* exit_group */
	svc	#0

handler:				/* x0 = signo, x1 = siginfo, x2 = ucontext */
	sub	x9, x0, #3		/* signo 4: 1 */
	ldrsw	x10, [x1, #8]		/* si_code */
	sub	x10, x10, #1		/* ILL_ILLOPC */
	add	x9, x9, x10
	ldr	x10, [x1, #16]		/* si_addr */
	ldr	x11, [x2, #440]		/* uc_mcontext.pc */
	sub	x10, x10, x11		/* the instruction: 0 */
	add	x9, x9, x10
	ldr	x10, [x2, #336]		/* uc_mcontext.regs[19] */
	add	x10, x10, x9
	str	x10, [x2, #336]
	add	x11, x11, #4
	str	x11, [x2, #440]
	ret

	.section .note.GNU-stack,"",@progbits
