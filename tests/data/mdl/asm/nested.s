# b[i][j] = a[i][j] * s over rows of 100 doubles: the inner loop is the
# innermost, though the outer loop's back edge enters the block before it.
	.text
	.globl nested
	.type nested, @function
nested:
	xorq	%r8, %r8
.Lrow:
	xorq	%rax, %rax
.Lcol:
	movsd	(%rdi,%rax,8), %xmm0
	mulsd	%xmm1, %xmm0
	movsd	%xmm0, (%rsi,%rax,8)
	incq	%rax
	cmpq	%rcx, %rax
	jl	.Lcol
	addq	$800, %rdi
	addq	$800, %rsi
	incq	%r8
	cmpq	%r9, %r8
	jl	.Lrow
	ret
	.size nested, .-nested
