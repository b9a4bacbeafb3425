/* Private to src/analyze: the shared presort of a data set, pruning. */
#ifndef LOOPKIT_ANALYZE_CART_INT_H
#define LOOPKIT_ANALYZE_CART_INT_H

#include "loopkit/analyze.h"

/* Every feature's sample indices in increasing value order. */
struct lk_presort {
	uint32_t **order;
};

void lk_presort_init(struct lk_presort *ps, const struct lk_dataset *d);
void lk_presort_release(struct lk_presort *ps, const struct lk_dataset *d);
/* lk_tree_fit over a presort of d (shared read-only between trees). */
void lk_tree_fit_presorted(struct lk_tree *t, const struct lk_dataset *d,
			   const double *w, const struct lk_tree_params *p,
			   const struct lk_presort *ps);
/* Minimal cost-complexity pruning: cut the weakest links while their
 * effective alpha is at most alpha; the nodes are renumbered. */
void lk_tree_prune(struct lk_tree *t, double alpha);
/* t->importance: normalised MDI of the tree as it stands. */
void lk_tree_importance(struct lk_tree *t);

/* A tree for prediction: nodes breadth first, children adjacent. */
struct lk_flat_node {
	double threshold;
	int32_t feature;  /* -1: a leaf */
	int32_t next;     /* the left child (right: next + 1), or the leaf */
};

struct lk_flat_tree {
	struct lk_flat_node *nodes;
	double *values;   /* per leaf: class weights / weight, or the mean */
	size_t n;
};

/* f->flat from f->trees; released by lk_forest_flat_release. */
void lk_forest_flatten(struct lk_forest *f);
void lk_forest_flat_release(struct lk_forest *f);

#endif
