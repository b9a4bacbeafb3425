	.text
	.globl triad_avx2
	.type triad_avx2, @function
triad_avx2:
	vbroadcastsd	%xmm0, %ymm0
	xorl	%eax, %eax
.L1:
	vmovupd	(%rsi,%rax), %ymm1
	vmovupd	32(%rsi,%rax), %ymm2
	vfmadd213pd	(%rdx,%rax), %ymm0, %ymm1
	vfmadd213pd	32(%rdx,%rax), %ymm0, %ymm2
	vmovupd	%ymm1, (%rdi,%rax)
	vmovupd	%ymm2, 32(%rdi,%rax)
	addq	$64, %rax
	cmpq	%rcx, %rax
	jne	.L1
	vzeroupper
	ret
	.size triad_avx2, .-triad_avx2
