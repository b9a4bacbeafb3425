	.text
	.globl recurrence
	.type recurrence, @function
# a[i] = (a[i-1] + b[i]) / c: each iteration loads what the last stored.
recurrence:
	xorl	%eax, %eax
.L1:
	movsd	-8(%rdi,%rax,8), %xmm0
	addsd	(%rsi,%rax,8), %xmm0
	divsd	%xmm2, %xmm0
	movsd	%xmm0, (%rdi,%rax,8)
	addq	$1, %rax
	cmpq	%rcx, %rax
	jne	.L1
	ret
	.size recurrence, .-recurrence
