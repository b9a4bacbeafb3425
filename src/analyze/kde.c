/*
 * Categories of a numeric target: constant steps, or the valleys of a
 * Gaussian KDE. The density is evaluated on one grid and cut at its
 * strict interior minima on that same grid (MARTA read its cuts from a
 * different grid: not reproduced). Centroids are the density's peaks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

static int bandwidth(struct lk_ctx *ctx, const struct lk_cat_options *o,
		     const double *x, size_t n, struct lk_categories *c)
{
	const char *rule = o->bandwidth ? o->bandwidth : "silverman";
	int ret = 0;

	c->bandwidth_rule = lk_strdup(rule);
	if (!strcmp(rule, "silverman"))
		c->bandwidth = lk_kde_silverman(x, n);
	else if (!strcmp(rule, "scott"))
		c->bandwidth = lk_kde_scott(x, n);
	else if (!strcmp(rule, "isj"))
		ret = lk_kde_isj(x, n, &c->bandwidth);
	else if (!strcmp(rule, "isj-kdepy"))
		ret = lk_kde_isj_kdepy(x, n, &c->bandwidth);
	else if (lk_parse_double(rule, &c->bandwidth) ||
		 !(c->bandwidth > 0) || !isfinite(c->bandwidth))
		return lk_error(ctx, LK_EINPUT, "--bandwidth '%s': expected "
				"silverman, scott, isj, isj-kdepy or a "
				"positive number", rule);
	if (ret)
		return lk_error(ctx, LK_EINPUT, "bandwidth %s: the fixed "
				"point did not converge (too few distinct "
				"values?)", rule);
	return 0;
}

/* Density on the grid by linear binning on it and a sampled kernel. */
static void density(const double *x, size_t n, double h,
		    struct lk_categories *c)
{
	size_t g = c->ngrid, i, j;
	double lo = c->grid[0], dx = c->grid[1] - c->grid[0];
	double *w = lk_calloc(g, sizeof(*w)), *k = lk_calloc(g, sizeof(*k));

	for (i = 0; i < n; i++) {
		double pos = (x[i] - lo) / dx;
		size_t b = (size_t)pos;
		double frac = pos - (double)b;

		if (b >= g - 1) {
			w[g - 1] += 1;
			continue;
		}
		w[b] += 1 - frac;
		w[b + 1] += frac;
	}
	for (i = 0; i < g; i++) {
		double u = (double)i * dx / h;

		k[i] = exp(-0.5 * u * u) / (h * sqrt(2 * M_PI) * (double)n);
	}
	for (i = 0; i < g; i++)
		for (j = 0; j < g; j++)
			if (w[j] != 0)
				c->density[i] += w[j] * k[i > j ? i - j : j - i];
	free(w);
	free(k);
}

/* Strict interior minima; a flat run counts once, at its middle. */
static void find_cuts(struct lk_categories *c)
{
	const double *d = c->density;
	size_t i = 1, end;

	while (i + 1 < c->ngrid) {
		for (end = i; end + 1 < c->ngrid && d[end + 1] == d[i]; end++)
			;
		if (end + 1 < c->ngrid && d[i - 1] > d[i] && d[end + 1] > d[i]) {
			c->cuts = lk_reallocarray(c->cuts, c->ncuts + 1,
						  sizeof(*c->cuts));
			c->cuts[c->ncuts++] = (c->grid[i] + c->grid[end]) / 2;
		}
		i = end + 1;
	}
}

static size_t bin_of(const struct lk_categories *c, double v)
{
	size_t lo = 0, hi = c->ncuts;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v < c->cuts[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static double density_at(const struct lk_categories *c, double v)
{
	double pos = (v - c->grid[0]) / (c->grid[1] - c->grid[0]);
	size_t i = pos < 0 ? 0 : (size_t)pos;

	return c->density[i < c->ngrid ? i : c->ngrid - 1];
}

/* Remove the shallower cut beside each too-small category. */
static void merge_small(struct lk_categories *c, const double *x, size_t n,
			size_t min_count)
{
	size_t *count, i, k, drop;

	for (;;) {
		count = lk_calloc(c->ncuts + 1, sizeof(*count));
		for (i = 0; i < n; i++)
			count[bin_of(c, x[i])]++;
		for (k = 0; k <= c->ncuts && count[k] >= min_count; k++)
			;
		free(count);
		if (!c->ncuts || k > c->ncuts)
			return;
		if (k == 0)
			drop = 0;
		else if (k == c->ncuts)
			drop = k - 1;
		else
			drop = density_at(c, c->cuts[k - 1]) >=
			       density_at(c, c->cuts[k]) ? k - 1 : k;
		memmove(&c->cuts[drop], &c->cuts[drop + 1],
			(c->ncuts - drop - 1) * sizeof(*c->cuts));
		c->ncuts--;
	}
}

static double peak(const struct lk_categories *c, double lo, double hi)
{
	double best = NAN, bestd = -1;
	size_t i;

	for (i = 0; i < c->ngrid; i++)
		if (c->grid[i] >= lo && c->grid[i] <= hi &&
		    c->density[i] > bestd) {
			bestd = c->density[i];
			best = c->grid[i];
		}
	return isnan(best) ? (lo + hi) / 2 : best;
}

static int kde(struct lk_ctx *ctx, const struct lk_cat_options *o,
	       const double *x, size_t n, struct lk_categories *c)
{
	double lo = x[0], hi = x[0];
	size_t i;
	int ret = bandwidth(ctx, o, x, n, c);

	if (ret)
		return ret;
	for (i = 1; i < n; i++) {
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	c->ngrid = o->grid >= 3 ? o->grid : 1024;
	c->grid = lk_calloc(c->ngrid, sizeof(*c->grid));
	c->density = lk_calloc(c->ngrid, sizeof(*c->density));
	lo -= 3 * c->bandwidth;
	hi += 3 * c->bandwidth;
	for (i = 0; i < c->ngrid; i++)
		c->grid[i] = lo + (hi - lo) * (double)i / (double)(c->ngrid - 1);
	density(x, n, c->bandwidth, c);
	find_cuts(c);
	merge_small(c, x, n, o->min_count ? o->min_count : 2);
	return 0;
}

static int step(struct lk_ctx *ctx, const struct lk_cat_options *o,
		const double *x, size_t n, struct lk_categories *c)
{
	double lo = x[0], hi = x[0], k;
	size_t i;

	if (!(o->step_width > 0) || !isfinite(o->step_from))
		return lk_error(ctx, LK_EINPUT, "--categories step:FROM:WIDTH: "
				"WIDTH must be positive");
	for (i = 1; i < n; i++) {
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	if ((hi - lo) / o->step_width > 100000)
		return lk_error(ctx, LK_EINPUT, "--categories step: more than "
				"100000 steps");
	for (k = floor((lo - o->step_from) / o->step_width) + 1;
	     o->step_from + k * o->step_width <= hi; k++) {
		c->cuts = lk_reallocarray(c->cuts, c->ncuts + 1,
					  sizeof(*c->cuts));
		c->cuts[c->ncuts++] = o->step_from + k * o->step_width;
	}
	return 0;
}

/* Categories from the cuts: members, labels; empty bins dropped. */
static void fill(const char *target, const struct lk_cat_options *o,
		 const double *x, size_t n, struct lk_categories *c, int *cls)
{
	size_t nb = c->ncuts + 1, i, k, *map = lk_calloc(nb, sizeof(*map));
	struct lk_category *all = lk_calloc(nb, sizeof(*all));

	for (k = 0; k < nb; k++)
		all[k].lo = INFINITY, all[k].hi = -INFINITY;
	for (i = 0; i < n; i++) {
		k = bin_of(c, x[i]);
		all[k].count++;
		all[k].lo = fmin(all[k].lo, x[i]);
		all[k].hi = fmax(all[k].hi, x[i]);
	}
	c->list = lk_calloc(nb, sizeof(*c->list));
	for (k = 0; k < nb; k++) {
		struct lk_category *cat = &c->list[c->n];

		if (!all[k].count)
			continue;
		*cat = all[k];
		if (o->method == LK_CAT_KDE)
			cat->centroid = peak(c, k ? c->cuts[k - 1] : -INFINITY,
					     k < c->ncuts ? c->cuts[k] : INFINITY);
		else
			cat->centroid = o->step_from + o->step_width *
				(floor((cat->lo - o->step_from) /
				       o->step_width) + 0.5);
		cat->label = lk_asprintf("%s:%g-%g", target, cat->lo, cat->hi);
		map[k] = c->n++;
	}
	for (i = 0; i < n; i++)
		cls[i] = (int)map[bin_of(c, x[i])];
	free(map);
	free(all);
}

int lk_categorize(struct lk_ctx *ctx, const char *target,
		  const struct lk_cat_options *o, const double *x, size_t n,
		  struct lk_categories *c, int *cls)
{
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->method = o->method;
	if (!n)
		return lk_error(ctx, LK_EINPUT, "categories: no values");
	if (o->method == LK_CAT_KDE)
		ret = kde(ctx, o, x, n, c);
	else if (o->method == LK_CAT_STEP)
		ret = step(ctx, o, x, n, c);
	if (!ret)
		fill(target, o, x, n, c, cls);
	if (ret)
		lk_categories_release(c);
	return ret;
}

void lk_categories_release(struct lk_categories *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->list[i].label);
	free(c->list);
	free(c->cuts);
	free(c->grid);
	free(c->density);
	free(c->bandwidth_rule);
	memset(c, 0, sizeof(*c));
}
