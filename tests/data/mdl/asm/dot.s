	.text
	.globl dot
	.type dot, @function
dot:
	pxor	%xmm0, %xmm0
.L1:
	movsd	(%rdi), %xmm1
	mulsd	(%rsi), %xmm1
	addsd	%xmm1, %xmm0
	addq	$8, %rdi
	addq	$8, %rsi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size dot, .-dot
