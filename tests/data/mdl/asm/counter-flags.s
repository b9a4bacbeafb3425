	.text
	.globl counter_flags
	.type counter_flags, @function
# A counter running up to zero whose own add sets the flags the jump
# reads, as clang -O2 compiles seidel-2d: no compare in the loop.
counter_flags:
.L1:
	movsd	(%rsi,%rax), %xmm0
	addsd	%xmm1, %xmm0
	movsd	%xmm0, (%rdi,%rax)
	addq	$8, %rax
	jne	.L1
	ret
	.size counter_flags, .-counter_flags
