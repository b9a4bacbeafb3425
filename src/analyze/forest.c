/*
 * Random forests: bootstrap counts as sample weights (as scikit-learn
 * does), one PRNG stream per tree index so the result does not depend on
 * the thread count, trees in parallel, soft vote, MDI mean and std.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cart-int.h"

struct job {
	struct lk_forest *f;
	const struct lk_dataset *d;
	const struct lk_tree_params *p;
	const struct lk_presort *ps;
};

static void fit_one(void *arg, size_t i)
{
	struct job *j = arg;
	struct lk_tree_params p = *j->p;
	double *w = lk_calloc(j->d->n + 1, sizeof(*w));
	struct lk_rng r;
	size_t k;

	lk_rng_seed(&r, j->p->seed, 1 + i);
	for (k = 0; k < j->d->n; k++)
		w[lk_rng_below(&r, j->d->n)] += 1;
	p.seed = lk_rng_next(&r);
	lk_tree_fit_presorted(&j->f->trees[i], j->d, w, &p, j->ps);
	free(w);
}

static void importance(struct lk_forest *f)
{
	size_t i, used = 0;
	int k;
	double sum = 0;

	f->importance = lk_calloc((size_t)f->nfeat + 1, sizeof(double));
	f->importance_std = lk_calloc((size_t)f->nfeat + 1, sizeof(double));
	for (i = 0; i < f->ntrees; i++) {
		if (f->trees[i].n < 2)
			continue;
		used++;
		for (k = 0; k < f->nfeat; k++)
			f->importance[k] += f->trees[i].importance[k];
	}
	for (k = 0; k < f->nfeat; k++)
		sum += f->importance[k];
	for (k = 0; sum > 0 && k < f->nfeat; k++)
		f->importance[k] /= sum;
	/* The std over every tree, as MARTA prints it. */
	for (k = 0; used && k < f->nfeat; k++) {
		double m = 0, s = 0;

		for (i = 0; i < f->ntrees; i++)
			m += f->trees[i].importance[k];
		m /= (double)f->ntrees;
		for (i = 0; i < f->ntrees; i++)
			s += (f->trees[i].importance[k] - m) *
			     (f->trees[i].importance[k] - m);
		f->importance_std[k] = sqrt(s / (double)f->ntrees);
	}
}

void lk_forest_fit(struct lk_forest *f, const struct lk_dataset *d,
		   size_t ntrees, const struct lk_tree_params *p, int jobs)
{
	struct lk_presort ps;
	struct job j = {f, d, p, &ps};

	memset(f, 0, sizeof(*f));
	f->ntrees = ntrees;
	f->nclasses = d->nclasses;
	f->nfeat = (int)d->nfeat;
	f->trees = lk_calloc(ntrees + 1, sizeof(*f->trees));
	lk_presort_init(&ps, d);
	lk_pool_run(jobs, ntrees, fit_one, &j);
	lk_presort_release(&ps, d);
	importance(f);
	lk_forest_flatten(f);
}

void lk_forest_release(struct lk_forest *f)
{
	size_t i;

	if (!f)
		return;
	lk_forest_flat_release(f);
	for (i = 0; i < f->ntrees; i++)
		lk_tree_release(&f->trees[i]);
	free(f->trees);
	free(f->importance);
	free(f->importance_std);
	memset(f, 0, sizeof(*f));
}
