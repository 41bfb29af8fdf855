# code3: flat code for remap.S (objcopy -O binary): returns 1. 6 bytes
# like code1, so its block has code1's address and size, with 4
# instructions where code1 has 2.
	.text
	xor %eax, %eax
	inc %eax
	nop
	ret
