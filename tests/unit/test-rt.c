/*
 * test-rt.c: liblkrt. Timings are checked as properties (monotonic,
 * plausible, proportional), never as exact values. Every measurement runs
 * in a forked child writing the protocol to a memfd, so each gets a fresh
 * runtime and its own LK_* environment.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lkrt.h"

struct run {
	char *text;
	int status; /* exit status, or 128 + signal */
};

/* "K=V K=V": split on spaces, as no test value holds one. */
static void apply_env(const char *env)
{
	char *copy = strdup(env ? env : ""), *save, *kv;

	for (kv = strtok_r(copy, " ", &save); kv;
	     kv = strtok_r(NULL, " ", &save))
		putenv(strdup(kv));
	free(copy);
}

static char *read_all(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	char *text = calloc(1, size + 1);

	cr_assert(text);
	cr_assert_eq(pread(fd, text, size, 0), size);
	return text;
}

/*
 * Run body in a child with env; the child ends with _exit(lk_finish())
 * unless body ends it first (_exit keeps Criterion's own handlers out).
 */
static struct run run_child(const char *env, void (*body)(void))
{
	struct run r;
	int fd = memfd_create("lkrt-test", 0), ws;
	pid_t pid;

	cr_assert_geq(fd, 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		char v[16];

		snprintf(v, sizeof(v), "%d", fd);
		setenv("LK_RESULT_FD", v, 1);
		apply_env(env);
		body();
		_exit(lk_finish());
	}
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	r.text = read_all(fd);
	close(fd);
	return r;
}

/* The nth (from 0) line starting with prefix, or NULL. */
static const char *line_at(const char *text, const char *prefix, int nth)
{
	const char *p = text;
	size_t n = strlen(prefix);

	for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (!strncmp(p, prefix, n) && nth-- == 0)
			return p;
	return NULL;
}

static int count_lines(const char *text, const char *prefix)
{
	int n = 0;

	while (line_at(text, prefix, n))
		n++;
	return n;
}

static const char *last_line(const char *text)
{
	const char *p = text + strlen(text);

	if (p > text && p[-1] == '\n')
		p--;
	while (p > text && p[-1] != '\n')
		p--;
	return p;
}

/* The value of key= in line as a string (to the next space), or NULL. */
static const char *field_str(const char *line, const char *key, char *buf,
			     size_t size)
{
	size_t klen = strlen(key), len;
	const char *end = strchr(line, '\n'), *p;

	if (!end)
		end = line + strlen(line);
	for (p = line; p < end; p++) {
		if (p == line || p[-1] != ' ' || strncmp(p, key, klen) ||
		    p[klen] != '=')
			continue;
		p += klen + 1;
		len = strcspn(p, " \n");
		if (len >= size)
			len = size - 1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		return buf;
	}
	return NULL;
}

static long long field(const char *line, const char *key)
{
	char buf[64];

	if (!field_str(line, key, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Median of key over the sample lines of one region. */
static long long sample_median(const char *text, const char *region,
			       const char *key)
{
	long long v[1024];
	char buf[80];
	const char *l;
	int i, n = 0;

	for (i = 0; (l = line_at(text, "sample ", i)) && n < 1024; i++)
		if (!strcmp(field_str(l, "region", buf, sizeof(buf)), region))
			v[n++] = field(l, key);
	cr_assert_gt(n, 0, "no samples for region %s", region);
	qsort(v, n, sizeof(v[0]), cmp_ll);
	return v[n / 2];
}

static int have_pmu(void)
{
	struct perf_event_attr attr = { 0 };
	int fd;

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Kernels: a dependent multiply chain the compiler cannot remove. */
static __attribute__((noinline)) uint64_t spin(uint64_t n)
{
	uint64_t x = 3, i;

	for (i = 0; i < n; i++)
		x = LK_DO_NOT_OPTIMIZE(x * 7 + 1);
	return x;
}

static long evaluations;

static void body_simple(void)
{
	lk_init(0, NULL);
	LK_MEASURE(LK_DO_NOT_OPTIMIZE(spin(200)));
}

static void body_count(void)
{
	LK_MEASURE_NAMED("count", evaluations++);
	lk_finish();
	_exit(evaluations == 3 + 4 * 5 ? 0 : 1);
}

/* Exits with the number of evaluations beyond warm-up and samples. */
static void body_count_extra(void)
{
	long calls = 0;

	LK_MEASURE_NAMED("count", calls++);
	lk_finish();
	_exit(calls < 23 ? 127 : (int)((calls - 3 - 4 * 5) % 125));
}

static void body_two_sizes(void)
{
	LK_MEASURE_NAMED("short", LK_DO_NOT_OPTIMIZE(spin(50)));
	LK_MEASURE_NAMED("long", LK_DO_NOT_OPTIMIZE(spin(5000)));
}

static void body_work(void)
{
	LK_MEASURE_NAMED("little", LK_DO_NOT_OPTIMIZE(spin(20000)));
	LK_MEASURE_NAMED("much", LK_DO_NOT_OPTIMIZE(spin(2000000)));
}

static void body_names(void)
{
	LK_MEASURE_NAMED("a", spin(10));
	LK_MEASURE_NAMED("a", spin(10));
	LK_MEASURE_NAMED("my kernel/1", spin(10));
}

static void body_exit_without_finish(void)
{
	LK_MEASURE(spin(10));
	exit(0);
}

static void body_crash(void)
{
	LK_MEASURE(spin(10));
	abort();
}

static void body_finish_twice(void)
{
	LK_MEASURE(spin(10));
	if (lk_finish() || lk_finish())
		_exit(1);
	LK_MEASURE_NAMED("after", abort());
}

static char *cache_buf;

static uint64_t sum_buf(void)
{
	const uint64_t *p = (const uint64_t *)cache_buf;
	uint64_t s = 0;
	size_t i;

	/* One load per 64-byte line: misses dominate when cold. */
	for (i = 0; i < (512u << 10) / 8; i += 8)
		s += p[i];
	return s;
}

static void body_cache(void)
{
	cache_buf = lk_alloc(512u << 10);
	lk_flush_register(cache_buf, 512u << 10);
	LK_MEASURE(LK_DO_NOT_OPTIMIZE(sum_buf()));
}

Test(rt, tsc_is_monotonic)
{
	uint64_t prev = lk_tsc(), now;
	int i;

	for (i = 0; i < 100000; i++) {
		now = lk_tsc();
		cr_assert_geq(now, prev);
		prev = now;
	}
	spin(100000);
	cr_assert_gt(lk_tsc(), prev);
}

Test(rt, tsc_hz_is_plausible_and_stable)
{
	uint64_t hz = lk_tsc_hz();

	cr_assert_geq(hz, 500000000u);
	cr_assert_leq(hz, 6000000000u);
	cr_assert_eq(lk_tsc_hz(), hz, "measured once, then cached");
}

Test(rt, core_tsc_ratio_is_plausible_and_stable)
{
	double a = lk_core_tsc_ratio(101), b = lk_core_tsc_ratio(101);

	cr_assert(a > 0.3 && a < 3.0, "ratio %f", a);
	cr_assert(b > 0.3 && b < 3.0, "ratio %f", b);
	/* The core clock may step between calls, but not by a third. */
	cr_assert(a / b > 0.75 && a / b < 1.33, "ratios %f %f", a, b);
}

/*
 * A chain's or probe's time is proportional to its length: the fastest of 21 runs of
 * 4n iterations against the fastest of 21 of n. A neighbour on the
 * core's other hardware thread can slow one length and not the other for
 * a whole round (a CI run once read 5.3), so up to 5 rounds, 2 ms apart;
 * one within bounds passes, a probe whose time is not proportional fails
 * them all. Writes the last round's ticks.
 */
static int proportional(uint64_t (*probe)(uint64_t), uint64_t n,
			uint64_t *one, uint64_t *four)
{
	uint64_t t;
	int i, round;

	for (round = 0; round < 5; round++) {
		if (round)
			usleep(2000);
		*one = *four = UINT64_MAX;
		for (i = 0; i < 21; i++) {
			t = probe(n);
			*one = t < *one ? t : *one;
			t = probe(4 * n);
			*four = t < *four ? t : *four;
		}
		if (*four > 3.2 * *one && *four < 4.8 * *one)
			return 1;
	}
	return 0;
}

Test(rt, chain_time_is_proportional_to_length)
{
	uint64_t one, four;

	cr_assert(proportional(lk_ref_chain_tsc, 500, &one, &four),
		  "%llu vs %llu", (unsigned long long)four,
		  (unsigned long long)one);
}

/* The ratio predicts how long a much longer chain takes. */
Test(rt, million_cycle_chain_is_ratio_consistent)
{
	uint64_t iters = 1000000 / (LK_REF_UNROLL * LK_REF_LATENCY);
	uint64_t ticks = UINT64_MAX, t;
	double ratio, cycles;
	int i;

	for (i = 0; i < 5; i++) {
		t = lk_ref_chain_tsc(iters);
		if (t < ticks)
			ticks = t;
	}
	ratio = lk_core_tsc_ratio(51);
	cycles = ticks * ratio;
	cr_assert(cycles > 0.85e6 && cycles < 1.15e6,
		  "1M-cycle chain: %llu ticks x %.3f = %.0f cycles",
		  (unsigned long long)ticks, ratio, cycles);
}


/*
 * The issue probe in core cycles (at the reference's clock) never beats
 * its floor, four adds per cycle, and its best of many runs comes near
 * it: even a core whose neighbour takes issue slots most of the time
 * leaves it alone now and then, and no core of the last decade needs
 * twice the floor (a probe whose chains or count went wrong does).
 */
Test(rt, issue_probe_runs_at_its_floor)
{
	uint64_t ticks = UINT64_MAX, t;
	double ratio, cycles;
	int i;

	for (i = 0; i < 200; i++) {
		t = lk_issue_probe_tsc(LK_ISSUE_ITERS);
		if (t < ticks)
			ticks = t;
	}
	ratio = lk_core_tsc_ratio(51);
	cycles = ticks * ratio;
	cr_assert(cycles > 0.97 * LK_ISSUE_CYCLES &&
			  cycles < 2.0 * LK_ISSUE_CYCLES,
		  "issue probe: %llu ticks x %.3f = %.0f cycles, floor %llu",
		  (unsigned long long)ticks, ratio, cycles,
		  (unsigned long long)LK_ISSUE_CYCLES);
}

Test(rt, issue_probe_time_is_proportional_to_length)
{
	uint64_t one, four;

	cr_assert(proportional(lk_issue_probe_tsc, 20, &one, &four),
		  "%llu vs %llu", (unsigned long long)four,
		  (unsigned long long)one);
}

/* The window probe has no floor known beforehand (rt/lkrt.h), but its
 * time is proportional to its length like the others'. */
Test(rt, window_probe_time_is_proportional_to_length)
{
	uint64_t one, four;

	cr_assert(proportional(lk_window_probe_tsc, 10, &one, &four),
		  "%llu vs %llu", (unsigned long long)four,
		  (unsigned long long)one);
}

Test(rt, alloc_is_page_aligned_and_zeroed)
{
	unsigned char *p = lk_alloc(10000);
	size_t i;

	cr_assert_eq((uintptr_t)p % 4096, 0);
	for (i = 0; i < 10000; i++)
		cr_assert_eq(p[i], 0);
	lk_free(p);
	lk_free(NULL);
	p = lk_alloc(0);
	cr_assert_eq((uintptr_t)p % 4096, 0);
	lk_free(p);
}

Test(rt, protocol_output_parses)
{
	struct run r = run_child("LK_REPETITIONS=7", body_simple);
	const char *info = line_at(r.text, "info tsc_hz=", 0);
	const char *ovh = line_at(r.text, "overhead ", 0);
	const char *l;
	int i;

	cr_assert_eq(r.status, 0, "%s", r.text);
	cr_assert(!strncmp(r.text, "lkrt version=1\n", 15), "%s", r.text);
	cr_assert_str_eq(last_line(r.text), "end samples=7\n");
	cr_assert_eq(count_lines(r.text, "sample "), 7);
	cr_assert(info);
	cr_assert_geq(field(info, "tsc_hz"), 500000000);
	cr_assert_eq(field(info, "repetitions"), 7);
	cr_assert_eq(field(info, "warmup"), 10);
	cr_assert_eq(field(info, "cpu"), -1);
	cr_assert_eq(field(info, "calibrate"), 1);
	cr_assert_gt(field(line_at(r.text, "info region=", 0), "roi_addr"), 0);
	cr_assert(ovh && ovh < line_at(r.text, "sample ", 0));
	cr_assert_gt(field(ovh, "tsc_min"), 0);
	cr_assert_leq(field(ovh, "tsc_min"), field(ovh, "tsc_median"));
	cr_assert_leq(field(ovh, "ns_min"), field(ovh, "ns_median"));
	cr_assert_eq(field(line_at(r.text, "calib ", 0), "ref_cycles"),
		     LK_REF_CYCLES);
	cr_assert_eq(field(line_at(r.text, "calib ", 0), "issue_cycles"),
		     LK_ISSUE_CYCLES);
	cr_assert_eq(field(line_at(r.text, "calib ", 0), "issue_chains"),
		     LK_ISSUE_CHAINS);
	for (i = 0; (l = line_at(r.text, "sample ", i)); i++) {
		cr_assert_eq(field(l, "idx"), i);
		cr_assert_gt(field(l, "tsc"), field(ovh, "tsc_min"));
		cr_assert_gt(field(l, "ns"), 0);
		cr_assert_gt(field(l, "ref_tsc"), 0);
		cr_assert_eq(field(l, "ref_cycles"), LK_REF_CYCLES);
		/* The probe cannot beat its floor by much at any clock the
		 * reference could report (0.3 to 3 cycles per tick). */
		cr_assert_gt(field(l, "issue_tsc"), LK_ISSUE_CYCLES / 3);
		cr_assert_eq(field(l, "issue_cycles"), LK_ISSUE_CYCLES);
		cr_assert_eq(field(l, "mux"), -1, "no events, no mux");
	}
	free(r.text);
}

Test(rt, no_calibration_means_no_ref_fields)
{
	struct run r = run_child("LK_REPETITIONS=3 LK_CALIBRATE=0",
				 body_simple);

	cr_assert_eq(r.status, 0);
	cr_assert_eq(count_lines(r.text, "calib "), 0);
	cr_assert_eq(field(line_at(r.text, "sample ", 0), "ref_tsc"), -1);
	cr_assert_eq(field(line_at(r.text, "sample ", 0), "issue_tsc"), -1);
	free(r.text);
}

/* Without the reference (and so without waiting for an uncontended core,
 * which runs the kernel outside the samples): exactly warm-up + samples. */
Test(rt, fixed_steps_run_the_kernel_exactly)
{
	struct run r = run_child("LK_WARMUP=3 LK_STEPS=5 LK_REPETITIONS=4 "
				 "LK_CALIBRATE=0",
				 body_count);

	cr_assert_eq(r.status, 0, "3 warm-up + 4 x 5 evaluations");
	cr_assert_eq(field(line_at(r.text, "info region=count", 0), "steps"),
		     5);
	cr_assert_eq(field(line_at(r.text, "sample ", 3), "steps"), 5);
	free(r.text);
}

/* With it, a wait for an uncontended core runs whole rounds of steps
 * outside the samples, and nothing else runs. */
Test(rt, waiting_rounds_are_whole_steps)
{
	struct run r = run_child("LK_WARMUP=3 LK_STEPS=5 LK_REPETITIONS=4",
				 body_count_extra);

	cr_assert_lt(r.status, 125, "%s", r.text);
	cr_assert_eq(r.status % 5, 0, "%d evaluations beyond 3 + 4 x 5",
		     r.status);
	cr_assert_eq(count_lines(r.text, "sample "), 4);
	free(r.text);
}

Test(rt, auto_steps_picks_more_steps_for_a_shorter_kernel)
{
	struct run r = run_child("LK_REPETITIONS=5", body_two_sizes);
	long long s = field(line_at(r.text, "info region=short", 0), "steps");
	long long l = field(line_at(r.text, "info region=long", 0), "steps");

	cr_assert_eq(r.status, 0);
	cr_assert_gt(s, 2 * l, "short %lld steps, long %lld", s, l);
	cr_assert_geq(l, 1);
	/* The chosen step count reaches the target (the minimum of a few). */
	cr_assert_geq(sample_median(r.text, "short", "tsc"), 20000 / 2);
	free(r.text);
}

Test(rt, regions_get_unique_sanitised_names)
{
	struct run r = run_child("LK_REPETITIONS=2 LK_STEPS=1", body_names);

	cr_assert_eq(r.status, 0);
	cr_assert(line_at(r.text, "info region=a ", 0));
	cr_assert(line_at(r.text, "info region=a.2 ", 0));
	cr_assert(line_at(r.text, "info region=my_kernel_1 ", 0));
	cr_assert_eq(count_lines(r.text, "overhead "), 3);
	cr_assert_str_eq(last_line(r.text), "end samples=6\n");
	free(r.text);
}

Test(rt, software_task_clock_grows_with_work)
{
	struct run r = run_child("LK_REPETITIONS=9 LK_STEPS=1 "
				 "LK_EVENTS=task-clock,page-faults",
				 body_work);
	long long little, much;

	cr_assert_eq(r.status, 0);
	cr_assert(line_at(r.text, "event name=task-clock status=ok", 0));
	little = sample_median(r.text, "little", "task-clock");
	much = sample_median(r.text, "much", "task-clock");
	cr_assert_gt(little, 0);
	cr_assert_gt(much, 20 * little, "%lld vs %lld ns", much, little);
	/* task-clock is time on a CPU in ns: a single thread cannot have
	 * more of it than wall-clock time (it has less when the machine is
	 * loaded, so no lower bound holds). */
	cr_assert_leq(much, sample_median(r.text, "much", "ns") * 11 / 10 +
				    1000);
	free(r.text);
}

Test(rt, unsupported_hardware_event_reports_errno_not_value)
{
	struct run r;
	const char *ev;

	if (have_pmu())
		cr_skip_test("a hardware PMU is present: events open");
	r = run_child("LK_REPETITIONS=3 LK_EVENTS=cycles,task-clock,"
		      "instructions",
		      body_simple);
	cr_assert_eq(r.status, 0);
	ev = line_at(r.text, "event name=cycles ", 0);
	cr_assert(ev);
	cr_assert(strstr(ev, "status=unsupported") < strchr(ev, '\n'));
	cr_assert_gt(field(ev, "errno"), 0);
	cr_assert(line_at(r.text, "event name=task-clock status=ok", 0));
	cr_assert_eq(field(line_at(r.text, "sample ", 0), "cycles"), -1);
	cr_assert_eq(field(line_at(r.text, "sample ", 0), "instructions"), -1);
	cr_assert_geq(field(line_at(r.text, "sample ", 0), "task-clock"), 0);
	free(r.text);
}

Test(rt, hardware_cycles_are_counted_with_a_pmu)
{
	struct run r;

	if (!have_pmu())
		cr_skip_test("no hardware PMU (perf_event_open cycles fails)");
	r = run_child("LK_REPETITIONS=5 LK_EVENTS=cycles,instructions",
		      body_simple);
	cr_assert_eq(r.status, 0);
	cr_assert(line_at(r.text, "event name=cycles status=ok", 0));
	cr_assert_gt(sample_median(r.text, "kernel", "cycles"), 0);
	cr_assert_gt(sample_median(r.text, "kernel", "instructions"), 0);
	free(r.text);
}

Test(rt, unknown_event_is_fatal)
{
	struct run r = run_child("LK_EVENTS=task-clock,cylces", body_simple);

	cr_assert_eq(r.status, 3);
	cr_assert(line_at(r.text, "error msg=", 0), "%s", r.text);
	cr_assert_eq(count_lines(r.text, "end "), 0);
	free(r.text);
}

static int exit_status(const char *env)
{
	struct run r = run_child(env, body_simple);

	free(r.text);
	return r.status;
}

Test(rt, bad_environment_is_fatal)
{
	cr_assert_eq(exit_status("LK_REPETITIONS=0"), 3);
	cr_assert_eq(exit_status("LK_STEPS=many"), 3);
	cr_assert_eq(exit_status("LK_CACHE=warm"), 3);
	cr_assert_eq(exit_status("LK_FIFO=yes"), 3);
	cr_assert_eq(exit_status("LK_RESULT_FD=999"), 3);
}

Test(rt, refused_pinning_is_fatal)
{
	struct run r = run_child("LK_CPU=4000", body_simple);

	cr_assert_eq(r.status, 3);
	cr_assert(!strncmp(r.text, "lkrt version=1\n", 15));
	cr_assert(line_at(r.text, "error msg=", 0), "%s", r.text);
	cr_assert_eq(count_lines(r.text, "end "), 0);
	free(r.text);
}

Test(rt, pinning_and_fifo_are_reported)
{
	struct run r = run_child("LK_CPU=0 LK_FIFO=1 LK_REPETITIONS=2",
				 body_simple);
	char fifo[64];

	cr_assert_eq(r.status, 0);
	cr_assert_eq(field(line_at(r.text, "info tsc_hz", 0), "cpu"), 0);
	cr_assert(field_str(line_at(r.text, "info tsc_hz", 0), "fifo", fifo,
			    sizeof(fifo)));
	cr_assert(!strcmp(fifo, "applied") || !strncmp(fifo, "denied:E", 8),
		  "fifo=%s", fifo);
	free(r.text);
}

Test(rt, exit_without_finish_still_ends_the_stream)
{
	struct run r = run_child("LK_REPETITIONS=3", body_exit_without_finish);

	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(last_line(r.text), "end samples=3\n");
	free(r.text);
}

Test(rt, crash_leaves_no_end_line)
{
	struct run r = run_child("LK_REPETITIONS=3", body_crash);

	cr_assert_eq(r.status, 128 + SIGABRT);
	cr_assert_eq(count_lines(r.text, "end "), 0);
	cr_assert(!strncmp(r.text, "lkrt version=1\n", 15));
	free(r.text);
}

Test(rt, finish_is_idempotent_and_final)
{
	struct run r = run_child("LK_REPETITIONS=3", body_finish_twice);

	cr_assert_eq(r.status, 0);
	cr_assert_eq(count_lines(r.text, "end "), 1);
	cr_assert_eq(count_lines(r.text, "info region=after"), 0);
	free(r.text);
}

Test(rt, cold_cache_is_slower_than_hot)
{
	struct run hot = run_child("LK_REPETITIONS=15 LK_STEPS=1", body_cache);
	struct run cold = run_child("LK_REPETITIONS=15 LK_STEPS=1 "
				    "LK_CACHE=cold",
				    body_cache);
	long long h, c;

	cr_assert_eq(hot.status, 0);
	cr_assert_eq(cold.status, 0);
	cr_assert(line_at(cold.text, "info tsc_hz", 0) &&
		  strstr(cold.text, " cache=cold "));
	h = sample_median(hot.text, "kernel", "tsc");
	c = sample_median(cold.text, "kernel", "tsc");
	cr_assert_gt(c, 3 * h / 2, "cold %lld vs hot %lld ticks", c, h);
	free(hot.text);
	free(cold.text);
}

Test(rt, cold_cache_without_buffers_sweeps)
{
	struct run r = run_child("LK_REPETITIONS=2 LK_CACHE=cold", body_simple);

	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(last_line(r.text), "end samples=2\n");
	free(r.text);
}

/* ---- CPU sets and threads ---- */

static int thread_parked;

static void *park(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&thread_parked, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

/* A second thread alive across the region, as an OpenMP pool is. */
static void body_with_thread(void)
{
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, park, NULL), 0);
	lk_init(0, NULL);
	LK_MEASURE(LK_DO_NOT_OPTIMIZE(spin(200)));
	__atomic_store_n(&thread_parked, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

static void body_report_threads(void)
{
	lk_init(0, NULL);
	_exit(lk_threads());
}

/* The first two CPUs this process may run on; 0 if it has one. */
static int two_cpus(int *a, int *b)
{
	cpu_set_t set;
	int cpu, n = 0;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			*(n++ ? b : a) = cpu;
	return n == 2;
}

Test(rt, pinning_to_a_list_is_reported)
{
	char env[80], want[40], got[40];
	struct run r;
	int a, b;

	if (!two_cpus(&a, &b))
		cr_skip_test("one CPU: no list to pin to");
	snprintf(env, sizeof(env), "LK_CPU=%d,%d LK_REPETITIONS=2", b, a);
	r = run_child(env, body_simple);
	snprintf(want, sizeof(want), b == a + 1 ? "%d-%d" : "%d,%d", a, b);
	cr_assert_eq(r.status, 0, "%s", r.text);
	cr_assert(field_str(line_at(r.text, "info tsc_hz", 0), "cpu", got,
			    sizeof(got)));
	cr_assert_str_eq(got, want, "the canonical list");
	cr_assert(field_str(line_at(r.text, "info cpus_allowed=", 0),
			    "cpus_allowed", got, sizeof(got)));
	cr_assert_str_eq(got, want, "the process runs on the set");
	free(r.text);
	snprintf(env, sizeof(env), "LK_CPU=%d-%d LK_REPETITIONS=2", a, a);
	r = run_child(env, body_simple);
	cr_assert_eq(field(line_at(r.text, "info tsc_hz", 0), "cpu"), a);
	cr_assert_eq(field(line_at(r.text, "info cpus_allowed=", 0),
			   "cpus_allowed"), a);
	free(r.text);
}

Test(rt, bad_cpu_lists_are_fatal)
{
	static const char *const bad[] = {"LK_CPU=0,", "LK_CPU=x",
					  "LK_CPU=3-1", "LK_CPU=5000",
					  "LK_CPU=0-99999", "LK_CPU=-1"};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = run_child(bad[i], body_simple);

		cr_expect_eq(r.status, 3, "%s", bad[i]);
		cr_expect(line_at(r.text, "error msg=", 0), "%s: %s", bad[i],
			  r.text);
		free(r.text);
	}
}

Test(rt, thread_counts)
{
	struct run r = run_child("LK_THREADS=3 OMP_NUM_THREADS=5",
				 body_report_threads);

	cr_assert_eq(r.status, 3, "LK_THREADS first");
	cr_assert_eq(field(line_at(r.text, "info cpus_allowed=", 0),
			   "threads"), 3);
	free(r.text);
	r = run_child("OMP_NUM_THREADS=5,2", body_report_threads);
	cr_assert_eq(r.status, 5, "OMP_NUM_THREADS's outer level");
	free(r.text);
	r = run_child("LK_CPU=0", body_report_threads);
	cr_assert_eq(r.status, 1, "the CPUs of the pinned set");
	free(r.text);
	r = run_child("LK_THREADS=0", body_report_threads);
	cr_assert_eq(r.status, 3, "LK_THREADS=0 is fatal");
	cr_assert(line_at(r.text, "error msg=bad_LK_THREADS", 0), "%s",
		  r.text);
	free(r.text);
	r = run_child("LK_THREADS=2,1", body_report_threads);
	cr_assert(line_at(r.text, "error msg=bad_LK_THREADS", 0), "%s",
		  r.text);
	free(r.text);
}

Test(rt, region_reports_the_threads_it_ended_with)
{
	struct run one = run_child("LK_REPETITIONS=2", body_simple);
	struct run two = run_child("LK_REPETITIONS=2", body_with_thread);
	const char *l1 = strstr(one.text, "\ninfo region=kernel threads=");
	const char *l2 = strstr(two.text, "\ninfo region=kernel threads=");

	cr_assert_eq(one.status, 0);
	cr_assert_eq(two.status, 0, "%s", two.text);
	cr_assert(l1 && l2, "%s", two.text);
	cr_assert_eq(field(l1 + 1, "threads"), 1);
	cr_assert_eq(field(l2 + 1, "threads"), 2);
	/* After the last sample, before the end. */
	cr_assert_gt(l2, line_at(two.text, "sample region=kernel idx=1", 0));
	free(one.text);
	free(two.text);
}
