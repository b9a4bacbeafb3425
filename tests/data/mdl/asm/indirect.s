	.text
	.globl indirect
	.type indirect, @function
indirect:
.L1:
	movslq	(%rsi), %rax
	movsd	(%rdx,%rax,8), %xmm0
	movsd	%xmm0, (%rdi)
	addq	$4, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size indirect, .-indirect
