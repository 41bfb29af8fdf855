# code1: flat code for remap.S (objcopy -O binary): returns 7.
# 2 instructions, 6 bytes, one block.
	.text
	mov $7, %eax
	ret
