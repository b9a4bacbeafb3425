# A function that is only a local label (no .globl, no .type), with a
# named label inside it: --function names it, and it reaches the end of
# its section (the inner label does not cut it).
	.text
sum:
	xorpd	%xmm0, %xmm0
again:
	addsd	(%rdi), %xmm0
	addq	$8, %rdi
	decq	%rcx
	jnz	again
	ret
