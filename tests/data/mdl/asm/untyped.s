# As hand-written assembly often is: a global label without .type or
# .size; the function reaches the end of its section.
	.text
	.globl untyped
untyped:
	xorl	%eax, %eax
1:
	movsd	(%rdi,%rax,8), %xmm0
	addsd	(%rsi,%rax,8), %xmm0
	movsd	%xmm0, (%rdx,%rax,8)
	incq	%rax
	cmpq	%rcx, %rax
	jne	1b
	ret
