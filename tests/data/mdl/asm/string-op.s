# Copies of rdx bytes, r8 times, by rep movsb: a string instruction moves
# its own address registers (%rsi, %rdi): refused, and the reason says so.
	.text
	.globl string_op
	.type string_op, @function
string_op:
.Lcopy:
	movq	%rdx, %rcx
	rep movsb
	decq	%r8
	jnz	.Lcopy
	ret
	.size string_op, .-string_op
