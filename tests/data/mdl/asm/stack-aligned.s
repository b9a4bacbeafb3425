	.text
	.globl stack_aligned
	.type stack_aligned, @function
# A loop using a 32-byte aligned stack slot, as gcc -O3 -march=x86-64-v3
# compiles nussinov after realigning its frame (and $-32, %rsp).
stack_aligned:
.L1:
	vmovupd	(%rsi), %ymm0
	vmovdqa	%ymm0, -0x20(%rsp)
	vaddpd	-0x20(%rsp), %ymm1, %ymm1
	addq	$32, %rsi
	cmpq	%rcx, %rsi
	jne	.L1
	ret
	.size stack_aligned, .-stack_aligned
