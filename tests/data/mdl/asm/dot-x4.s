	.text
	.globl dot_x4
	.type dot_x4, @function
dot_x4:
	pxor	%xmm0, %xmm0
	pxor	%xmm2, %xmm2
	pxor	%xmm4, %xmm4
	pxor	%xmm6, %xmm6
.L1:
	movsd	(%rdi), %xmm1
	mulsd	(%rsi), %xmm1
	addsd	%xmm1, %xmm0
	movsd	8(%rdi), %xmm3
	mulsd	8(%rsi), %xmm3
	addsd	%xmm3, %xmm2
	movsd	16(%rdi), %xmm5
	mulsd	16(%rsi), %xmm5
	addsd	%xmm5, %xmm4
	movsd	24(%rdi), %xmm7
	mulsd	24(%rsi), %xmm7
	addsd	%xmm7, %xmm6
	addq	$32, %rdi
	addq	$32, %rsi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size dot_x4, .-dot_x4
