	.text
	.globl triad_avx512
	.type triad_avx512, @function
# The triad in AVX-512 (EVEX, zmm): it extracts anywhere; its replay
# runs only where the CPU has avx512f and avx512vl, and is refused with
# the reason elsewhere.
triad_avx512:
	vbroadcastsd	%xmm0, %zmm0
	xorl	%eax, %eax
.L1:
	vmovupd	(%rsi,%rax), %zmm1
	vfmadd213pd	(%rdx,%rax), %zmm0, %zmm1
	vmovupd	%zmm1, (%rdi,%rax)
	addq	$64, %rax
	cmpq	%rcx, %rax
	jne	.L1
	vzeroupper
	ret
	.size triad_avx512, .-triad_avx512
