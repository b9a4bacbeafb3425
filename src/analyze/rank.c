/*
 * Rank correlation of features with a numeric target: Kendall's tau-b
 * over every row, and within the rows of each value of a grouping
 * column ("does the time rise with the number of lines, at each
 * width?"). The tau itself is the stats layer's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"
#include "loopkit/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The distinct values of v (n of them) but NaN, sorted, into *out. */
static size_t distinct_sorted(const double *v, size_t n, double **out)
{
	double *s = lk_calloc(n + 1, sizeof(*s));
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			s[m++] = v[i];
	qsort(s, m, sizeof(*s), cmp_double);
	n = m;
	for (i = 0, m = 0; i < n; i++)
		if (!m || s[i] != s[m - 1])
			s[m++] = s[i];
	*out = s;
	return m;
}

/* tau-b of x against y over every row (group NULL) or over the rows
 * where group is value; bx and by are n values of scratch. */
static double tau_where(const double *x, const double *y, size_t n,
			const double *group, double value, double *bx,
			double *by)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		if (group && group[i] != value)
			continue;
		bx[m] = x[i];
		by[m++] = y[i];
	}
	return lk_stat_kendall_tau_b(bx, by, m);
}

int lk_rank_corr_compute(struct lk_rank_corr *r, const double *const *xs,
			 size_t nx, const double *y, const double *group,
			 size_t n, size_t max_groups)
{
	double *bx, *by;
	size_t i, k, g;

	memset(r, 0, sizeof(*r));
	if (group) {
		r->ngroups = distinct_sorted(group, n, &r->groups);
		if (r->ngroups > max_groups) {
			free(r->groups);
			r->groups = NULL;
			return -1;
		}
	}
	r->nx = nx;
	r->group_rows = lk_calloc(r->ngroups + 1, sizeof(*r->group_rows));
	for (i = 0; group && i < n; i++)
		for (g = 0; g < r->ngroups; g++)
			r->group_rows[g] += group[i] == r->groups[g];
	r->all = lk_calloc(nx + 1, sizeof(*r->all));
	r->within = lk_calloc(nx * r->ngroups + 1, sizeof(*r->within));
	bx = lk_calloc(n + 1, sizeof(*bx));
	by = lk_calloc(n + 1, sizeof(*by));
	for (k = 0; k < nx; k++) {
		r->all[k] = xs[k] ? tau_where(xs[k], y, n, NULL, 0, bx, by)
				  : NAN;
		for (g = 0; g < r->ngroups; g++)
			r->within[k * r->ngroups + g] =
				xs[k] ? tau_where(xs[k], y, n, group,
						  r->groups[g], bx, by)
				      : NAN;
	}
	free(bx);
	free(by);
	return 0;
}

void lk_rank_corr_release(struct lk_rank_corr *r)
{
	free(r->groups);
	free(r->group_rows);
	free(r->all);
	free(r->within);
	memset(r, 0, sizeof(*r));
}
