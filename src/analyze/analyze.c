/*
 * One analysis of a CSV table: read, filter, derive, select, categorise,
 * split, fit (tree, forest, k-NN) and score; outputs in output.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze-int.h"

static int read_input(struct lk_ctx *ctx, const char *path, char **text,
		      size_t *len)
{
	struct lk_buf b = LK_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (strcmp(path, "-"))
		return lk_file_read_input(ctx, path, text, len);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		lk_buf_add(&b, chunk, n);
	*len = b.len;
	*text = lk_buf_detach(&b);
	if (!*text)
		*text = lk_strdup("");
	return 0;
}

static int column(struct lk_analysis *a, const char *name, const char *what)
{
	int c = lk_table_find(&a->t, name);

	if (c < 0)
		lk_error_at(a->ctx, LK_EINPUT, a->file, a->t.header_line,
			    "%s: unknown column '%s'", what, name);
	return c;
}

static int select_columns(struct lk_analysis *a)
{
	const struct lk_analyze_options *o = a->o;
	size_t i;

	if ((a->target = column(a, o->target, "--target")) < 0)
		return LK_EINPUT;
	a->split = -1;
	if (o->split_column &&
	    (a->split = column(a, o->split_column, "--split-column")) < 0)
		return LK_EINPUT;
	a->tau_by = -1;
	if (o->tau_by && (a->tau_by = column(a, o->tau_by, "--tau-by")) < 0)
		return LK_EINPUT;
	a->feat = lk_calloc(a->t.ncols + 1, sizeof(*a->feat));
	for (i = 0; i < o->features.n; i++) {
		int c = column(a, o->features.v[i], "--features");

		if (c < 0)
			return LK_EINPUT;
		if (c == a->target || c == a->split)
			return lk_error_at(a->ctx, LK_EINPUT, a->file,
					   a->t.header_line, "--features: '%s' "
					   "is the target or the split column",
					   o->features.v[i]);
		a->feat[a->nfeat++] = c;
	}
	for (i = 0; !o->features.n && i < a->t.ncols; i++)
		if ((int)i != a->target && (int)i != a->split)
			a->feat[a->nfeat++] = (int)i;
	if (!a->nfeat)
		return lk_error_at(a->ctx, LK_EINPUT, a->file, a->t.header_line,
				   "no feature columns");
	return 0;
}

static void drop_missing(struct lk_analysis *a)
{
	unsigned char *keep = lk_calloc(a->t.nrows + 1, 1);
	size_t i, f;

	for (i = 0; i < a->t.nrows; i++) {
		keep[i] = !isnan(a->t.cols[a->target].v[i]) &&
			  (a->split < 0 || !isnan(a->t.cols[a->split].v[i]));
		for (f = 0; keep[i] && f < a->nfeat; f++)
			keep[i] = !isnan(a->t.cols[a->feat[f]].v[i]);
		a->missing += !keep[i];
	}
	lk_table_keep(&a->t, keep);
	free(keep);
}

/* The first row whose target is not a number, for the message. */
static long non_numeric_line(const struct lk_analysis *a, const char **s)
{
	const struct lk_column *c = &a->t.cols[a->target];
	size_t i;
	double v;

	for (i = 0; i < a->t.nrows; i++)
		if (lk_parse_double(c->labels[(size_t)c->v[i]], &v)) {
			*s = c->labels[(size_t)c->v[i]];
			return a->t.lines[i];
		}
	*s = "";
	return a->t.header_line;
}

static int classes(struct lk_analysis *a)
{
	struct lk_column *c = &a->t.cols[a->target];
	size_t i;
	int ret;

	a->cls = lk_calloc(a->t.nrows + 1, sizeof(*a->cls));
	if (c->categorical) {
		const char *s;
		long line;

		if (a->o->cat.method != LK_CAT_NONE) {
			line = non_numeric_line(a, &s);
			return lk_error_at(a->ctx, LK_EINPUT, a->file, line,
					   "target '%s' is not numeric ('%s'): "
					   "no categories", c->name, s);
		}
		for (i = 0; i < a->t.nrows; i++)
			a->cls[i] = (int)c->v[i];
		a->class_names = (const char **)c->labels;
		a->nclasses = (int)c->nlabels;
		return 0;
	}
	if (a->o->normalize != LK_NORM_NONE &&
	    (ret = lk_normalize(a->ctx, c->name, a->o->normalize, c->v,
				a->t.nrows)))
		return ret;
	if (a->o->cat.method == LK_CAT_NONE) {
		a->regression = 1;
		return 0;
	}
	ret = lk_categorize(a->ctx, c->name, &a->o->cat, c->v, a->t.nrows,
			    &a->cats, a->cls);
	if (ret)
		return ret;
	a->class_names = lk_calloc(a->cats.n + 1, sizeof(char *));
	for (i = 0; i < a->cats.n; i++)
		a->class_names[i] = a->cats.list[i].label;
	a->nclasses = (int)a->cats.n;
	return 0;
}

#define MAX_TAU_GROUPS 64

/* Kendall's tau of each numeric feature with a numeric target (after
 * --normalize, which keeps the order), overall and per --tau-by value. */
static int rank_correlation(struct lk_analysis *a)
{
	const double **xs;
	size_t f;
	int ret;

	if (a->t.cols[a->target].categorical)
		return 0;
	xs = lk_calloc(a->nfeat + 1, sizeof(*xs));
	for (f = 0; f < a->nfeat; f++)
		if (!a->t.cols[a->feat[f]].categorical)
			xs[f] = a->t.cols[a->feat[f]].v;
	ret = lk_rank_corr_compute(&a->tau, xs, a->nfeat,
				   a->t.cols[a->target].v,
				   a->tau_by >= 0 ? a->t.cols[a->tau_by].v
						  : NULL,
				   a->t.nrows, MAX_TAU_GROUPS);
	free(xs);
	if (ret)
		return lk_error_at(a->ctx, LK_EINPUT, a->file,
				   a->t.header_line, "--tau-by: '%s' has %zu "
				   "values, at most %d", a->o->tau_by,
				   a->tau.ngroups, MAX_TAU_GROUPS);
	a->has_tau = 1;
	return 0;
}

static int split_rows(struct lk_analysis *a)
{
	size_t n = a->t.nrows, i, ntest, *idx;
	struct lk_rng r;

	a->is_test = lk_calloc(n + 1, 1);
	if (a->split >= 0) {
		const struct lk_column *c = &a->t.cols[a->split];

		for (i = 0; i < n; i++)
			a->is_test[i] = c->categorical
				? !strcmp(c->labels[(size_t)c->v[i]], "test")
				: c->v[i] != 0;
		return 0;
	}
	ntest = (size_t)ceil(a->o->test_fraction * (double)n);
	idx = lk_calloc(n + 1, sizeof(*idx));
	for (i = 0; i < n; i++)
		idx[i] = i;
	lk_rng_seed(&r, a->o->seed, 0x5917);
	lk_rng_shuffle(&r, idx, n);
	for (i = 0; i < ntest && i < n; i++)
		a->is_test[idx[i]] = 1;
	free(idx);
	return 0;
}

static void fill_set(struct lk_analysis *a, int test, double ***x, int **cls,
		     double **y, struct lk_dataset *d)
{
	size_t i, f, m = 0;

	for (i = 0; i < a->t.nrows; i++)
		m += a->is_test[i] == test;
	*x = lk_calloc(a->nfeat + 1, sizeof(**x));
	for (f = 0; f < a->nfeat; f++)
		(*x)[f] = lk_calloc(m + 1, sizeof(double));
	*cls = lk_calloc(m + 1, sizeof(**cls));
	*y = lk_calloc(m + 1, sizeof(**y));
	for (i = 0, m = 0; i < a->t.nrows; i++) {
		if (a->is_test[i] != test)
			continue;
		for (f = 0; f < a->nfeat; f++)
			(*x)[f][m] = a->t.cols[a->feat[f]].v[i];
		(*cls)[m] = a->cls[i];
		(*y)[m++] = a->t.cols[a->target].v[i];
	}
	d->n = m;
	d->nfeat = a->nfeat;
	d->x = (const double *const *)*x;
	d->cls = a->regression ? NULL : *cls;
	d->y = *y;
	d->nclasses = a->regression ? 0 : a->nclasses;
}

/* The plots' columns exist; y is a number. */
static int check_plots(struct lk_analysis *a)
{
	size_t p;

	for (p = 0; p < a->o->nplots; p++) {
		const struct lk_analysis_plot *pl = &a->o->plots[p];
		const char *names[] = {pl->x, pl->y, pl->group};
		int i, c;

		for (i = 0; i < 3; i++) {
			if (!names[i])
				continue;
			c = lk_table_find(&a->t, names[i]);
			if (c < 0)
				return lk_error_at(a->ctx, LK_EINPUT, a->file,
						   a->t.header_line, "plot %zu: "
						   "no column '%s'", p + 1,
						   names[i]);
			if (i == 1 && a->t.cols[c].categorical)
				return lk_error_at(a->ctx, LK_EINPUT, a->file,
						   a->t.header_line, "plot %zu: "
						   "y column '%s' is not "
						   "numeric", p + 1, names[i]);
		}
	}
	return 0;
}

static int prepare(struct lk_analysis *a, const char *text, size_t len)
{
	size_t i;
	int ret = lk_csv_parse(a->ctx, a->file, text, len, &a->csv);

	if (!ret)
		ret = lk_table_from_csv(a->ctx, a->file, &a->csv, &a->o->where,
					&a->t);
	for (i = 0; !ret && i < a->o->derive.n; i++)
		ret = lk_table_derive(a->ctx, &a->t, a->o->derive.v[i]);
	if (!ret)
		ret = select_columns(a);
	if (!ret)
		ret = check_plots(a);
	if (ret)
		return ret;
	drop_missing(a);
	if (!a->t.nrows)
		return lk_error_at(a->ctx, LK_EINPUT, a->file, a->t.header_line,
				   "no rows left (%zu filtered out, %zu with "
				   "missing cells)", a->t.dropped_filter,
				   a->missing);
	ret = classes(a);
	if (!ret && a->nclasses > 256)
		ret = lk_error_at(a->ctx, LK_EINPUT, a->file, a->t.header_line,
				  "target '%s': %d classes, at most 256",
				  a->o->target, a->nclasses);
	if (!ret)
		ret = rank_correlation(a);
	if (!ret)
		ret = split_rows(a);
	if (ret)
		return ret;
	fill_set(a, 0, &a->xtr, &a->ctr, &a->ytr, &a->train);
	fill_set(a, 1, &a->xte, &a->cte, &a->yte, &a->test);
	if (!a->train.n || !a->test.n)
		return lk_error_at(a->ctx, LK_EINPUT, a->file, a->t.header_line,
				   "the split leaves %zu training and %zu test "
				   "rows: both must be non-empty", a->train.n,
				   a->test.n);
	return 0;
}

static double tree_fn(const void *m, const double *const *x, size_t row)
{
	return lk_tree_predict(m, x, row);
}

static double knn_fn(const void *m, const double *const *x, size_t row)
{
	const struct lk_analysis *a = m;

	return lk_knn_predict(&a->train, a->o->knn, x, row);
}

/* Accuracy (or R^2 and RMSE) of fn on the test set. */
static double evaluate(struct lk_analysis *a, lk_predict_fn fn,
		       const void *model, double *rmse)
{
	double *p, r2;
	size_t i;

	if (!a->regression)
		return lk_score(fn, model, &a->test);
	p = lk_calloc(a->test.n + 1, sizeof(*p));
	for (i = 0; i < a->test.n; i++)
		p[i] = fn(model, a->test.x, i);
	*rmse = lk_rmse_r2(p, a->test.y, a->test.n, &r2);
	free(p);
	return r2;
}

/* evaluate() for the forest, its test rows predicted in one pass. */
static double evaluate_forest(struct lk_analysis *a)
{
	double *p = lk_calloc(a->test.n + 1, sizeof(*p)), r, r2, hits = 0;
	size_t i;

	lk_forest_predict_all(&a->forest, &a->test, p);
	if (a->regression) {
		a->forest_rmse = lk_rmse_r2(p, a->test.y, a->test.n, &r2);
		r = r2;
	} else {
		for (i = 0; i < a->test.n; i++)
			hits += (int)p[i] == a->test.cls[i];
		r = a->test.n ? hits / (double)a->test.n : NAN;
	}
	free(p);
	return r;
}

static void predict_all(struct lk_analysis *a)
{
	size_t i, f, nc = (size_t)a->nclasses;
	double **x = lk_calloc(a->nfeat + 1, sizeof(*x));

	for (f = 0; f < a->nfeat; f++)
		x[f] = a->t.cols[a->feat[f]].v;
	a->pred = lk_calloc(a->t.nrows + 1, sizeof(*a->pred));
	for (i = 0; i < a->t.nrows; i++)
		a->pred[i] = lk_tree_predict(&a->tree,
					     (const double *const *)x, i);
	free(x);
	a->confusion = lk_calloc(nc * nc + 1, sizeof(*a->confusion));
	for (i = 0; !a->regression && i < a->test.n; i++)
		a->confusion[(size_t)a->test.cls[i] * nc +
			     (size_t)lk_tree_predict(&a->tree, a->test.x, i)]++;
}

static void fit(struct lk_analysis *a)
{
	const struct lk_analyze_options *o = a->o;
	struct lk_tree_params fp = o->tree;
	double t0 = lk_now();
	size_t i;

	if (a->regression)
		fp.criterion = LK_CRIT_MSE;
	lk_tree_fit(&a->tree, &a->train, NULL, &fp);
	a->tree_score = evaluate(a, tree_fn, &a->tree, &a->tree_rmse);
	a->seconds_tree = lk_now() - t0;
	predict_all(a);
	a->feat_names = lk_calloc(a->nfeat + 1, sizeof(char *));
	a->feat_cols = lk_calloc(a->nfeat + 1, sizeof(*a->feat_cols));
	for (i = 0; i < a->nfeat; i++) {
		a->feat_names[i] = a->t.cols[a->feat[i]].name;
		a->feat_cols[i] = &a->t.cols[a->feat[i]];
	}
	if (o->forest > 0) {
		t0 = lk_now();
		fp.max_depth = o->forest_max_depth;
		fp.max_leaf_nodes = 0;
		fp.max_features = a->regression ? 0 :
			(long)fmax(1, floor(sqrt((double)a->nfeat)));
		lk_forest_fit(&a->forest, &a->train, (size_t)o->forest, &fp,
			      o->jobs);
		a->forest_score = evaluate_forest(a);
		a->seconds_forest = lk_now() - t0;
		t0 = lk_now();
		a->perm_mean = lk_calloc(a->nfeat + 1, sizeof(double));
		a->perm_std = lk_calloc(a->nfeat + 1, sizeof(double));
		if (o->permutation > 0)
			lk_forest_permutation_importance(
				&a->forest, &a->test, o->permutation, o->seed,
				a->perm_mean, a->perm_std);
		a->seconds_importance = lk_now() - t0;
	}
	if (o->knn > 0)
		a->knn_score = evaluate(a, knn_fn, a, &a->knn_rmse);
}

static void release(struct lk_analysis *a)
{
	size_t f;

	for (f = 0; f < a->nfeat && a->xtr; f++) {
		free(a->xtr[f]);
		free(a->xte[f]);
	}
	free(a->xtr);
	free(a->xte);
	free(a->ytr);
	free(a->yte);
	free(a->ctr);
	free(a->cte);
	free(a->is_test);
	free(a->cls);
	free(a->feat);
	free(a->feat_names);
	free(a->feat_cols);
	free(a->pred);
	free(a->confusion);
	free(a->perm_mean);
	free(a->perm_std);
	if (a->cats.n)
		free(a->class_names);
	lk_tree_release(&a->tree);
	lk_forest_release(&a->forest);
	lk_rank_corr_release(&a->tau);
	lk_categories_release(&a->cats);
	lk_table_release(&a->t);
	lk_csv_release(&a->csv);
}

/* "yes" when the tool would be used (given, or found in PATH). */
static const char *tool_state(const char *given, const char *name)
{
	char *path;

	if (given)
		return *given ? "yes" : "no";
	path = lk_which(name);
	free(path);
	return path ? "yes" : "no";
}

void lk_analyze_options_release(struct lk_analyze_options *o)
{
	size_t i;

	for (i = 0; i < o->where.nconds; i++) {
		free(o->where.conds[i].key);
		lk_strv_release(&o->where.conds[i].values);
	}
	free(o->where.conds);
	lk_strv_release(&o->features);
}

/* Hash of the input bytes and every option that changes an output. */
static void run_key(const struct lk_analyze_options *o, const char *text,
		    size_t len, char key[LK_HASH_HEX])
{
	struct lk_hash h;
	struct lk_buf b = LK_BUF_INIT;
	size_t i, j;

	lk_hash_init(&h);
	lk_hash_add(&h, text, len);
	/* v2: the summary has Kendall's tau. */
	lk_buf_addf(&b, "v2 target=%s split=%s tau-by=%s test=%.17g seed=%llu "
		    "norm=%d cat=%d:%s:%.17g:%.17g:%zu:%zu crit=%d depth=%ld "
		    "mss=%ld msl=%ld mln=%ld mf=%ld ccp=%.17g tseed=%llu "
		    "forest=%ld fdepth=%ld knn=%d perm=%d", o->target,
		    o->split_column ? o->split_column : "",
		    o->tau_by ? o->tau_by : "", o->test_fraction,
		    (unsigned long long)o->seed, o->normalize, o->cat.method,
		    o->cat.bandwidth ? o->cat.bandwidth : "", o->cat.step_from,
		    o->cat.step_width, o->cat.grid, o->cat.min_count,
		    o->tree.criterion, o->tree.max_depth,
		    o->tree.min_samples_split, o->tree.min_samples_leaf,
		    o->tree.max_leaf_nodes, o->tree.max_features,
		    o->tree.ccp_alpha, (unsigned long long)o->tree.seed,
		    o->forest, o->forest_max_depth, o->knn, o->permutation);
	lk_hash_add_str(&h, lk_buf_str(&b));
	/* The page's figures depend on the tools found and the plots. */
	lk_hash_add_str(&h, tool_state(o->gnuplot, "gnuplot"));
	lk_hash_add_str(&h, tool_state(o->dot, "dot"));
	for (i = 0; i < o->nplots; i++) {
		lk_hash_add_str(&h, o->plots[i].x);
		lk_hash_add_str(&h, o->plots[i].y ? o->plots[i].y : "");
		lk_hash_add_str(&h, o->plots[i].group ? o->plots[i].group : "");
		lk_hash_add_str(&h, o->plots[i].scatter ? "s" : "l");
	}
	for (i = 0; i < o->features.n; i++)
		lk_hash_add_str(&h, o->features.v[i]);
	lk_hash_add_str(&h, "|");
	for (i = 0; i < o->derive.n; i++)
		lk_hash_add_str(&h, o->derive.v[i]);
	lk_hash_add_str(&h, "|");
	for (i = 0; i < o->where.nconds; i++) {
		lk_hash_add_str(&h, o->where.conds[i].key);
		lk_hash_add(&h, &o->where.conds[i].op, sizeof(int));
		for (j = 0; j < o->where.conds[i].values.n; j++)
			lk_hash_add_str(&h, o->where.conds[i].values.v[j]);
	}
	lk_hash_final(&h, key);
	lk_buf_release(&b);
}

static int up_to_date(const char *dir, const char *key)
{
	char *path = lk_path_join(dir, "analyze.key"), *old = NULL;
	struct lk_ctx quiet;
	size_t len;
	int same;

	lk_ctx_init(&quiet);
	same = !lk_file_read(&quiet, path, &old, &len) &&
	       len >= LK_HASH_HEX - 1 && !strncmp(old, key, LK_HASH_HEX - 1);
	free(old);
	free(path);
	return same;
}

int lk_analyze_run(struct lk_ctx *ctx, const struct lk_analyze_options *o,
		   struct lk_buf *json, struct lk_buf *text, int *fresh)
{
	return lk_analyze_run_outcome(ctx, o, json, text, fresh, NULL);
}

static void outcome(const struct lk_analysis *a, struct lk_analyze_outcome *out)
{
	const double *imp = a->o->forest > 0 ? a->forest.importance
					     : a->tree.importance;
	size_t f, best = 0;

	out->rows = a->t.nrows;
	out->regression = a->regression;
	out->tree_score = a->tree_score;
	out->forest_score = a->o->forest > 0 ? a->forest_score : NAN;
	for (f = 1; f < a->nfeat; f++)
		if (imp[f] > imp[best])
			best = f;
	snprintf(out->top, sizeof(out->top), "%s",
		 a->nfeat ? a->feat_names[best] : "");
}

int lk_analyze_run_outcome(struct lk_ctx *ctx,
			   const struct lk_analyze_options *o,
			   struct lk_buf *json, struct lk_buf *text, int *fresh,
			   struct lk_analyze_outcome *out)
{
	struct lk_analysis a;
	char *input = NULL, key[LK_HASH_HEX];
	size_t len = 0;
	int ret = 0;

	memset(&a, 0, sizeof(a));
	a.ctx = ctx;
	a.o = o;
	a.file = strcmp(o->csv, "-") ? o->csv : "<stdin>";
	*fresh = 0;
	if (o->text) {
		input = lk_malloc(o->text_len + 1);
		memcpy(input, o->text, o->text_len);
		input[o->text_len] = 0;
		len = o->text_len;
	} else {
		ret = read_input(ctx, o->csv, &input, &len);
	}
	if (ret)
		return ret;
	run_key(o, input, len, key);
	if (o->outdir && up_to_date(o->outdir, key)) {
		*fresh = 1;
		free(input);
		return 0;
	}
	ret = prepare(&a, input, len);
	free(input);
	if (!ret) {
		fit(&a);
		lk_analysis_json(&a, json);
		lk_analysis_text(&a, text);
		if (o->outdir)
			ret = lk_analysis_write(&a, o->outdir, key, json);
		if (out)
			outcome(&a, out);
	}
	release(&a);
	return ret;
}
