	.text
	.globl eight
	.type eight, @function
eight:
.L1:
	movsd	(%rsi), %xmm0
	addsd	(%rdx), %xmm0
	addsd	(%r8), %xmm0
	addsd	(%r9), %xmm0
	addsd	(%r10), %xmm0
	addsd	(%r11), %xmm0
	addsd	(%rbx), %xmm0
	movsd	%xmm0, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdx
	addq	$8, %r8
	addq	$8, %r9
	addq	$8, %r10
	addq	$8, %r11
	addq	$8, %rbx
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size eight, .-eight
