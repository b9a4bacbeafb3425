/*
 * Trees after growth: the presort (an LSD radix sort of the doubles),
 * pruning, MDI importance, prediction, and the sizes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cart-int.h"

/* A double's bits as an unsigned key with the same order. */
static uint64_t key(double v)
{
	uint64_t u;

	if (v == 0)
		v = 0; /* -0.0 sorts with 0.0 */
	memcpy(&u, &v, sizeof(u));
	return (u >> 63) ? ~u : u | (1ULL << 63);
}

static void radix_sort(const double *x, size_t n, uint32_t *out)
{
	uint64_t *k = lk_malloc((n + 1) * sizeof(*k));
	uint64_t *k2 = lk_malloc((n + 1) * sizeof(*k2));
	uint32_t *o2 = lk_malloc((n + 1) * sizeof(*o2));
	size_t i, cnt[256];
	int pass;

	for (i = 0; i < n; i++) {
		k[i] = key(x[i]);
		out[i] = (uint32_t)i;
	}
	for (pass = 0; pass < 8; pass++) {
		int sh = pass * 8;
		size_t sum = 0, c;

		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(k[i] >> sh) & 255]++;
		if (n && cnt[(k[0] >> sh) & 255] == n)
			continue;
		for (i = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			size_t at = cnt[(k[i] >> sh) & 255]++;

			k2[at] = k[i];
			o2[at] = out[i];
		}
		memcpy(k, k2, n * sizeof(*k));
		memcpy(out, o2, n * sizeof(*out));
	}
	free(k);
	free(k2);
	free(o2);
}

void lk_presort_init(struct lk_presort *ps, const struct lk_dataset *d)
{
	size_t f;

	ps->order = lk_calloc(d->nfeat + 1, sizeof(*ps->order));
	for (f = 0; f < d->nfeat; f++) {
		ps->order[f] = lk_calloc(d->n + 1, sizeof(uint32_t));
		radix_sort(d->x[f], d->n, ps->order[f]);
	}
}

void lk_presort_release(struct lk_presort *ps, const struct lk_dataset *d)
{
	size_t f;

	for (f = 0; f < d->nfeat; f++)
		free(ps->order[f]);
	free(ps->order);
}

/* Subtree cost and leaf count, children numbered after parents. */
static void subtree_costs(const struct lk_tree *t, const unsigned char *cut,
			  double *cost, size_t *leaves, double wroot)
{
	size_t i = t->n;

	while (i--) {
		const struct lk_tree_node *n = &t->nodes[i];

		if (n->feature < 0 || cut[i]) {
			cost[i] = n->weight / wroot * n->impurity;
			leaves[i] = 1;
		} else {
			cost[i] = cost[n->left] + cost[n->right];
			leaves[i] = leaves[n->left] + leaves[n->right];
		}
	}
}

/* hidden[i]: i lies under a cut node (parents numbered first). */
static void mark_hidden(const struct lk_tree *t, const unsigned char *cut,
			unsigned char *hidden)
{
	size_t i;

	memset(hidden, 0, t->n);
	for (i = 0; i < t->n; i++) {
		const struct lk_tree_node *n = &t->nodes[i];

		if (n->feature >= 0 && (hidden[i] || cut[i]))
			hidden[n->left] = hidden[n->right] = 1;
	}
}

static int copy_node(const struct lk_tree *t, const unsigned char *cut,
		     size_t i, struct lk_tree *out)
{
	struct lk_tree_node n = t->nodes[i];
	size_t id = out->n;
	int left, right;

	LK_GROW(out->nodes, out->n + 1, out->alloc);
	out->nodes[out->n++] = n;
	if (n.feature < 0 || cut[i]) {
		out->nodes[id].feature = -1;
		out->nodes[id].left = out->nodes[id].right = -1;
		return (int)id;
	}
	/* The calls grow out->nodes: index it after them. */
	left = copy_node(t, cut, (size_t)n.left, out);
	right = copy_node(t, cut, (size_t)n.right, out);
	out->nodes[id].left = left;
	out->nodes[id].right = right;
	return (int)id;
}

static void free_dropped(struct lk_tree *t, const unsigned char *cut,
			 size_t i, int under_cut)
{
	const struct lk_tree_node *n = &t->nodes[i];

	if (under_cut)
		free(n->value);
	if (n->feature < 0)
		return;
	free_dropped(t, cut, (size_t)n->left, under_cut || cut[i]);
	free_dropped(t, cut, (size_t)n->right, under_cut || cut[i]);
}

void lk_tree_prune(struct lk_tree *t, double alpha)
{
	unsigned char *cut = lk_calloc(t->n + 1, 1);
	unsigned char *hidden = lk_calloc(t->n + 1, 1);
	double *cost = lk_calloc(t->n + 1, sizeof(*cost));
	size_t *leaves = lk_calloc(t->n + 1, sizeof(*leaves)), i, weakest;
	struct lk_tree out = {0};
	double wroot = t->n ? t->nodes[0].weight : 1, best;

	for (;;) {
		subtree_costs(t, cut, cost, leaves, wroot);
		mark_hidden(t, cut, hidden);
		best = INFINITY;
		weakest = t->n;
		for (i = 0; i < t->n; i++) {
			double a;

			if (t->nodes[i].feature < 0 || cut[i] || hidden[i] ||
			    leaves[i] < 2)
				continue;
			a = (t->nodes[i].weight / wroot * t->nodes[i].impurity -
			     cost[i]) / (double)(leaves[i] - 1);
			if (a < best) {
				best = a;
				weakest = i;
			}
		}
		if (weakest == t->n || best > alpha)
			break;
		cut[weakest] = 1;
	}
	if (t->n) {
		free_dropped(t, cut, 0, 0);
		copy_node(t, cut, 0, &out);
	}
	free(t->nodes);
	t->nodes = out.nodes;
	t->n = out.n;
	t->alloc = out.alloc;
	free(cut);
	free(hidden);
	free(cost);
	free(leaves);
}

void lk_tree_importance(struct lk_tree *t)
{
	double sum = 0;
	size_t i;
	int f;

	for (f = 0; f < t->nfeat; f++)
		t->importance[f] = 0;
	for (i = 0; i < t->n; i++) {
		const struct lk_tree_node *n = &t->nodes[i], *l, *r;

		if (n->feature < 0)
			continue;
		l = &t->nodes[n->left];
		r = &t->nodes[n->right];
		t->importance[n->feature] += n->weight * n->impurity -
			l->weight * l->impurity - r->weight * r->impurity;
	}
	for (f = 0; f < t->nfeat; f++)
		sum += t->importance[f];
	for (f = 0; sum > 0 && f < t->nfeat; f++)
		t->importance[f] /= sum;
}

const struct lk_tree_node *lk_tree_leaf(const struct lk_tree *t,
					const double *const *x, size_t row)
{
	const struct lk_tree_node *n = t->n ? &t->nodes[0] : NULL;

	while (n && n->feature >= 0)
		n = &t->nodes[x[n->feature][row] <= n->threshold ? n->left
								   : n->right];
	return n;
}

double lk_tree_predict(const struct lk_tree *t, const double *const *x,
		       size_t row)
{
	const struct lk_tree_node *n = lk_tree_leaf(t, x, row);
	int c, best = 0;

	if (!n)
		return 0;
	if (!t->nclasses)
		return n->weight > 0 ? n->value[0] / n->weight : 0;
	for (c = 1; c < t->nclasses; c++)
		if (n->value[c] > n->value[best])
			best = c;
	return best;
}

static int depth_of(const struct lk_tree *t, int i)
{
	int l, r;

	if (t->nodes[i].feature < 0)
		return 0;
	l = depth_of(t, t->nodes[i].left);
	r = depth_of(t, t->nodes[i].right);
	return 1 + (l > r ? l : r);
}

int lk_tree_depth(const struct lk_tree *t)
{
	return t->n ? depth_of(t, 0) : 0;
}

size_t lk_tree_leaves(const struct lk_tree *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->nodes[i].feature < 0;
	return n;
}
