/*
 * summary.c: order statistics, and the readable summary printed when a
 * benchmark is started by hand. TSC ticks are never called cycles here:
 * core cycles are either a PMU event or derived from the reference chain,
 * and labelled as such.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lkrt-int.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void lk__u64_sort(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

/* Sorts v. The upper median for even n, like the overhead line's. */
double lk__median_d(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[n / 2];
}

/* Per-step value of one sample, the runner's way: raw minus overhead. */
static double per_step(uint64_t raw, uint64_t overhead, uint64_t steps)
{
	return raw > overhead ? (double)(raw - overhead) / steps : 0.0;
}

/*
 * The samples the figures rest on, as the runner chooses them: the
 * uncontended ones when there are at least MIN_UNCONTENDED (the runner's
 * LK_MIN_UNCONTENDED), else all. Fills use[] with their indices and says
 * how many were left out.
 */
#define MIN_UNCONTENDED 10

static uint64_t choose(const struct lk__region *r, uint64_t *use,
		       uint64_t *left_out)
{
	uint64_t i, n = 0;

	for (i = 0; i < r->nsamples; i++)
		if (!lk__sample_contended(&r->samples[i]))
			use[n++] = i;
	*left_out = r->nsamples - n;
	if (n >= MIN_UNCONTENDED)
		return n;
	for (i = 0; i < r->nsamples; i++)
		use[i] = i;
	*left_out = 0;
	return r->nsamples;
}

/* Returns the median ns per step. */
static double print_time(const struct lk__region *r, const uint64_t *use,
			 uint64_t n, double *v)
{
	uint64_t i;
	double ns;

	for (i = 0; i < n; i++)
		v[i] = per_step(r->samples[use[i]].tsc, lk__rt.ovh_tsc_min,
				r->steps);
	lk__median_d(v, n);
	printf("  %-28s min %.2f  median %.2f\n", "tsc ticks/step", v[0],
	       v[n / 2]);
	for (i = 0; i < n; i++)
		v[i] = per_step(r->samples[use[i]].ns, lk__rt.ovh_ns_min,
				r->steps);
	ns = lk__median_d(v, n);
	printf("  %-28s median %.2f\n", "ns/step", ns);
	return ns;
}

/* Returns the median calibrated cycles per step. */
static double print_calibrated(const struct lk__region *r,
			       const uint64_t *use, uint64_t n, double *v)
{
	uint64_t i;
	double ratio, cycles;

	for (i = 0; i < n; i++)
		v[i] = (double)LK_REF_CYCLES / r->samples[use[i]].ref_tsc;
	ratio = lk__median_d(v, n);
	for (i = 0; i < n; i++)
		v[i] = per_step(r->samples[use[i]].tsc, lk__rt.ovh_tsc_min,
				r->steps) *
		       LK_REF_CYCLES / r->samples[use[i]].ref_tsc;
	cycles = lk__median_d(v, n);
	printf("  %-28s median %.2f  (core/tsc %.3f)\n",
	       "cycles/step (tsc-calibrated)", cycles, ratio);
	/* The runner flags these rows multi-threaded; say it here too. */
	if (r->threads > 1)
		printf("  %-28s %d threads ran: cycles are the wall time in "
		       "the measuring thread's CPU clock\n", "", r->threads);
	return cycles;
}

/* The declared work over the medians above, as the runner derives it. */
static void print_work(const struct lk__region *r, double ns, double cycles)
{
	char label[64];
	int i;

	for (i = 0; i < r->nwork; i++) {
		const struct lk__work *w = &r->work[i];

		snprintf(label, sizeof(label), "%s/s", w->unit);
		if (ns > 0)
			printf("  %-28s %.4g\n", label, w->per_call / ns * 1e9);
		snprintf(label, sizeof(label), "%s/cycle (tsc-calibrated)",
			 w->unit);
		if (cycles > 0)
			printf("  %-28s %.4g\n", label, w->per_call / cycles);
	}
}

static void print_events(const struct lk__region *r, const uint64_t *use,
			 uint64_t n, double *v)
{
	uint64_t i, mux = 0;
	int k;

	for (k = 0; k < lk__rt.nevents; k++) {
		const struct lk__event *e = &lk__rt.events[k];
		char label[48];

		snprintf(label, sizeof(label), "%s/step", e->name);
		if (e->slot < 0) {
			printf("  %-28s not supported (%s)\n", label,
			       lk__errname(e->err));
			continue;
		}
		for (i = 0; i < n; i++)
			v[i] = (double)r->samples[use[i]].ev[e->slot] /
			       r->steps;
		printf("  %-28s median %.2f\n", label, lk__median_d(v, n));
	}
	for (i = 0; i < n; i++)
		mux += r->samples[use[i]].mux;
	if (mux)
		printf("  %llu of %llu samples multiplexed (mux=1: events "
		       "counted part of the time, values not scaled)\n",
		       (unsigned long long)mux, (unsigned long long)n);
}

static void print_region(const struct lk__region *r)
{
	double *v, ns, cycles = NAN;
	uint64_t *use, n, left_out;

	printf("region %s: %llu steps/sample, %llu samples\n", r->name,
	       (unsigned long long)r->steps, (unsigned long long)r->nsamples);
	if (!r->nsamples)
		return;
	v = malloc(r->nsamples * sizeof(*v));
	use = malloc(r->nsamples * sizeof(*use));
	if (!v || !use)
		goto out;
	n = choose(r, use, &left_out);
	if (left_out)
		printf("  %llu contended samples left out (issue probe above "
		       "%.2f x its floor, or window probe above %.2f x its "
		       "best)\n",
		       (unsigned long long)left_out, LK__CONTENDED,
		       LK__WINDOW_SLACK);
	ns = print_time(r, use, n, v);
	if (lk__rt.calibrate)
		cycles = print_calibrated(r, use, n, v);
	print_events(r, use, n, v);
	print_work(r, ns, cycles);
out:
	free(use);
	free(v);
}

void lk__summary_print(void)
{
	const struct lk__region *r;

	printf("lkrt: tsc %.3f GHz, cpu %s, fifo %s, cache %s; "
	       "overhead %llu ticks min, %llu median (subtracted)\n",
	       lk__rt.tsc_hz / 1e9, lk__rt.cpu_list, lk__rt.fifo,
	       lk__rt.cold ? "cold" : "hot",
	       (unsigned long long)lk__rt.ovh_tsc_min,
	       (unsigned long long)lk__rt.ovh_tsc_median);
	for (r = lk__rt.regions; r; r = r->next)
		print_region(r);
}
