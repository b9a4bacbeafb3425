	.text
	.globl spilled_sum
	.type spilled_sum, @function
# A sum whose accumulator lives in a stack slot: each iteration's add
# waits for the last one's store and the load of it.
spilled_sum:
.L1:
	movsd	-8(%rsp), %xmm0
	addsd	(%rsi), %xmm0
	movsd	%xmm0, -8(%rsp)
	addq	$8, %rsi
	cmpq	%rcx, %rsi
	jne	.L1
	ret
	.size spilled_sum, .-spilled_sum
