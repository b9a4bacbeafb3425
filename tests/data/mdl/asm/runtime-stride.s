# c[i*n+j] += a[j*n+i] over j, n known only at run time (gcc -O2): the
# column's pointer steps by a register. MDL needs a stride in bytes;
# refused, and the reason names the register.
	.text
	.globl runtime_stride
	.type runtime_stride, @function
runtime_stride:
	leaq	0(,%rdx,8), %r8
	xorl	%eax, %eax
.L1:
	movsd	(%rdi,%rax,8), %xmm0
	addsd	(%rcx), %xmm0
	movsd	%xmm0, (%rdi,%rax,8)
	addq	$1, %rax
	addq	%r8, %rcx
	cmpq	%rax, %rdx
	jne	.L1
	ret
	.size runtime_stride, .-runtime_stride
