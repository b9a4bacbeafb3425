# Three innermost loops, the shallowest first: a[i] = 0 (depth 1); the
# inner loop of a nest, b[i][j] = a[j] * s over rows of 100 doubles
# (depth 2); the inner loop of a 3-deep nest that calls a function
# (depth 3, refused). mdl predict and replay take the depth-2 loop: the
# deepest one that extraction accepts.
	.text
	.globl nest_pick
	.type nest_pick, @function
nest_pick:
	xorq	%rax, %rax
.Lzero:
	movq	$0, (%rdi,%rax,8)
	incq	%rax
	cmpq	%rcx, %rax
	jl	.Lzero
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
	addq	$800, %rsi
	incq	%r8
	cmpq	%r9, %r8
	jl	.Lrow
	xorq	%r10, %r10
.Lplane:
	xorq	%r8, %r8
.Lrow3:
	xorq	%rax, %rax
.Lcol3:
	call	nest_helper
	incq	%rax
	cmpq	%rcx, %rax
	jl	.Lcol3
	incq	%r8
	cmpq	%r9, %r8
	jl	.Lrow3
	incq	%r10
	cmpq	%r11, %r10
	jl	.Lplane
	ret
	.size nest_pick, .-nest_pick

	.globl nest_helper
	.type nest_helper, @function
nest_helper:
	ret
	.size nest_helper, .-nest_helper
