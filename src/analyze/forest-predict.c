/*
 * Forest prediction over whole data sets: each tree flattened into
 * 16-byte nodes laid out breadth first (children adjacent) with its
 * leaves' normalised values apart, the rows of a block pushed through a
 * tree in one pass, and permutation importance that re-walks a row's
 * path only from its first node testing the shuffled feature (found for
 * every feature in one walk), a level at a time over the rows pending.
 * Sums run over the trees in index order, as lk_forest_predict does, so
 * the figures are the row-by-row ones bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cart-int.h"

/* Cells (rows x trees) per block: bounds the tables to a few MB. */
#define BLOCK_CELLS (1u << 19)

static void flatten(struct lk_flat_tree *ft, const struct lk_tree *t, int nv)
{
	int *queue = lk_calloc(t->n + 1, sizeof(*queue));
	size_t head = 0, tail = 0, leaves = 0;

	ft->nodes = lk_calloc(t->n + 1, sizeof(*ft->nodes));
	ft->values = lk_calloc((t->n + 1) * (size_t)nv, sizeof(double));
	if (t->n)
		queue[tail++] = 0;
	for (; head < tail; head++) {
		const struct lk_tree_node *n = &t->nodes[queue[head]];
		struct lk_flat_node *o = &ft->nodes[head];
		int c;

		o->feature = n->feature;
		o->threshold = n->threshold;
		if (n->feature >= 0) {
			o->next = (int32_t)tail;
			queue[tail++] = n->left;
			queue[tail++] = n->right;
			continue;
		}
		o->next = (int32_t)leaves;
		for (c = 0; c < nv && n->weight > 0; c++)
			ft->values[leaves * (size_t)nv + (size_t)c] =
				n->value[c] / n->weight;
		leaves++;
	}
	ft->n = t->n;
	free(queue);
}

void lk_forest_flatten(struct lk_forest *f)
{
	int nv = f->nclasses ? f->nclasses : 1;
	size_t i;

	f->flat = lk_calloc(f->ntrees + 1, sizeof(*f->flat));
	for (i = 0; i < f->ntrees; i++)
		flatten(&f->flat[i], &f->trees[i], nv);
}

void lk_forest_flat_release(struct lk_forest *f)
{
	size_t i;

	for (i = 0; f->flat && i < f->ntrees; i++) {
		free(f->flat[i].nodes);
		free(f->flat[i].values);
	}
	free(f->flat);
	f->flat = NULL;
}

/* The leaf of row, or UINT32_MAX for an empty tree. */
static uint32_t walk(const struct lk_flat_tree *ft, const double *const *x,
		     size_t row)
{
	const struct lk_flat_node *n = ft->nodes;

	if (!ft->n)
		return UINT32_MAX;
	while (n->feature >= 0)
		n = &ft->nodes[n->next +
			       !(x[n->feature][row] <= n->threshold)];
	return (uint32_t)n->next;
}

/* Class index or the mean from one leaf per tree, leaf[t * stride]
 * (summed in tree order, as row by row). */
static double combine(const struct lk_forest *f, const uint32_t *leaf,
		      size_t stride, double *prob)
{
	int nv = f->nclasses ? f->nclasses : 1, c, best = 0;
	size_t t;

	memset(prob, 0, (size_t)nv * sizeof(*prob));
	for (t = 0; t < f->ntrees; t++) {
		const double *v;

		if (leaf[t * stride] == UINT32_MAX)
			continue;
		v = &f->flat[t].values[(size_t)leaf[t * stride] *
				       (size_t)nv];
		for (c = 0; c < nv; c++)
			prob[c] += v[c];
	}
	if (!f->nclasses)
		return prob[0] / (double)(f->ntrees ? f->ntrees : 1);
	for (c = 1; c < nv; c++)
		if (prob[c] > prob[best])
			best = c;
	return best;
}

double lk_forest_predict(const struct lk_forest *f, const double *const *x,
			 size_t row)
{
	uint32_t *leaf = lk_calloc(f->ntrees + 1, sizeof(*leaf));
	double *prob = lk_calloc((size_t)f->nclasses + 1, sizeof(*prob)), r;
	size_t t;

	for (t = 0; t < f->ntrees; t++)
		leaf[t] = walk(&f->flat[t], x, row);
	r = combine(f, leaf, 1, prob);
	free(leaf);
	free(prob);
	return r;
}

/* Leaves of rows [r0, r0 + m) for every tree, tree-major (stride m). */
static void walk_block(const struct lk_forest *f, const double *const *x,
		       size_t r0, size_t m, uint32_t *leaf)
{
	size_t t, i;

	for (t = 0; t < f->ntrees; t++)
		for (i = 0; i < m; i++)
			leaf[t * m + i] = walk(&f->flat[t], x, r0 + i);
}

static size_t block_rows(const struct lk_forest *f)
{
	size_t m = BLOCK_CELLS / (f->ntrees ? f->ntrees : 1);

	return m ? m : 1;
}

void lk_forest_predict_all(const struct lk_forest *f,
			   const struct lk_dataset *d, double *pred)
{
	size_t bm = block_rows(f), r0, i;
	uint32_t *leaf = lk_calloc(bm * f->ntrees + 1, sizeof(*leaf));
	double *prob = lk_calloc((size_t)f->nclasses + 1, sizeof(*prob));

	for (r0 = 0; r0 < d->n; r0 += bm) {
		size_t m = d->n - r0 < bm ? d->n - r0 : bm;

		walk_block(f, d->x, r0, m, leaf);
		for (i = 0; i < m; i++)
			pred[r0 + i] = combine(f, &leaf[i], m, prob);
	}
	free(leaf);
	free(prob);
}

/* Accuracy, or R^2, of predictions on d (lk_score's figures). */
static double score_of(const struct lk_dataset *d, const double *pred)
{
	double hits = 0, r2;
	size_t i;

	if (!d->n)
		return NAN;
	if (!d->nclasses) {
		lk_rmse_r2(pred, d->y, d->n, &r2);
		return r2;
	}
	for (i = 0; i < d->n; i++)
		hits += (int)pred[i] == d->cls[i];
	return hits / (double)d->n;
}

struct perm_state {
	const struct lk_forest *f;
	const struct lk_dataset *d;
	size_t m;           /* rows in this block */
	size_t cells;       /* trees x block rows, the tables' stride */
	double *rows;       /* the block's rows, features adjacent */
	double *value;      /* per block row: the shuffled feature's value */
	uint32_t *leaf;     /* trees x block rows: the unshuffled leaves */
	int32_t *start;     /* features x cells: first node testing it, or -1 */
	double *keep;       /* the same, two each: its values keeping a path */
	uint32_t *moved;    /* trees x block rows: the leaves, fe shuffled */
	unsigned char *changed;  /* per block row: a leaf moved */
	uint32_t *pend;     /* block rows whose walk a tree must redo */
	int32_t *at;        /* the same: the node each walk has reached */
	double *base_sum;   /* per block row, nv each: the unshuffled sums */
	double *delta;      /* the same: the moved leaves' differences */
	double *base_pred, *prob;
};

/* Rows per block: the per-feature tables bound to BLOCK_CELLS cells. */
static size_t perm_block_rows(const struct lk_forest *f, size_t nfeat)
{
	size_t m = BLOCK_CELLS / ((f->ntrees ? f->ntrees : 1) *
				  (nfeat ? nfeat : 1));

	return m ? m : 1;
}

/*
 * The unshuffled leaf of each row in each tree, and for every feature
 * the first node of the row's path that tests it (the path above it does
 * not depend on that feature, so a shuffle re-walks from there) and the
 * values (lo, hi] of it that keep the whole path: a shuffled value inside
 * them reaches the same leaf without a walk. One walk per row and tree.
 */
static void walk_paths(struct perm_state *s, size_t m)
{
	const struct lk_forest *f = s->f;
	size_t t, i, fe, nf = s->d->nfeat, nt = f->ntrees;

	for (t = 0; t < nt; t++) {
		const struct lk_flat_node *nodes = f->flat[t].nodes;

		for (i = 0; i < m; i++) {
			const struct lk_flat_node *n = nodes;
			const double *x = &s->rows[i * nf];
			size_t cell = t * m + i, at;

			for (fe = 0; fe < nf; fe++) {
				at = fe * s->cells + cell;
				s->start[at] = -1;
				s->keep[2 * at] = -INFINITY;
				s->keep[2 * at + 1] = INFINITY;
			}
			s->leaf[cell] = UINT32_MAX;
			if (!f->flat[t].n)
				continue;
			while (n->feature >= 0) {
				int left = x[n->feature] <= n->threshold;
				double *k;

				at = (size_t)n->feature * s->cells + cell;
				k = &s->keep[2 * at + left];
				if (s->start[at] < 0)
					s->start[at] = (int32_t)(n - nodes);
				if (left ? n->threshold < *k
					 : n->threshold > *k)
					*k = n->threshold;
				n = &nodes[n->next + !left];
			}
			s->leaf[cell] = (uint32_t)n->next;
		}
	}
}

/* Row i of tree t reaches leaf l: delta += l - its unshuffled leaf. */
static void moved_to(struct perm_state *s, size_t t, size_t i, uint32_t l)
{
	int nv = s->f->nclasses ? s->f->nclasses : 1, c;
	const double *vals = s->f->flat[t].values;
	uint32_t old = s->leaf[t * s->m + i];
	double *dl = &s->delta[i * (size_t)nv];

	s->moved[t * s->m + i] = l;
	if (l == old)
		return;
	s->changed[i] = 1;
	for (c = 0; c < nv; c++)
		dl[c] += vals[(size_t)l * (size_t)nv + (size_t)c] -
			 vals[(size_t)old * (size_t)nv + (size_t)c];
}

/*
 * Walks of tree t for the block rows pend[0..np), each from its first
 * node testing the shuffled feature (start) on the rows as shuffled, all
 * a level at a time: the walks of a pass are independent, so their loads
 * overlap. The walks still going are packed to the front of pend and at.
 */
static void walk_pending(struct perm_state *s, size_t t, const int32_t *start,
			 size_t np)
{
	const struct lk_flat_node *nodes = s->f->flat[t].nodes;
	size_t nf = s->d->nfeat, j, live;
	uint32_t *pend = s->pend;
	int32_t *at = s->at;

	for (j = 0; j < np; j++)
		at[j] = start[t * s->m + pend[j]];
	for (live = np; live; np = live) {
		for (j = live = 0; j < np; j++) {
			const struct lk_flat_node *n = &nodes[at[j]];
			uint32_t row = pend[j];
			const double *x = &s->rows[row * nf];

			if (n->feature < 0) {
				moved_to(s, t, row, (uint32_t)n->next);
				continue;
			}
			at[live] = n->next + !(x[n->feature] <= n->threshold);
			pend[live++] = row;
		}
	}
}

/*
 * The class of a row whose leaves moved: the unshuffled sums plus the
 * moved leaves' differences decide it when the winner leads by far more
 * than rounding; otherwise the sums are redone in tree order (combine).
 */
static double moved_class(struct perm_state *s, size_t i)
{
	const struct lk_forest *f = s->f;
	int nv = f->nclasses, c, best = 0;
	const double *b = &s->base_sum[i * (size_t)nv];
	const double *dl = &s->delta[i * (size_t)nv];
	double top = b[0] + dl[0], second = -INFINITY;

	for (c = 1; c < nv; c++) {
		double p = b[c] + dl[c];

		if (p > top) {
			second = top;
			top = p;
			best = c;
		} else if (p > second) {
			second = p;
		}
	}
	if (top - second > 1e-9)
		return best;
	return combine(f, &s->moved[i], s->m, s->prob);
}

/* Rows [r0, r0 + m) with feature fe read at perm: hits, or the squared
 * errors in row order (lk_rmse_r2's sum), added to *acc. */
static void score_permuted(struct perm_state *s, size_t r0, size_t m,
			   int fe, const uint32_t *perm, double *acc)
{
	const struct lk_forest *f = s->f;
	const double *col = s->d->x[fe];
	const int32_t *start = &s->start[(size_t)fe * s->cells];
	const double *keep = &s->keep[2 * (size_t)fe * s->cells];
	size_t i, t, nt = f->ntrees, nf = s->d->nfeat;
	int nv = f->nclasses ? f->nclasses : 1;
	double pred;

	memset(s->changed, 0, m);
	memset(s->delta, 0, m * (size_t)nv * sizeof(double));
	for (i = 0; i < m; i++)
		s->rows[i * nf + (size_t)fe] = s->value[i] = col[perm[r0 + i]];
	memcpy(s->moved, s->leaf, s->cells * sizeof(*s->moved));
	for (t = 0; t < nt; t++) {
		size_t np = 0;

		/* Stored each time, counted when pending: no branch. */
		for (i = 0; i < m; i++) {
			size_t cell = t * m + i;
			double v = s->value[i];

			s->pend[np] = (uint32_t)i;
			np += (start[cell] >= 0) & (!(keep[2 * cell] < v) |
						    !(v <= keep[2 * cell + 1]));
		}
		walk_pending(s, t, start, np);
	}
	for (i = 0; i < m; i++)
		s->rows[i * nf + (size_t)fe] = col[r0 + i];
	for (i = 0; i < m; i++) {
		/* No leaf moved: the sums, hence the prediction, are the same. */
		if (!s->changed[i])
			pred = s->base_pred[r0 + i];
		else if (s->d->nclasses)
			pred = moved_class(s, i);
		else
			pred = combine(f, &s->moved[i], m, s->prob);
		if (s->d->nclasses)
			*acc += (int)pred == s->d->cls[r0 + i];
		else
			*acc += (pred - s->d->y[r0 + i]) *
				(pred - s->d->y[r0 + i]);
	}
}

/* The score from score_permuted's sum over every row. */
static double score_from(const struct lk_dataset *d, double acc)
{
	double m = 0, st = 0;
	size_t i;

	if (!d->n)
		return NAN;
	if (d->nclasses)
		return acc / (double)d->n;
	for (i = 0; i < d->n; i++)
		m += d->y[i] / (double)d->n;
	for (i = 0; i < d->n; i++)
		st += (d->y[i] - m) * (d->y[i] - m);
	return st > 0 ? 1 - acc / st : (acc > 0 ? 0 : 1);
}

/* Shuffles per chunk: bounds their table (4 bytes per row each). */
#define PERM_CELLS (1u << 24)

/* Shuffles p0.. of (feature, repeat) pairs, pairs [p0, p0 + np), one
 * block of rows at a time; drop[p] gets each pair's score sum. */
static void score_chunk(struct perm_state *s, size_t p0, size_t np,
			int repeats, const uint32_t *perm, double *drop)
{
	const struct lk_forest *f = s->f;
	size_t n = s->d->n, nf = s->d->nfeat, r0, i, p;
	size_t bm = perm_block_rows(f, nf);
	int nv = f->nclasses ? f->nclasses : 1;

	for (r0 = 0; r0 < n; r0 += bm) {
		size_t m = n - r0 < bm ? n - r0 : bm;

		s->m = m;
		s->cells = m * f->ntrees;
		for (i = 0; i < m * nf; i++)
			s->rows[i] = s->d->x[i % nf][r0 + i / nf];
		walk_paths(s, m);
		for (i = 0; i < m; i++)
			combine(f, &s->leaf[i], m,
				&s->base_sum[i * (size_t)nv]);
		for (p = p0; p < p0 + np; p++)
			score_permuted(s, r0, m, (int)(p / (size_t)repeats),
				       &perm[(p - p0) * n], &drop[p]);
	}
}

static void perm_state_init(struct perm_state *s, double *pred)
{
	size_t bm = perm_block_rows(s->f, s->d->nfeat);
	size_t cells = bm * s->f->ntrees + 1, nf = s->d->nfeat + 1;
	size_t nv = (size_t)(s->f->nclasses ? s->f->nclasses : 1);

	s->leaf = lk_calloc(cells, sizeof(*s->leaf));
	s->start = lk_calloc(nf * cells, sizeof(*s->start));
	s->moved = lk_calloc(cells, sizeof(*s->moved));
	s->keep = lk_calloc(2 * nf * cells, sizeof(*s->keep));
	s->rows = lk_calloc(bm * nf + 1, sizeof(*s->rows));
	s->value = lk_calloc(bm + 1, sizeof(*s->value));
	s->changed = lk_calloc(bm + 1, 1);
	s->pend = lk_calloc(bm + 1, sizeof(*s->pend));
	s->at = lk_calloc(bm + 1, sizeof(*s->at));
	s->base_sum = lk_calloc(bm * nv + 1, sizeof(double));
	s->delta = lk_calloc(bm * nv + 1, sizeof(double));
	s->prob = lk_calloc(nv + 1, sizeof(*s->prob));
	s->base_pred = pred;
}

static void perm_state_release(struct perm_state *s)
{
	free(s->leaf);
	free(s->start);
	free(s->moved);
	free(s->keep);
	free(s->rows);
	free(s->value);
	free(s->changed);
	free(s->pend);
	free(s->at);
	free(s->base_sum);
	free(s->delta);
	free(s->prob);
}

/* mean and std over the repeats of each feature's drops. */
static void drops_to_importance(const double *drop, size_t nf, int repeats,
				double *mean, double *std)
{
	size_t fe;
	int k;

	for (fe = 0; fe < nf; fe++) {
		const double *dr = &drop[fe * (size_t)repeats];

		mean[fe] = std[fe] = 0;
		for (k = 0; k < repeats; k++)
			mean[fe] += dr[k] / repeats;
		for (k = 0; k < repeats; k++)
			std[fe] += (dr[k] - mean[fe]) * (dr[k] - mean[fe]);
		std[fe] = repeats ? sqrt(std[fe] / repeats) : 0;
	}
}

void lk_forest_permutation_importance(const struct lk_forest *f,
				      const struct lk_dataset *d, int repeats,
				      uint64_t seed, double *mean, double *std)
{
	size_t n = d->n, pairs = d->nfeat * (size_t)repeats, p0, p, i;
	size_t chunk = n ? PERM_CELLS / n : pairs;
	size_t *shuffle = lk_calloc(n + 1, sizeof(*shuffle));
	double *pred = lk_calloc(n + 1, sizeof(*pred)), base;
	double *drop = lk_calloc(pairs + 1, sizeof(*drop));
	uint32_t *perm;
	struct perm_state s = {.f = f, .d = d};
	struct lk_rng r;

	chunk = chunk ? (chunk < pairs ? chunk : pairs) : 1;
	perm = lk_calloc(chunk * n + 1, sizeof(*perm));
	lk_forest_predict_all(f, d, pred);
	base = score_of(d, pred);
	perm_state_init(&s, pred);
	/* The shuffles in lk_permutation_importance's order. */
	lk_rng_seed(&r, seed, 0x9e7);
	for (p0 = 0; p0 < pairs; p0 += chunk) {
		size_t np = pairs - p0 < chunk ? pairs - p0 : chunk;

		for (p = 0; p < np; p++) {
			for (i = 0; i < n; i++)
				shuffle[i] = i;
			lk_rng_shuffle(&r, shuffle, n);
			for (i = 0; i < n; i++)
				perm[p * n + i] = (uint32_t)shuffle[i];
		}
		score_chunk(&s, p0, np, repeats, perm, drop);
	}
	for (p = 0; p < pairs; p++)
		drop[p] = base - score_from(d, drop[p]);
	drops_to_importance(drop, d->nfeat, repeats, mean, std);
	perm_state_release(&s);
	free(shuffle);
	free(perm);
	free(pred);
	free(drop);
}
