	.text
	.globl stencil_x2
	.type stencil_x2, @function
stencil_x2:
.L1:
	movsd	-8(%rsi), %xmm1
	addsd	(%rsi), %xmm1
	addsd	8(%rsi), %xmm1
	mulsd	%xmm0, %xmm1
	movsd	%xmm1, (%rdi)
	movsd	(%rsi), %xmm2
	addsd	8(%rsi), %xmm2
	addsd	16(%rsi), %xmm2
	mulsd	%xmm0, %xmm2
	movsd	%xmm2, 8(%rdi)
	addq	$16, %rsi
	addq	$16, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size stencil_x2, .-stencil_x2
