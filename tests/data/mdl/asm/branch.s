	.text
	.globl branchy
	.type branchy, @function
branchy:
.L1:
	movsd	(%rsi), %xmm0
	ucomisd	%xmm1, %xmm0
	jbe	.L2
	movsd	%xmm0, (%rdi)
.L2:
	addq	$8, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size branchy, .-branchy
