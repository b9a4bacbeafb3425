/*
 * stats: quantiles (type 7, sorted and not), means, the X/T/R rule's
 * trimmed mean, Kendall's tau-b (hand-computed cases with ties, and the
 * O(n^2) definition on random ties), relative errors, MAPE, RMSE.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "loopkit/stats.h"

#define EPS 1e-12

TestSuite(stats);

/* ---- Reducers' numbers: quantiles, means, the trimmed mean. ---- */

Test(stats, quantile_sorted_interpolates)
{
	static const double v[] = {1, 2, 3, 4};

	cr_assert_float_eq(lk_quantile_sorted(v, 4, 0), 1, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 4, 1), 4, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 4, 0.5), 2.5, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 4, 0.25), 1.75, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 4, 1.0 / 3), 2, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 4, 0.9), 3.7, 1e-12);
}

Test(stats, quantile_sorted_clamps_q_and_handles_tiny_n)
{
	static const double v[] = {10, 20, 40};
	static const double one[] = {7};

	cr_assert_float_eq(lk_quantile_sorted(v, 3, -0.5), 10, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 3, 1.5), 40, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(v, 3, 0.75), 30, 1e-12);
	cr_assert_float_eq(lk_quantile_sorted(one, 1, 0.5), 7, 1e-12);
	cr_assert(isnan(lk_quantile_sorted(v, 0, 0.5)));
}

Test(stats, quantile_sorts_a_copy)
{
	double v[] = {4, 1, 3, 2, 5};

	cr_assert_float_eq(lk_quantile(v, 5, 0.5), 3, 1e-12);
	cr_assert_float_eq(lk_quantile(v, 5, 0), 1, 1e-12);
	cr_assert_float_eq(lk_quantile(v, 5, 0.125), 1.5, 1e-12);
	cr_assert_float_eq(v[0], 4, 0, "the input was reordered");
	cr_assert_float_eq(v[1], 1, 0, "the input was reordered");
	cr_assert(isnan(lk_quantile(v, 0, 0.5)));
}

Test(stats, mean)
{
	static const double v[] = {1, 2, 3, 4.5};

	cr_assert_float_eq(lk_mean(v, 4), 2.625, 1e-12);
	cr_assert_float_eq(lk_mean(v, 1), 1, 1e-12);
	cr_assert(isnan(lk_mean(v, 0)));
}

Test(stats, trimmed_mean_drops_exactly_one_max_and_one_min)
{
	/* Dropping every copy of the extremes would give 4. */
	static const double v[] = {9, 1, 4, 1, 9};
	double mean, dev;

	lk_trimmed_mean(v, 5, 1, &mean, &dev);
	cr_assert_float_eq(mean, 14.0 / 3, 1e-12);
	cr_assert_float_eq(dev, (9 - 14.0 / 3) / (14.0 / 3), 1e-12);
}

Test(stats, trimmed_mean_stable_within_tolerance)
{
	/* The outliers 50 and 1 are dropped; the rest is within 1 %. */
	static const double v[] = {10, 50, 10.1, 1, 9.9};
	double mean, dev;

	cr_assert(lk_trimmed_mean(v, 5, 0.02, &mean, &dev));
	cr_assert_float_eq(mean, 10, 1e-12);
	cr_assert_float_eq(dev, 0.01, 1e-12);
}

Test(stats, trimmed_mean_unstable_beyond_tolerance)
{
	static const double v[] = {10, 50, 10.1, 1, 9.9};
	double mean, dev;

	cr_assert_not(lk_trimmed_mean(v, 5, 0.005, &mean, &dev));
	cr_assert_float_eq(dev, 0.01, 1e-12);
}

Test(stats, trimmed_mean_tolerance_is_inclusive)
{
	static const double v[] = {8, 10, 12};
	double mean, dev;

	/* Keeps only 10: no deviation at all. */
	cr_assert(lk_trimmed_mean(v, 3, 0, &mean, &dev));
	cr_assert_float_eq(mean, 10, 1e-12);
	cr_assert_float_eq(dev, 0, 1e-12);
}

Test(stats, trimmed_mean_below_three_keeps_everything)
{
	static const double two[] = {10, 12};
	double mean, dev;

	cr_assert(lk_trimmed_mean(two, 2, 0.1, &mean, &dev));
	cr_assert_float_eq(mean, 11, 1e-12);
	cr_assert_float_eq(dev, 1.0 / 11, 1e-12);
	cr_assert_not(lk_trimmed_mean(two, 2, 0.05, &mean, &dev));
	cr_assert(lk_trimmed_mean(two, 1, 0, &mean, &dev));
	cr_assert_float_eq(mean, 10, 1e-12);
	cr_assert_float_eq(dev, 0, 1e-12);
}

Test(stats, trimmed_mean_of_nothing_is_not_stable)
{
	double mean = 0, dev = 1;

	cr_assert_not(lk_trimmed_mean(NULL, 0, 1, &mean, &dev));
	cr_assert(isnan(mean));
	cr_assert_float_eq(dev, 0, 1e-12);
}

Test(stats, trimmed_mean_of_zeros_is_stable)
{
	static const double v[] = {0, 0, 0, 0};
	double mean, dev;

	cr_assert(lk_trimmed_mean(v, 4, 0.01, &mean, &dev));
	cr_assert_float_eq(mean, 0, 1e-12);
}

/* ---- Quantiles. ---- */

Test(stats, quantile_type7)
{
	const double four[] = {1, 2, 3, 4}, five[] = {10, 20, 30, 40, 50};

	cr_assert_float_eq(lk_quantile_sorted(four, 4, 0.25), 1.75, EPS);
	cr_assert_float_eq(lk_quantile_sorted(four, 4, 0.5), 2.5, EPS);
	cr_assert_float_eq(lk_quantile_sorted(four, 4, 0.75), 3.25, EPS);
	cr_assert_float_eq(lk_quantile_sorted(four, 4, 0), 1, EPS);
	cr_assert_float_eq(lk_quantile_sorted(four, 4, 1), 4, EPS);
	cr_assert_float_eq(lk_quantile_sorted(five, 5, 0.25), 20, EPS);
	cr_assert_float_eq(lk_quantile_sorted(five, 5, 0.5), 30, EPS);
	cr_assert_float_eq(lk_quantile_sorted(five, 5, 0.9), 46, EPS);
	cr_assert_float_eq(lk_quantile_sorted(five, 1, 0.3), 10, EPS);
	cr_assert(isnan(lk_quantile_sorted(five, 0, 0.5)));
}

/* ---- Kendall's tau-b. ---- */

Test(stats, tau_b_without_ties)
{
	const double x[] = {1, 2, 3, 4}, up[] = {1, 2, 3, 4};
	const double down[] = {4, 3, 2, 1};
	const double a[] = {1, 2, 3}, b[] = {1, 3, 2};

	cr_assert_float_eq(lk_stat_kendall_tau_b(x, up, 4), 1, EPS);
	cr_assert_float_eq(lk_stat_kendall_tau_b(x, down, 4), -1, EPS);
	/* pairs (1,2) and (1,3) concordant, (2,3) discordant: 1/3 */
	cr_assert_float_eq(lk_stat_kendall_tau_b(a, b, 3), 1.0 / 3, EPS);
}

Test(stats, tau_b_with_ties)
{
	/* C = 4, D = 0, one pair tied in x, one in y: 4 / sqrt(5 * 5) */
	const double x1[] = {1, 2, 2, 3}, y1[] = {1, 2, 3, 3};
	/* C = 3, D = 1, one tie in x, one in y: 2 / 5 */
	const double x2[] = {1, 1, 2, 3}, y2[] = {2, 1, 1, 3};
	/* a pair tied in both: C = 5, D = 0, tx = ty = 1: 5 / 5 */
	const double x3[] = {1, 2, 2, 3}, y3[] = {5, 6, 6, 7};
	const double same[] = {7, 7, 7};

	cr_assert_float_eq(lk_stat_kendall_tau_b(x1, y1, 4), 0.8, EPS);
	cr_assert_float_eq(lk_stat_kendall_tau_b(x2, y2, 4), 0.4, EPS);
	cr_assert_float_eq(lk_stat_kendall_tau_b(x3, y3, 4), 1, EPS);
	cr_assert(isnan(lk_stat_kendall_tau_b(same, x1, 3)));
	cr_assert(isnan(lk_stat_kendall_tau_b(x1, same, 3)));
	cr_assert(isnan(lk_stat_kendall_tau_b(x1, y1, 1)));
}

/* The definition, pair by pair. */
static double tau_b_slow(const double *x, const double *y, size_t n)
{
	double c = 0, d = 0, tx = 0, ty = 0, n0 = n * (n - 1) / 2.0;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			double sx = x[i] - x[j], sy = y[i] - y[j];

			tx += sx == 0;
			ty += sy == 0;
			if (sx * sy > 0)
				c++;
			else if (sx * sy < 0)
				d++;
		}
	}
	return (c - d) / sqrt((n0 - tx) * (n0 - ty));
}

Test(stats, tau_b_matches_definition_on_random_ties)
{
	unsigned seed = 12345;

	for (int round = 0; round < 50; round++) {
		size_t n = 2 + (size_t)(rand_r(&seed) % 300);
		double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));
		int range = 2 + round % 20;

		for (size_t i = 0; i < n; i++) {
			x[i] = rand_r(&seed) % range;
			y[i] = (rand_r(&seed) % 3 ? x[i] : 0) +
			       rand_r(&seed) % range;
		}
		double want = tau_b_slow(x, y, n);
		double got = lk_stat_kendall_tau_b(x, y, n);

		if (isnan(want))
			cr_assert(isnan(got), "round %d", round);
		else
			cr_assert_float_eq(got, want, 1e-9, "round %d: n %zu",
					   round, n);
		free(x);
		free(y);
	}
}

/* ---- Error statistics. ---- */

Test(stats, err_stats_by_hand)
{
	const double meas[] = {100, 200, 400, 800};
	const double pred[] = {110, 180, 400, 1000};
	struct lk_err_stats st;

	/* relative errors 0.1, -0.1, 0, 0.25 */
	lk_err_stats_compute(pred, meas, 4, &st);
	cr_assert_eq(st.n, 4);
	cr_assert_float_eq(st.mape, 11.25, EPS);
	cr_assert_float_eq(st.mean, 0.0625, EPS);
	cr_assert_float_eq(st.q1, -0.025, EPS);
	cr_assert_float_eq(st.median, 0.05, EPS);
	cr_assert_float_eq(st.q3, 0.1375, EPS);
	cr_assert_float_eq(st.abs_q1, 0.075, EPS);
	cr_assert_float_eq(st.abs_median, 0.1, EPS);
	cr_assert_float_eq(st.abs_q3, 0.1375, EPS);
	/* differences 10, -20, 0, 200 */
	cr_assert_float_eq(st.rmse, sqrt(40500.0 / 4), EPS);
	cr_assert_float_eq(st.tau_b, 1, EPS);
}

Test(stats, err_stats_empty_and_single)
{
	const double one = 50, two = 40;
	struct lk_err_stats st;

	lk_err_stats_compute(NULL, NULL, 0, &st);
	cr_assert_eq(st.n, 0);
	cr_assert(isnan(st.mape) && isnan(st.median) && isnan(st.rmse) &&
		  isnan(st.tau_b));
	lk_err_stats_compute(&two, &one, 1, &st);
	cr_assert_float_eq(st.mape, 20, EPS);
	cr_assert_float_eq(st.median, -0.2, EPS);
	cr_assert_float_eq(st.q1, -0.2, EPS);
	cr_assert_float_eq(st.rmse, 10, EPS);
	cr_assert(isnan(st.tau_b));
}


/* ---- Added with the module. ---- */

Test(stats, quantile_interpolates_between_order_statistics)
{
	/* Sorted: 1 1 3 4 5. q 0.3: h = 1.2, 1 + 0.2 (3 - 1); q 0.6:
	 * h = 2.4, 3 + 0.4 (4 - 3); q 0.875: h = 3.5, 4.5. */
	const double v[] = {3, 1, 4, 1, 5};

	cr_assert_float_eq(lk_quantile(v, 5, 0.3), 1.4, EPS);
	cr_assert_float_eq(lk_quantile(v, 5, 0.6), 3.4, EPS);
	cr_assert_float_eq(lk_quantile(v, 5, 0.875), 4.5, EPS);
	/* Equal neighbours: no interpolation artefact. */
	cr_assert_float_eq(lk_quantile(v, 5, 0.1), 1, EPS);
}

Test(stats, tau_b_with_ties_by_hand)
{
	/*
	 * Pairs of x = 1 1 2 2 3, y = 1 2 1 3 3 (n0 = 10): concordant
	 * (0,3) (0,4) (1,3) (1,4) (2,4), discordant (1,2), tied in x
	 * (0,1) (2,3), tied in y (0,2) (3,4): (5 - 1) / sqrt(8 * 8).
	 */
	const double x[] = {1, 1, 2, 2, 3}, y[] = {1, 2, 1, 3, 3};
	/* Three pairs tied in x, none in y, 3 concordant: 3 / sqrt(3 * 6). */
	const double a[] = {1, 1, 1, 2}, b[] = {1, 2, 3, 4};

	cr_assert_float_eq(lk_stat_kendall_tau_b(x, y, 5), 0.5, EPS);
	cr_assert_float_eq(lk_stat_kendall_tau_b(y, x, 5), 0.5, EPS);
	cr_assert_float_eq(lk_stat_kendall_tau_b(a, b, 4), sqrt(0.5), EPS);
	cr_assert_float_eq(lk_stat_kendall_tau_b(b, a, 4), sqrt(0.5), EPS);
}

Test(stats, mape_rmse_and_relative_errors)
{
	const double meas[] = {100, 300, 40}, pred[] = {90, 330, 50};
	double rel[3];

	lk_stat_rel_errors(pred, meas, 3, rel);
	cr_assert_float_eq(rel[0], -0.1, EPS);
	cr_assert_float_eq(rel[1], 0.1, EPS);
	cr_assert_float_eq(rel[2], 0.25, EPS);
	/* (10 + 10 + 25) / 3 percent */
	cr_assert_float_eq(lk_stat_mape(pred, meas, 3), 15, EPS);
	/* differences -10, 30, 10 */
	cr_assert_float_eq(lk_stat_rmse(pred, meas, 3), sqrt(1100.0 / 3),
			   EPS);
	/* A perfect prediction. */
	cr_assert_float_eq(lk_stat_mape(meas, meas, 3), 0, EPS);
	cr_assert_float_eq(lk_stat_rmse(meas, meas, 3), 0, EPS);
	cr_assert(isnan(lk_stat_mape(pred, meas, 0)));
	cr_assert(isnan(lk_stat_rmse(pred, meas, 0)));
}

Test(stats, mape_of_a_zero_measurement_is_a_bug, .signal = SIGABRT)
{
	const double meas[] = {100, 0}, pred[] = {90, 10};

	lk_stat_mape(pred, meas, 2);
}
