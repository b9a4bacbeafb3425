	.section .rodata
	.p2align 5
# lanes of [this load | the last one]: the last one's lane 3, then this
# one's lanes 0, 1, 2
.Lindex:
	.quad	7, 0, 1, 2
	.text
	.globl permute_rodata
	.type permute_rodata, @function
# A 3-point stencil as clang -O3 -march=x86-64-v4 vectorises jacobi-2d:
# the load of a[i+2..i+5] is kept for the next iteration and a vpermt2pd
# whose index vector comes from .rodata (loaded before the loop) makes
# a[i+1..i+4]. Extraction reads the index from the linked binary.
permute_rodata:
	vmovapd	.Lindex(%rip), %ymm0
.L1:
	vmovupd	16(%rsi), %ymm3
	vmovapd	%ymm3, %ymm4
	vpermt2pd	%ymm2, %ymm0, %ymm4
	vaddpd	(%rsi), %ymm4, %ymm4
	vaddpd	%ymm3, %ymm4, %ymm4
	vmulpd	%ymm1, %ymm4, %ymm4
	vmovupd	%ymm4, 8(%rdi)
	vmovapd	%ymm3, %ymm2
	addq	$32, %rsi
	addq	$32, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size permute_rodata, .-permute_rodata
