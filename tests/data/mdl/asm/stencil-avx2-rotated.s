	.text
	.globl stencil_rotated
	.type stencil_rotated, @function
# A 3-point stencil as clang -O3 -march=x86-64-v3 vectorises jacobi-2d:
# the load of a[i+2..i+5] is kept in a register for the next iteration
# and two shuffles by an immediate make a[i+1..i+4] of the previous
# one and this one.
stencil_rotated:
.L1:
	vmovupd	16(%rsi), %ymm2
	vperm2f128	$0x21, %ymm2, %ymm1, %ymm1
	vshufpd	$0x5, %ymm2, %ymm1, %ymm1
	vaddpd	(%rsi), %ymm1, %ymm1
	vaddpd	%ymm2, %ymm1, %ymm1
	vmulpd	%ymm0, %ymm1, %ymm1
	vmovupd	%ymm1, 8(%rdi)
	vmovapd	%ymm2, %ymm1
	addq	$32, %rsi
	addq	$32, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size stencil_rotated, .-stencil_rotated
