	.text
	.globl triad_x4
	.type triad_x4, @function
triad_x4:
.L1:
	movsd	(%rsi), %xmm1
	mulsd	%xmm0, %xmm1
	addsd	(%rdx), %xmm1
	movsd	%xmm1, (%rdi)
	movsd	8(%rsi), %xmm2
	mulsd	%xmm0, %xmm2
	addsd	8(%rdx), %xmm2
	movsd	%xmm2, 8(%rdi)
	movsd	16(%rsi), %xmm3
	mulsd	%xmm0, %xmm3
	addsd	16(%rdx), %xmm3
	movsd	%xmm3, 16(%rdi)
	movsd	24(%rsi), %xmm4
	mulsd	%xmm0, %xmm4
	addsd	24(%rdx), %xmm4
	movsd	%xmm4, 24(%rdi)
	addq	$32, %rsi
	addq	$32, %rdx
	addq	$32, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size triad_x4, .-triad_x4
