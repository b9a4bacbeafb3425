/*
 * Error statistics of predictions against measurements: quantiles,
 * MAPE, RMSE and Kendall's tau-b (Knight's O(n log n) algorithm, the
 * one SciPy uses).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/report.h"

double lk_stat_quantile(const double *sorted, size_t n, double p)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	if (p <= 0)
		return sorted[0];
	if (p >= 1)
		return sorted[n - 1];
	h = (double)(n - 1) * p;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (h - lo) * (sorted[i + 1] - sorted[i]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct xy {
	double x, y;
};

static int cmp_xy(const void *a, const void *b)
{
	const struct xy *p = a, *q = b;

	if (p->x != q->x)
		return (p->x > q->x) - (p->x < q->x);
	return (p->y > q->y) - (p->y < q->y);
}

/* Pairs within runs of equal values: sum of t(t-1)/2. */
static double tied_pairs_x(const struct xy *v, size_t n, int joint)
{
	double ties = 0;
	size_t i = 0;

	while (i < n) {
		size_t j = i + 1;

		while (j < n && v[j].x == v[i].x &&
		       (!joint || v[j].y == v[i].y))
			j++;
		ties += (double)(j - i) * (double)(j - i - 1) / 2;
		i = j;
	}
	return ties;
}

static double tied_pairs_y(const struct xy *v, size_t n)
{
	double ties = 0;
	size_t i = 0;

	while (i < n) {
		size_t j = i + 1;

		while (j < n && v[j].y == v[i].y)
			j++;
		ties += (double)(j - i) * (double)(j - i - 1) / 2;
		i = j;
	}
	return ties;
}

/*
 * Sort v[0..n) by y (stable merge sort through tmp) and return how many
 * pairs it had in strictly decreasing y order: the discordant pairs once
 * v was sorted by (x, y).
 */
static double merge_count(struct xy *v, struct xy *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j = mid, k = 0;
	double swaps;

	if (n < 2)
		return 0;
	swaps = merge_count(v, tmp, mid) + merge_count(v + mid, tmp, n - mid);
	while (i < mid && j < n) {
		if (v[j].y < v[i].y) {
			swaps += (double)(mid - i);
			tmp[k++] = v[j++];
		} else {
			tmp[k++] = v[i++];
		}
	}
	while (i < mid)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
	return swaps;
}

double lk_stat_kendall_tau_b(const double *x, const double *y, size_t n)
{
	struct xy *v, *tmp;
	double n0, tx, ty, txy, swaps, tau;
	size_t i;

	if (n < 2)
		return NAN;
	v = lk_malloc(n * sizeof(*v));
	tmp = lk_malloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++) {
		v[i].x = x[i];
		v[i].y = y[i];
	}
	qsort(v, n, sizeof(*v), cmp_xy);
	n0 = (double)n * (double)(n - 1) / 2;
	tx = tied_pairs_x(v, n, 0);
	txy = tied_pairs_x(v, n, 1);
	swaps = merge_count(v, tmp, n);
	ty = tied_pairs_y(v, n);
	free(v);
	free(tmp);
	if (tx == n0 || ty == n0)
		return NAN;
	/* concordant - discordant = n0 - tx - ty + txy - 2 discordant */
	tau = (n0 - tx - ty + txy - 2 * swaps) / sqrt((n0 - tx) * (n0 - ty));
	/* Rounding must not push a perfect agreement past 1. */
	return fmax(-1.0, fmin(1.0, tau));
}

static void stats_nan(struct lk_err_stats *st, size_t n)
{
	st->n = n;
	st->mape = st->mean = st->rmse = st->tau_b = NAN;
	st->q1 = st->median = st->q3 = NAN;
	st->abs_q1 = st->abs_median = st->abs_q3 = NAN;
}

void lk_err_stats_compute(const double *pred, const double *meas, size_t n,
			  struct lk_err_stats *st)
{
	double *rel, *abs_rel, sum_abs = 0, sum = 0, sum_sq = 0;
	size_t i;

	stats_nan(st, n);
	if (!n)
		return;
	rel = lk_malloc(n * sizeof(*rel));
	abs_rel = lk_malloc(n * sizeof(*abs_rel));
	for (i = 0; i < n; i++) {
		double d = pred[i] - meas[i];

		if (!(meas[i] > 0) || !isfinite(meas[i]) ||
		    !isfinite(pred[i]))
			LK_BUG("error statistics of a non-positive or "
			       "non-finite figure");
		rel[i] = d / meas[i];
		abs_rel[i] = fabs(rel[i]);
		sum += rel[i];
		sum_abs += abs_rel[i];
		sum_sq += d * d;
	}
	st->mape = 100 * sum_abs / (double)n;
	st->mean = sum / (double)n;
	st->rmse = sqrt(sum_sq / (double)n);
	st->tau_b = lk_stat_kendall_tau_b(pred, meas, n);
	qsort(rel, n, sizeof(*rel), cmp_double);
	qsort(abs_rel, n, sizeof(*abs_rel), cmp_double);
	st->q1 = lk_stat_quantile(rel, n, 0.25);
	st->median = lk_stat_quantile(rel, n, 0.5);
	st->q3 = lk_stat_quantile(rel, n, 0.75);
	st->abs_q1 = lk_stat_quantile(abs_rel, n, 0.25);
	st->abs_median = lk_stat_quantile(abs_rel, n, 0.5);
	st->abs_q3 = lk_stat_quantile(abs_rel, n, 0.75);
	free(rel);
	free(abs_rel);
}
