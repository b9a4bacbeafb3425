/*
 * CART with scikit-learn's semantics: best split over the features in a
 * seeded random order per node (ties go to the first seen), midpoint
 * thresholds, x <= threshold goes left, zero-gain splits still made,
 * depth-first growth, or best-first when max_leaf_nodes is set, then
 * minimal cost-complexity pruning. Features are sorted once (radix sort)
 * and each split partitions every feature's order stably.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cart-int.h"

#define FEATURE_THRESHOLD 1e-7

struct cand {
	int node, depth, feature;
	size_t start, end, pos;
	double threshold, improvement;
};

struct builder {
	const struct lk_dataset *d;
	const struct lk_tree_params *p;
	const double *w;
	struct lk_tree *t;
	uint32_t **order;
	unsigned char *left;
	uint32_t *tmp;
	size_t *perm;
	int k;              /* class count, 1 for regression */
	double *lc, *rc, wroot;
	struct lk_rng rng;
};

static double weight(const struct builder *b, uint32_t i)
{
	return b->w ? b->w[i] : 1.0;
}

/* Accumulate sample i into stats (class weights, or sum and sum sq). */
static void add(const struct builder *b, double *st, uint32_t i, double sign)
{
	double w = sign * weight(b, i);

	if (b->d->nclasses) {
		st[b->d->cls[i]] += w;
	} else {
		st[0] += w * b->d->y[i];
		st[1] += w * b->d->y[i] * b->d->y[i];
	}
}

static double impurity(const struct builder *b, const double *st, double w)
{
	double r = 0;
	int c;

	if (w <= 0)
		return 0;
	if (!b->d->nclasses)
		return st[1] / w - (st[0] / w) * (st[0] / w);
	if (b->p->criterion == LK_CRIT_ENTROPY) {
		for (c = 0; c < b->k; c++)
			if (st[c] > 0)
				r -= st[c] / w * log2(st[c] / w);
		return r;
	}
	for (c = 0; c < b->k; c++)
		r += (st[c] / w) * (st[c] / w);
	return 1 - r;
}

static int new_node(struct builder *b, size_t s, size_t e, double *wsum)
{
	struct lk_tree *t = b->t;
	struct lk_tree_node *n;
	int nv = b->d->nclasses ? b->k : 2;
	size_t i;

	LK_GROW(t->nodes, t->n + 1, t->alloc);
	n = memset(&t->nodes[t->n], 0, sizeof(*n));
	n->feature = -1;
	n->left = n->right = -1;
	n->value = lk_calloc((size_t)nv, sizeof(double));
	*wsum = 0;
	for (i = s; i < e; i++) {
		add(b, n->value, b->order[0][i], 1);
		*wsum += weight(b, b->order[0][i]);
	}
	n->samples = e - s;
	n->weight = *wsum;
	n->impurity = impurity(b, n->value, *wsum);
	return (int)t->n++;
}

/* Record a better split at pos of feature f's order. */
static void take(struct cand *c, int f, const double *x, const uint32_t *o,
		 size_t pos)
{
	double lo = x[o[pos - 1]], hi = x[o[pos]];
	double mid = lo / 2 + hi / 2;

	c->feature = f;
	c->pos = pos;
	c->threshold = (mid == hi || isinf(mid)) ? lo : mid;
}

/*
 * scan() for the Gini criterion: the sums of squared class weights of
 * both sides kept as samples move left (exact for whole weights), and
 * scikit-learn's proxy -(wl * (1 - sql / wl^2) + wr * (1 - sqr / wr^2)).
 */
static void scan_gini(struct builder *b, int f, struct cand *c, double *best,
		      const double *total, double wn)
{
	const double *x = b->d->x[f];
	const uint32_t *o = b->order[f];
	const int *cls = b->d->cls;
	size_t s = c->start, e = c->end, pos;
	size_t leaf = (size_t)(b->p->min_samples_leaf > 0 ?
			       b->p->min_samples_leaf : 1);
	double wl = 0, sql = 0, sqr = 0, *lc = b->lc, *rc = b->rc;
	int j;

	for (j = 0; j < b->k; j++) {
		lc[j] = 0;
		rc[j] = total[j];
		sqr += total[j] * total[j];
	}
	for (pos = s + 1; pos < e; pos++) {
		uint32_t i = o[pos - 1];
		double w = b->w ? b->w[i] : 1.0, wr, proxy;
		int k = cls[i];

		sql += w * (2 * lc[k] + w);
		sqr += w * (w - 2 * rc[k]);
		lc[k] += w;
		rc[k] -= w;
		wl += w;
		if (x[o[pos]] <= x[i] + FEATURE_THRESHOLD ||
		    pos - s < leaf || e - pos < leaf)
			continue;
		wr = wn - wl;
		proxy = -(wl * (1 - sql / (wl * wl)) +
			  wr * (1 - sqr / (wr * wr)));
		if (proxy > *best) {
			*best = proxy;
			take(c, f, x, o, pos);
		}
	}
}

static void scan(struct builder *b, int f, struct cand *c, double *best,
		 const double *total, double wn)
{
	const double *x = b->d->x[f];
	const uint32_t *o = b->order[f];
	size_t s = c->start, e = c->end, pos;
	size_t leaf = (size_t)(b->p->min_samples_leaf > 0 ?
			       b->p->min_samples_leaf : 1);
	int nv = b->d->nclasses ? b->k : 2, j;
	double wl = 0;

	memset(b->lc, 0, (size_t)nv * sizeof(double));
	for (pos = s + 1; pos < e; pos++) {
		double proxy;

		add(b, b->lc, o[pos - 1], 1);
		wl += weight(b, o[pos - 1]);
		if (x[o[pos]] <= x[o[pos - 1]] + FEATURE_THRESHOLD ||
		    pos - s < leaf || e - pos < leaf)
			continue;
		for (j = 0; j < nv; j++)
			b->rc[j] = total[j] - b->lc[j];
		proxy = -(wl * impurity(b, b->lc, wl) +
			  (wn - wl) * impurity(b, b->rc, wn - wl));
		if (proxy > *best) {
			*best = proxy;
			take(c, f, x, o, pos);
		}
	}
}

static void find_split(struct builder *b, struct cand *c)
{
	struct lk_tree_node *n = &b->t->nodes[c->node];
	size_t nf = (size_t)b->d->nfeat, i, visited = 0;
	size_t maxf = b->p->max_features > 0 ? (size_t)b->p->max_features : nf;
	long split = b->p->min_samples_split > 1 ? b->p->min_samples_split : 2;
	long leaf = b->p->min_samples_leaf > 0 ? b->p->min_samples_leaf : 1;
	double best = -INFINITY;

	c->feature = -1;
	if ((b->p->max_depth > 0 && c->depth >= b->p->max_depth) ||
	    (long)n->samples < split || (long)n->samples < 2 * leaf ||
	    n->impurity <= DBL_EPSILON)
		return;
	for (i = 0; i < nf; i++)
		b->perm[i] = i;
	lk_rng_shuffle(&b->rng, b->perm, nf);
	for (i = 0; i < nf && visited < maxf; i++) {
		int f = (int)b->perm[i];
		const double *x = b->d->x[f];

		if (x[b->order[f][c->end - 1]] <=
		    x[b->order[f][c->start]] + FEATURE_THRESHOLD)
			continue;
		visited++;
		if (b->d->nclasses && b->p->criterion == LK_CRIT_GINI)
			scan_gini(b, f, c, &best, n->value, n->weight);
		else
			scan(b, f, c, &best, n->value, n->weight);
	}
}

static void evaluate(struct builder *b, size_t s, size_t e, int depth,
		     struct cand *c)
{
	double w;

	memset(c, 0, sizeof(*c));
	c->start = s;
	c->end = e;
	c->depth = depth;
	c->node = new_node(b, s, e, &w);
	find_split(b, c);
	/* The improvement best-first growth orders nodes by. */
	if (c->feature >= 0 && b->p->max_leaf_nodes > 1) {
		const struct lk_tree_node *n = &b->t->nodes[c->node];
		int nv = b->d->nclasses ? b->k : 2, j;
		double wl = 0;
		size_t i;

		memset(b->lc, 0, (size_t)nv * sizeof(double));
		for (i = s; i < c->pos; i++) {
			add(b, b->lc, b->order[c->feature][i], 1);
			wl += weight(b, b->order[c->feature][i]);
		}
		for (j = 0; j < nv; j++)
			b->rc[j] = n->value[j] - b->lc[j];
		c->improvement = (w / b->wroot) *
			(n->impurity - wl / w * impurity(b, b->lc, wl) -
			 (w - wl) / w * impurity(b, b->rc, w - wl));
	}
}

/* Partition every feature's order of [start, end) stably at the split. */
static void partition(struct builder *b, const struct cand *c)
{
	size_t i, f, nl, nr;

	for (i = c->start; i < c->end; i++)
		b->left[b->order[c->feature][i]] = i < c->pos;
	for (f = 0; f < b->d->nfeat; f++) {
		uint32_t *o = b->order[f];

		if ((int)f == c->feature)
			continue;
		nl = c->start;
		nr = 0;
		/* Both stores each time: no branch to mispredict. */
		for (i = c->start; i < c->end; i++) {
			uint32_t s = o[i];
			int l = b->left[s];

			o[nl] = s;
			b->tmp[nr] = s;
			nl += l;
			nr += !l;
		}
		memcpy(&o[nl], b->tmp, nr * sizeof(*o));
	}
}

static void expand(struct builder *b, const struct cand *c, struct cand *l,
		   struct cand *r)
{
	int id = c->node;

	partition(b, c);
	b->t->nodes[id].feature = c->feature;
	b->t->nodes[id].threshold = c->threshold;
	evaluate(b, c->start, c->pos, c->depth + 1, l);
	b->t->nodes[id].left = l->node;
	evaluate(b, c->pos, c->end, c->depth + 1, r);
	b->t->nodes[id].right = r->node;
}

static void grow_depth_first(struct builder *b, struct cand *root)
{
	struct cand *stack = lk_calloc(1, sizeof(*stack)), c, l, r;
	size_t n = 0, alloc = 1;

	stack[n++] = *root;
	while (n) {
		c = stack[--n];
		if (c.feature < 0)
			continue;
		expand(b, &c, &l, &r);
		LK_GROW(stack, n + 2, alloc);
		stack[n++] = r;
		stack[n++] = l;
	}
	free(stack);
}

/* Best-first: expand the frontier node of largest improvement. */
static void grow_best_first(struct builder *b, struct cand *root)
{
	struct cand *front = lk_calloc(1, sizeof(*front)), l, r;
	size_t n = 0, alloc = 1, i, best;
	long splits = b->p->max_leaf_nodes - 1;

	front[n++] = *root;
	while (n && splits > 0) {
		for (best = n, i = 0; i < n; i++)
			if (front[i].feature >= 0 &&
			    (best == n ||
			     front[i].improvement > front[best].improvement))
				best = i;
		if (best == n)
			break;
		expand(b, &front[best], &l, &r);
		splits--;
		front[best] = front[--n];
		LK_GROW(front, n + 2, alloc);
		front[n++] = l;
		front[n++] = r;
	}
	free(front);
}

static void builder_init(struct builder *b, struct lk_tree *t,
			 const struct lk_dataset *d, const double *w,
			 const struct lk_tree_params *p,
			 const struct lk_presort *ps)
{
	size_t f, i, m;

	memset(b, 0, sizeof(*b));
	b->d = d;
	b->p = p;
	b->w = w;
	b->t = t;
	b->k = d->nclasses ? d->nclasses : 1;
	b->lc = lk_calloc((size_t)b->k + 2, sizeof(double));
	b->rc = lk_calloc((size_t)b->k + 2, sizeof(double));
	b->left = lk_calloc(d->n + 1, 1);
	b->tmp = lk_calloc(d->n + 1, sizeof(*b->tmp));
	b->perm = lk_calloc(d->nfeat + 1, sizeof(*b->perm));
	b->order = lk_calloc(d->nfeat + 1, sizeof(*b->order));
	lk_rng_seed(&b->rng, p->seed, 0x7ee);
	for (f = 0; f < d->nfeat; f++) {
		b->order[f] = lk_calloc(d->n + 1, sizeof(uint32_t));
		for (i = m = 0; i < d->n; i++)
			if (!w || w[ps->order[f][i]] > 0)
				b->order[f][m++] = ps->order[f][i];
	}
	for (i = 0; i < d->n; i++)
		b->wroot += w ? w[i] : 1.0;
}

static void builder_release(struct builder *b)
{
	size_t f;

	for (f = 0; f < b->d->nfeat; f++)
		free(b->order[f]);
	free(b->order);
	free(b->lc);
	free(b->rc);
	free(b->left);
	free(b->tmp);
	free(b->perm);
}

static size_t active(const struct lk_dataset *d, const double *w)
{
	size_t i, m = 0;

	for (i = 0; i < d->n; i++)
		m += !w || w[i] > 0;
	return m;
}

void lk_tree_fit_presorted(struct lk_tree *t, const struct lk_dataset *d,
			   const double *w, const struct lk_tree_params *p,
			   const struct lk_presort *ps)
{
	struct builder b;
	struct cand root;

	memset(t, 0, sizeof(*t));
	t->nclasses = d->nclasses;
	t->nfeat = (int)d->nfeat;
	t->importance = lk_calloc(d->nfeat + 1, sizeof(double));
	if (!d->nfeat || !active(d, w))
		return;
	builder_init(&b, t, d, w, p, ps);
	evaluate(&b, 0, active(d, w), 0, &root);
	if (p->max_leaf_nodes > 1)
		grow_best_first(&b, &root);
	else
		grow_depth_first(&b, &root);
	builder_release(&b);
	if (p->ccp_alpha > 0)
		lk_tree_prune(t, p->ccp_alpha);
	lk_tree_importance(t);
}

void lk_tree_fit(struct lk_tree *t, const struct lk_dataset *d,
		 const double *weight, const struct lk_tree_params *p)
{
	struct lk_presort ps;

	lk_presort_init(&ps, d);
	lk_tree_fit_presorted(t, d, weight, p, &ps);
	lk_presort_release(&ps, d);
}

void lk_tree_release(struct lk_tree *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->nodes[i].value);
	free(t->nodes);
	free(t->importance);
	memset(t, 0, sizeof(*t));
}
