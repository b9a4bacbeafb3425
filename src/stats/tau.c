/*
 * Kendall's tau-b (Knight's O(n log n) algorithm, the one SciPy uses).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/stats.h"

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
