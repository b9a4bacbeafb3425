	.text
	.globl two_independent
	.type two_independent, @function
two_independent:
.L1:
	movsd	(%rsi), %xmm1
	addsd	(%rdx), %xmm1
	movsd	%xmm1, (%rdi)
	movsd	(%r8), %xmm2
	mulsd	(%r9), %xmm2
	movsd	%xmm2, (%r10)
	addq	$8, %rsi
	addq	$8, %rdx
	addq	$8, %rdi
	addq	$8, %r8
	addq	$8, %r9
	addq	$8, %r10
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size two_independent, .-two_independent
