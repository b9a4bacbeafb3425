	.text
	.globl two_bases
	.type two_bases, @function
two_bases:
	leaq	8(%rdi), %rsi
.L1:
	movsd	(%rdi), %xmm0
	addsd	(%rsi), %xmm0
	movsd	%xmm0, (%rdi)
	addq	$8, %rdi
	addq	$8, %rsi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size two_bases, .-two_bases
