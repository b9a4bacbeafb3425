/*
 * lkrt.c: start-up and shutdown. lk_init() turns the LK_* environment
 * into lk__rt and writes the protocol header; lk_finish() writes the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lkrt-int.h"

struct lk__rt lk__rt = {
	.result_fd = -1,
	.group_fd = -1,
	.cpu_list = "-1",
};

static pid_t init_pid;
static int finish_status;

/* NULL for unset or empty: an empty variable means "use the default". */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static uint64_t env_u64(const char *name, uint64_t def, uint64_t min)
{
	const char *v = env(name);
	unsigned long long n;
	char *end;

	if (!v)
		return def;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || *v == '-' || n < min)
		lk__fatal("bad %s=%s: want an integer >= %llu", name, v,
			  (unsigned long long)min);
	return n;
}

static int env_bool(const char *name, int def)
{
	const char *v = env(name);

	if (!v)
		return def;
	if (strcmp(v, "0") && strcmp(v, "1"))
		lk__fatal("bad %s=%s: want 0 or 1", name, v);
	return *v == '1';
}

/*
 * Under a runner, die with it: a kernel that never returns must not spin
 * on after 'loopkit run' was killed. LK_PARENT_PID closes the race where
 * the runner died before the prctl.
 */
static void die_with_runner(void)
{
	const char *v = env("LK_PARENT_PID");

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (v && strtol(v, NULL, 10) != (long)getppid())
		_exit(3);
}

/* Before anything else, so that every later error reaches the runner. */
static void open_result_fd(void)
{
	const char *v = env("LK_RESULT_FD");
	char *end;
	long fd;

	if (!v)
		return;
	fd = strtol(v, &end, 10);
	if (*end || fd < 0 || fd > 65535 || fcntl((int)fd, F_GETFD) < 0)
		lk__fatal("bad LK_RESULT_FD=%s: not an open descriptor", v);
	lk__rt.result_fd = (int)fd;
	lk__out("lkrt version=1\n");
	die_with_runner();
}

static void read_env(void)
{
	const char *steps = env("LK_STEPS");
	const char *cache = env("LK_CACHE");

	lk__rt.warmup = env_u64("LK_WARMUP", 10, 0);
	lk__rt.repetitions = env_u64("LK_REPETITIONS", 50, 1);
	lk__rt.min_sample_ticks = env_u64("LK_MIN_SAMPLE_TICKS", 20000, 1);
	if (steps && strcmp(steps, "auto"))
		lk__rt.steps = env_u64("LK_STEPS", 0, 1);
	if (cache && strcmp(cache, "hot") && strcmp(cache, "cold"))
		lk__fatal("bad LK_CACHE=%s: want hot or cold", cache);
	lk__rt.cold = cache && !strcmp(cache, "cold");
	lk__rt.calibrate = env_bool("LK_CALIBRATE", 1);
	if (env("LK_CPU")) {
		lk__cpus_parse(env("LK_CPU"), &lk__rt.cpus);
		lk__cpus_format(&lk__rt.cpus, lk__rt.cpu_list,
				sizeof(lk__rt.cpu_list));
		lk__rt.pinned = 1;
	}
	lk__threads_read();
	lk__events_parse(env("LK_EVENTS"));
}

/* What the kernel may use: the CPUs after pinning, the threads asked. */
static void cpus_info(void)
{
	char allowed[LK__CPULIST_MAX] = "unknown";
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		lk__cpus_format(&set, allowed, sizeof(allowed));
	lk__out("info cpus_allowed=%s threads=%d\n", allowed, lk_threads());
}

/* The lowest real-time priority: enough to beat normal tasks, no more. */
static void try_fifo(void)
{
	struct sched_param sp = { 0 };

	if (!env_bool("LK_FIFO", 0)) {
		strcpy(lk__rt.fifo, "off");
		return;
	}
	sp.sched_priority = sched_get_priority_min(SCHED_FIFO);
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		snprintf(lk__rt.fifo, sizeof(lk__rt.fifo), "denied:%s",
			 lk__errname(errno));
	else
		strcpy(lk__rt.fifo, "applied");
}

static void at_exit(void)
{
	/* Not after a fatal error, and not in a child the benchmark forked. */
	if (!lk__rt.failed && getpid() == init_pid)
		lk_finish();
}

/*
 * An instruction this CPU cannot run (AVX-512 on a Zen 3, a compiler's
 * ud2): one line on stderr with the address and the bytes there, in
 * async-signal-safe writes only, and the process still dies of SIGILL
 * (the handler resets itself; a faulting instruction runs again, a sent
 * signal is sent again). The runner decodes the bytes and names the
 * instruction in the failure's reason. Installed before main, so that
 * the benchmark's own set-up code is covered too.
 */
static uintptr_t page_size = 4096;

static void on_sigill(int sig, siginfo_t *si, void *uc)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = si->si_addr;
	uintptr_t a = (uintptr_t)p;
	size_t n = 0, i, len = 15;
	char buf[128];
	int k;

	(void)uc;
	if (si->si_code <= 0 || !p) { /* sent by kill() or raise() */
		raise(sig);
		return;
	}
	if (page_size - a % page_size < len)
		len = page_size - a % page_size; /* never past its page */
	memcpy(buf, "lkrt: SIGILL at 0x", 18);
	n = 18;
	for (k = (int)sizeof(a) * 8 - 4; k >= 0; k -= 4)
		if ((a >> k) || !k)
			buf[n++] = hex[(a >> k) & 15];
	memcpy(buf + n, " bytes ", 7);
	n += 7;
	for (i = 0; i < len; i++) {
		buf[n++] = hex[p[i] >> 4];
		buf[n++] = hex[p[i] & 15];
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

__attribute__((constructor)) static void lk__sigill_init(void)
{
	struct sigaction sa;
	long ps = sysconf(_SC_PAGESIZE);

	if (ps > 0)
		page_size = (uintptr_t)ps;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigill;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, NULL);
}

void lk_init(int argc, char **argv)
{
	if (lk__rt.initialised)
		return;
	lk__rt.initialised = 1;
	init_pid = getpid();
	open_result_fd();
	read_env();
	lk__pin();
	try_fifo();
	lk__events_open();
	lk_tsc_hz();
	lk__measure_overhead();
	if (lk__rt.cold)
		lk__cache_flush(); /* allocates the sweep buffer now */
	lk__out("info tsc_hz=%llu warmup=%llu repetitions=%llu cache=%s "
		"cpu=%s fifo=%s calibrate=%d pid=%d\n",
		(unsigned long long)lk__rt.tsc_hz,
		(unsigned long long)lk__rt.warmup,
		(unsigned long long)lk__rt.repetitions,
		lk__rt.cold ? "cold" : "hot", lk__rt.cpu_list, lk__rt.fifo,
		lk__rt.calibrate, (int)init_pid);
	cpus_info();
	lk__events_header();
	lk__out_flush();
	atexit(at_exit);
}

int lk_finish(void)
{
	if (lk__rt.finished)
		return finish_status;
	lk_init(0, NULL);
	lk__rt.finished = 1;
	if (lk__rt.result_fd >= 0) {
		lk__out("end samples=%llu\n",
			(unsigned long long)lk__rt.total_samples);
		finish_status = lk__out_flush() ? 1 : 0;
	} else {
		lk__summary_print();
		finish_status = fflush(stdout) ? 1 : 0;
	}
	return finish_status;
}
