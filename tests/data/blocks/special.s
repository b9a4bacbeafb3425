# loop and jrcxz branch, syscall falls through, ud2 stops, AVX-512.
	.text
	.globl	f
	.type	f, @function
f:
	vaddpd	%zmm1, %zmm2, %zmm3{%k1}	# 0x0  block 0
	vextractf32x4 $1, %ymm1, %xmm2	# 0x6
1:	dec	%edi			# 0xd  block 1
	loop	1b			# 0xf  -> 1, 2
	jrcxz	2f			# 0x11 block 2 -> 4, 3
	syscall				# 0x13 block 3 -> 4
2:	int3				# 0x15 block 4: nothing follows
	ud2				# 0x16 block 5: nothing follows
	.size	f, .-f
