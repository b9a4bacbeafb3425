/*
 * loopkit analyze: from a table of measurements, which parameters explain
 * a metric. CSV input (libcsv), typed tables, derived columns, categories
 * of a numeric target (steps or a Gaussian KDE), CART trees, random
 * forests, k-NN, and their outputs (doc/loopkit-analyze.md).
 */
#ifndef LOOPKIT_ANALYZE_H
#define LOOPKIT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "loopkit/config.h"
#include "loopkit/core.h"

/* A CSV file: header names and rows of cells, each with its line. */
struct lk_csv {
	size_t ncols, nrows;
	char **header;  /* ncols */
	char **cells;   /* nrows * ncols, row-major; "" for an empty cell */
	long *lines;    /* the line each row starts on */
	long header_line;
};

/*
 * Parse RFC 4180 text (quoted fields, CRLF or LF, '#' comment lines, a
 * header row; a UTF-8 byte order mark skipped) named 'file' in messages. A ragged row, a broken quote, an
 * empty or duplicate header name: LK_EINPUT "file:line: ...". On success
 * *out owns everything (lk_csv_release); on failure it holds nothing.
 */
int lk_csv_parse(struct lk_ctx *ctx, const char *file, const char *data,
		 size_t len, struct lk_csv *out);
void lk_csv_release(struct lk_csv *csv);

/* A typed column: numbers, or labels encoded in sorted order. */
struct lk_column {
	char *name;
	int categorical;    /* v[i] is an index into labels */
	double *v;          /* nrows values; NAN: missing */
	char **labels;      /* sorted distinct labels (categorical) */
	size_t nlabels;
};

struct lk_table {
	char *file;          /* for messages */
	size_t nrows, ncols;
	struct lk_column *cols;
	long *lines;         /* input line of each row */
	long header_line;
	size_t dropped_filter;  /* rows removed by the filters */
};

/*
 * Rows of csv matching every condition of 'where' (keys are columns:
 * else LK_EINPUT naming the condition), typed: a column is numeric when
 * every non-empty cell is a number. Empty cells become NAN.
 */
int lk_table_from_csv(struct lk_ctx *ctx, const char *file,
		      const struct lk_csv *csv, const struct lk_selector *where,
		      struct lk_table *out);
void lk_table_release(struct lk_table *t);
/* The column called name, or -1. */
int lk_table_find(const struct lk_table *t, const char *name);
/* Append a numeric column (takes v, nrows values). */
void lk_table_add(struct lk_table *t, const char *name, LK_TAKE double *v);
/* Keep the rows where keep[i] is non-zero. */
void lk_table_keep(struct lk_table *t, const unsigned char *keep);

/*
 * Parse "KEY:OP:VALUE[,VALUE...]" (OP: eq ne lt le gt ge in not-in) into
 * a condition appended to sel. LK_EINPUT on a bad form.
 */
int lk_where_parse(struct lk_ctx *ctx, const char *text,
		   struct lk_selector *sel);

/* Derived columns: a small arithmetic language, parsed, never run. */
struct lk_expr;
/*
 * Parse text: numbers, column names, + - * / ( ), and the functions
 * min max abs floor ceil log log2 exp sqrt distinct. Column names are
 * checked against t. LK_EINPUT "what: column N: ..." on an error.
 */
int lk_expr_parse(struct lk_ctx *ctx, const char *what, const char *text,
		  const struct lk_table *t, LK_GIVE struct lk_expr **out);
/* The value on row i (NAN when a column is missing there). */
double lk_expr_eval(const struct lk_expr *e, const struct lk_table *t,
		    size_t row);
void lk_expr_free(struct lk_expr *e);
/* "NAME=EXPR": evaluate into a new numeric column of t. */
int lk_table_derive(struct lk_ctx *ctx, struct lk_table *t,
		    const char *definition);

enum lk_normalize { LK_NORM_NONE, LK_NORM_MINMAX, LK_NORM_ZSCORE,
		    LK_NORM_LOG };
/* Normalise n values in place; LK_NORM_LOG needs positive values. */
int lk_normalize(struct lk_ctx *ctx, const char *what, enum lk_normalize how,
		 double *v, size_t n);

/* Bandwidths of a Gaussian KDE (KDEpy's rules). */
double lk_kde_silverman(const double *x, size_t n);
double lk_kde_scott(const double *x, size_t n);
/* Botev et al. 2010 (kde.m: 2^14 grid over range/2 margins). */
int lk_kde_isj(const double *x, size_t n, double *h);
/* KDEpy 1.1.9's variant (2^10 grid, data range): about half of Botev's. */
int lk_kde_isj_kdepy(const double *x, size_t n, double *h);
/* KDEpy's _fixed_point (exposed for tests against its doctest). */
double lk_kde_isj_fixed_point(double t, double nunique, const double *isq,
			      const double *a2, size_t n);

/* Categories of a numeric target. */
enum lk_cat_method { LK_CAT_NONE, LK_CAT_STEP, LK_CAT_KDE };

struct lk_category {
	char *label;
	double lo, hi;       /* the members' min and max */
	double centroid;     /* KDE: the density's peak; step: bin middle */
	size_t count;
};

struct lk_categories {
	enum lk_cat_method method;
	char *bandwidth_rule;  /* "silverman", ..., or the number */
	double bandwidth;
	double *cuts;          /* ncuts boundaries, increasing */
	size_t ncuts;
	struct lk_category *list;
	size_t n;
	double *grid, *density; /* KDE: ngrid points */
	size_t ngrid;
};

struct lk_cat_options {
	enum lk_cat_method method;
	const char *bandwidth;  /* silverman scott isj isj-kdepy or a number */
	double step_from, step_width;
	size_t grid;            /* 0: 1024 */
	size_t min_count;       /* 0: 2 */
};

/*
 * Categorise x (n values) into c; class[i] gets each value's category
 * index. LK_EINPUT on a bad bandwidth or step.
 */
int lk_categorize(struct lk_ctx *ctx, const char *target,
		  const struct lk_cat_options *o, const double *x, size_t n,
		  struct lk_categories *c, int *cls);
void lk_categories_release(struct lk_categories *c);

/* A seeded PRNG (splitmix64 seeding xoshiro256**); one per stream. */
struct lk_rng {
	uint64_t s[4];
};
void lk_rng_seed(struct lk_rng *r, uint64_t seed, uint64_t stream);
uint64_t lk_rng_next(struct lk_rng *r);
/* Uniform in [0, n). */
size_t lk_rng_below(struct lk_rng *r, size_t n);
void lk_rng_shuffle(struct lk_rng *r, size_t *v, size_t n);

/* Training data: column-major features, classes or numeric targets. */
struct lk_dataset {
	size_t n, nfeat;
	const double *const *x;  /* nfeat columns of n values */
	const int *cls;           /* classes 0..nclasses-1, or NULL */
	const double *y;          /* regression target (cls NULL) */
	int nclasses;             /* 0: regression */
};

enum lk_criterion { LK_CRIT_GINI, LK_CRIT_ENTROPY, LK_CRIT_MSE };

struct lk_tree_params {
	enum lk_criterion criterion;
	long max_depth;          /* 0: none */
	long min_samples_split;  /* 0: 2 */
	long min_samples_leaf;   /* 0: 1 */
	long max_leaf_nodes;     /* 0: none; else best-first growth */
	long max_features;       /* 0: all */
	double ccp_alpha;
	uint64_t seed;
};

struct lk_tree_node {
	int feature;          /* -1: a leaf */
	double threshold;     /* x <= threshold goes left */
	int left, right;
	double impurity;
	size_t samples;
	double weight;        /* weighted samples */
	double *value;        /* class weights, or the mean (1 value) */
};

struct lk_tree {
	struct lk_tree_node *nodes;
	size_t n, alloc;
	int nclasses, nfeat;
	double *importance;   /* normalised MDI, nfeat */
};

/*
 * Fit a CART tree (scikit-learn's semantics: midpoint thresholds, <=
 * goes left, zero-gain splits made, features permuted per node by the
 * seed). weight: NULL or a count per sample (bootstrap); 0 leaves it out.
 */
void lk_tree_fit(struct lk_tree *t, const struct lk_dataset *d,
		 const double *weight, const struct lk_tree_params *p);
void lk_tree_release(struct lk_tree *t);
/* The leaf reached by row of x (nfeat columns). */
const struct lk_tree_node *lk_tree_leaf(const struct lk_tree *t,
					const double *const *x, size_t row);
/* Class index (argmax) or the regression value. */
double lk_tree_predict(const struct lk_tree *t, const double *const *x,
		       size_t row);
int lk_tree_depth(const struct lk_tree *t);
size_t lk_tree_leaves(const struct lk_tree *t);
/*
 * scikit-learn's export_text layout; class_names NULL: regression.
 * cols (NULL, or the features' columns, parallel to feat): a split on a
 * categorical column also names the labels each side takes, "compiler
 * <= 1.50 (clang, gcc)", its codes being the sorted labels' indices.
 */
void lk_tree_text(const struct lk_tree *t, const char *const *feat,
		  const struct lk_column *const *cols,
		  const char *const *class_names, struct lk_buf *out);
void lk_tree_dot(const struct lk_tree *t, const char *const *feat,
		 const struct lk_column *const *cols,
		 const char *const *class_names, struct lk_buf *out);
void lk_tree_json(const struct lk_tree *t, const char *const *feat,
		  struct lk_buf *out);

struct lk_forest {
	struct lk_tree *trees;
	size_t ntrees;
	int nclasses, nfeat;
	double *importance, *importance_std;  /* MDI mean, std over trees */
	struct lk_flat_tree *flat;            /* private: for prediction */
};

/* Fit ntrees bootstrap trees on up to jobs threads; same result for any
 * jobs: tree i draws from stream i of p->seed. */
void lk_forest_fit(struct lk_forest *f, const struct lk_dataset *d,
		   size_t ntrees, const struct lk_tree_params *p, int jobs);
void lk_forest_release(struct lk_forest *f);
/* Class index (soft vote, ties to the smaller) or the mean of row. */
double lk_forest_predict(const struct lk_forest *f, const double *const *x,
			 size_t row);
/* lk_forest_predict of every row of d into pred (d->n values), tree by
 * tree over blocks of rows. */
void lk_forest_predict_all(const struct lk_forest *f,
			   const struct lk_dataset *d, double *pred);
/* lk_permutation_importance of the forest, the same figures bit for bit,
 * re-walking only the trees whose path for a row tests the feature. */
void lk_forest_permutation_importance(const struct lk_forest *f,
				      const struct lk_dataset *d, int repeats,
				      uint64_t seed, double *mean, double *std);

/* Scores: accuracy (classes) or R^2 (regression) of a predictor. */
typedef double (*lk_predict_fn)(const void *model, const double *const *x,
				size_t row);
double lk_score(lk_predict_fn fn, const void *model, const struct lk_dataset *d);
/*
 * Permutation importance: the score's mean and std drop over 'repeats'
 * shuffles of each feature of d (seeded); mean, std: nfeat values.
 */
void lk_permutation_importance(lk_predict_fn fn, const void *model,
			       const struct lk_dataset *d, int repeats,
			       uint64_t seed, double *mean, double *std);
/* k-NN (Euclidean, majority vote, ties to the smaller class; mean for
 * regression) of test row i against train. */
double lk_knn_predict(const struct lk_dataset *train, int k,
		      const double *const *x, size_t row);
double lk_rmse_r2(const double *pred, const double *y, size_t n, double *r2);

/* Kendall's tau-b of columns against a target, overall and per group. */
struct lk_rank_corr {
	size_t nx;             /* columns */
	size_t ngroups;        /* 0: no grouping column */
	double *groups;        /* its distinct values, increasing */
	size_t *group_rows;    /* rows in each group */
	double *all;           /* nx: over every row; NaN: undefined */
	double *within;        /* nx * ngroups: column k, group g at
				  k * ngroups + g */
};

/*
 * tau-b (lk_stat_kendall_tau_b) of each column xs[k] (n values, none
 * NaN; a NULL column gets NaN everywhere) against y, over every row and,
 * when group is not NULL, within the rows of each distinct value of
 * group (a row whose group is NaN is in none). NaN where tau is
 * undefined (fewer than 2 rows, a constant column). Returns 0; -1 when
 * group has more than max_groups distinct values: then r->ngroups is
 * that count and r holds nothing else. Release with
 * lk_rank_corr_release in either case.
 */
int lk_rank_corr_compute(struct lk_rank_corr *r, const double *const *xs,
			 size_t nx, const double *y, const double *group,
			 size_t n, size_t max_groups);
void lk_rank_corr_release(struct lk_rank_corr *r);

/* The whole analysis of a CSV file. */
struct lk_analyze_options {
	const char *csv;            /* path, "-": stdin */
	const char *target;
	struct lk_strv features;    /* empty: every column but target/split */
	struct lk_strv derive;      /* "NAME=EXPR" */
	struct lk_selector where;
	enum lk_normalize normalize;
	struct lk_cat_options cat;
	int cat_given;              /* --categories given */
	struct lk_tree_params tree;
	long forest;                /* trees; 0: no forest */
	long forest_max_depth;
	int permutation;            /* importance repeats; 0: none */
	int knn;                    /* 0: no k-NN */
	const char *split_column;
	const char *tau_by;         /* Kendall's tau within each of its
				       values too; NULL: over all rows only */
	double test_fraction;       /* default 0.2 */
	uint64_t seed;
	int jobs;
	const char *outdir;         /* NULL: nothing written */
	const char *text;           /* non-NULL: the table itself (len
				       text_len), csv naming it */
	size_t text_len;
	const struct lk_analysis_plot *plots; /* grouped plots (config.h) */
	size_t nplots;
	const char *gnuplot;        /* NULL: from PATH; "": no plots */
	const char *dot;            /* NULL: from PATH; "": a text tree */
};

/* What the options own: the row filter's conditions and the features
 * (the other fields are borrowed). */
void lk_analyze_options_release(struct lk_analyze_options *o);

/*
 * Read, derive, filter, categorise, split, fit and score; JSON summary
 * into json and the human summary into text. With o->outdir, write the
 * output files atomically, unless its recorded key (input bytes plus
 * options) is unchanged: *up_to_date = 1 then, and nothing is written.
 */
int lk_analyze_run(struct lk_ctx *ctx, const struct lk_analyze_options *o,
		   struct lk_buf *json, struct lk_buf *text, int *up_to_date);

/* The headline of a finished analysis (lk_analyze_outcome). */
struct lk_analyze_outcome {
	size_t rows;
	int regression;
	double tree_score, forest_score;  /* accuracy or R^2; NAN: none */
	char top[64];                     /* the most important feature */
};
/* lk_analyze_run, and *out filled when the analysis ran (not when it
 * was up to date). */
int lk_analyze_run_outcome(struct lk_ctx *ctx,
			   const struct lk_analyze_options *o,
			   struct lk_buf *json, struct lk_buf *text,
			   int *up_to_date, struct lk_analyze_outcome *out);

/*
 * The analyze stage (an lk_stage_fn, store.h): each analysis of the
 * campaign file's analyze: section over the campaign's variants (one row
 * per variant with an ok run: variant, source, compiler, flags, the
 * parameters, the metrics), into <store dir>/analyze/<name>/: input.csv,
 * the outputs of lk_analyze_run, analysis.html and campaign.txt (the
 * campaign's name, for the report's link). An analysis whose input or
 * options did not change is skipped; one that cannot run (no such
 * metric, nothing varies, a bad column) is a failed item with its
 * reason. < 0 only when the store or a file cannot be read or written.
 */
struct lk_store;
struct lk_stage_opts;
struct lk_stage_summary;
int lk_analyze_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum);

#endif
