# A sum through a register saved and restored around its use in the
# loop: push and pop move %rsp every iteration, and the stack slot is
# no spill of a fixed frame; refused, and the reason says so.
	.text
	.globl push_pop
	.type push_pop, @function
push_pop:
	xorl	%eax, %eax
.Lsum:
	pushq	%rbx
	movq	(%rsi), %rbx
	addq	%rbx, %rax
	popq	%rbx
	addq	$8, %rsi
	decq	%rcx
	jnz	.Lsum
	ret
	.size push_pop, .-push_pop
