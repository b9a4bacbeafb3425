/*
 * Measuring one variant: launch the benchmark 'processes' times (and
 * again for the X/T/R rule's redos), convert the runtime's raw samples to
 * per-step figures, reduce them, and store the whole run at once.
 */
#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loopkit/binary.h"
#include "loopkit/subprocess.h"
#include "measure-int.h"

extern char **environ;

const char *lk__acc_keep(struct acc *a, const char *s)
{
	lk_strv_push(&a->pool, s);
	return a->pool.v[a->pool.n - 1];
}

int lk__index_of(struct lk_strv *sv, const char *s, int add)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (int)i;
	if (!add)
		return -1;
	lk_strv_push(sv, s);
	return (int)sv->n - 1;
}

static void add_info(struct acc *a, int process, int attempt, const char *key,
		     const char *value)
{
	LK_GROW(a->irec, a->nirec + 1, a->airec);
	a->irec[a->nirec++] = (struct lk_info_rec){
		process, attempt, lk__acc_keep(a, key), lk__acc_keep(a, value)};
}

static void add_raw(struct acc *a, const struct conv *c, long idx,
		    long steps, const char *metric, double raw, double value)
{
	LK_GROW(a->srec, a->nsrec + 1, a->asrec);
	a->srec[a->nsrec++] = (struct lk_sample_rec){
		c->process, c->attempt, a->regions.v[c->region], idx, steps,
		metric, raw, value};
}

/* ---- Launching. ---- */

static void push_env(struct lk_strv *env, const char *key, const char *fmt,
		     long value)
{
	char num[32];

	snprintf(num, sizeof(num), fmt, value);
	lk_strv_pushf(env, "%s=%s", key, num);
}

static void event_list(const struct lk_sweep *sw, struct lk_buf *b)
{
	size_t i;

	for (i = 0; i < sw->metrics.n; i++) {
		const char *m = sw->metrics.v[i];

		if (!strcmp(m, "tsc") || !strcmp(m, "ns"))
			continue;
		if (b->len)
			lk_buf_addch(b, ',');
		lk_buf_adds(b, m);
	}
}

/* Does the runner set this variable for the launch? Then the inherited
 * value gives way: LK_* always, OMP_NUM_THREADS with a thread count or a
 * pinned set, OMP_PLACES and OMP_PROC_BIND with a pinned set. */
static int runner_sets(const char *entry, long threads,
		       const struct lk_cpuset *cpus)
{
	int pinned = lk_cpuset_count(cpus) > 0;

	if (!strncmp(entry, "LK_", 3))
		return 1;
	if (!strncmp(entry, "OMP_NUM_THREADS=", 16))
		return threads > 0 || pinned;
	return pinned && (!strncmp(entry, "OMP_PLACES=", 11) ||
			  !strncmp(entry, "OMP_PROC_BIND=", 14));
}

/*
 * Threads and pinning. A threads: value sets OMP_NUM_THREADS and
 * LK_THREADS. A pinned set makes one OpenMP place per CPU, threads bound
 * close (thread i on the set's i-th CPU, the measuring thread on the
 * first), and, without a threads: value, as many threads as CPUs: the
 * OpenMP runtime counts the CPUs it may use before lk_init pins the
 * process, so its own default would be the runner's mask.
 */
static void thread_env(const struct lk_cpuset *cpus, long threads,
		       struct lk_strv *env)
{
	struct lk_buf places = LK_BUF_INIT;
	char *list = lk_cpuset_format(cpus);
	int cpu = -1;

	if (*list)
		lk_strv_pushf(env, "LK_CPU=%s", list);
	if (threads > 0) {
		push_env(env, "LK_THREADS", "%ld", threads);
		push_env(env, "OMP_NUM_THREADS", "%ld", threads);
	} else if (*list) {
		push_env(env, "OMP_NUM_THREADS", "%ld",
			 lk_cpuset_count(cpus));
	}
	while ((cpu = lk_cpuset_next(cpus, cpu)) >= 0)
		lk_buf_addf(&places, "%s{%d}", places.len ? "," : "", cpu);
	if (places.len) {
		lk_strv_pushf(env, "OMP_PLACES=%s", lk_buf_str(&places));
		lk_strv_push(env, "OMP_PROC_BIND=close");
	}
	lk_buf_release(&places);
	free(list);
}

static void child_env(const struct lk_sweep *sw, long repetitions,
		      long threads, struct lk_strv *env)
{
	const struct lk_method *m = &sw->method;
	struct lk_buf events = LK_BUF_INIT;
	char **e;

	for (e = environ; *e; e++)
		if (!runner_sets(*e, threads, &m->cpus))
			lk_strv_push(env, *e);
	lk_strv_push(env, "LK_RESULT_FD=3");
	push_env(env, "LK_PARENT_PID", "%ld", (long)getpid());
	push_env(env, "LK_WARMUP", "%ld", m->warmup);
	if (m->steps > 0)
		push_env(env, "LK_STEPS", "%ld", m->steps);
	else
		lk_strv_push(env, "LK_STEPS=auto");
	push_env(env, "LK_MIN_SAMPLE_TICKS", "%ld", m->min_sample_ticks);
	push_env(env, "LK_REPETITIONS", "%ld", repetitions);
	lk_strv_push(env, m->cold_cache ? "LK_CACHE=cold" : "LK_CACHE=hot");
	thread_env(&m->cpus, threads, env);
	push_env(env, "LK_FIFO", "%ld", m->fifo);
	push_env(env, "LK_CALIBRATE", "%ld", m->calibrate);
	event_list(sw, &events);
	if (events.len)
		lk_strv_pushf(env, "LK_EVENTS=%s", lk_buf_str(&events));
	lk_buf_release(&events);
}

int lk_measure_check_cpus(struct lk_ctx *ctx, const struct lk_method *m)
{
	const char *where = m->cpu_where, *sep = *where ? ": " : "";
	struct lk_cpuset online, allowed;
	int cpu = -1, ret = 0;
	char *list = NULL;

	if (!lk_cpuset_count(&m->cpus))
		return 0;
	if (lk_cpus_online(&online))
		return lk_error(ctx, LK_ESYS, "%s%smethod.cpu: cannot tell "
				"which CPUs are online", where, sep);
	if (lk_cpus_allowed(&allowed))
		return lk_error_errno(ctx, "%s%smethod.cpu: sched_getaffinity",
				      where, sep);
	while (!ret && (cpu = lk_cpuset_next(&m->cpus, cpu)) >= 0) {
		if (!lk_cpuset_has(&online, cpu)) {
			list = lk_cpuset_format(&online);
			ret = lk_error(ctx, LK_EINPUT, "%s%smethod.cpu: CPU %d "
				       "is not online here (online: %s)",
				       where, sep, cpu, list);
		} else if (!lk_cpuset_has(&allowed, cpu)) {
			list = lk_cpuset_format(&allowed);
			ret = lk_error(ctx, LK_EINPUT, "%s%smethod.cpu: CPU %d "
				       "is outside the CPUs loopkit may run "
				       "on (%s; a taskset, cpuset or cgroup "
				       "limits it)", where, sep, cpu, list);
		}
	}
	free(list);
	return ret;
}

/* The runtime's own complaint on stderr, if it made one. */
static char *rt_error(const struct lk_proc_result *r)
{
	const char *line = r->err ? strstr(r->err, "lkrt: error: ") : NULL;

	if (!line)
		return NULL;
	line += strlen("lkrt: error: ");
	return lk_strndup(line, strcspn(line, "\n"));
}

/* The program ended without the runtime's closing line: it could not
 * report (its result descriptor closed or written over, or an exit that
 * skipped lk_finish). */
static char *no_result(const struct lk_proc_result *r)
{
	char *why = rt_error(r), *how = lk_proc_describe(r, 0), *text;

	text = lk_asprintf("no result received: %s (%s)%s",
			   why ? why : r->res_len ? "the result stream ended "
			   "early" : "the runtime reported nothing on "
			   "descriptor 3", how,
			   !why && r->exited && !r->exit_code ?
			   ": an exit that skipped the runtime's closing "
			   "line (_exit?); return from main or call "
			   "lk_finish() first" : "");
	free(why);
	free(how);
	return text;
}

#define NO_MEASURE "no LK_MEASURE: the program ran and exited 0 without " \
	"measuring anything; wrap the kernel call in LK_MEASURE(...) " \
	"(see lkrt.h)"

/* It ran to a clean exit and the runtime saw no region: it said nothing
 * at all (LK_MEASURE starts the runtime), or all it said ended with
 * 'end'. */
static int measured_nothing(const struct lk_proc_result *r,
			    const struct lk_rt_output *o)
{
	return r->exited && !r->exit_code && !o->nregions &&
	       (!r->res_len || o->complete);
}

/*
 * The runtime's SIGILL handler wrote "lkrt: SIGILL at 0xADDR bytes HEX"
 * on stderr: the reason names the instruction and its ISA set, so that
 * "killed by SIGILL" says which extension this CPU lacks (or that the
 * compiler's ud2 trap was reached). Without the line (a benchmark not
 * linked with the runtime, bytes that do not decode), the reason stays.
 */
static void sigill_what(char **reason, const char *err)
{
	const char *at = err ? strstr(err, "lkrt: SIGILL at 0x") : NULL;
	uint8_t code[15];
	struct lk_insn_facts f;
	size_t n = 0;
	char *more;

	if (!at || !(at = strstr(at, " bytes ")))
		return;
	for (at += 7; n < sizeof(code) && isxdigit((unsigned char)at[0]) &&
		      isxdigit((unsigned char)at[1]); at += 2) {
		unsigned v;

		if (sscanf(at, "%2x", &v) != 1)
			break;
		code[n++] = (uint8_t)v;
	}
	if (!n || lk_insn_facts(code, n, &f))
		return;
	if (!strcmp(f.mnemonic, "ud2") || !strcmp(f.mnemonic, "ud1") ||
	    !strcmp(f.mnemonic, "ud0"))
		more = lk_asprintf("%s: at %s, the compiler's trap (undefined "
				   "behaviour or __builtin_trap reached)",
				   *reason, f.mnemonic);
	else
		more = lk_asprintf("%s: at %s, an instruction of %s (%s), "
				   "which this CPU cannot run", *reason,
				   f.mnemonic, f.isa_set,
				   f.encoding == LK_ENCODING_EVEX ? "EVEX, "
				   "AVX-512" : f.encoding == LK_ENCODING_VEX ?
				   "VEX" : "legacy encoding");
	free(*reason);
	*reason = more;
}

/* Map a launch's outcome to a run status; NULL when it went well. A
 * clean exit is never "crashed", whatever its result stream lacks. */
static const char *launch_status(const struct lk_proc_result *r,
				 const struct lk_rt_output *o, int parse_ret,
				 const struct lk_ctx *pctx, double timeout,
				 char **reason)
{
	if (r->timed_out) {
		*reason = lk_asprintf("timed out after %g s", timeout);
		return "timed-out";
	}
	if (r->out_of_memory) {
		char *how = lk_proc_describe(r, timeout);

		/* The status keeps its usual words; the reason says why. */
		*reason = lk_asprintf("%s (method.memory-limit)", how);
		free(how);
		return r->signaled ? "crashed" : "failed";
	}
	if (r->signaled) {
		*reason = lk_proc_describe(r, timeout);
		if (r->signal == SIGILL)
			sigill_what(reason, r->err);
		return "crashed";
	}
	if (parse_ret) {
		*reason = lk_asprintf("bad result stream: %s", pctx->msg);
		return "failed";
	}
	if (o->error) {
		char *p;

		/* The protocol spells spaces as underscores. */
		*reason = lk_asprintf("runtime error: %s", o->error);
		for (p = *reason; *p; p++)
			if (*p == '_')
				*p = ' ';
		return "failed";
	}
	if (measured_nothing(r, o)) {
		*reason = lk_strdup(NO_MEASURE);
		return "failed";
	}
	if (!o->complete) {
		*reason = no_result(r);
		return "failed";
	}
	if (!r->exited || r->exit_code) {
		*reason = lk_asprintf("exit %d", r->exit_code);
		return "failed";
	}
	return NULL;
}

static void merge_events(struct acc *a, const struct lk_rt_output *o,
			 int *map)
{
	size_t i;

	for (i = 0; i < o->nevents; i++) {
		int k = lk__index_of(&a->events, o->events[i].name, 0);

		if (k < 0 && a->events.n < LK_RT_MAX_EVENTS) {
			k = lk__index_of(&a->events, o->events[i].name, 1);
			a->ev_ok[k] = o->events[i].ok;
			a->ev_err[k] = o->events[i].err;
			a->ev_reason[k] = lk__acc_keep(a, o->events[i].reason);
		}
		map[i] = k;
	}
}

static void convert_sample(struct acc *a, struct conv *c,
			   const struct lk_rt_output *o,
			   const struct lk_rt_region *r,
			   const struct lk_rt_sample *s, const int *map)
{
	double steps = (double)s->steps;
	size_t i;

	c->tsc = (s->tsc - r->ovh_tsc_min) / steps;
	c->ns = (s->ns - r->ovh_ns_min) / steps;
	c->ratio = s->has_ref ? s->ref_cycles / s->ref_tsc : NAN;
	c->cal = c->tsc * c->ratio;
	c->contention = NAN;
	c->window = NAN;
	c->sample_ns = s->ns;
	c->mux = s->mux;
	add_raw(a, c, s->idx, s->steps, "tsc", s->tsc, c->tsc);
	add_raw(a, c, s->idx, s->steps, "ns", s->ns, c->ns);
	if (s->has_ref) {
		add_raw(a, c, s->idx, s->steps, "ref_tsc", s->ref_tsc,
			s->ref_tsc);
		add_raw(a, c, s->idx, s->steps, "ref_cycles", s->ref_cycles,
			s->ref_cycles);
	}
	if (s->has_issue)
		add_raw(a, c, s->idx, s->steps, "issue_tsc", s->issue_tsc,
			s->issue_tsc);
	if (s->has_window)
		add_raw(a, c, s->idx, s->steps, "window_tsc", s->window_tsc,
			s->window_tsc);
	for (i = 0; i < o->nevents; i++) {
		if (!(s->ev_mask & (1u << i)) || map[i] < 0)
			continue;
		c->ev[map[i]] = s->ev[i] / steps;
		c->ev_mask |= 1u << map[i];
		add_raw(a, c, s->idx, s->steps, a->events.v[map[i]], s->ev[i],
			c->ev[map[i]]);
	}
}

/*
 * One reference timing can be hit by an interrupt in both its runs, and
 * the product ticks x ratio then lands far below the rest: the ratio of a
 * sample is the median of its own and its neighbours' (±RATIO_WINDOW
 * samples, a fraction of a millisecond, far shorter than the 100-400 ms
 * clock episodes it must follow).
 */
#define RATIO_WINDOW 2

static void smooth_ratios(struct acc *a, size_t from,
			  const struct lk_rt_region *r)
{
	size_t n = a->nconv - from, i, j, k;
	double *raw = lk_malloc((n + 1) * sizeof(*raw));
	double w[2 * RATIO_WINDOW + 1];

	for (i = 0; i < n; i++)
		raw[i] = a->conv[from + i].ratio;
	for (i = 0; i < n; i++) {
		struct conv *c = &a->conv[from + i];

		for (j = i > RATIO_WINDOW ? i - RATIO_WINDOW : 0, k = 0;
		     j < n && j <= i + RATIO_WINDOW; j++)
			if (!isnan(raw[j]))
				w[k++] = raw[j];
		if (isnan(raw[i]) || !k)
			continue;
		c->ratio = lk_quantile(w, k, 0.5);
		c->cal = c->tsc * c->ratio;
		add_raw(a, c, r->samples[i].idx, r->samples[i].steps,
			"cycles:tsc-calibrated", r->samples[i].tsc * c->ratio,
			c->cal);
	}
	free(raw);
}

/*
 * The probes, their timer overhead taken off as from a sample. Stored as
 * 'contention' (raw: the issue probe's core cycles at the sample's
 * smoothed clock; value: over its floor, 1 at four adds per cycle) and
 * 'window' (raw: the window probe's core cycles; value: over the issue
 * probe's ticks). Against the issue probe beside it, the window probe
 * needs no clock: a reference hit twice by interrupts cannot make it
 * look fast.
 */
static void mark_contention(struct acc *a, size_t from,
			    const struct lk_rt_region *r)
{
	size_t i;

	for (i = 0; i < a->nconv - from; i++) {
		const struct lk_rt_sample *s = &r->samples[i];
		struct conv *c = &a->conv[from + i];
		double w, issue;

		if (!s->has_issue)
			continue;
		c->contention = lk_issue_contention(s->issue_tsc,
						    r->ovh_tsc_min, c->ratio,
						    s->issue_cycles);
		if (!isnan(c->contention))
			add_raw(a, c, s->idx, s->steps, "contention",
				c->contention * s->issue_cycles,
				c->contention);
		issue = s->issue_tsc - r->ovh_tsc_min;
		if (!s->has_window || issue <= 0)
			continue;
		w = s->window_tsc - r->ovh_tsc_min;
		c->window = w / issue;
		add_raw(a, c, s->idx, s->steps, "window", w * c->ratio,
			c->window);
	}
}

void lk__classify(struct acc *a)
{
	double best = INFINITY, floor = INFINITY;
	size_t i;

	for (i = 0; i < a->nconv; i++)
		if (a->conv[i].contention < floor)
			floor = a->conv[i].contention;
	/* A core that never issues four adds per cycle: its best is the
	 * floor (else every sample there would look contended). */
	if (!(floor > 1))
		floor = 1;
	for (i = 0; i < a->nconv; i++) {
		const struct conv *c = &a->conv[i];

		if (c->window > 0 && c->window < best &&
		    c->contention <= LK_CONTENDED * floor)
			best = c->window;
	}
	for (i = 0; i < a->nconv; i++) {
		struct conv *c = &a->conv[i];
		long seen = (size_t)c->region < a->aregion_threads
				    ? a->region_threads[c->region] : 0;

		/* A kernel's own threads share cores with the measuring
		 * one: the probes see them, not a neighbour. */
		if (a->threads > 1 || seen > 1) {
			c->contended = 0;
			continue;
		}
		c->contended = lk_sample_contended(
			c->contention / floor,
			isinf(best) ? NAN : c->window / best, c->sample_ns);
	}
}

static void region_infos(struct acc *a, const struct lk_rt_region *r,
			 int process, int attempt)
{
	char key[160], val[160];

	snprintf(key, sizeof(key), "%s.steps", r->name);
	snprintf(val, sizeof(val), "%ld", r->steps);
	add_info(a, process, attempt, key, val);
	snprintf(key, sizeof(key), "%s.roi_addr", r->name);
	add_info(a, process, attempt, key, r->roi_addr ? r->roi_addr : "?");
	snprintf(key, sizeof(key), "%s.overhead_tsc_min", r->name);
	snprintf(val, sizeof(val), "%.0f", r->ovh_tsc_min);
	add_info(a, process, attempt, key, val);
	snprintf(key, sizeof(key), "%s.overhead_ns_min", r->name);
	snprintf(val, sizeof(val), "%.0f", r->ovh_ns_min);
	add_info(a, process, attempt, key, val);
	if (r->threads) {
		snprintf(key, sizeof(key), "%s.threads", r->name);
		snprintf(val, sizeof(val), "%ld", r->threads);
		add_info(a, process, attempt, key, val);
	}
}

/* The most threads any launch saw in region reg. */
static void region_threads(struct acc *a, int reg, long threads)
{
	size_t n = a->aregion_threads;

	LK_GROW(a->region_threads, (size_t)reg + 1, a->aregion_threads);
	memset(a->region_threads + n, 0,
	       (a->aregion_threads - n) * sizeof(*a->region_threads));
	if (threads > a->region_threads[reg])
		a->region_threads[reg] = threads;
}

/* Keep the region's declared work, as infos and for the derived figures. */
static void region_work(struct acc *a, const struct lk_rt_region *r, int reg,
			int process, int attempt)
{
	char key[160], val[40];
	size_t i, k;

	for (i = 0; i < r->nwork; i++) {
		const struct lk_rt_work *w = &r->work[i];

		snprintf(key, sizeof(key), "%s.work.%s", r->name, w->unit);
		snprintf(val, sizeof(val), "%.17g", w->per_call);
		add_info(a, process, attempt, key, val);
		for (k = 0; k < a->nwork; k++)
			if (a->work[k].region == reg &&
			    !strcmp(a->work[k].unit, w->unit))
				break;
		if (k < a->nwork) {
			a->work[k].differs |= a->work[k].per_call != w->per_call;
			continue;
		}
		LK_GROW(a->work, a->nwork + 1, a->awork);
		a->work[a->nwork++] = (struct acc_work){
			reg, lk__acc_keep(a, w->unit), w->per_call, 0};
	}
}

static void absorb(struct acc *a, const struct lk_rt_output *o, int process,
		   int attempt)
{
	int map[LK_RT_MAX_EVENTS];
	size_t i, j;

	merge_events(a, o, map);
	for (i = 0; i < o->info_keys.n; i++)
		add_info(a, process, attempt, o->info_keys.v[i],
			 o->info_values.v[i]);
	for (i = 0; i < o->nregions; i++) {
		const struct lk_rt_region *r = &o->regions[i];
		int reg = lk__index_of(&a->regions, r->name, 1);
		size_t from = a->nconv;

		region_infos(a, r, process, attempt);
		region_work(a, r, reg, process, attempt);
		region_threads(a, reg, r->threads);
		for (j = 0; j < r->nsamples; j++) {
			struct conv c = {.process = process,
					  .attempt = attempt,
					  .region = reg, .kept = 1};

			convert_sample(a, &c, o, r, &r->samples[j], map);
			LK_GROW(a->conv, a->nconv + 1, a->aconv);
			a->conv[a->nconv++] = c;
		}
		smooth_ratios(a, from, r);
		mark_contention(a, from, r);
	}
}

/* One launch. 0: measured; 1: failed, *status set; < 0: our failure. */
static int launch(struct lk_ctx *ctx, const struct lk_sweep *sw,
		  const char *binary, long repetitions, long threads,
		  int process,
		  int attempt, struct acc *a, const char **status,
		  char **reason)
{
	const char *argv[] = {binary, NULL};
	struct lk_strv env = LK_STRV_INIT;
	struct lk_proc_opts po = {.argv = argv, .timeout = sw->method.timeout,
				  .result_fd = 3, .max_capture = 256u << 20};
	struct lk_proc_result r;
	struct lk_rt_output o;
	struct lk_ctx pctx;
	int ret, pret;

	lk_ctx_init(&pctx);
	child_env(sw, repetitions, threads, &env);
	po.envp = (const char *const *)env.v;
	if (sw->method.no_aslr)
		po.flags |= LK_PROC_NO_ASLR;
	po.memory_limit = sw->method.memory_limit;
	ret = lk_proc_run(ctx, &po, &r);
	lk_strv_release(&env);
	if (ret) {
		lk_proc_result_release(&r);
		return ret;
	}
	pret = lk_rt_parse(&pctx, "result stream", r.res, r.res_len, &o);
	*status = launch_status(&r, &o, pret, &pctx, sw->method.timeout,
				reason);
	if (!*status)
		absorb(a, &o, process, attempt);
	lk_rt_output_release(&o);
	lk_proc_result_release(&r);
	return *status ? 1 : 0;
}

/* ---- The X/T/R rule. ---- */

static double rule_value(const struct conv *c)
{
	return isnan(c->cal) ? c->tsc : c->cal;
}

/* Is the attempt stable in every region? Marks its samples kept. */
static int attempt_stable(struct acc *a, int process, int attempt,
			  double tol)
{
	size_t r, i, n;
	int stable = 1;
	double *v = lk_malloc((a->nconv + 1) * sizeof(*v)), mean, dev;

	for (r = 0; r < a->regions.n; r++) {
		for (i = n = 0; i < a->nconv; i++) {
			struct conv *c = &a->conv[i];

			if (c->process == process && c->attempt == attempt &&
			    c->region == (int)r)
				v[n++] = rule_value(c);
		}
		if (n && !lk_trimmed_mean(v, n, tol, &mean, &dev))
			stable = 0;
	}
	free(v);
	return stable;
}

static void drop_attempt(struct acc *a, int process, int attempt)
{
	size_t i;

	for (i = 0; i < a->nconv; i++)
		if (a->conv[i].process == process &&
		    a->conv[i].attempt == attempt)
			a->conv[i].kept = 0;
}

void lk__count_clean(const struct acc *a, int region, int process,
		     int attempt, size_t *n, size_t *clean)
{
	size_t i;

	for (i = *n = *clean = 0; i < a->nconv; i++) {
		const struct conv *c = &a->conv[i];

		if (c->region != region ||
		    (process < 0 ? !c->kept : c->process != process ||
					      c->attempt != attempt))
			continue;
		++*n;
		*clean += !c->contended;
	}
}

/* Did some region of this launch get samples, none of them uncontended? */
static int launch_contended(const struct acc *a, int process, int attempt)
{
	size_t r, n, clean;

	for (r = 0; r < a->regions.n; r++) {
		lk__count_clean(a, (int)r, process, attempt, &n, &clean);
		if (n && !clean)
			return 1;
	}
	return 0;
}

/*
 * Would some region's figures rest on contended samples after all: at
 * least LK_MIN_UNCONTENDED samples kept, fewer of them uncontended, some
 * contended (results.c leaves contended samples out only when that many
 * clean ones remain)? A run too short to ever have that many is not
 * judged: relaunching it would not lift its flag.
 */
static int run_short_of_clean(const struct acc *a)
{
	size_t r, n, clean;

	for (r = 0; r < a->regions.n; r++) {
		lk__count_clean(a, (int)r, -1, 0, &n, &clean);
		if (n >= LK_MIN_UNCONTENDED && clean < LK_MIN_UNCONTENDED &&
		    clean < n)
			return 1;
	}
	return 0;
}

/*
 * A launch whose samples were all contended is launched again, and so is
 * the run's last launch when the run is short of uncontended samples
 * (above), after a pause that doubles with each try (100, 200, 400, 800,
 * then 1600 ms: a neighbour's episode on the core lasts from milliseconds
 * to over a second), at most method.relaunches times per run, so that a
 * core that never issues four adds per cycle costs a few launches, not
 * a multiple of them.
 */
static int relaunch_contended(struct acc *a, int p, int t, int last,
			      long max, int *budget)
{
	struct timespec pause;
	long ms;

	lk__classify(a);
	if (*budget >= max ||
	    !(launch_contended(a, p, t) || (last && run_short_of_clean(a))))
		return 0;
	ms = 100L << (*budget < 4 ? *budget : 4);
	++*budget;
	pause.tv_sec = ms / 1000;
	pause.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&pause, NULL);
	drop_attempt(a, p, t);
	return 1;
}

static int run_processes(struct lk_ctx *ctx, const struct lk_sweep *sw,
			 const char *binary, long threads, struct acc *a,
			 int *attempts, const char **status, char **reason)
{
	const struct lk_method *m = &sw->method;
	int trimmed = m->reducer == LK_REDUCE_TRIMMED;
	long reps = trimmed ? m->trim_runs : m->repetitions;
	int p, t, redos, ret, relaunched = 0;

	*attempts = 0;
	for (p = 0; p < m->processes; p++) {
		for (t = redos = 0;; t++) {
			++*attempts;
			ret = launch(ctx, sw, binary, reps, threads, p, t, a,
				     status, reason);
			if (ret)
				return ret;
			if (relaunch_contended(a, p, t,
					       p == m->processes - 1,
					       m->relaunches, &relaunched))
				continue;
			if (!trimmed ||
			    attempt_stable(a, p, t, m->trim_tolerance))
				break;
			if (redos++ == m->trim_retries) {
				a->unstable = 1;
				break;
			}
			drop_attempt(a, p, t);
		}
	}
	return 0;
}

static void acc_release(struct acc *a)
{
	lk_strv_release(&a->pool);
	lk_strv_release(&a->regions);
	lk_strv_release(&a->events);
	free(a->conv);
	free(a->srec);
	free(a->irec);
	free(a->rrec);
	free(a->work);
	free(a->region_threads);
}

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int lk_measure_record_failure(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t variant_id, int64_t build_id,
			      int64_t env_id, const char *method_hash,
			      const char *method, const char *status,
			      const char *reason)
{
	double now = unix_now();
	struct lk_run_rec run = {
		.variant_id = variant_id, .build_id = build_id,
		.env_id = env_id, .method_hash = method_hash,
		.method = method, .status = status, .reason = reason,
		.started = now, .finished = now, .memory_limit = -1};
	int64_t id;

	return lk_store_run_put(ctx, s, &run, &id);
}

int lk_measure_unit(struct lk_ctx *ctx, struct lk_store *s,
		    const struct lk_sweep *sw, const char *binary,
		    long threads, int64_t variant_id, int64_t build_id, int64_t env_id,
		    const char *method_hash, struct lk_unit_result *out)
{
	struct acc a;
	struct lk_run_rec run = {.variant_id = variant_id,
				 .build_id = build_id, .env_id = env_id,
				 .method_hash = method_hash};
	const char *status = NULL;
	char *reason = NULL, *method = lk_method_canonical(&sw->method);
	int64_t id;
	int ret;

	memset(&a, 0, sizeof(a));
	run.started = unix_now();
	a.threads = threads;
	ret = run_processes(ctx, sw, binary, threads, &a, &run.attempts,
			    &status, &reason);
	if (ret < 0)
		goto out;
	if (!status) {
		lk__classify(&a);
		lk__compute_results(&a, sw);
		status = a.unstable ? "unstable" : "ok";
	}
	run.finished = unix_now();
	run.method = method;
	run.memory_limit = sw->method.memory_limit == LK_PROC_UNLIMITED
				   ? 0 : (int64_t)sw->method.memory_limit;
	run.status = status;
	run.reason = reason ? reason : "";
	run.samples = a.srec;
	run.nsamples = a.nsrec;
	run.infos = a.irec;
	run.ninfos = a.nirec;
	run.results = a.rrec;
	run.nresults = a.nrrec;
	ret = lk_store_run_put(ctx, s, &run, &id);
	out->status = lk_strdup(status);
	out->reason = lk_strdup(run.reason);
out:
	free(reason);
	free(method);
	acc_release(&a);
	return ret;
}
