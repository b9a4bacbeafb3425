/*
 * bprof's sandbox: one MAP_SHARED anonymous mapping (stub, control block,
 * stacks, the shared page's alias, the staged code image), a memfd page
 * to map wherever the block faults, and a forked child that locks itself
 * down (parent-death signal, no core, default signal dispositions, a
 * seccomp filter allowing only what the stub needs) and jumps into the
 * stub, which unmaps everything else. The parent waits (pidfd, with a
 * timeout) and reads the control block it shares with the child.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopkit/subprocess.h"
#include "bprof-int.h"

#define USER_TOP 0x7ffffffff000ull

/* The kernel's struct sigaction (x86-64). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

#define KSA_RESTORER 0x04000000ul

struct sandbox {
	uint8_t *base;
	size_t size;
	int memfd;
	struct bprof_ctl *ctl;
};

static uint64_t stub_off(const char *sym)
{
	return (uint64_t)(sym - bprof_stub_start);
}

static int seccomp_lock(void)
{
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_read, 7, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 6, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 5, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 4, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_rt_sigreturn, 3, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 2, 0),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 1, 0),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = LK_ARRAY_SIZE(f), .filter = f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int open_cycles(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

int bprof_pmu_available(void)
{
	int fd = open_cycles();

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int handle(int sig, const struct sandbox *s)
{
	struct ksigaction ka = {
	    .handler = s->base + stub_off(bprof_stub_handler),
	    .flags = SA_SIGINFO | SA_ONSTACK | KSA_RESTORER,
	    .restorer = s->base + stub_off(bprof_stub_restorer),
	    .mask = ~0ull,
	};

	return (int)syscall(SYS_rt_sigaction, sig, &ka, NULL, 8);
}

/*
 * The kernel writes the thread's rseq area (glibc's, in the TLS) on every
 * return to user space after a preemption or a signal; once the TLS is
 * unmapped that write fails and the kernel kills us with SIGSEGV. So
 * unregister it. glibc registered sizeof(struct rseq) (32) bytes; newer
 * ones report a smaller __rseq_size, hence both tries.
 */
static int rseq_off(void)
{
	char *area = (char *)__builtin_thread_pointer() + __rseq_offset;

	if (!__rseq_size)
		return 0;
	if (!syscall(SYS_rseq, area, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG))
		return 0;
	return (int)syscall(SYS_rseq, area, __rseq_size, RSEQ_FLAG_UNREGISTER,
			    RSEQ_SIG);
}

/* Every signal back to its default, the five the stub handles to it. */
static int child_signals(const struct sandbox *s)
{
	static const int mine[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP};
	stack_t ss = {.ss_sp = s->base + SBX_ALTSTACK,
		      .ss_size = SBX_ALTSTACK_SIZE};
	struct ksigaction dfl = {.handler = SIG_DFL};
	uint64_t none = 0;
	size_t i;
	int sig;

	/* Raw system calls: the sanitizers intercept the libc wrappers. */
	for (sig = 1; sig < NSIG; sig++)
		syscall(SYS_rt_sigaction, sig, &dfl, NULL, 8); /* not KILL */
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8) ||
	    syscall(SYS_sigaltstack, &ss, NULL))
		return -1;
	for (i = 0; i < LK_ARRAY_SIZE(mine); i++)
		if (handle(mine[i], s))
			return -1;
	return 0;
}

/* In the child: async-signal-safe calls only, then into the stub. */
LK_NORETURN static void child(const struct lk_bprof_opts *opts,
			      const struct sandbox *s, pid_t parent,
			      int use_pmu)
{
	struct rlimit no_core = {0, 0};
	struct bprof_ctl *ctl = s->ctl;
	int step = 10;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		goto fail;
	step++;
	if (setrlimit(RLIMIT_CORE, &no_core))
		goto fail;
	step++;
	if (opts->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(opts->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			goto fail;
	}
	step++;
	if (mmap(s->base + SBX_ALIAS, 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, s->memfd, 0) == MAP_FAILED ||
	    mprotect(s->base, 4096, PROT_READ | PROT_EXEC))
		goto fail;
	step++;
	if (child_signals(s) || rseq_off())
		goto fail;
	step++;
	ctl->pmu_fd = -1;
	if (use_pmu && (ctl->pmu_fd = open_cycles()) < 0)
		goto fail;
	step++;
	alarm((unsigned)ceil(opts->timeout));
	if (seccomp_lock())
		goto fail;
	__asm__ volatile("jmp *%0" : : "r"(s->base) : "memory");
	__builtin_unreachable();
fail:
	ctl->fail_errno = (uint64_t)errno;
	_exit(step);
}

static int sandbox_make(struct lk_ctx *ctx, size_t code_size, struct sandbox *s)
{
	memset(s, 0, sizeof(*s));
	s->memfd = -1;
	s->size = SBX_STAGING + code_size;
	s->base = mmap(NULL, s->size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		return lk_error_errno(ctx, "bprof: mmap of the sandbox");
	}
	s->memfd = memfd_create("lk-bprof-page", MFD_CLOEXEC);
	if (s->memfd < 0 || ftruncate(s->memfd, 4096))
		return lk_error_errno(ctx, "bprof: memfd for the shared page");
	s->ctl = (struct bprof_ctl *)(s->base + SBX_CTL);
	return 0;
}

static void sandbox_release(struct sandbox *s)
{
	if (s->base)
		munmap(s->base, s->size);
	if (s->memfd >= 0)
		close(s->memfd);
}

static void ctl_fill(const struct lk_bprof_opts *opts, const struct sandbox *s,
		     const struct bprof_image *img, int vec)
{
	struct bprof_ctl *c = s->ctl;
	uint64_t lo = (uint64_t)(uintptr_t)s->base, hi = lo + s->size;
	size_t i;

	c->value = opts->value;
	c->stack_top = lo + SBX_STACK + SBX_STACK_SIZE;
	c->lo_len = lo;
	c->hi_start = hi;
	c->hi_len = USER_TOP > hi ? USER_TOP - hi : 0;
	c->sandbox_lo = lo;
	c->sandbox_hi = hi;
	c->code_addr = img->code_addr;
	c->code_size = img->size;
	c->staging = lo + SBX_STAGING;
	c->page_alias = lo + SBX_ALIAS;
	c->memfd = s->memfd;
	c->max_pages = opts->max_pages;
	c->vec = (uint64_t)vec;
	c->mxcsr = 0x9fc0; /* all exceptions masked, FTZ and DAZ */
	c->reps = opts->repetitions;
	c->fail_signo = c->fail_why = 0;
	c->pmu_fd = -1;
	c->target = PASS_TARGET_TICKS;
	for (i = 0; i < NRUNS; i++) {
		c->entries[i] = img->entries[i];
		c->passes[i] = 1;
	}
	for (i = 0; i < LK_ARRAY_SIZE(c->vecval); i++)
		c->vecval[i] = opts->value;
}

/* Wait for the child, killing it past the deadline. */
static void wait_child(pid_t pid, double timeout, struct bprof_outcome *res)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0;

	if (pidfd >= 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		int ms = (int)(timeout * 1000) + 2000, n;

		while ((n = poll(&p, 1, ms)) < 0 && errno == EINTR)
			;
		if (n == 0) {
			kill(pid, SIGKILL);
			res->timed_out = 1;
		}
		close(pidfd);
	}
	lk_proc_waitpid(pid, &status, 0);
	if (WIFEXITED(status)) {
		res->exited = 1;
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->signaled = 1;
		res->signal = WTERMSIG(status);
		if (res->signal == SIGALRM)
			res->timed_out = 1;
	}
}

int bprof_sandbox_run(struct lk_ctx *ctx, const struct lk_bprof_opts *opts,
		      const struct bprof_block *blk, int vec, int use_pmu,
		      struct bprof_image *img, struct bprof_outcome *res,
		      char **reason)
{
	size_t stub_len = stub_off(bprof_stub_end);
	struct bprof_image plan;
	struct sandbox s;
	pid_t pid, parent = getpid();
	int ret;

	memset(res, 0, sizeof(*res));
	*reason = NULL;
	if (stub_len > SBX_CTL)
		LK_BUG("bprof stub larger than its page");
	/* The plan's size does not depend on where the sandbox is. */
	if (bprof_image_plan(blk, opts, 0, 0, &plan, reason))
		return 1;
	if ((ret = sandbox_make(ctx, plan.size, &s)))
		goto out;
	if (bprof_image_plan(blk, opts, (uint64_t)(uintptr_t)s.base, s.size,
			     img, reason)) {
		ret = 1;
		goto out;
	}
	memcpy(s.base, bprof_stub_start, stub_len);
	ctl_fill(opts, &s, img, vec);
	bprof_image_write(
	    blk, img, (uint64_t)(uintptr_t)s.base + stub_off(bprof_stub_back),
	    s.base + SBX_STAGING);
	pid = lk_proc_fork();
	if (pid == 0)
		child(opts, &s, parent, use_pmu);
	if (pid < 0) {
		ret = lk_error_errno(ctx, "bprof: fork");
		goto out;
	}
	wait_child(pid, opts->timeout, res);
	res->ctl = lk_malloc(SBX_CTL_SIZE);
	memcpy(res->ctl, s.ctl, SBX_CTL_SIZE);
out:
	sandbox_release(&s);
	return ret;
}
