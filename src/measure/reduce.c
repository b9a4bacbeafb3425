/*
 * The method's reducer over a run's samples, the calibration check and
 * the contention rule;
 * the numbers themselves (quantiles, means, the trimmed mean) are in
 * src/stats.
 */
#include <math.h>
#include <stdlib.h>

#include "loopkit/measure.h"
#include "loopkit/stats.h"

double lk_reduce(const struct lk_method *m, const double *v, size_t n)
{
	double mean, dev;

	switch (m->reducer) {
	case LK_REDUCE_MIN:
		return lk_quantile(v, n, 0);
	case LK_REDUCE_MEAN:
		return lk_mean(v, n);
	case LK_REDUCE_PERCENTILE:
		return lk_quantile(v, n, m->percentile / 100.0);
	case LK_REDUCE_TRIMMED:
		lk_trimmed_mean(v, n, 1, &mean, &dev);
		return mean;
	case LK_REDUCE_MEDIAN:
		break;
	}
	return lk_quantile(v, n, 0.5);
}

/* Robust dispersion of log(v): the interquartile range. Logs make it
 * relative and make a product's dispersion comparable to its factors'. */
static double log_iqr(const double *v, size_t n)
{
	double *l = lk_malloc(n * sizeof(*l)), r;
	size_t i;

	for (i = 0; i < n; i++)
		l[i] = log(v[i] > 0 ? v[i] : 1e-300);
	r = lk_quantile(l, n, 0.75) - lk_quantile(l, n, 0.25);
	free(l);
	return r;
}

/*
 * When the kernel runs at the core clock, ticks[i] * ratio[i] is flat
 * while ticks[i] moves with the clock, so calibrating narrows the
 * distribution. When it does not (memory-bound, or a unit clocked apart),
 * ticks stay flat and the product inherits the reference's movement:
 * calibrating widens it. The tolerance absorbs the reference's own
 * measurement noise.
 */
int lk_calibration_reliable(const double *ticks, const double *ratio,
			    size_t n, int *clock_moved)
{
	double *cal, d_raw, d_cal, r_spread;
	size_t i;

	*clock_moved = 0;
	if (n < 4)
		return 1;
	r_spread = log_iqr(ratio, n);
	*clock_moved = r_spread > 0.005;
	cal = lk_malloc(n * sizeof(*cal));
	for (i = 0; i < n; i++)
		cal[i] = ticks[i] * ratio[i];
	d_raw = log_iqr(ticks, n);
	d_cal = log_iqr(cal, n);
	free(cal);
	return d_cal <= d_raw * 1.1 + 0.002;
}

double lk_issue_contention(double issue_tsc, double overhead_tsc,
			   double ratio, double floor_cycles)
{
	if (isnan(ratio) || !(floor_cycles > 0))
		return NAN;
	return (issue_tsc - overhead_tsc) * ratio / floor_cycles;
}

int lk_sample_contended(double contention, double window_ratio,
			double sample_ns)
{
	return sample_ns <= LK_CONTENTION_SPAN_NS &&
	       (contention > LK_CONTENDED || window_ratio > LK_WINDOW_SLACK);
}
