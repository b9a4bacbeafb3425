/*
 * The stub that runs inside bprof's sandbox. It is data here (.rodata):
 * the parent copies its bytes to the start of the sandbox, and the child,
 * having unmapped everything else (libc and loopkit included), runs only
 * this code, the calibration chain and the block. So it is position
 * independent, calls nothing, and reaches the control block RIP-relative
 * at a fixed distance (SBX_CTL) from its own start; internal references
 * use local labels so the assembler resolves them (a global symbol would
 * leave a relocation).
 *
 * main:    unmap [0, sandbox) and [sandbox end, top of user space); map
 *          the code region at its address, copy the image there, unmap
 *          the staged copy, make the code r-x; run each entry twice, one
 *          pass, untimed (this maps every page the code touches, and
 *          times one pass); choose the passes per timed run; then reps x
 *          the four entries, timed; exit.
 * run:     refill the shared page with the value, set the vector state,
 *          read the PMU (if any), rdtscp+lfence, set every general
 *          register (rsp and rbp included) to the value, jump to the
 *          entry; the code's trailer jumps back to 'back', which makes
 *          the next pass (lfence: the last pass is over; registers reset
 *          again) or ends the run:
 *          rdtscp+lfence, restore the stub's stack.
 * handler: SIGSEGV on an unmapped page outside the sandbox: map the
 *          shared page there (MAP_FIXED|MAP_SHARED) and return, which
 *          restarts the instruction; anything else: record the signal,
 *          its code, address and rip, and exit_group(3).
 */
#include <stddef.h>

#include "bprof-int.h"

#define S_(x) #x
#define S(x) S_(x)
/* The control block, from anywhere in the stub. */
#define C(field) ".Ls+" S(SBX_CTL) "+" S(field) "(%rip)"

_Static_assert(offsetof(struct bprof_ctl, value) == CTL_VALUE, "ctl");
_Static_assert(offsetof(struct bprof_ctl, pmu_fd) == CTL_PMU_FD, "ctl");
_Static_assert(offsetof(struct bprof_ctl, memfd) == CTL_MEMFD, "ctl");
_Static_assert(offsetof(struct bprof_ctl, mxcsr) == CTL_MXCSR, "ctl");
_Static_assert(offsetof(struct bprof_ctl, fail_errno) == CTL_FAIL_ERRNO,
	       "ctl");
_Static_assert(offsetof(struct bprof_ctl, reps) == CTL_REPS, "ctl");
_Static_assert(offsetof(struct bprof_ctl, entries) == CTL_ENTRIES, "ctl");
_Static_assert(offsetof(struct bprof_ctl, passes_left) == CTL_PASSES_LEFT,
	       "ctl");
_Static_assert(offsetof(struct bprof_ctl, target) == CTL_TARGET, "ctl");
_Static_assert(offsetof(struct bprof_ctl, vecval) == CTL_VECVAL, "ctl");
_Static_assert(offsetof(struct bprof_ctl, passes) == CTL_PASSES, "ctl");
_Static_assert(offsetof(struct bprof_ctl, warm) == CTL_WARM, "ctl");
_Static_assert(offsetof(struct bprof_ctl, samples) == CTL_SAMPLES, "ctl");

/* Linux x86-64: siginfo si_code at 8, si_addr at 16; ucontext's
 * uc_mcontext.gregs[REG_RIP] at 40 + 16 * 8. */
__asm__(
	".pushsection .rodata\n"
	".balign 4096\n"
	".globl bprof_stub_start\n"
	".hidden bprof_stub_start\n"
	"bprof_stub_start:\n"
	".Ls:\n"
	"	jmp .Lmain\n"

	/* ---- the signal handler, on the alternate stack ---- */
	".globl bprof_stub_handler\n"
	".hidden bprof_stub_handler\n"
	"bprof_stub_handler:\n"
	"	movl %edi, %r13d\n"
	"	movq %rsi, %r14\n"
	"	movq %rdx, %r15\n"
	"	cmpl $11, %edi\n"
	"	jne .Lfatal\n"
	"	cmpl $1, 8(%rsi)\n"                /* SEGV_MAPERR */
	"	jne .Lfatal_own\n"
	"	movq 16(%rsi), %r12\n"
	"	andq $-4096, %r12\n"
	"	cmpq " C(CTL_SANDBOX_LO) ", %r12\n"
	"	jb 1f\n"
	"	cmpq " C(CTL_SANDBOX_HI) ", %r12\n"
	"	jb .Lfatal_own\n"
	"1:	movq " C(CTL_PAGES) ", %rax\n"
	"	cmpq " C(CTL_MAX_PAGES) ", %rax\n"
	"	jae .Lfatal_cap\n"
	"	movq %r12, %rdi\n"
	"	movl $4096, %esi\n"
	"	movl $3, %edx\n"                   /* PROT_READ|PROT_WRITE */
	"	movl $0x11, %r10d\n"               /* MAP_SHARED|MAP_FIXED */
	"	movq " C(CTL_MEMFD) ", %r8\n"
	"	xorl %r9d, %r9d\n"
	"	movl $9, %eax\n"                   /* mmap */
	"	syscall\n"
	"	cmpq $-4096, %rax\n"
	"	ja .Lfatal_mmap\n"
	"	incq " C(CTL_PAGES) "\n"
	"	movq " C(CTL_TIMING) ", %rax\n"
	"	addq %rax, " C(CTL_TIMED_FAULTS) "\n"
	"	ret\n"                             /* to the restorer */
	".globl bprof_stub_restorer\n"
	".hidden bprof_stub_restorer\n"
	"bprof_stub_restorer:\n"
	"	movl $15, %eax\n"                  /* rt_sigreturn */
	"	syscall\n"
	"	ud2\n"
	".Lfatal_own:\n"
	"	movl $" S(WHY_OWN) ", %eax\n"
	"	jmp .Lrecord\n"
	".Lfatal_cap:\n"
	"	movl $" S(WHY_CAP) ", %eax\n"
	"	jmp .Lrecord\n"
	".Lfatal_mmap:\n"
	"	negq %rax\n"
	"	movq %rax, " C(CTL_FAIL_ERRNO) "\n"
	"	movl $" S(WHY_MMAP) ", %eax\n"
	"	jmp .Lrecord\n"
	".Lfatal:\n"
	"	movl $" S(WHY_SIGNAL) ", %eax\n"
	".Lrecord:\n"
	"	movq %rax, " C(CTL_FAIL_WHY) "\n"
	"	movq %r13, " C(CTL_FAIL_SIGNO) "\n"
	"	movslq 8(%r14), %rax\n"
	"	movq %rax, " C(CTL_FAIL_CODE) "\n"
	"	movq 16(%r14), %rax\n"
	"	movq %rax, " C(CTL_FAIL_ADDR) "\n"
	"	movq 168(%r15), %rax\n"
	"	movq %rax, " C(CTL_FAIL_RIP) "\n"
	"	movl $3, %edi\n"
	"	movl $231, %eax\n"                 /* exit_group */
	"	syscall\n"
	"	ud2\n"

	/* ---- main ---- */
	".Lmain:\n"
	"	movq " C(CTL_STACK_TOP) ", %rsp\n"
	"	xorl %edi, %edi\n"
	"	movq " C(CTL_LO_LEN) ", %rsi\n"
	"	testq %rsi, %rsi\n"
	"	jz 1f\n"
	"	movl $11, %eax\n"                  /* munmap */
	"	syscall\n"
	"	cmpq $-4096, %rax\n"
	"	ja .Lsetup_fail\n"
	"1:	movq " C(CTL_HI_START) ", %rdi\n"
	"	movq " C(CTL_HI_LEN) ", %rsi\n"
	"	testq %rsi, %rsi\n"
	"	jz 1f\n"
	"	movl $11, %eax\n"
	"	syscall\n"
	"	cmpq $-4096, %rax\n"
	"	ja .Lsetup_fail\n"
	"1:	movq " C(CTL_CODE_ADDR) ", %rdi\n"
	"	movq " C(CTL_CODE_SIZE) ", %rsi\n"
	"	movl $3, %edx\n"
	"	movl $0x32, %r10d\n"      /* MAP_PRIVATE|MAP_FIXED|MAP_ANON */
	"	movq $-1, %r8\n"
	"	xorl %r9d, %r9d\n"
	"	movl $9, %eax\n"
	"	syscall\n"
	"	cmpq $-4096, %rax\n"
	"	ja .Lsetup_fail\n"
	"	movq " C(CTL_CODE_ADDR) ", %rdi\n"
	"	movq " C(CTL_STAGING) ", %rsi\n"
	"	movq " C(CTL_CODE_SIZE) ", %rcx\n"
	"	cld\n"
	"	rep movsb\n"
	"	movq " C(CTL_STAGING) ", %rdi\n"  /* no longer needed */
	"	movq " C(CTL_CODE_SIZE) ", %rsi\n"
	"	movl $11, %eax\n"
	"	syscall\n"
	"	cmpq $-4096, %rax\n"
	"	ja .Lsetup_fail\n"
	"	movq " C(CTL_CODE_ADDR) ", %rdi\n"
	"	movq " C(CTL_CODE_SIZE) ", %rsi\n"
	"	movl $5, %edx\n"                   /* PROT_READ|PROT_EXEC */
	"	movl $10, %eax\n"                  /* mprotect */
	"	syscall\n"
	"	cmpq $-4096, %rax\n"
	"	ja .Lsetup_fail\n"
	"	movq $1, " C(CTL_STATE) "\n"
	/* warm: every entry twice, one pass, untimed (maps the pages); the
	 * second round's ticks choose the passes of the timed runs */
	"	xorl %r12d, %r12d\n"
	"2:	movq %r12, %r13\n"
	"	andq $3, %r13\n"
	"	leaq .Ls+" S(SBX_CTL) "+" S(CTL_ENTRIES) "(%rip), %rax\n"
	"	movq (%rax,%r13,8), %rdi\n"
	"	movl $1, %esi\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	call .Lrun\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	leaq .Ls+" S(SBX_CTL) "(%rip), %rbx\n"
	"	movq " S(CTL_T1) "(%rbx), %rdx\n"
	"	subq " S(CTL_T0) "(%rbx), %rdx\n"
	"	movq %rdx, " S(CTL_WARM) "(%rbx,%r13,8)\n"
	"	incq %r12\n"
	"	cmpq $" S(NRUNS) "*2, %r12\n"
	"	jb 2b\n"
	".irp pair,0,2\n"
	"	movq " S(CTL_TARGET) "(%rbx), %rax\n"
	"	xorl %edx, %edx\n"
	"	movq " S(CTL_WARM) "+8+8*\\pair(%rbx), %rcx\n"
	"	orq $1, %rcx\n"
	"	divq %rcx\n"
	"	orq $0, %rax\n"
	"	jnz 6f\n"
	"	movl $1, %eax\n"
	"6:	movq %rax, " S(CTL_PASSES) "+8*\\pair(%rbx)\n"
	"	movq %rax, " S(CTL_PASSES) "+8+8*\\pair(%rbx)\n"
	".endr\n"
	"	movq $2, " C(CTL_STATE) "\n"
	"	movq $1, " C(CTL_TIMING) "\n"
	/* timed: r13 the repetition, r12 the run */
	"	xorl %r13d, %r13d\n"
	"3:	cmpq " C(CTL_REPS) ", %r13\n"
	"	jae 5f\n"
	"	xorl %r12d, %r12d\n"
	"4:	leaq .Ls+" S(SBX_CTL) "(%rip), %rax\n"
	"	movq " S(CTL_ENTRIES) "(%rax,%r12,8), %rdi\n"
	"	movq " S(CTL_PASSES) "(%rax,%r12,8), %rsi\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	call .Lrun\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	leaq .Ls+" S(SBX_CTL) "(%rip), %rbx\n"
	"	leaq (%r12,%r13,4), %rax\n"        /* rep * NRUNS + run */
	"	movq " S(CTL_T1) "(%rbx), %rdx\n"
	"	subq " S(CTL_T0) "(%rbx), %rdx\n"
	"	movq %rdx, " S(CTL_SAMPLES) "(%rbx,%rax,8)\n"
	"	movq " S(CTL_REPS) "(%rbx), %rcx\n"
	"	leaq (%rax,%rcx,4), %rax\n"        /* the PMU half */
	"	movq " S(CTL_C1) "(%rbx), %rdx\n"
	"	subq " S(CTL_C0) "(%rbx), %rdx\n"
	"	movq %rdx, " S(CTL_SAMPLES) "(%rbx,%rax,8)\n"
	"	incq %r12\n"
	"	cmpq $" S(NRUNS) ", %r12\n"
	"	jb 4b\n"
	"	incq %r13\n"
	"	jmp 3b\n"
	"5:	movq $0, " C(CTL_TIMING) "\n"
	"	movq $3, " C(CTL_STATE) "\n"
	"	xorl %edi, %edi\n"
	"	movl $231, %eax\n"
	"	syscall\n"
	"	ud2\n"
	".Lsetup_fail:\n"
	"	negq %rax\n"
	"	movq %rax, " C(CTL_FAIL_ERRNO) "\n"
	"	movq $" S(WHY_SETUP) ", " C(CTL_FAIL_WHY) "\n"
	"	movl $4, %edi\n"
	"	movl $231, %eax\n"
	"	syscall\n"
	"	ud2\n"

	/* ---- run one entry (rdi), rsi passes ---- */
	".Lrun:\n"
	"	leaq .Ls+" S(SBX_CTL) "(%rip), %rbx\n"
	"	movq %rdi, " S(CTL_ENTRY) "(%rbx)\n"
	"	movq %rsi, " S(CTL_PASSES_LEFT) "(%rbx)\n"
	"	cld\n"
	"	movq " S(CTL_PAGE_ALIAS) "(%rbx), %rdi\n"
	"	movl $512, %ecx\n"
	"	movq " S(CTL_VALUE) "(%rbx), %rax\n"
	"	rep stosq\n"
	"	fninit\n"
	"	ldmxcsr " S(CTL_MXCSR) "(%rbx)\n"
	"	movq " S(CTL_VEC) "(%rbx), %rax\n"
	"	cmpq $" S(VEC_ZMM) ", %rax\n"
	"	jae .Lzmm\n"
	"	cmpq $" S(VEC_YMM) ", %rax\n"
	"	je .Lymm\n"
	"	cmpq $" S(VEC_SSE_CLEAN) ", %rax\n"
	"	jne .Lxmm\n"
	"	vzeroupper\n"
	".Lxmm:\n"
	".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	movdqa " S(CTL_VECVAL) "(%rbx), %xmm\\r\n"
	".endr\n"
	"	jmp .Lvec_done\n"
	".Lymm:\n"
	".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	vmovdqa " S(CTL_VECVAL) "(%rbx), %ymm\\r\n"
	".endr\n"
	"	jmp .Lvec_done\n"
	".Lzmm:\n"
	".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,"
	"23,24,25,26,27,28,29,30,31\n"
	"	vmovdqa64 " S(CTL_VECVAL) "(%rbx), %zmm\\r\n"
	".endr\n"
	"	cmpq $" S(VEC_ZMM_BW) ", %rax\n"
	"	je 1f\n"
	".irp r,1,2,3,4,5,6,7\n"
	"	kxnorw %k0, %k0, %k\\r\n"
	".endr\n"
	"	jmp .Lvec_done\n"
	"1:\n"
	".irp r,1,2,3,4,5,6,7\n"
	"	kxnorq %k0, %k0, %k\\r\n"
	".endr\n"
	".Lvec_done:\n"
	"	movq %rsp, " S(CTL_SAVED_RSP) "(%rbx)\n"
	"	movq " S(CTL_PMU_FD) "(%rbx), %rdi\n"
	"	testq %rdi, %rdi\n"
	"	js 1f\n"
	"	leaq " S(CTL_C0) "(%rbx), %rsi\n"
	"	movl $8, %edx\n"
	"	xorl %eax, %eax\n"                 /* read */
	"	syscall\n"
	"1:	rdtscp\n"
	"	lfence\n"
	"	shlq $32, %rdx\n"
	"	orq %rdx, %rax\n"
	"	movq %rax, " S(CTL_T0) "(%rbx)\n"
	".Lpass:\n"
	"	lfence\n"          /* passes do not overlap: each is a run */
	"	movq " C(CTL_VALUE) ", %rax\n"
	".irp r,rcx,rdx,rsi,rdi,rbp,rsp,r8,r9,r10,r11,r12,r13,r14,r15,rbx\n"
	"	movq %rax, %\\r\n"
	".endr\n"
	"	jmp *" C(CTL_ENTRY) "\n"
	".globl bprof_stub_back\n"
	".hidden bprof_stub_back\n"
	"bprof_stub_back:\n"
	"	decq " C(CTL_PASSES_LEFT) "\n"
	"	jnz .Lpass\n"
	"	rdtscp\n"
	"	lfence\n"
	"	leaq .Ls+" S(SBX_CTL) "(%rip), %rbx\n"
	"	shlq $32, %rdx\n"
	"	orq %rdx, %rax\n"
	"	movq %rax, " S(CTL_T1) "(%rbx)\n"
	"	movq " S(CTL_SAVED_RSP) "(%rbx), %rsp\n"
	"	movq " S(CTL_PMU_FD) "(%rbx), %rdi\n"
	"	testq %rdi, %rdi\n"
	"	js 1f\n"
	"	leaq " S(CTL_C1) "(%rbx), %rsi\n"
	"	movl $8, %edx\n"
	"	xorl %eax, %eax\n"
	"	syscall\n"
	"1:	cld\n"
	"	ret\n"
	".globl bprof_stub_end\n"
	".hidden bprof_stub_end\n"
	"bprof_stub_end:\n"
	".popsection\n");
