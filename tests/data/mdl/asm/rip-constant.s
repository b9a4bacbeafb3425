	.section .rodata
	.p2align 3
.Lscale:
	.double	2.5
	.text
	.globl rip_constant
	.type rip_constant, @function
# A loop reading a constant of .rodata inside the loop (RIP-relative):
# its replay copies the constant from the linked binary.
rip_constant:
.L1:
	movsd	(%rsi), %xmm0
	mulsd	.Lscale(%rip), %xmm0
	movsd	%xmm0, (%rdi)
	addq	$8, %rsi
	addq	$8, %rdi
	cmpq	%rcx, %rdi
	jne	.L1
	ret
	.size rip_constant, .-rip_constant
