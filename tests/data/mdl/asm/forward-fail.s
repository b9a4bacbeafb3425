	.text
	.globl forward_fail
	.type forward_fail, @function
# Two 8-byte stores to a stack slot and a 16-byte load of both, as gcc
# -O2 assembles nussinov's vector: no one store forwards to the load.
forward_fail:
.L1:
	movq	(%rsi), %rax
	movq	8(%rsi), %rdx
	movq	%rax, -24(%rsp)
	movq	%rdx, -16(%rsp)
	movdqu	-24(%rsp), %xmm0
	paddq	%xmm0, %xmm1
	addq	$16, %rsi
	cmpq	%rcx, %rsi
	jne	.L1
	ret
	.size forward_fail, .-forward_fail
