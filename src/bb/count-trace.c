/*
 * lk_count_run: the benchmark under ptrace. int3 breakpoints on
 * lk_roi_begin and lk_roi_end open and close the region; inside it, the
 * measured blocks carry an int3 (or a hardware counter) at their start.
 * A hit puts the original byte back, rewinds rip, single-steps and
 * re-inserts the int3.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "count-int.h"
#include "loopkit/subprocess.h"

extern char **environ;

enum { BP_BLOCK, BP_BEGIN, BP_END };

struct bp {
	uint64_t addr;  /* run-time */
	int role;       /* BP_* */
	size_t block;   /* BP_BLOCK: index into the CFG */
	uint8_t orig;
	int inserted;
};

struct tracer {
	pid_t pid;
	struct bp *bps; /* sorted by addr */
	size_t nbps;
	struct count_hw hw;
	uint64_t *counts;
	uint64_t regions, traps;
	int inside;
	int status;     /* the tracee's wait status once it is gone */
	int gone;
	cpu_set_t cpus; /* the tracer's own affinity, restored at the end */
	int pinned;
	char tag[LK_PROC_TAG_MAX]; /* in its environment: see proc-reap.c */
	struct rlimit limit;
};

/* ------------------------------------------------------------------ */
/* Starting the tracee */

static void push_env(struct lk_strv *env, const char *name, long value,
		     long fallback)
{
	lk_strv_pushf(env, "%s=%ld", name, value > 0 ? value : fallback);
}

/* Our environment without the LK_* variables we set or that would make
 * the runtime talk to a runner that is not there. */
static void build_env(const struct lk_count_opts *opts, const char *tag,
		      struct lk_strv *env)
{
	static const char *const drop[] = {"LK_WARMUP=", "LK_STEPS=",
					   "LK_REPETITIONS=", "LK_RESULT_FD=",
					   "LK_CALIBRATE=",
					   LK_PROC_TAG_VAR "="};
	char **e;
	size_t i;

	for (e = environ; *e; e++) {
		for (i = 0; i < LK_ARRAY_SIZE(drop); i++)
			if (!strncmp(*e, drop[i], strlen(drop[i])))
				break;
		if (i == LK_ARRAY_SIZE(drop))
			lk_strv_push(env, *e);
	}
	lk_strv_push(env, "LK_WARMUP=0");
	/* No cycles wanted, and no waiting for an uncontended core, which
	 * runs the kernel outside the region (doc/method.md). */
	lk_strv_push(env, "LK_CALIBRATE=0");
	push_env(env, "LK_STEPS", opts->steps, 1);
	push_env(env, "LK_REPETITIONS", opts->repetitions, 1);
	lk_strv_push(env, tag);
}

/* In the child: only async-signal-safe calls until execve. Its own
 * process group, which the end of the count kills whole. */
LK_NORETURN static void child(const char *out, int err_fd, char **argv,
			      char **envp, const struct rlimit *limit)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 ||
	    dup2(fd, 2) < 0 || setpgid(0, 0) ||
	    setrlimit(RLIMIT_AS, limit) || prctl(PR_SET_PDEATHSIG, SIGKILL) ||
	    personality(ADDR_NO_RANDOMIZE) < 0 ||
	    ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		goto fail;
	execve(argv[0], argv, envp);
fail:
	fd = errno;
	if (write(err_fd, &fd, sizeof(fd)) < 0)
		_exit(127);
	_exit(127);
}

static int spawn(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		 struct tracer *t)
{
	struct lk_strv argv = LK_STRV_INIT, env = LK_STRV_INIT;
	char *const *a;
	int pipefd[2], err = 0, status, ret = 0;

	lk_strv_push(&argv, opts->binary);
	for (a = opts->args; a && *a; a++)
		lk_strv_push(&argv, *a);
	lk_proc_tag_new(t->tag);
	build_env(opts, t->tag, &env);
	lk_proc_memory_rlimit(opts->memory_limit, &t->limit);
	if (pipe2(pipefd, O_CLOEXEC))
		return lk_error_errno(ctx, "pipe");
	t->pid = lk_proc_fork();
	if (t->pid == 0)
		child(opts->output ? opts->output : "/dev/null", pipefd[1],
		      argv.v, env.v, &t->limit);
	close(pipefd[1]);
	if (t->pid < 0) {
		ret = lk_error_errno(ctx, "fork");
		goto out;
	}
	if (read(pipefd[0], &err, sizeof(err)) == sizeof(err)) {
		lk_proc_waitpid(t->pid, &status, 0);
		t->gone = 1;
		errno = err;
		ret = lk_error(ctx, LK_ECHILD, "cannot run %s: %s",
			       opts->binary, strerror(err));
		goto out;
	}
	/* The exec stop: the image is mapped, nothing has run yet. */
	if (lk_proc_waitpid(t->pid, &status, 0) != t->pid) {
		ret = lk_error_errno(ctx, "waitpid");
		goto out;
	}
	if (!WIFSTOPPED(status)) {
		t->gone = 1;
		ret = lk_error(ctx, LK_ECHILD, "%s did not stop after exec",
			       opts->binary);
		goto out;
	}
	ptrace(PTRACE_SETOPTIONS, t->pid, NULL, (void *)PTRACE_O_EXITKILL);
out:
	close(pipefd[0]);
	lk_strv_release(&argv);
	lk_strv_release(&env);
	return ret;
}

/*
 * Tracer and tracee on one CPU: every trap is two context switches, and
 * a switch to another CPU costs ~10 us against ~3 us on the same one
 * (FACTS.md). The tracee inherits the mask through fork.
 */
static void pin(struct tracer *t)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(t->cpus), &t->cpus))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	t->pinned = !sched_setaffinity(0, sizeof(one), &one);
}

static void unpin(struct tracer *t)
{
	if (t->pinned)
		sched_setaffinity(0, sizeof(t->cpus), &t->cpus);
	t->pinned = 0;
}

/* ------------------------------------------------------------------ */
/* Addresses */

/* The lowest PT_LOAD address, page-aligned: where the file's first
 * page is meant to be mapped. */
static int link_base(struct lk_ctx *ctx, const char *binary, uint64_t *base)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(binary, O_RDONLY | O_CLOEXEC), i, ret = 0;

	if (fd < 0)
		return lk_error_errno(ctx, "%s", binary);
	*base = UINT64_MAX;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		ret = lk_error(ctx, LK_EINPUT, "%s: not an ELF file", binary);
	for (i = 0; !ret && i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff +
			  (uint64_t)i * eh.e_phentsize) != sizeof(ph)) {
			ret = lk_error(ctx, LK_EINPUT, "%s: truncated", binary);
			break;
		}
		if (ph.p_type == PT_LOAD && ph.p_vaddr < *base)
			*base = ph.p_vaddr & ~(uint64_t)0xfff;
	}
	close(fd);
	if (!ret && *base == UINT64_MAX)
		ret = lk_error(ctx, LK_EINPUT, "%s: no loadable segment",
			       binary);
	return ret;
}

/* Where the kernel mapped the binary's first page, from /proc/PID/maps. */
static int map_base(struct lk_ctx *ctx, pid_t pid, const char *binary,
		    uint64_t *base)
{
	char path[64], line[4096], *real = lk_path_real(binary);
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f || !real) {
		free(real);
		if (f)
			fclose(f);
		return lk_error_errno(ctx, "%s", f ? binary : path);
	}
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, off;
		char *name = strchr(line, '/');

		if (!name || sscanf(line, "%llx-%*x %*s %llx", &start,
				    &off) != 2 || off)
			continue;
		name[strcspn(name, "\n")] = 0;
		if (!strcmp(name, real)) {
			*base = start;
			found = 1;
		}
	}
	fclose(f);
	free(real);
	return found ? 0 : lk_error(ctx, LK_ECHILD, "%s is not mapped in its "
						   "own process", binary);
}

static int load_bias(struct lk_ctx *ctx, pid_t pid, const char *binary,
		     uint64_t *bias)
{
	uint64_t linked, mapped;
	int ret = link_base(ctx, binary, &linked);

	if (!ret)
		ret = map_base(ctx, pid, binary, &mapped);
	if (!ret)
		*bias = mapped - linked;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Breakpoints */

static int bp_cmp(const void *a, const void *b)
{
	const struct bp *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct bp *bp_find(const struct tracer *t, uint64_t addr)
{
	struct bp key = {.addr = addr};

	return bsearch(&key, t->bps, t->nbps, sizeof(key), bp_cmp);
}

static int poke_byte(struct tracer *t, uint64_t addr, uint8_t byte,
		     uint8_t *old)
{
	long word;

	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->pid, (void *)addr, NULL);
	if (errno)
		return -1;
	if (old)
		*old = (uint8_t)word;
	word = (word & ~0xffL) | byte;
	return (int)ptrace(PTRACE_POKETEXT, t->pid, (void *)addr,
			   (void *)word);
}

static int bp_set(struct lk_ctx *ctx, struct tracer *t, struct bp *bp, int on)
{
	int ret;

	if (bp->inserted == on)
		return 0;
	ret = on ? poke_byte(t, bp->addr, 0xcc, &bp->orig)
		 : poke_byte(t, bp->addr, bp->orig, NULL);
	if (ret)
		return lk_error_errno(ctx, "writing a breakpoint at 0x%llx",
				      (unsigned long long)bp->addr);
	bp->inserted = on;
	return 0;
}

static int blocks_set(struct lk_ctx *ctx, struct tracer *t, int on)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < t->nbps; i++)
		if (t->bps[i].role == BP_BLOCK)
			ret = bp_set(ctx, t, &t->bps[i], on);
	count_hw_enable(&t->hw, on);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The timeout: a watchdog thread kills the tracee; the tracer thread
 * then sees it die in waitpid. */

struct watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pid_t pid;
	double timeout;
	int done, fired;
};

static void *watchdog_main(void *arg)
{
	struct watchdog *w = arg;
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)w->timeout;
	until.tv_nsec += (long)((w->timeout - (double)(time_t)w->timeout) *
				1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		if (pthread_cond_timedwait(&w->cond, &w->lock, &until) ==
		    ETIMEDOUT)
			break;
	if (!w->done) {
		w->fired = 1;
		kill(w->pid, SIGKILL);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static int watchdog_start(struct lk_ctx *ctx, struct watchdog *w, pid_t pid,
			  double timeout)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->pid = pid;
	w->timeout = timeout > 0 ? timeout : 600;
	if (pthread_create(&w->thread, NULL, watchdog_main, w)) {
		errno = EAGAIN;
		return lk_error_errno(ctx, "starting the timeout thread");
	}
	return 0;
}

/* Returns whether it fired. */
static int watchdog_stop(struct watchdog *w)
{
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	return w->fired;
}

/* ------------------------------------------------------------------ */
/* The trace loop */

/* Wait for the next stop; 1 when the tracee is gone (t->status). */
static int wait_stop(struct lk_ctx *ctx, struct tracer *t, int *sig)
{
	int status;

	while (waitpid(t->pid, &status, __WALL) < 0)
		if (errno != EINTR)
			return lk_error_errno(ctx, "waitpid");
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		t->status = status;
		t->gone = 1;
		return 1;
	}
	*sig = WSTOPSIG(status);
	return 0;
}

/* Execute the original instruction under the int3 at bp, then put the
 * int3 back if it should still be there. */
static int step_over(struct lk_ctx *ctx, struct tracer *t, struct bp *bp,
		     int *pending)
{
	int was = bp->inserted, sig, ret;

	ret = bp_set(ctx, t, bp, 0);
	if (ret)
		return ret;
	if (ptrace(PTRACE_POKEUSER, t->pid,
		   (void *)offsetof(struct user_regs_struct, rip),
		   (void *)bp->addr))
		return lk_error_errno(ctx, "setting rip");
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, NULL))
			return lk_error_errno(ctx, "single-stepping");
		ret = wait_stop(ctx, t, &sig);
		if (ret)
			return ret < 0 ? ret : 0;
		if (sig == SIGTRAP)
			break;
		*pending = sig; /* delivered on the next PTRACE_CONT */
	}
	return was ? bp_set(ctx, t, bp, 1) : 0;
}

static int on_marker(struct lk_ctx *ctx, struct tracer *t, int role)
{
	int ret = 0;

	if (role == BP_BEGIN && !t->inside) {
		t->inside = 1;
		t->regions++;
		ret = blocks_set(ctx, t, 1);
	} else if (role == BP_END && t->inside) {
		t->inside = 0;
		ret = blocks_set(ctx, t, 0);
		if (!ret)
			ret = count_hw_collect(ctx, &t->hw, t->counts);
	}
	return ret;
}

/* A SIGTRAP stop: one of ours (rip just past an int3 we own) or the
 * program's own, which it gets back. */
static int on_trap(struct lk_ctx *ctx, struct tracer *t, int *deliver)
{
	long rip;
	struct bp *bp;
	int ret;

	errno = 0;
	rip = ptrace(PTRACE_PEEKUSER, t->pid,
		     (void *)offsetof(struct user_regs_struct, rip), NULL);
	if (errno)
		return lk_error_errno(ctx, "reading rip");
	bp = bp_find(t, (uint64_t)rip - 1);
	if (!bp || !bp->inserted) {
		*deliver = SIGTRAP;
		return 0;
	}
	if (bp->role == BP_BLOCK) {
		t->counts[bp->block]++;
		t->traps++;
		return step_over(ctx, t, bp, deliver);
	}
	ret = on_marker(ctx, t, bp->role);
	return ret ? ret : step_over(ctx, t, bp, deliver);
}

static int trace_loop(struct lk_ctx *ctx, struct tracer *t)
{
	int sig = 0, deliver = 0, ret;

	for (;;) {
		if (ptrace(PTRACE_CONT, t->pid, NULL,
			   (void *)(long)deliver))
			return lk_error_errno(ctx, "resuming the benchmark");
		deliver = 0;
		ret = wait_stop(ctx, t, &sig);
		if (ret)
			return ret < 0 ? ret : 0;
		if (sig != SIGTRAP)
			deliver = sig;
		else if ((ret = on_trap(ctx, t, &deliver)))
			return ret;
		if (t->gone)
			return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Setting up */

/* The function and whether it is the balanced kernel (count.h). */
static int load_cfg(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		    struct lk_count *c)
{
	struct lk_function fn, roi;
	int ret;

	ret = lk_elf_roi_function(ctx, opts->binary, &roi, &c->inlined);
	if (ret && !opts->function)
		return ret;
	if (!ret && !c->inlined)
		c->flags |= LK_COUNT_BALANCED;
	if (opts->function) {
		if (!ret && strcmp(roi.name, opts->function))
			c->flags &= ~LK_COUNT_BALANCED;
		if (!ret)
			lk_function_release(&roi);
		lk_ctx_clear(ctx);
		ret = lk_elf_function(ctx, opts->binary, opts->function, &fn);
		if (ret)
			return ret;
	} else {
		fn = roi;
	}
	return lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &c->cfg);
}

static void add_bp(struct tracer *t, uint64_t addr, int role, size_t block)
{
	struct bp *bp;

	t->bps = lk_reallocarray(t->bps, t->nbps + 1, sizeof(*t->bps));
	bp = &t->bps[t->nbps++];
	memset(bp, 0, sizeof(*bp));
	bp->addr = addr;
	bp->role = role;
	bp->block = block;
}

/* The hottest measured blocks (plan order: most nested first) get the
 * hardware counters; the rest int3. */
static void place(const struct lk_count_opts *opts, struct lk_count *c,
		  const unsigned char *measured, struct tracer *t)
{
	size_t b, nhot = 0, *order = lk_calloc(c->cfg.nblocks + 1,
					       sizeof(*order));

	lk_count_hot_order(&c->cfg, order);
	for (b = 0; b < c->cfg.nblocks; b++) {
		size_t blk = order[b];
		uint64_t addr = c->cfg.blocks[blk].start + c->load_bias;
		int fd = -1;

		if (!measured[blk])
			continue;
		if (!opts->no_hwbp && nhot < COUNT_HW_MAX &&
		    (fd = count_hw_open(t->pid, addr)) >= 0) {
			t->hw.fd[t->hw.n] = fd;
			t->hw.block[t->hw.n++] = blk;
			c->via[blk] = LK_COUNT_HWBP;
			nhot++;
			continue;
		}
		c->via[blk] = LK_COUNT_INT3;
		add_bp(t, addr, BP_BLOCK, blk);
	}
	free(order);
}

static int prepare(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		   struct lk_count *c, struct tracer *t)
{
	unsigned char *measured = lk_calloc(c->cfg.nblocks + 1, 1);
	uint64_t begin, end;
	int ret;

	if (opts->no_derive)
		memset(measured, 1, c->cfg.nblocks);
	else
		lk_count_plan(&c->cfg, c->flags, measured);
	ret = lk_elf_roi_markers(ctx, opts->binary, &begin, &end);
	if (!ret)
		ret = load_bias(ctx, t->pid, opts->binary, &c->load_bias);
	if (!ret) {
		place(opts, c, measured, t);
		add_bp(t, begin + c->load_bias, BP_BEGIN, 0);
		add_bp(t, end + c->load_bias, BP_END, 0);
		qsort(t->bps, t->nbps, sizeof(*t->bps), bp_cmp);
		ret = bp_set(ctx, t, bp_find(t, begin + c->load_bias), 1);
	}
	if (!ret)
		ret = bp_set(ctx, t, bp_find(t, end + c->load_bias), 1);
	free(measured);
	return ret;
}

/* What happened to the tracee, as an error if it was not a clean exit
 * after at least one region. */
static int verdict(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		   const struct tracer *t, int timed_out)
{
	int st = t->status;

	if (timed_out)
		return lk_error(ctx, LK_ECHILD, "%s ran longer than %g s and "
				"was killed", opts->binary,
				opts->timeout > 0 ? opts->timeout : 600);
	if (WIFSIGNALED(st))
		return lk_error(ctx, LK_ECHILD, "%s was killed by signal %d "
				"(%s)", opts->binary, WTERMSIG(st),
				strsignal(WTERMSIG(st)));
	if (WEXITSTATUS(st))
		return lk_error(ctx, LK_ECHILD, "%s exited with status %d",
				opts->binary, WEXITSTATUS(st));
	if (!t->regions)
		return lk_error(ctx, LK_ECHILD, "%s never called lk_roi_begin "
				"(is the kernel measured with LK_MEASURE?)",
				opts->binary);
	return 0;
}

/*
 * Nothing the benchmark started outlives the count. While the tracee is
 * unreaped its pid (so its group's id) cannot be reused: kill the group,
 * then reap. Once reaped, whatever it left is re-parented to us (we are
 * a subreaper) and found by its tag.
 */
static void end_launch(struct tracer *t)
{
	if (!t->gone) {
		kill(-t->pid, SIGKILL);
		kill(t->pid, SIGKILL);
		while (waitpid(t->pid, &t->status, __WALL) < 0 &&
		       errno == EINTR)
			;
		t->gone = 1;
	}
	lk_proc_forget(t->pid);
	lk_proc_sweep(t->tag);
}

static int traced_run(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		      struct lk_count *c, struct tracer *t)
{
	struct watchdog w;
	int ret, fired;

	pin(t);
	ret = spawn(ctx, opts, t);
	if (ret) {
		if (t->pid > 0)
			end_launch(t);
		return ret;
	}
	ret = prepare(ctx, opts, c, t);
	if (!ret)
		ret = watchdog_start(ctx, &w, t->pid, opts->timeout);
	if (ret) {
		end_launch(t);
		return ret;
	}
	ret = trace_loop(ctx, t);
	fired = watchdog_stop(&w);
	end_launch(t);
	return ret ? ret : verdict(ctx, opts, t, fired);
}

int lk_count_run(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		 struct lk_count *out)
{
	struct tracer t;
	unsigned char *measured;
	double start = lk_now();
	size_t b;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&t, 0, sizeof(t));
	ret = load_cfg(ctx, opts, out);
	if (ret)
		return ret;
	out->counts = t.counts = lk_calloc(out->cfg.nblocks + 1,
					   sizeof(*out->counts));
	out->via = lk_calloc(out->cfg.nblocks + 1, sizeof(*out->via));
	ret = traced_run(ctx, opts, out, &t);
	unpin(&t);
	count_hw_close(&t.hw);
	free(t.bps);
	out->regions = t.regions;
	out->traps = t.traps;
	out->seconds = lk_now() - start;
	measured = lk_calloc(out->cfg.nblocks + 1, 1);
	for (b = 0; b < out->cfg.nblocks; b++)
		measured[b] = out->via[b] != LK_COUNT_DERIVED;
	if (!ret)
		ret = lk_count_derive(ctx, &out->cfg, out->flags, measured,
				      out->counts);
	free(measured);
	if (ret)
		lk_count_release(out);
	return ret;
}

void lk_count_release(struct lk_count *c)
{
	lk_cfg_release(&c->cfg);
	free(c->counts);
	free(c->via);
	memset(c, 0, sizeof(*c));
}

void lk_count_json(const struct lk_count *c, struct lk_buf *out)
{
	static const char *const via[] = {"derived", "int3", "hwbp"};
	size_t b;

	lk_buf_adds(out, "[");
	for (b = 0; b < c->cfg.nblocks; b++) {
		const struct lk_block *blk = &c->cfg.blocks[b];

		lk_buf_addf(out, "%s{\"start\": \"0x%llx\", \"end\": "
				 "\"0x%llx\", \"count\": %llu, \"measured\": "
				 "%s, \"via\": \"%s\"}",
			    b ? ",\n " : "", (unsigned long long)blk->start,
			    (unsigned long long)blk->end,
			    (unsigned long long)c->counts[b],
			    c->via[b] ? "true" : "false", via[c->via[b]]);
	}
	lk_buf_adds(out, "]\n");
}
