/* Reducers, the X/T/R stability rule, and the calibration check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/measure.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lk_quantile_sorted(const double *v, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (!n)
		return NAN;
	if (q <= 0)
		return v[0];
	if (q >= 1)
		return v[n - 1];
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	frac = pos - (double)lo;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = lk_malloc(n * sizeof(*s));

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

double lk_quantile(const double *v, size_t n, double q)
{
	double *s, r;

	if (!n)
		return NAN;
	s = sorted_copy(v, n);
	r = lk_quantile_sorted(s, n, q);
	free(s);
	return r;
}

double lk_mean(const double *v, size_t n)
{
	double sum = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

int lk_trimmed_mean(const double *v, size_t n, double tol, double *mean,
		    double *max_dev)
{
	double *s, m, dev = 0;
	size_t lo = 0, hi = n, i;

	if (!n) {
		*mean = NAN;
		*max_dev = 0;
		return 0;
	}
	s = sorted_copy(v, n);
	if (n >= 3) {
		lo = 1;
		hi = n - 1;
	}
	m = lk_mean(s + lo, hi - lo);
	for (i = lo; i < hi; i++) {
		double d = m != 0 ? fabs(s[i] - m) / fabs(m) : 0;

		if (d > dev)
			dev = d;
	}
	free(s);
	*mean = m;
	*max_dev = dev;
	return dev <= tol;
}

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
