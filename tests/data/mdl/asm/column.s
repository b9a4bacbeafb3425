	.text
	.globl column
	.type column, @function
column:
.L1:
	movsd	(%rsi), %xmm0
	addsd	%xmm1, %xmm0
	movsd	%xmm0, (%rdi)
	addq	$3200, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size column, .-column
