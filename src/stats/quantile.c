/* Quantiles, means and the X/T/R rule's trimmed mean. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/stats.h"

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

void lk_sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = lk_malloc(n * sizeof(*s));

	memcpy(s, v, n * sizeof(*s));
	lk_sort_doubles(s, n);
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
