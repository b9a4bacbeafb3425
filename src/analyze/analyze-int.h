/* Private to src/analyze: one analysis run, shared by its steps. */
#ifndef LOOPKIT_ANALYZE_INT_H
#define LOOPKIT_ANALYZE_INT_H

#include "loopkit/analyze.h"

struct lk_analysis {
	struct lk_ctx *ctx;
	const struct lk_analyze_options *o;
	const char *file;           /* the input's name in messages */
	struct lk_csv csv;
	struct lk_table t;
	int target, split, tau_by;     /* columns; -1: none */
	int *feat;
	size_t nfeat, missing;
	const char **feat_names;
	const struct lk_column **feat_cols;   /* parallel to feat_names */
	int regression;
	struct lk_categories cats;
	int *cls;                    /* per row: class index */
	const char **class_names;
	int nclasses;
	unsigned char *is_test;
	double **xtr, **xte, *ytr, *yte;
	int *ctr, *cte;
	struct lk_dataset train, test;
	struct lk_tree tree;
	struct lk_forest forest;
	double tree_score, forest_score, knn_score, tree_rmse, forest_rmse;
	double knn_rmse;
	double *perm_mean, *perm_std;
	int has_tau;                  /* a numeric target: tau computed */
	struct lk_rank_corr tau;      /* of the numeric features */
	size_t *confusion;            /* nclasses^2, rows true */
	double *pred;                 /* the tree's prediction per row */
	double seconds_tree, seconds_forest, seconds_importance;
};

/* The figures of the page (SVG documents, owned); a note says why one
 * is missing. */
struct lk_analysis_figs {
	char *density, *importance, *confusion;
	char **custom;               /* one per o->plots */
	size_t ncustom;
	char *tree_svg;              /* graphviz dot's */
	char *plot_note, *tree_note; /* NULL: nothing to say */
};

/* Draw what gnuplot and dot can (plots.c); never fails: a note instead. */
void lk_analysis_figures(struct lk_analysis *a, struct lk_analysis_figs *fg);
void lk_analysis_figs_release(struct lk_analysis_figs *fg);
/* analysis.html (page.c): self-contained, the figures inline. */
void lk_analysis_page(const struct lk_analysis *a,
		      const struct lk_analysis_figs *fg, struct lk_buf *out);

/* The name of --tau-by's g-th value (its label, or the number). */
void lk_analysis_tau_group(const struct lk_analysis *a, size_t g, char *buf,
			   size_t size);

/* The JSON summary and the human summary of a finished analysis. */
void lk_analysis_json(const struct lk_analysis *a, struct lk_buf *out);
void lk_analysis_text(const struct lk_analysis *a, struct lk_buf *out);
/* Write every output file into dir (atomically), the key last. */
int lk_analysis_write(struct lk_analysis *a, const char *dir,
		      const char *key, const struct lk_buf *json);

#endif
