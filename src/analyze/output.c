/*
 * What an analysis says: the JSON summary, the human summary, and the
 * output files (processed table, tree as text/DOT/JSON, importance,
 * confusion, categories), each written atomically, the key last.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze-int.h"

static const char *const methods[] = {"none", "step", "kde"};

/* Groups the human summary shows (summary.json has them all). */
#define MAX_TEXT_GROUPS 8

static void num(struct lk_buf *b, double v)
{
	if (isfinite(v))
		lk_buf_addf(b, "%.17g", v);
	else
		lk_buf_adds(b, "null");
}

static void feature_map(const struct lk_analysis *a, const double *v,
			struct lk_buf *b)
{
	size_t f;

	lk_buf_adds(b, "{");
	for (f = 0; f < a->nfeat; f++) {
		lk_buf_adds(b, f ? ", " : "");
		lk_buf_add_json_str(b, a->feat_names[f]);
		lk_buf_adds(b, ": ");
		num(b, v[f]);
	}
	lk_buf_adds(b, "}");
}

static void json_categories(const struct lk_analysis *a, struct lk_buf *b)
{
	const struct lk_categories *c = &a->cats;
	size_t i;

	lk_buf_addf(b, "  \"categories\": {\"method\": \"%s\", \"bandwidth\": ",
		    methods[a->o->cat.method]);
	num(b, c->method == LK_CAT_KDE ? c->bandwidth : NAN);
	lk_buf_adds(b, ", \"bandwidth_rule\": ");
	if (c->bandwidth_rule)
		lk_buf_add_json_str(b, c->bandwidth_rule);
	else
		lk_buf_adds(b, "null");
	lk_buf_adds(b, ", \"cuts\": [");
	for (i = 0; i < c->ncuts; i++) {
		lk_buf_adds(b, i ? ", " : "");
		num(b, c->cuts[i]);
	}
	lk_buf_adds(b, "], \"list\": [");
	for (i = 0; i < c->n; i++) {
		lk_buf_adds(b, i ? ",\n    {\"label\": " : "\n    {\"label\": ");
		lk_buf_add_json_str(b, c->list[i].label);
		lk_buf_adds(b, ", \"lo\": ");
		num(b, c->list[i].lo);
		lk_buf_adds(b, ", \"hi\": ");
		num(b, c->list[i].hi);
		lk_buf_adds(b, ", \"centroid\": ");
		num(b, c->list[i].centroid);
		lk_buf_addf(b, ", \"count\": %zu}", c->list[i].count);
	}
	lk_buf_adds(b, "]},\n");
}

static void json_score(const struct lk_analysis *a, struct lk_buf *b,
		       double score, double rmse)
{
	lk_buf_adds(b, a->regression ? "\"r2\": " : "\"accuracy\": ");
	num(b, score);
	if (a->regression) {
		lk_buf_adds(b, ", \"rmse\": ");
		num(b, rmse);
	}
}

static void json_tree(const struct lk_analysis *a, struct lk_buf *b)
{
	const struct lk_tree_node *root = a->tree.nodes;
	size_t i, j, nc = (size_t)a->nclasses;

	lk_buf_adds(b, "  \"tree\": {");
	json_score(a, b, a->tree_score, a->tree_rmse);
	lk_buf_addf(b, ", \"depth\": %d, \"leaves\": %zu, \"root\": ",
		    lk_tree_depth(&a->tree), lk_tree_leaves(&a->tree));
	if (root && root->feature >= 0) {
		lk_buf_adds(b, "{\"feature\": ");
		lk_buf_add_json_str(b, a->feat_names[root->feature]);
		lk_buf_adds(b, ", \"threshold\": ");
		num(b, root->threshold);
		lk_buf_adds(b, "}");
	} else {
		lk_buf_adds(b, "null");
	}
	lk_buf_adds(b, ", \"importance\": ");
	feature_map(a, a->tree.importance, b);
	lk_buf_adds(b, ", \"classes\": [");
	for (i = 0; i < nc; i++) {
		lk_buf_adds(b, i ? ", " : "");
		lk_buf_add_json_str(b, a->class_names[i]);
	}
	lk_buf_adds(b, "], \"confusion\": [");
	for (i = 0; !a->regression && i < nc; i++) {
		lk_buf_adds(b, i ? ", [" : "[");
		for (j = 0; j < nc; j++)
			lk_buf_addf(b, "%s%zu", j ? ", " : "",
				    a->confusion[i * nc + j]);
		lk_buf_adds(b, "]");
	}
	lk_buf_addf(b, "], \"seconds\": %.6f},\n", a->seconds_tree);
}

void lk_analysis_tau_group(const struct lk_analysis *a, size_t g, char *buf,
			   size_t size)
{
	const struct lk_column *c = &a->t.cols[a->tau_by];
	double v = a->tau.groups[g];

	if (c->categorical)
		snprintf(buf, size, "%s", c->labels[(size_t)v]);
	else
		snprintf(buf, size, "%.15g", v);
}

/* "kendall": {"by", "groups": [{"value", "rows"}], "features": {NAME:
 * {"all", "within": [...]}}} over the numeric features; null without. */
static void json_tau(const struct lk_analysis *a, struct lk_buf *b)
{
	const struct lk_rank_corr *r = &a->tau;
	char name[256];
	size_t f, g, n = 0;

	if (!a->has_tau) {
		lk_buf_adds(b, "  \"kendall\": null,\n");
		return;
	}
	lk_buf_adds(b, "  \"kendall\": {\"by\": ");
	if (a->o->tau_by)
		lk_buf_add_json_str(b, a->o->tau_by);
	else
		lk_buf_adds(b, "null");
	lk_buf_adds(b, ", \"groups\": [");
	for (g = 0; g < r->ngroups; g++) {
		lk_analysis_tau_group(a, g, name, sizeof(name));
		lk_buf_adds(b, g ? ", {\"value\": " : "{\"value\": ");
		lk_buf_add_json_str(b, name);
		lk_buf_addf(b, ", \"rows\": %zu}", r->group_rows[g]);
	}
	lk_buf_adds(b, "],\n    \"features\": {");
	for (f = 0; f < a->nfeat; f++) {
		if (a->feat_cols[f]->categorical)
			continue;
		lk_buf_adds(b, n++ ? ",\n      " : "\n      ");
		lk_buf_add_json_str(b, a->feat_names[f]);
		lk_buf_adds(b, ": {\"all\": ");
		num(b, r->all[f]);
		lk_buf_adds(b, ", \"within\": [");
		for (g = 0; g < r->ngroups; g++) {
			lk_buf_adds(b, g ? ", " : "");
			num(b, r->within[f * r->ngroups + g]);
		}
		lk_buf_adds(b, "]}");
	}
	lk_buf_adds(b, "}},\n");
}

void lk_analysis_json(const struct lk_analysis *a, struct lk_buf *b)
{
	lk_buf_addf(b, "{\n  \"file\": ");
	lk_buf_add_json_str(b, a->file);
	lk_buf_adds(b, ", \"target\": ");
	lk_buf_add_json_str(b, a->o->target);
	lk_buf_addf(b, ", \"task\": \"%s\",\n  \"rows\": %zu, \"train\": %zu, "
		    "\"test\": %zu, \"filtered\": %zu, \"missing\": %zu,\n",
		    a->regression ? "regression" : "classification",
		    a->t.nrows, a->train.n, a->test.n, a->t.dropped_filter,
		    a->missing);
	json_categories(a, b);
	json_tau(a, b);
	json_tree(a, b);
	if (a->o->forest > 0) {
		lk_buf_addf(b, "  \"forest\": {\"trees\": %ld, ", a->o->forest);
		json_score(a, b, a->forest_score, a->forest_rmse);
		lk_buf_adds(b, ", \"importance\": ");
		feature_map(a, a->forest.importance, b);
		lk_buf_adds(b, ", \"importance_std\": ");
		feature_map(a, a->forest.importance_std, b);
		lk_buf_adds(b, ",\n    \"permutation\": ");
		feature_map(a, a->perm_mean, b);
		lk_buf_adds(b, ", \"permutation_std\": ");
		feature_map(a, a->perm_std, b);
		lk_buf_addf(b, ", \"seconds\": %.6f, "
			    "\"seconds_importance\": %.6f},\n",
			    a->seconds_forest, a->seconds_importance);
	} else {
		lk_buf_adds(b, "  \"forest\": null,\n");
	}
	if (a->o->knn > 0) {
		lk_buf_addf(b, "  \"knn\": {\"k\": %d, ", a->o->knn);
		json_score(a, b, a->knn_score, a->knn_rmse);
		lk_buf_adds(b, "}\n}\n");
	} else {
		lk_buf_adds(b, "  \"knn\": null\n}\n");
	}
}

static void text_tau_value(struct lk_buf *b, double v, int width)
{
	if (isnan(v))
		lk_buf_addf(b, " %*s", width, "-");
	else
		lk_buf_addf(b, " %*.3f", width, v);
}

/* One line per numeric feature: tau over all rows, then per group. */
static void text_tau(const struct lk_analysis *a, struct lk_buf *b)
{
	const struct lk_rank_corr *r = &a->tau;
	char name[256];
	size_t f, g;
	int w[MAX_TEXT_GROUPS + 1];

	if (!a->has_tau)
		return;
	lk_buf_addf(b, "Kendall's tau-b with %s:\n  %-28s %6s", a->o->target,
		    "feature", "all");
	for (g = 0; g < r->ngroups && g < MAX_TEXT_GROUPS; g++) {
		char head[300];

		lk_analysis_tau_group(a, g, name, sizeof(name));
		snprintf(head, sizeof(head), "%s=%s", a->o->tau_by, name);
		w[g] = (int)strlen(head) > 6 ? (int)strlen(head) : 6;
		lk_buf_addf(b, " %*s", w[g], head);
	}
	lk_buf_adds(b, r->ngroups > MAX_TEXT_GROUPS ? " ...\n" : "\n");
	for (f = 0; f < a->nfeat; f++) {
		if (a->feat_cols[f]->categorical)
			continue;
		lk_buf_addf(b, "  %-28s", a->feat_names[f]);
		text_tau_value(b, r->all[f], 6);
		for (g = 0; g < r->ngroups && g < MAX_TEXT_GROUPS; g++)
			text_tau_value(b, r->within[f * r->ngroups + g], w[g]);
		lk_buf_adds(b, "\n");
	}
}

void lk_analysis_text(const struct lk_analysis *a, struct lk_buf *b)
{
	const char *score = a->regression ? "R^2" : "accuracy";
	size_t i;

	lk_buf_addf(b, "%s: %zu rows (%zu train, %zu test), %zu filtered out, "
		    "%zu with missing cells\n", a->file, a->t.nrows, a->train.n,
		    a->test.n, a->t.dropped_filter, a->missing);
	if (a->cats.n) {
		lk_buf_addf(b, "categories (%s", methods[a->cats.method]);
		if (a->cats.method == LK_CAT_KDE)
			lk_buf_addf(b, ", bandwidth %s = %.6g",
				    a->cats.bandwidth_rule, a->cats.bandwidth);
		lk_buf_adds(b, "):\n");
		for (i = 0; i < a->cats.n; i++)
			lk_buf_addf(b, "  %-30s %6zu rows, centroid %g\n",
				    a->cats.list[i].label, a->cats.list[i].count,
				    a->cats.list[i].centroid);
	}
	text_tau(a, b);
	lk_buf_addf(b, "tree: depth %d, %zu leaves, test %s %.4f\n",
		    lk_tree_depth(&a->tree), lk_tree_leaves(&a->tree), score,
		    a->tree_score);
	lk_tree_text(&a->tree, a->feat_names, a->feat_cols, a->class_names,
		     b);
	if (a->o->forest > 0) {
		lk_buf_addf(b, "forest: %ld trees, test %s %.4f\n",
			    a->o->forest, score, a->forest_score);
		lk_buf_adds(b, "  feature                        MDI    std  "
			    "permutation\n");
		for (i = 0; i < a->nfeat; i++)
			lk_buf_addf(b, "  %-28s %.3f  %.3f  %.3f\n",
				    a->feat_names[i], a->forest.importance[i],
				    a->forest.importance_std[i],
				    a->perm_mean[i]);
	}
	if (a->o->knn > 0)
		lk_buf_addf(b, "k-NN (k = %d): test %s %.4f\n", a->o->knn,
			    score, a->knn_score);
}

static int put(struct lk_ctx *ctx, const char *dir, const char *name,
	       const struct lk_buf *b)
{
	char *path = lk_path_join(dir, name);
	int ret = lk_file_write_atomic(ctx, path, lk_buf_str(b), b->len);

	free(path);
	return ret;
}

/* put() of a string; NULL: remove an older run's file of that name. */
static int put_text(struct lk_ctx *ctx, const char *dir, const char *name,
		    const char *text)
{
	char *path;
	struct lk_buf b = LK_BUF_INIT;
	int ret;

	if (!text) {
		path = lk_path_join(dir, name);
		unlink(path);
		free(path);
		return 0;
	}
	lk_buf_adds(&b, text);
	ret = put(ctx, dir, name, &b);
	lk_buf_release(&b);
	return ret;
}

static void cell(const struct lk_analysis *a, int col, size_t row,
		 struct lk_buf *b)
{
	const struct lk_column *c = &a->t.cols[col];
	char tmp[64];

	if (c->categorical) {
		lk_buf_add_csv_field(b, c->labels[(size_t)c->v[row]]);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%.17g", c->v[row]);
	lk_buf_adds(b, tmp);
}

static void processed_csv(const struct lk_analysis *a, struct lk_buf *b)
{
	size_t i, f;

	for (f = 0; f < a->nfeat; f++) {
		lk_buf_add_csv_field(b, a->feat_names[f]);
		lk_buf_adds(b, ",");
	}
	lk_buf_add_csv_field(b, a->o->target);
	if (a->cats.n) {
		char *name = lk_asprintf("%s_cat", a->o->target);

		lk_buf_adds(b, ",");
		lk_buf_add_csv_field(b, name);
		free(name);
	}
	lk_buf_adds(b, ",split,predicted\n");
	for (i = 0; i < a->t.nrows; i++) {
		for (f = 0; f < a->nfeat; f++) {
			cell(a, a->feat[f], i, b);
			lk_buf_adds(b, ",");
		}
		cell(a, a->target, i, b);
		if (a->cats.n) {
			lk_buf_adds(b, ",");
			lk_buf_add_csv_field(b, a->class_names[a->cls[i]]);
		}
		lk_buf_adds(b, a->is_test[i] ? ",test," : ",train,");
		if (a->regression)
			lk_buf_addf(b, "%.17g\n", a->pred[i]);
		else {
			lk_buf_add_csv_field(b, a->class_names[(int)a->pred[i]]);
			lk_buf_adds(b, "\n");
		}
	}
}

static void importance_csv(const struct lk_analysis *a, struct lk_buf *b)
{
	int forest = a->o->forest > 0;
	size_t f;

	lk_buf_adds(b, "feature,tree_mdi,mdi_mean,mdi_std,perm_mean,perm_std\n");
	for (f = 0; f < a->nfeat; f++) {
		lk_buf_add_csv_field(b, a->feat_names[f]);
		lk_buf_addf(b, ",%.17g", a->tree.importance[f]);
		if (forest)
			lk_buf_addf(b, ",%.17g,%.17g,%.17g,%.17g\n",
				    a->forest.importance[f],
				    a->forest.importance_std[f],
				    a->perm_mean[f], a->perm_std[f]);
		else
			lk_buf_adds(b, ",,,,\n");
	}
}

static void confusion_csv(const struct lk_analysis *a, struct lk_buf *b)
{
	size_t i, j, nc = (size_t)a->nclasses;

	lk_buf_adds(b, "true\\predicted");
	for (j = 0; j < nc; j++) {
		lk_buf_adds(b, ",");
		lk_buf_add_csv_field(b, a->class_names[j]);
	}
	lk_buf_adds(b, "\n");
	for (i = 0; i < nc; i++) {
		lk_buf_add_csv_field(b, a->class_names[i]);
		for (j = 0; j < nc; j++)
			lk_buf_addf(b, ",%zu", a->confusion[i * nc + j]);
		lk_buf_adds(b, "\n");
	}
}

static void categories_csv(const struct lk_analysis *a, struct lk_buf *b)
{
	const struct lk_categories *c = &a->cats;
	size_t i;

	lk_buf_adds(b, "label,lo,hi,centroid,count,bandwidth,method\n");
	for (i = 0; i < c->n; i++) {
		lk_buf_add_csv_field(b, c->list[i].label);
		lk_buf_addf(b, ",%.17g,%.17g,%.17g,%zu,", c->list[i].lo,
			    c->list[i].hi, c->list[i].centroid,
			    c->list[i].count);
		if (c->method == LK_CAT_KDE)
			lk_buf_addf(b, "%.17g", c->bandwidth);
		lk_buf_addf(b, ",%s\n", methods[c->method]);
	}
}

static void model_json(const struct lk_analysis *a, struct lk_buf *b)
{
	size_t i;

	lk_buf_adds(b, "{\n  \"target\": ");
	lk_buf_add_json_str(b, a->o->target);
	lk_buf_adds(b, ",\n  \"features\": [");
	for (i = 0; i < a->nfeat; i++) {
		lk_buf_adds(b, i ? ", " : "");
		lk_buf_add_json_str(b, a->feat_names[i]);
	}
	lk_buf_adds(b, "],\n  \"classes\": [");
	for (i = 0; i < (size_t)a->nclasses; i++) {
		lk_buf_adds(b, i ? ", " : "");
		lk_buf_add_json_str(b, a->class_names[i]);
	}
	lk_buf_adds(b, "],\n  \"nodes\": ");
	lk_tree_json(&a->tree, a->feat_names, b);
	lk_buf_adds(b, "\n}\n");
}

/* The figures as SVG files and analysis.html with them inline. */
static int write_page(struct lk_analysis *a, const char *dir)
{
	struct lk_analysis_figs fg;
	struct lk_buf b = LK_BUF_INIT;
	const char *names[] = {"density.svg", "importance.svg",
			       "confusion.svg", "tree.svg"};
	size_t i;
	int ret = 0;

	lk_analysis_figures(a, &fg);
	{
		const char *svgs[] = {fg.density, fg.importance, fg.confusion,
				      fg.tree_svg};

		for (i = 0; !ret && i < 4; i++)
			ret = put_text(a->ctx, dir, names[i], svgs[i]);
	}
	for (i = 0; !ret && i < fg.ncustom; i++) {
		char name[32];

		snprintf(name, sizeof(name), "plot%zu.svg", i + 1);
		ret = put_text(a->ctx, dir, name, fg.custom[i]);
	}
	lk_analysis_page(a, &fg, &b);
	if (!ret)
		ret = put(a->ctx, dir, "analysis.html", &b);
	lk_buf_release(&b);
	lk_analysis_figs_release(&fg);
	return ret;
}

int lk_analysis_write(struct lk_analysis *a, const char *dir,
		      const char *key, const struct lk_buf *json)
{
	static const char *const names[] = {
		"processed.csv", "tree.txt", "tree.dot", "model.json",
		"importance.csv", "confusion.csv", "categories.csv",
	};
	struct lk_buf b[7];
	struct lk_buf k = LK_BUF_INIT;
	size_t i;
	int ret = lk_mkdir_p(a->ctx, dir, 0777);

	for (i = 0; i < 7; i++)
		lk_buf_init(&b[i]);
	processed_csv(a, &b[0]);
	lk_tree_text(&a->tree, a->feat_names, a->feat_cols, a->class_names,
		     &b[1]);
	lk_tree_dot(&a->tree, a->feat_names, a->feat_cols, a->class_names,
		    &b[2]);
	model_json(a, &b[3]);
	importance_csv(a, &b[4]);
	confusion_csv(a, &b[5]);
	categories_csv(a, &b[6]);
	for (i = 0; !ret && i < 7; i++)
		ret = put(a->ctx, dir, names[i], &b[i]);
	if (!ret)
		ret = write_page(a, dir);
	if (!ret)
		ret = put(a->ctx, dir, "summary.json", json);
	lk_buf_addf(&k, "%s\n", key);
	if (!ret)
		ret = put(a->ctx, dir, "analyze.key", &k);
	for (i = 0; i < 7; i++)
		lk_buf_release(&b[i]);
	lk_buf_release(&k);
	return ret;
}
