	.text
	.globl running_max
	.type running_max, @function
# m = max(m, a[i] + b[i]) with a compare and a cmov, as clang -O2
# compiles nussinov: the cmov keeps m when it does not move, so m is a
# recurrence through the compare and the cmov, and a[i], b[i] and m are
# one µkernel.
running_max:
.L1:
	movl	(%rsi), %edx
	addl	(%rdi), %edx
	cmpl	%edx, %eax
	cmovl	%edx, %eax
	addq	$4, %rsi
	addq	$4, %rdi
	cmpq	%rcx, %rsi
	jne	.L1
	ret
	.size running_max, .-running_max
