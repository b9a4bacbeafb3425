	.text
	.globl dot_global
	.type dot_global, @function
dot_global:
	pxor	%xmm0, %xmm0
	xorl	%eax, %eax
.L1:
	movsd	(%rdi,%rax,8), %xmm1
	mulsd	(%rsi,%rax,8), %xmm1
	addsd	%xmm1, %xmm0
	movsd	%xmm0, acc(%rip)
	addq	$1, %rax
	cmpq	$1000, %rax
	jne	.L1
	ret
	.size dot_global, .-dot_global
	.data
acc:	.double 0
