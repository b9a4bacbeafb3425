	.text
	.globl stack_misaligned
	.type stack_misaligned, @function
# A loop reading a 16-byte slot at -0x18(%rsp) with movaps, as gcc -O2
# compiles nussinov in a function that does not touch %rsp: at entry
# %rsp is 8 past a 16-byte boundary, so the slot is aligned there.
stack_misaligned:
.L1:
	movupd	(%rsi), %xmm0
	movaps	%xmm0, -0x18(%rsp)
	addpd	-0x18(%rsp), %xmm1
	addq	$16, %rsi
	cmpq	%rcx, %rsi
	jne	.L1
	ret
	.size stack_misaligned, .-stack_misaligned
