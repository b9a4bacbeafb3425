# A diamond, an indirect jump, a tail jump out, a forward skip.
	.text
	.globl	f
	.type	f, @function
f:
	test	%edi, %edi		# 0x0  block 0
	je	2f			# 0x2  -> 2, 1
	add	$1, %edi		# 0x4  block 1
	jmp	3f			# 0x7  -> 3
2:	sub	$1, %edi		# 0x9  block 2 -> 3 (falls through)
3:	cmp	$4, %edi		# 0xc  block 3
	ja	4f			# 0xf  -> 5, 4
	jmp	*%rax			# 0x11 block 4 -> exit
4:	jmp	g			# 0x13 block 5: tail call -> exit
	.size	f, .-f
	.type	g, @function
g:
	ret
	.size	g, .-g
