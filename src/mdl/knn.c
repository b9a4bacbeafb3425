/*
 * The iterative k-NN of MDL-PEF (doc/loopkit-mdl.md, "predict"): the
 * nearest seed to the residual, scaled by least squares, accumulated,
 * subtracted with saturation, until the residual vanishes or keeps
 * only a stream count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/mdl.h"

#define NF LK_MDL_NFEATURES
#define KNN_EPS 1e-6
/* A feature within this share of the target's counts as accounted for. */
#define KNN_DONE 0.05

void lk_mdl_knn_opts_init(struct lk_mdl_knn_opts *o)
{
	o->kmax = 3;
	o->orders = 2;
	o->weight = NULL;
}

static double dot(const double *a, const double *b)
{
	double s = 0;
	int k;

	for (k = 0; k < NF; k++)
		s += a[k] * b[k];
	return s;
}

static double dist2(const double *a, const double *b, const double *w)
{
	double s = 0;
	int k;

	for (k = 0; k < NF; k++)
		s += (w ? w[k] : 1) * (a[k] - b[k]) * (a[k] - b[k]);
	return s;
}

/* The rank-th nearest usable seed to r (0: the nearest), or n. Ties go
 * to the lower index. */
static size_t nearest(const double *r, const struct lk_mdl_knn_seed *seeds,
		      size_t n, size_t rank, const double *w)
{
	unsigned char *taken = lk_calloc(n + 1, 1);
	size_t i, j, best = n;

	for (j = 0; j <= rank; j++) {
		best = n;
		for (i = 0; i < n; i++) {
			if (taken[i] || dot(seeds[i].f, seeds[i].f) <= 0)
				continue;
			if (best == n || dist2(r, seeds[i].f, w) <
						 dist2(r, seeds[best].f, w))
				best = i;
		}
		if (best == n)
			break;
		taken[best] = 1;
	}
	free(taken);
	return best;
}

struct decomposition {
	double value;
	double residual;     /* |r| at the end */
	struct lk_mdl_knn_result *trace;   /* NULL: no trace */
	int order;
};

/*
 * Whether r keeps nothing of t but streams: every load, store,
 * operation and far line accounted for. The seeds then spread the same
 * work over fewer streams; another load stream would count its loads
 * twice.
 */
static int streams_only(const double *t, const double *r)
{
	int k;

	for (k = 0; k < NF; k++)
		if (k != LK_MDL_F_STREAMS && r[k] > KNN_DONE * t[k])
			return 0;
	return 1;
}

/* One step with seed x: 0 stop (no progress or done), 1 go on. */
static int step(const double *t, double *r, const struct lk_mdl_knn_seed *x,
		size_t xi, struct decomposition *d)
{
	double s = dot(r, x->f) / dot(x->f, x->f);
	struct lk_mdl_knn_result *tr = d->trace;
	int k;

	if (!(s > 0))
		return 0;
	d->value += s * x->perf;
	for (k = 0; k < NF; k++)
		r[k] = fmax(0, r[k] - s * x->f[k]);
	d->residual = sqrt(dot(r, r));
	if (tr) {
		tr->steps = lk_realloc(tr->steps, (tr->nsteps + 1) *
					sizeof(*tr->steps));
		tr->steps[tr->nsteps++] = (struct lk_mdl_knn_step){
			d->order, xi, s, d->residual};
	}
	return d->residual > KNN_EPS * sqrt(dot(t, t)) && !streams_only(t, r);
}

/* The greedy decomposition of t, its first seed the first-rank-th
 * nearest. */
static void decompose(const double *t, const struct lk_mdl_knn_seed *seeds,
		      size_t n, const struct lk_mdl_knn_opts *o,
		      size_t first_rank, struct decomposition *d)
{
	double r[NF];
	size_t x;
	int i;

	memcpy(r, t, sizeof(r));
	d->value = 0;
	d->residual = sqrt(dot(t, t));
	if (d->residual <= 0)
		return;
	for (i = 0; i < o->kmax; i++) {
		x = nearest(r, seeds, n, i == 0 ? first_rank : 0, o->weight);
		if (x == n || !step(t, r, &seeds[x], x, d))
			break;
	}
}

void lk_mdl_knn(const double *t, const struct lk_mdl_knn_seed *seeds,
		size_t n, const struct lk_mdl_knn_opts *o,
		struct lk_mdl_knn_result *out)
{
	double norm = sqrt(dot(t, t)), weights = 0, sum = 0;
	int j;

	memset(out, 0, sizeof(*out));
	for (j = 1; j <= (o->orders < 1 ? 1 : o->orders); j++) {
		struct decomposition d = {0, 0, out, j};

		decompose(t, seeds, n, o, (size_t)j - 1, &d);
		if (j == 1)
			out->residual = norm > 0 ? d.residual / norm : 0;
		else if (d.value == 0 && norm > 0)
			continue;   /* fewer seeds than orders */
		sum += d.value / j;
		weights += 1.0 / j;
	}
	out->value = sum / weights;
}

void lk_mdl_knn_result_release(struct lk_mdl_knn_result *r)
{
	if (!r)
		return;
	free(r->steps);
	memset(r, 0, sizeof(*r));
}
