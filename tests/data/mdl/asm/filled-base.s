# The triad as a register allocator short of registers leaves it (gcc
# -O2 on PolyBench's heat-3d main): one array's pointer and the loop's
# bound live in stack slots that the loop reads and never writes. The
# fill of %r9 is an invariant, not an indirect access; replay puts the
# array's address and the bound in those slots.
	.text
	.globl filled_base
	.type filled_base, @function
filled_base:
	subq	$40, %rsp
	movq	%rsi, 16(%rsp)
	movq	%rcx, 32(%rsp)
	xorl	%eax, %eax
.L1:
	movq	16(%rsp), %r9
	movsd	(%r9,%rax,8), %xmm1
	mulsd	%xmm0, %xmm1
	addsd	(%rdx,%rax,8), %xmm1
	movsd	%xmm1, (%rdi,%rax,8)
	addq	$1, %rax
	cmpq	%rax, 32(%rsp)
	jne	.L1
	addq	$40, %rsp
	ret
	.size filled_base, .-filled_base
