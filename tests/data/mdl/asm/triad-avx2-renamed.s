	.text
	.globl triad_avx2_renamed
	.type triad_avx2_renamed, @function
triad_avx2_renamed:
	vbroadcastsd	%xmm3, %ymm3
	xorl	%eax, %eax
.L1:
	vmovupd	(%r8,%r11), %ymm7
	vmovupd	32(%r8,%r11), %ymm5
	vfmadd213pd	(%r9,%r11), %ymm3, %ymm7
	vfmadd213pd	32(%r9,%r11), %ymm3, %ymm5
	vmovupd	%ymm7, (%r10,%r11)
	vmovupd	%ymm5, 32(%r10,%r11)
	addq	$64, %r11
	cmpq	%rcx, %r11
	jne	.L1
	vzeroupper
	ret
	.size triad_avx2_renamed, .-triad_avx2_renamed
