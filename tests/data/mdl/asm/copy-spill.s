	.text
	.globl copy_spill
	.type copy_spill, @function
copy_spill:
.L1:
	movsd	(%rsi), %xmm0
	movsd	%xmm0, -8(%rsp)
	movsd	-8(%rsp), %xmm1
	movsd	%xmm1, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size copy_spill, .-copy_spill
