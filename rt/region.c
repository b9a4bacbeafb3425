/*
 * region.c: what LK_MEASURE_NAMED runs. The macro loops over rounds;
 * lk__region_next() decides what each round is (warm-up, auto-steps
 * probe, or a reported sample) and records the previous one, so the
 * kernel expression appears once in the benchmark's code.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lkrt-int.h"

#define PROBE_TRIES 3

__attribute__((noinline, used)) void lk_roi_begin(void)
{
	lk__rt.roi_ret = __builtin_return_address(0);
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline, used)) void lk_roi_end(void)
{
	__asm__ volatile("" : : : "memory");
}

/*
 * The timed interval, innermost first: TSC, then CLOCK_MONOTONIC_RAW,
 * then the counter group. The TSC interval holds no syscall; the ns
 * interval holds two vDSO calls' worth; event deltas include both clock
 * reads (a few hundred instructions at most).
 */
void lk__sample_start(struct lk__region *r)
{
	lk__events_read(&r->ev0);
	r->ns0 = lk__ns_now();
	r->tsc0 = lk_tsc();
}

void lk__sample_stop(struct lk__region *r)
{
	r->tsc1 = lk_tsc();
	r->ns1 = lk__ns_now();
	lk__events_read(&r->ev1);
}

/* A name measured again gets a suffix: every region's samples stay apart. */
static void set_name(struct lk__region *r, const char *name)
{
	struct lk__region *o;
	int seen = 1;

	snprintf(r->base, sizeof(r->base), "%s",
		 name && *name ? name : "kernel");
	lk__sanitise(r->base);
	for (o = lk__rt.regions; o; o = o->next)
		seen += !strcmp(o->base, r->base);
	if (seen > 1)
		snprintf(r->name, sizeof(r->name), "%s.%d", r->base, seen);
	else
		snprintf(r->name, sizeof(r->name), "%s", r->base);
}

static int unit_ok(const char *unit)
{
	size_t n = strspn(unit, "abcdefghijklmnopqrstuvwxyz0123456789_");

	return n >= 1 && n <= LK__WORK_UNIT_MAX && !unit[n];
}

void lk_work(const char *unit, double per_call)
{
	int i;

	lk_init(0, NULL);
	if (!unit || !unit_ok(unit))
		lk__fatal("lk_work unit name %.40s is not 1 to %d characters "
			  "of a-z 0-9 and underscore",
			  unit ? unit : "(null)", LK__WORK_UNIT_MAX);
	if (!isfinite(per_call) || per_call <= 0)
		lk__fatal("lk_work %s per call %g is not a finite number "
			  "above 0", unit, per_call);
	for (i = 0; i < lk__rt.nwork; i++)
		if (!strcmp(lk__rt.work[i].unit, unit))
			break;
	if (i == LK__MAX_WORK)
		lk__fatal("lk_work %s: more than %d units for one region",
			  unit, LK__MAX_WORK);
	if (i == lk__rt.nwork)
		snprintf(lk__rt.work[lk__rt.nwork++].unit,
			 sizeof(lk__rt.work[i].unit), "%s", unit);
	lk__rt.work[i].per_call = per_call;
}

/* The region takes the work declared since the previous one. */
static void take_work(struct lk__region *r)
{
	memcpy(r->work, lk__rt.work, sizeof(r->work));
	r->nwork = lk__rt.nwork;
	lk__rt.nwork = 0;
}

struct lk__region *lk__region_open(const char *name)
{
	struct lk__region *r;

	lk_init(0, NULL);
	r = calloc(1, sizeof(*r));
	if (!r)
		lk__fatal("out of memory");
	set_name(r, name);
	take_work(r);
	r->phase = lk__rt.finished ? LK__DONE : LK__START;
	r->steps = lk__rt.steps ? lk__rt.steps : 1;
	r->samples = calloc(lk__rt.repetitions, sizeof(*r->samples));
	if (!r->samples)
		lk__fatal("out of memory for %llu samples",
			  (unsigned long long)lk__rt.repetitions);
	if (lk__rt.last_region)
		lk__rt.last_region->next = r;
	else
		lk__rt.regions = r;
	lk__rt.last_region = r;
	return r;
}

/*
 * Auto steps: double until a sample reaches min_sample_ticks. Each step
 * count is timed PROBE_TRIES times and the minimum kept, because one
 * interrupt (~20,000 ticks) is as long as the whole target.
 */
static int probe_done(struct lk__region *r)
{
	uint64_t t = r->tsc1 - r->tsc0;

	if (!r->probe_tries || t < r->probe_min)
		r->probe_min = t;
	if (++r->probe_tries < PROBE_TRIES)
		return 0;
	if (r->probe_min >= lk__rt.min_sample_ticks ||
	    r->steps >= LK__MAX_STEPS)
		return 1;
	r->steps *= 2;
	r->probe_tries = 0;
	return 0;
}

static void work_line(const struct lk__region *r)
{
	char buf[768];
	int len, i;

	if (!r->nwork)
		return;
	len = snprintf(buf, sizeof(buf), "info region=%s", r->name);
	for (i = 0; i < r->nwork; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " work.%s=%.17g",
				r->work[i].unit, r->work[i].per_call);
	lk__out("%s\n", buf);
}

/* Before the first sample line: where the kernel sits, what to subtract,
 * and the work it declared. */
static void region_header(struct lk__region *r)
{
	lk__out("info region=%s steps=%llu roi_addr=0x%llx\n", r->name,
		(unsigned long long)r->steps,
		(unsigned long long)(uintptr_t)r->roi_addr);
	lk__out("overhead region=%s tsc_min=%llu tsc_median=%llu ns_min=%llu "
		"ns_median=%llu\n",
		r->name, (unsigned long long)lk__rt.ovh_tsc_min,
		(unsigned long long)lk__rt.ovh_tsc_median,
		(unsigned long long)lk__rt.ovh_ns_min,
		(unsigned long long)lk__rt.ovh_ns_median);
	if (lk__rt.calibrate)
		lk__out("calib region=%s ref_cycles=%llu ref_imuls=%llu "
			"latency=%d issue_cycles=%llu issue_chains=%d\n",
			r->name, (unsigned long long)LK_REF_CYCLES,
			(unsigned long long)LK_REF_ITERS * LK_REF_UNROLL,
			LK_REF_LATENCY, (unsigned long long)LK_ISSUE_CYCLES,
			LK_ISSUE_CHAINS);
	work_line(r);
}

static void sample_line(struct lk__region *r, const struct lk__sample *s)
{
	char buf[768];
	int len, i;

	len = snprintf(buf, sizeof(buf),
		       "sample region=%s idx=%llu steps=%llu tsc=%llu ns=%llu",
		       r->name, (unsigned long long)(s - r->samples),
		       (unsigned long long)r->steps,
		       (unsigned long long)s->tsc, (unsigned long long)s->ns);
	if (lk__rt.calibrate)
		len += snprintf(buf + len, sizeof(buf) - len,
				" ref_tsc=%llu ref_cycles=%llu issue_tsc=%llu "
				"issue_cycles=%llu window_tsc=%llu",
				(unsigned long long)s->ref_tsc,
				(unsigned long long)LK_REF_CYCLES,
				(unsigned long long)s->issue_tsc,
				(unsigned long long)LK_ISSUE_CYCLES,
				(unsigned long long)s->window_tsc);
	for (i = 0; i < lk__rt.nevents; i++) {
		const struct lk__event *e = &lk__rt.events[i];

		if (e->slot >= 0)
			len += snprintf(buf + len, sizeof(buf) - len,
					" %s=%llu", e->name,
					(unsigned long long)s->ev[e->slot]);
	}
	lk__out("%s%s\n", buf, s->mux ? " mux=1" : "");
}

/* A probe's TSC ticks, less the empty region's. */
static double probe_ticks(uint64_t probe_tsc)
{
	return (double)probe_tsc - (double)lk__rt.ovh_tsc_min;
}

/* The issue probe's core cycles, at the reference chain's clock. */
static double issue_cycles(uint64_t issue_tsc, uint64_t ref_tsc)
{
	return probe_ticks(issue_tsc) * LK_REF_CYCLES / (double)ref_tsc;
}

/*
 * The issue probe above its floor: a neighbour took issue slots. The
 * floor is LK_ISSUE_CYCLES; on a core that never issues four adds per
 * cycle every sample would look contended, so once the process has
 * waited a region's budget without the probe ever near it, the floor is
 * the probe's best so far (not before: a process that starts on a
 * shared core would take the neighbour's pace for the core's).
 */
static int issue_short(uint64_t issue_tsc, uint64_t ref_tsc)
{
	double floor = (double)LK_ISSUE_CYCLES;

	if (lk__rt.best_issue > LK__CONTENDED * floor &&
	    lk__rt.waited >= lk_tsc_hz() / 1000 * LK__WAIT_MS)
		floor = lk__rt.best_issue;
	return issue_cycles(issue_tsc, ref_tsc) > LK__CONTENDED * floor;
}

/*
 * The window probe against the issue probe beside it (no clock needed);
 * its best so far is kept from rounds whose issue probe was at its floor.
 */
static double window_pace(uint64_t window_tsc, uint64_t issue_tsc)
{
	return probe_ticks(window_tsc) / probe_ticks(issue_tsc);
}

static void note_probes(uint64_t window_tsc, uint64_t issue_tsc,
			uint64_t ref_tsc)
{
	double w = window_pace(window_tsc, issue_tsc);
	double c = issue_cycles(issue_tsc, ref_tsc);

	if (c > 0 && (!lk__rt.best_issue || c < lk__rt.best_issue))
		lk__rt.best_issue = c;
	if (!issue_short(issue_tsc, ref_tsc) &&
	    (!lk__rt.best_window || w < lk__rt.best_window))
		lk__rt.best_window = w;
}

/*
 * Was the core shared? The issue probe above its floor (a neighbour took
 * issue slots), or the window probe above its best so far (a neighbour
 * held half the window).
 */
static int contended(uint64_t issue_tsc, uint64_t window_tsc,
		     uint64_t ref_tsc)
{
	return issue_short(issue_tsc, ref_tsc) ||
	       (lk__rt.best_window &&
		window_pace(window_tsc, issue_tsc) >
			LK__WINDOW_SLACK * lk__rt.best_window);
}

int lk__sample_contended(const struct lk__sample *s)
{
	return lk__rt.calibrate && lk__rt.threads <= 1 &&
	       s->ns <= LK__SPAN_US * 1000u &&
	       contended(s->issue_tsc, s->window_tsc, s->ref_tsc);
}

/* The round that just ended was a sample: keep it and report it. */
static void record_sample(struct lk__region *r)
{
	struct lk__sample *s = &r->samples[r->nsamples];
	int i;

	/*
	 * The reference's shorter run: an interrupt only lengthens one. The
	 * probes' longer runs: the sample is suspect if either side of it
	 * was contended. The probes sit next to the sample.
	 */
	if (lk__rt.calibrate) {
		uint64_t window = lk__window_run(), issue = lk__issue_run();
		uint64_t after = lk__ref_run();

		note_probes(window, issue, after);
		s->ref_tsc = after < r->ref_before ? after : r->ref_before;
		s->issue_tsc = issue > r->issue_before ? issue
						       : r->issue_before;
		s->window_tsc = window > r->window_before ? window
							  : r->window_before;
	}
	s->tsc = r->tsc1 - r->tsc0;
	s->ns = r->ns1 - r->ns0;
	for (i = 0; i < lk__rt.nslots; i++)
		s->ev[i] = r->ev1.values[i] - r->ev0.values[i];
	s->mux = r->ev1.running - r->ev0.running <
		 r->ev1.enabled - r->ev0.enabled;
	if (!r->nsamples) {
		r->roi_addr = lk__rt.roi_ret;
		region_header(r);
	}
	sample_line(r, s);
	r->nsamples++;
	lk__rt.total_samples++;
}

/*
 * After the last sample: how many threads the process has. An OpenMP
 * team's threads outlive the parallel region (they wait in the pool),
 * so more than one says the kernel ran threads beside the measuring
 * one, whose CPU alone the reference chain times.
 */
static void region_threads(struct lk__region *r)
{
	struct timespec ms = {0, 1000000L};
	int i;

	/* pthread_join returns when the thread has cleared its tid, before
	 * the kernel releases it and drops it from the count: a thread just
	 * joined can still be counted for a moment. Look again, up to 10 ms
	 * (a pool's threads stay, and cost that once per region). */
	r->threads = lk__threads_now();
	for (i = 0; i < 10 && r->threads > 1; i++) {
		nanosleep(&ms, NULL);
		r->threads = lk__threads_now();
	}
	if (r->threads > 0)
		lk__out("info region=%s threads=%d\n", r->name, r->threads);
}

/*
 * Will the next sample be short enough for the probes at its two ends to
 * speak for it? Judged by the round before it (warm-up, auto-steps probe
 * or sample); with none, it counts as short.
 */
static int short_sample(const struct lk__region *r)
{
	double per_call;

	if (!r->last_calls || r->tsc1 <= r->tsc0)
		return 1;
	per_call = (double)(r->tsc1 - r->tsc0) / (double)r->last_calls;
	return per_call * (double)r->steps <
	       (double)lk_tsc_hz() * LK__SPAN_US / 1e6;
}

/*
 * The reference and the probes, just before a sample. Is the core free to
 * take it? While the probes say another thread shares it (on a VM,
 * episodes of a millisecond to a second), a short sample would be slower
 * by what the neighbour took, and the runner would leave it out
 * (doc/method.md, "Contended samples"): wait, within the region's
 * budget. With a hot cache, a round of the kernel outside the
 * region of interest fills the wait, so that the neighbour cannot evict
 * the kernel's data meanwhile (returns 0: run one); with a cold one,
 * only the probes run, which touch no memory.
 */
static int ready(struct lk__region *r)
{
	uint64_t budget = lk_tsc_hz() / 1000 * LK__WAIT_MS, start;
	/* A kernel's own threads share cores with the measuring one: they
	 * are not a neighbour to wait for (doc/method.md). */
	int wait = short_sample(r) && lk__rt.threads <= 1;

	for (;;) {
		start = lk_tsc();
		r->ref_before = lk__ref_run();
		r->issue_before = lk__issue_run();
		r->window_before = lk__window_run();
		note_probes(r->window_before, r->issue_before,
			    r->ref_before);
		r->waited += lk_tsc() - start;
		lk__rt.waited += lk_tsc() - start;
		if (!wait ||
		    !contended(r->issue_before, r->window_before,
			       r->ref_before) ||
		    r->waited >= budget)
			return 1;
		if (!lk__rt.cold)
			return 0;
	}
}

/* What to run next, given the round that just ended. */
static enum lk__phase advance(struct lk__region *r)
{
	switch (r->phase) {
	case LK__START:
		if (lk__rt.warmup)
			return LK__WARMUP;
		/* fall through */
	case LK__WARMUP:
		if (!lk__rt.steps)
			return LK__PROBE;
		return LK__SAMPLE;
	case LK__PROBE:
		return probe_done(r) ? LK__SAMPLE : LK__PROBE;
	case LK__SAMPLE:
		record_sample(r);
		if (r->nsamples < lk__rt.repetitions)
			return LK__SAMPLE;
		region_threads(r);
		return LK__DONE;
	case LK__WAIT:
		r->waited += lk_tsc() - r->wait_mark;
		lk__rt.waited += lk_tsc() - r->wait_mark;
		return LK__SAMPLE;
	case LK__DONE:
		break;
	}
	return LK__DONE;
}

uint64_t lk__region_next(struct lk__region *r, int *roi)
{
	*roi = 0;
	r->phase = advance(r);
	switch (r->phase) {
	case LK__WARMUP:
		return r->last_calls = lk__rt.warmup;
	case LK__PROBE:
		return r->last_calls = r->steps;
	case LK__SAMPLE:
		break;
	default:
		lk__out_flush();
		return 0;
	}
	if (lk__rt.cold)
		lk__cache_flush();
	if (lk__rt.calibrate && !ready(r)) {
		r->phase = LK__WAIT;
		r->wait_mark = lk_tsc();
		return r->last_calls = r->steps;
	}
	*roi = 1;
	return r->last_calls = r->steps;
}
