	.text
	.globl stride4
	.type stride4, @function
stride4:
.L1:
	movsd	(%rsi), %xmm0
	movsd	%xmm0, (%rdi)
	addq	$32, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size stride4, .-stride4
