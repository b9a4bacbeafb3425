	.text
	.globl triad_masked
	.type triad_masked, @function
# The triad in AVX-512 under writemasks, as hand-written loops use them:
# a zero-masked load, a merge-masked FMA, a masked store. A mask says
# which lanes are written; it is no operand of the computation, and the
# loop extracts as the unmasked triad.
triad_masked:
	vbroadcastsd	%xmm0, %zmm0
	kxnorw	%k0, %k0, %k1
	xorl	%eax, %eax
.L1:
	vmovupd	(%rsi,%rax,8), %zmm1{%k1}{z}
	vfmadd213pd	(%rdx,%rax,8), %zmm0, %zmm1{%k1}
	vmovupd	%zmm1, (%rdi,%rax,8){%k1}
	addq	$8, %rax
	cmpq	%rcx, %rax
	jb	.L1
	vzeroupper
	ret
	.size triad_masked, .-triad_masked
