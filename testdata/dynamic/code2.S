# code2: flat code for remap.S (objcopy -O binary): returns 30 = 10 * 3.
# 2 + 3*10 + 1 = 33 instructions; blocks: xor/mov/add/dec/jnz (14 bytes,
# entered once), add/dec/jnz (from the loop's jump back, 9 times), ret.
	.text
	xor %eax, %eax
	mov $10, %ecx
1:	add $3, %eax
	dec %ecx
	jnz 1b
	ret
