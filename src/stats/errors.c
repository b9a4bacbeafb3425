/*
 * Error statistics of predictions against measurements: relative
 * errors, MAPE, RMSE, their quartiles and Kendall's tau-b.
 */
#include <math.h>
#include <stdlib.h>

#include "loopkit/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double rel_error(double pred, double meas)
{
	if (!(meas > 0) || !isfinite(meas) || !isfinite(pred))
		LK_BUG("error statistics of a non-positive or "
		       "non-finite figure");
	return (pred - meas) / meas;
}

void lk_stat_rel_errors(const double *pred, const double *meas, size_t n,
			double *rel)
{
	size_t i;

	for (i = 0; i < n; i++)
		rel[i] = rel_error(pred[i], meas[i]);
}

double lk_stat_mape(const double *pred, const double *meas, size_t n)
{
	double sum_abs = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum_abs += fabs(rel_error(pred[i], meas[i]));
	return 100 * sum_abs / (double)n;
}

double lk_stat_rmse(const double *pred, const double *meas, size_t n)
{
	double sum_sq = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		double d = pred[i] - meas[i];

		sum_sq += d * d;
	}
	return sqrt(sum_sq / (double)n);
}

static void stats_nan(struct lk_err_stats *st, size_t n)
{
	st->n = n;
	st->mape = st->mean = st->rmse = st->tau_b = NAN;
	st->q1 = st->median = st->q3 = NAN;
	st->abs_q1 = st->abs_median = st->abs_q3 = NAN;
}

/* The quartiles of n values, sorted in place. */
static void quartiles(double *v, size_t n, double *q1, double *median,
		      double *q3)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*q1 = lk_quantile_sorted(v, n, 0.25);
	*median = lk_quantile_sorted(v, n, 0.5);
	*q3 = lk_quantile_sorted(v, n, 0.75);
}

void lk_err_stats_compute(const double *pred, const double *meas, size_t n,
			  struct lk_err_stats *st)
{
	double *rel, *abs_rel;
	size_t i;

	stats_nan(st, n);
	if (!n)
		return;
	rel = lk_malloc(n * sizeof(*rel));
	abs_rel = lk_malloc(n * sizeof(*abs_rel));
	lk_stat_rel_errors(pred, meas, n, rel);
	for (i = 0; i < n; i++)
		abs_rel[i] = fabs(rel[i]);
	st->mape = lk_stat_mape(pred, meas, n);
	st->mean = lk_mean(rel, n);
	st->rmse = lk_stat_rmse(pred, meas, n);
	st->tau_b = lk_stat_kendall_tau_b(pred, meas, n);
	quartiles(rel, n, &st->q1, &st->median, &st->q3);
	quartiles(abs_rel, n, &st->abs_q1, &st->abs_median, &st->abs_q3);
	free(rel);
	free(abs_rel);
}
