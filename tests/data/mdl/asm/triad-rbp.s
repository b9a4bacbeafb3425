# The triad with one array through %rbp, as gcc and clang use it from
# -O1 (no frame pointer: %rbp is one more general register). Its
# accesses are a stream, not stack slots.
	.text
	.globl triad_rbp
	.type triad_rbp, @function
triad_rbp:
	pushq	%rbp
	movq	%rsi, %rbp
	xorl	%eax, %eax
.L1:
	movsd	(%rbp,%rax,8), %xmm1
	mulsd	%xmm0, %xmm1
	addsd	(%rdx,%rax,8), %xmm1
	movsd	%xmm1, (%rdi,%rax,8)
	addq	$1, %rax
	cmpq	%rcx, %rax
	jne	.L1
	popq	%rbp
	ret
	.size triad_rbp, .-triad_rbp
