# LLVM-MCA-BEGIN b0
addq %rax, %rbx
imulq %rbx, %rbx
# LLVM-MCA-END b0
# LLVM-MCA-BEGIN b1
vaddpd %ymm0, %ymm1, %ymm2
jne 1f
1:
# LLVM-MCA-END b1
