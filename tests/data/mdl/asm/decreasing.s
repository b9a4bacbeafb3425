	.text
	.globl decreasing
	.type decreasing, @function
decreasing:
.L1:
	movsd	(%rsi), %xmm1
	mulsd	%xmm0, %xmm1
	addsd	(%rdx), %xmm1
	movsd	%xmm1, (%rdi)
	subq	$8, %rsi
	subq	$8, %rdx
	subq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size decreasing, .-decreasing
