	.text
	.globl stencil
	.type stencil, @function
stencil:
.L1:
	movsd	-8(%rsi), %xmm1
	addsd	(%rsi), %xmm1
	addsd	8(%rsi), %xmm1
	mulsd	%xmm0, %xmm1
	movsd	%xmm1, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size stencil, .-stencil
