# A counted loop, a call out of the function, a return.
	.text
	.globl	f
	.type	f, @function
f:
	mov	$0, %eax		# 0x0  block 0
1:	add	$1, %rax		# 0x5  block 1 (loop head)
	cmp	$10, %rax		# 0x9
	jne	1b			# 0xd  -> 1, 2
	call	g			# 0xf  block 2 -> 3
	ret				# 0x14 block 3 -> exit
	.size	f, .-f
	.type	g, @function
g:
	ret
	.size	g, .-g
