# y[i] = (double)x[i] * 0.5 with int x, as gcc -O3 -march=x86-64-v3
# vectorises it: eight ints a step, the high four through vextracti128
# before their conversion. The extract moves 16 bytes holding four ints:
# each int stays its own lane (one µkernel, re-rolled 8 times).
	.text
	.globl convert_halves
	.type convert_halves, @function
convert_halves:
	vbroadcastsd	.Lhalf(%rip), %ymm1
	xorl	%eax, %eax
.L1:
	vcvtdq2pd	(%rsi,%rax), %ymm0
	vmovdqu	(%rsi,%rax), %ymm3
	vmulpd	%ymm1, %ymm0, %ymm0
	vmovupd	%ymm0, (%rcx,%rax,2)
	vextracti128	$0x1, %ymm3, %xmm0
	vcvtdq2pd	%xmm0, %ymm0
	vmulpd	%ymm1, %ymm0, %ymm0
	vmovupd	%ymm0, 0x20(%rcx,%rax,2)
	addq	$0x20, %rax
	cmpq	%rax, %rdi
	jne	.L1
	vzeroupper
	ret
	.size convert_halves, .-convert_halves
	.section .rodata
	.align 8
.Lhalf:
	.double 0.5
