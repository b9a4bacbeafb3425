/*
 * The PRNG (splitmix64 seeding xoshiro256**, both public domain), scores,
 * permutation importance, k-NN, RMSE and R^2.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void lk_rng_seed(struct lk_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t lk_rng_next(struct lk_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

size_t lk_rng_below(struct lk_rng *r, size_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = lk_rng_next(r);
	while (v >= lim);
	return (size_t)(v % n);
}

void lk_rng_shuffle(struct lk_rng *r, size_t *v, size_t n)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = lk_rng_below(r, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

double lk_rmse_r2(const double *pred, const double *y, size_t n, double *r2)
{
	double m = 0, ss = 0, st = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += y[i] / (double)n;
	for (i = 0; i < n; i++) {
		ss += (pred[i] - y[i]) * (pred[i] - y[i]);
		st += (y[i] - m) * (y[i] - m);
	}
	*r2 = st > 0 ? 1 - ss / st : (ss > 0 ? 0 : 1);
	return n ? sqrt(ss / (double)n) : 0;
}

double lk_score(lk_predict_fn fn, const void *model, const struct lk_dataset *d)
{
	double *pred, r2, hits = 0;
	size_t i;

	if (!d->n)
		return NAN;
	if (d->nclasses) {
		for (i = 0; i < d->n; i++)
			hits += (int)fn(model, d->x, i) == d->cls[i];
		return hits / (double)d->n;
	}
	pred = lk_calloc(d->n, sizeof(*pred));
	for (i = 0; i < d->n; i++)
		pred[i] = fn(model, d->x, i);
	lk_rmse_r2(pred, d->y, d->n, &r2);
	free(pred);
	return r2;
}

void lk_permutation_importance(lk_predict_fn fn, const void *model,
			       const struct lk_dataset *d, int repeats,
			       uint64_t seed, double *mean, double *std)
{
	double **cols = lk_calloc(d->nfeat + 1, sizeof(*cols));
	double *drop = lk_calloc((size_t)repeats + 1, sizeof(*drop));
	double base = lk_score(fn, model, d), *saved;
	size_t *perm = lk_calloc(d->n + 1, sizeof(*perm)), f, i;
	struct lk_dataset shuffled = *d;
	struct lk_rng r;
	int k;

	lk_rng_seed(&r, seed, 0x9e7);
	memcpy(cols, d->x, d->nfeat * sizeof(*cols));
	shuffled.x = (const double *const *)cols;
	for (f = 0; f < d->nfeat; f++) {
		saved = cols[f];
		cols[f] = lk_calloc(d->n + 1, sizeof(double));
		mean[f] = std[f] = 0;
		for (k = 0; k < repeats; k++) {
			for (i = 0; i < d->n; i++)
				perm[i] = i;
			lk_rng_shuffle(&r, perm, d->n);
			for (i = 0; i < d->n; i++)
				cols[f][i] = saved[perm[i]];
			drop[k] = base - lk_score(fn, model, &shuffled);
			mean[f] += drop[k] / repeats;
		}
		for (k = 0; k < repeats; k++)
			std[f] += (drop[k] - mean[f]) * (drop[k] - mean[f]);
		std[f] = repeats ? sqrt(std[f] / repeats) : 0;
		free(cols[f]);
		cols[f] = saved;
	}
	free(perm);
	free(drop);
	free(cols);
}

struct nb {
	double dist;
	size_t row;
};

/* Keep the k nearest in nb[0..*m), sorted, ties to the earlier row. */
static void insert(struct nb *nb, size_t *m, int k, double dist, size_t row)
{
	size_t at = *m;

	if (*m == (size_t)k && dist >= nb[k - 1].dist)
		return;
	if (*m < (size_t)k)
		(*m)++;
	else
		at = (size_t)k - 1;
	while (at > 0 && nb[at - 1].dist > dist) {
		nb[at] = nb[at - 1];
		at--;
	}
	nb[at].dist = dist;
	nb[at].row = row;
}

static double vote(const struct lk_dataset *train, const struct nb *nb,
		   size_t m)
{
	int votes[256] = {0}, best = 0, c;
	double sum = 0;
	size_t i;

	if (!train->nclasses) {
		for (i = 0; i < m; i++)
			sum += train->y[nb[i].row];
		return m ? sum / (double)m : 0;
	}
	for (i = 0; i < m; i++)
		if (train->cls[nb[i].row] < 256)
			votes[train->cls[nb[i].row]]++;
	for (c = 1; c < train->nclasses && c < 256; c++)
		if (votes[c] > votes[best])
			best = c;
	return best;
}

double lk_knn_predict(const struct lk_dataset *train, int k,
		      const double *const *x, size_t row)
{
	struct nb *nb = lk_calloc((size_t)k + 1, sizeof(*nb));
	size_t i, f, m = 0;
	double r;

	for (i = 0; i < train->n; i++) {
		double dist = 0;

		for (f = 0; f < train->nfeat; f++) {
			double dx = train->x[f][i] - x[f][row];

			dist += dx * dx;
		}
		insert(nb, &m, k, dist, i);
	}
	r = vote(train, nb, m);
	free(nb);
	return r;
}
