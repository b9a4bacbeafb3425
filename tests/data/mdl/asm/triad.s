	.text
	.globl triad
	.type triad, @function
triad:
	xorl	%eax, %eax
.L1:
	movsd	(%rsi,%rax,8), %xmm1
	mulsd	%xmm0, %xmm1
	addsd	(%rdx,%rax,8), %xmm1
	movsd	%xmm1, (%rdi,%rax,8)
	addq	$1, %rax
	cmpq	%rcx, %rax
	jne	.L1
	ret
	.size triad, .-triad
