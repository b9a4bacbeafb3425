# A copy whose value goes through a slot of a frame that %rbp points
# at (push %rbp; mov %rsp, %rbp, as -O0 or -fno-omit-frame-pointer
# keep it): -8(%rbp) is a spill and its fill, not a stream.
	.text
	.globl frame_spill
	.type frame_spill, @function
frame_spill:
	pushq	%rbp
	movq	%rsp, %rbp
	xorl	%eax, %eax
.L1:
	movsd	(%rsi,%rax,8), %xmm0
	movsd	%xmm0, -8(%rbp)
	movsd	-8(%rbp), %xmm1
	movsd	%xmm1, (%rdi,%rax,8)
	addq	$1, %rax
	cmpq	%rcx, %rax
	jne	.L1
	popq	%rbp
	ret
	.size frame_spill, .-frame_spill
