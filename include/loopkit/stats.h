/*
 * stats: the numbers the stages compute from samples and from pairs of
 * predicted and measured figures: quantiles, means, the trimmed mean of
 * the X/T/R rule, relative errors, MAPE, RMSE, Kendall's tau-b. Pure
 * functions over arrays of doubles: no store, no stage's types.
 */
#ifndef LOOPKIT_STATS_H
#define LOOPKIT_STATS_H

#include <stddef.h>

#include "core.h"

/* ---- Quantiles and means. ---- */

/*
 * The q-quantile (0 <= q <= 1, clamped) of n sorted values, interpolated
 * linearly between order statistics: v[h] + (h - floor h)(v[h+1] - v[h])
 * with h = (n - 1) q (Hyndman and Fan's type 7, R's and NumPy's default,
 * Python's statistics.quantiles(method='inclusive')). NaN when n is 0.
 */
double lk_quantile_sorted(const double *v, size_t n, double q);
/* The same of unsorted values (a sorted copy; v is not changed). */
double lk_quantile(const double *v, size_t n, double q);
/* Sort n values ascending, in place. */
void lk_sort_doubles(double *v, size_t n);
/* Arithmetic mean; NaN when n is 0. */
double lk_mean(const double *v, size_t n);

/*
 * The X/T/R rule's test on one attempt: drop the largest and smallest
 * value, mean of the rest; stable when every kept value is within tol
 * (a fraction) of that mean. *max_dev gets the largest relative
 * deviation among the kept values. n < 3 keeps everything; n = 0 gives
 * *mean NaN, *max_dev 0 and returns 0.
 */
int lk_trimmed_mean(const double *v, size_t n, double tol, double *mean,
		    double *max_dev);

/* ---- Rank correlation. ---- */

/*
 * Kendall's tau-b of the pairs (x[i], y[i]): (concordant - discordant) /
 * sqrt((n0 - tx)(n0 - ty)), n0 = n(n-1)/2, tx (ty) the pairs tied in x
 * (in y); a pair tied in x or y is neither concordant nor discordant.
 * O(n log n) (Knight's algorithm). NaN when n < 2 or when every x or
 * every y is equal. Values must not be NaN.
 */
double lk_stat_kendall_tau_b(const double *x, const double *y, size_t n);

/* ---- Errors of predictions against measurements. ---- */

/*
 * rel[i] = (pred[i] - meas[i]) / meas[i] for i < n. Every meas must be
 * > 0 and every value finite (LK_BUG otherwise: callers filter first).
 */
void lk_stat_rel_errors(const double *pred, const double *meas, size_t n,
			double *rel);
/* Mean |relative error| x 100 (percent); NaN when n is 0. Same
 * preconditions as lk_stat_rel_errors. */
double lk_stat_mape(const double *pred, const double *meas, size_t n);
/* sqrt(mean (pred - meas)^2), in the values' unit; NaN when n is 0. */
double lk_stat_rmse(const double *pred, const double *meas, size_t n);

/* How far predictions are from measurements; NaN where undefined. */
struct lk_err_stats {
	size_t n;            /* pairs compared */
	double mape;         /* mean |relative error| x 100 (percent) */
	double mean;         /* mean signed relative error (fraction) */
	double q1, median, q3;             /* of the signed relative error */
	double abs_q1, abs_median, abs_q3; /* of its absolute value */
	double rmse;         /* sqrt(mean (pred - meas)^2), measured unit */
	double tau_b;        /* Kendall's tau-b of pred against meas */
};

/*
 * Statistics of n predictions against n measurements. The relative error
 * is (pred - meas) / meas; every meas must be > 0 and every value finite
 * (LK_BUG otherwise). n = 0 gives n 0 and NaN everywhere.
 */
void lk_err_stats_compute(const double *pred, const double *meas, size_t n,
			  struct lk_err_stats *st);

#endif
