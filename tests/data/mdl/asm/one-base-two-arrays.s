	.text
	.globl one_base_two_arrays
	.type one_base_two_arrays, @function
one_base_two_arrays:
.L1:
	movsd	(%rdi), %xmm0
	addsd	0x8000(%rdi), %xmm0
	movsd	%xmm0, 0x10000(%rdi)
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size one_base_two_arrays, .-one_base_two_arrays
