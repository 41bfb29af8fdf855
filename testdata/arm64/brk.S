/*
# icount: instructions=2 blocks=1 exit=133

brk.S: a breakpoint instruction with no debugger attached ends the run as
Linux ends it, with SIGTRAP (exit status 128 + 5 = 133). The emulated CPU
raises its breakpoint exception with the PC at the brk, which did not
complete and is not counted.

Translated blocks (an exception-raising instruction ends its block):

  A  _start: mov, mov, brk                  3 in the block, 2 completed

  instructions = 2
  blocks       = 1
*/
	.text
	.globl	_start
_start:
	mov	x0, #1
	mov	x1, #2
	brk	#0x3e8
	mov	x8, #94			/* exit_group, never reached */
	svc	#0

	.section .note.GNU-stack,"",@progbits
