/*
 * The analyze stage: the campaign's variants as a table (read through
 * the store's report reader: parameters and the results of each
 * variant's latest ok run), then each analysis of the analyze: section
 * over it, into <store dir>/analyze/<name>/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/store.h"
#include "analyze-int.h"

/* The table's columns: fixed ones, then parameters, then metrics. */
struct columns {
	struct lk_strv params, metrics;
};

static int listed(const struct lk_strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

static void find_columns(const struct lk_report_input *in,
			 struct columns *c)
{
	size_t i, j;

	for (i = 0; i < in->nvariants; i++) {
		const struct lk_variant_measure *v = &in->variants[i];

		for (j = 0; j < v->nparams; j++)
			if (!listed(&c->params, v->params[j].name))
				lk_strv_push(&c->params, v->params[j].name);
		for (j = 0; j < v->nresults; j++)
			if (v->results[j].has_value &&
			    !listed(&c->metrics, v->results[j].metric))
				lk_strv_push(&c->metrics,
					     v->results[j].metric);
	}
}

/* The metric's value: its primary result, else its first. */
static const struct lk_result_row *result(const struct lk_variant_measure *v,
					  const char *metric)
{
	const struct lk_result_row *first = NULL;
	size_t j;

	for (j = 0; j < v->nresults; j++) {
		const struct lk_result_row *r = &v->results[j];

		if (!r->has_value || strcmp(r->metric, metric))
			continue;
		if (r->primary)
			return r;
		if (!first)
			first = r;
	}
	return first;
}

static void add_row(const struct lk_variant_measure *v,
		    const struct columns *c, struct lk_buf *b)
{
	size_t j;

	lk_buf_addf(b, "%lld,", (long long)v->id);
	lk_buf_add_csv_field(b, lk_variant_source_name(v->source, v->params,
						       v->nparams));
	lk_buf_adds(b, ",");
	lk_buf_add_csv_field(b, v->compiler);
	lk_buf_adds(b, ",");
	lk_buf_add_csv_field(b, v->flagset);
	for (j = 0; j < c->params.n; j++) {
		const char *p = lk_variant_param(v->params, v->nparams,
						 c->params.v[j]);

		lk_buf_adds(b, ",");
		lk_buf_add_csv_field(b, p ? p : "");
	}
	for (j = 0; j < c->metrics.n; j++) {
		const struct lk_result_row *r = result(v, c->metrics.v[j]);

		if (r)
			lk_buf_addf(b, ",%.17g", r->value);
		else
			lk_buf_adds(b, ",");
	}
	lk_buf_adds(b, "\n");
}

/* Variants with an ok run, one CSV row each; *rows counts them. */
static void table_text(const struct lk_report_input *in,
		       const struct columns *c, struct lk_buf *b,
		       size_t *rows)
{
	size_t i, j;

	lk_buf_adds(b, "variant,source,compiler,flags");
	for (j = 0; j < c->params.n; j++) {
		lk_buf_adds(b, ",");
		lk_buf_add_csv_field(b, c->params.v[j]);
	}
	for (j = 0; j < c->metrics.n; j++) {
		lk_buf_adds(b, ",");
		lk_buf_add_csv_field(b, c->metrics.v[j]);
	}
	lk_buf_adds(b, "\n");
	*rows = 0;
	for (i = 0; i < in->nvariants; i++)
		if (!strcmp(in->variants[i].status, "ok")) {
			add_row(&in->variants[i], c, b);
			++*rows;
		}
}

/* Distinct values of a chosen column (source, compiler, flags or a
 * parameter) over the ok variants: a feature needs two. */
static size_t distinct(const struct lk_report_input *in, const char *col)
{
	struct lk_strv seen = LK_STRV_INIT;
	size_t i, n;

	for (i = 0; i < in->nvariants; i++) {
		const struct lk_variant_measure *v = &in->variants[i];
		const char *s;

		if (strcmp(v->status, "ok"))
			continue;
		if (!strcmp(col, "source"))
			s = lk_variant_source_name(v->source, v->params,
						   v->nparams);
		else if (!strcmp(col, "compiler"))
			s = v->compiler;
		else if (!strcmp(col, "flags"))
			s = v->flagset;
		else
			s = lk_variant_param(v->params, v->nparams, col);
		if (!listed(&seen, s ? s : ""))
			lk_strv_push(&seen, s ? s : "");
	}
	n = seen.n;
	lk_strv_release(&seen);
	return n;
}

/* The default features: what someone chose and made vary. */
static void default_features(const struct lk_report_input *in,
			     const struct columns *c, const char *target,
			     struct lk_strv *out)
{
	static const char *const fixed[] = {"source", "compiler", "flags"};
	size_t i;

	for (i = 0; i < 3; i++)
		if (strcmp(fixed[i], target) && distinct(in, fixed[i]) > 1)
			lk_strv_push(out, fixed[i]);
	for (i = 0; i < c->params.n; i++)
		if (strcmp(c->params.v[i], target) &&
		    !lk_variant_fact(c->params.v[i]) &&
		    distinct(in, c->params.v[i]) > 1)
			lk_strv_push(out, c->params.v[i]);
}

static int parse_categories(const char *s, struct lk_cat_options *c)
{
	if (!s || !strcmp(s, "kde")) {
		c->method = LK_CAT_KDE;
		return 0;
	}
	if (!strcmp(s, "none")) {
		c->method = LK_CAT_NONE;
		return 0;
	}
	/* step:FROM:WIDTH, its form checked by the config loader. */
	c->method = LK_CAT_STEP;
	return sscanf(s, "step:%lf:%lf", &c->step_from, &c->step_width) == 2
		       ? 0 : -1;
}

static int index_of(const char *s, const char *const *names)
{
	int i;

	for (i = 0; s && names[i]; i++)
		if (!strcmp(s, names[i]))
			return i;
	return 0;
}

/* The analysis' options from its config (forms checked at load). */
static int options(struct lk_ctx *ctx, const struct lk_analysis_cfg *c,
		   struct lk_analyze_options *o)
{
	static const char *const norms[] = {"none", "minmax", "zscore", "log",
					    NULL};
	static const char *const crits[] = {"gini", "entropy", NULL};
	size_t i;
	int ret = parse_categories(c->categories, &o->cat);

	o->target = c->target;
	o->derive = c->derive;
	for (i = 0; !ret && i < c->where.n; i++)
		ret = lk_where_parse(ctx, c->where.v[i], &o->where);
	o->cat_given = 1;
	o->cat.bandwidth = c->bandwidth;
	o->normalize = (enum lk_normalize)index_of(c->normalize, norms);
	o->tree.criterion = (enum lk_criterion)index_of(c->criterion, crits);
	o->tree.max_depth = c->max_depth;
	o->tree.min_samples_split = c->min_samples_split;
	o->tree.min_samples_leaf = c->min_samples_leaf;
	o->tree.max_leaf_nodes = c->max_leaf_nodes;
	o->tree.ccp_alpha = c->ccp_alpha;
	o->tree.seed = (uint64_t)c->seed;
	o->forest = c->forest;
	o->forest_max_depth = c->forest_max_depth;
	o->knn = (int)c->knn;
	o->permutation = (int)c->permutation;
	o->test_fraction = c->test;
	o->tau_by = c->tau_by;
	o->seed = (uint64_t)c->seed;
	o->plots = c->plots;
	o->nplots = c->nplots;
	return ret;
}

/* Write text to dir/name unless the file already holds it. */
static int write_if_changed(struct lk_ctx *ctx, const char *dir,
			    const char *name, const struct lk_buf *text)
{
	char *path = lk_path_join(dir, name), *old = NULL;
	struct lk_ctx quiet;
	size_t len = 0;
	int ret = 0;

	lk_ctx_init(&quiet);
	if (lk_file_read(&quiet, path, &old, &len) || len != text->len ||
	    memcmp(old, lk_buf_str(text), len))
		ret = lk_file_write_atomic(ctx, path, lk_buf_str(text),
					   text->len);
	free(old);
	free(path);
	return ret;
}

/* What one analysis needs besides its config. */
struct job {
	struct lk_ctx *ctx;
	const struct lk_report_input *in;
	const struct columns *cols;
	const struct lk_buf *table;
	size_t rows;
	const char *root;           /* <store dir>/analyze */
	const char *campaign;
	const char *file;           /* the campaign file, for messages */
	int jobs;                   /* the forest's threads */
};

static void headline(struct lk_buf *line, const char *name,
		     const struct lk_analyze_outcome *r, const char *page)
{
	const char *what = r->regression ? "R^2" : "accuracy";

	lk_buf_addf(line, "\n%9s%s: %zu rows, tree %s %.3f", "", name,
		    r->rows, what, r->tree_score);
	if (!isnan(r->forest_score))
		lk_buf_addf(line, ", forest %.3f", r->forest_score);
	lk_buf_addf(line, ", most important: %s; %s", r->top, page);
}

/* A column of the table, or one the analysis derives. */
static int known_column(const struct job *j, const struct lk_analysis_cfg *c,
			const char *name)
{
	static const char *const fixed[] = {"variant", "source", "compiler",
					    "flags"};
	size_t i, n = strlen(name);

	for (i = 0; i < 4; i++)
		if (!strcmp(name, fixed[i]))
			return 1;
	for (i = 0; i < c->derive.n; i++)
		if (!strncmp(c->derive.v[i], name, n) &&
		    c->derive.v[i][n] == '=')
			return 1;
	return listed(&j->cols->metrics, name) ||
	       listed(&j->cols->params, name);
}

/* The first column c names that the table does not have, or NULL. */
static const char *unknown_column(const struct job *j,
				  const struct lk_analysis_cfg *c)
{
	size_t i;

	if (!known_column(j, c, c->target))
		return c->target;
	for (i = 0; i < c->features.n; i++)
		if (!known_column(j, c, c->features.v[i]))
			return c->features.v[i];
	if (c->tau_by && !known_column(j, c, c->tau_by))
		return c->tau_by;
	for (i = 0; i < c->nplots; i++) {
		const struct lk_analysis_plot *p = &c->plots[i];

		if (!known_column(j, c, p->x))
			return p->x;
		if (p->y && !known_column(j, c, p->y))
			return p->y;
		if (p->group && !known_column(j, c, p->group))
			return p->group;
	}
	return NULL;
}

/* Why the analysis cannot run on this table ("file:line: ..."), or NULL. */
static char *unfit(const struct job *j, const struct lk_analysis_cfg *c,
		   const struct lk_analyze_options *o)
{
	const char *col = unknown_column(j, c);
	char *what, *why;

	if (!j->rows)
		what = lk_strdup("no variant has an ok run (run the measure "
				 "stage first)");
	else if (col) {
		char *m = lk_strv_join(&j->cols->metrics, ", ");
		char *p = lk_strv_join(&j->cols->params, ", ");

		what = lk_asprintf("no column '%s' (variant, source, compiler, "
				   "flags; parameters: %s; metrics: %s)", col,
				   *p ? p : "none", *m ? m : "none");
		free(m);
		free(p);
	} else if (!o->features.n)
		what = lk_asprintf("no parameter varies over the measured "
				   "variants: nothing can explain '%s'",
				   c->target);
	else
		return NULL;
	why = lk_asprintf("%s:%ld: analysis '%s': %s", j->file, c->line,
			  c->name, what);
	free(what);
	return why;
}

/* Run analysis c; its item says what happened. < 0: a file failed. */
static int run_one(const struct job *j, const struct lk_analysis_cfg *c,
		   struct lk_stage_item *item, struct lk_stage_summary *sum,
		   struct lk_buf *line)
{
	struct lk_analyze_options o = {0};
	struct lk_analyze_outcome r;
	struct lk_buf json = LK_BUF_INIT, text = LK_BUF_INIT;
	struct lk_buf camp = LK_BUF_INIT;
	char *dir = lk_path_join(j->root, c->name), *why;
	char *csv = lk_path_join(dir, "input.csv");
	char *page = lk_path_join(dir, "analysis.html");
	int ret = 0, fresh = 0;
	struct lk_ctx each;
	size_t i;

	lk_ctx_init(&each);
	for (i = 0; i < c->features.n; i++)
		lk_strv_push(&o.features, c->features.v[i]);
	if (!c->features.n)
		default_features(j->in, j->cols, c->target, &o.features);
	why = unfit(j, c, &o);
	if (!why && options(&each, c, &o))
		why = lk_strdup(each.msg);
	if (!why) {
		lk_buf_addf(&camp, "%s\n", j->campaign);
		ret = lk_mkdir_p(j->ctx, dir, 0777);
		if (!ret)
			ret = write_if_changed(j->ctx, dir, "input.csv",
					       j->table);
		if (!ret)
			ret = write_if_changed(j->ctx, dir, "campaign.txt",
					       &camp);
		o.csv = csv;
		o.text = lk_buf_str(j->table);
		o.text_len = j->table->len;
		o.outdir = dir;
		o.jobs = j->jobs;
		if (!ret && lk_analyze_run_outcome(&each, &o, &json, &text,
						   &fresh, &r))
			why = lk_strdup(each.msg);
	}
	if (ret) {
		lk_stage_item_set(item, "failed", j->ctx->msg);
	} else if (why) {
		lk_stage_item_set(item, "failed", why);
		sum->failed++;
		lk_buf_addf(line, "\n%9s%s: failed: %s", "", c->name, why);
	} else if (fresh) {
		lk_stage_item_set(item, "stored", "");
		sum->earlier++;
		lk_buf_addf(line, "\n%9s%s: up to date; %s", "", c->name, page);
	} else {
		lk_stage_item_set(item, "ok", "");
		sum->done++;
		headline(line, c->name, &r, page);
	}
	free(why);
	free(dir);
	free(csv);
	free(page);
	lk_buf_release(&json);
	lk_buf_release(&text);
	lk_buf_release(&camp);
	lk_analyze_options_release(&o);
	return ret;
}

static void items_init(struct lk_stage_summary *sum,
		       const struct lk_analyze_cfg *cfg)
{
	size_t i;

	sum->items = lk_calloc(cfg->n + 1, sizeof(*sum->items));
	sum->n = cfg->n;
	for (i = 0; i < cfg->n; i++) {
		sum->items[i].label = lk_strdup(cfg->list[i].name);
		sum->items[i].status = lk_strdup("pending");
		sum->items[i].reason = lk_strdup("");
	}
}

int lk_analyze_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum)
{
	struct lk_report_input in = {0};
	struct columns cols = {LK_STRV_INIT, LK_STRV_INIT};
	struct lk_buf table = LK_BUF_INIT, line = LK_BUF_INIT;
	struct job j = {ctx, &in, &cols, &table, 0, NULL, NULL,
			cfg->path ? cfg->path : cfg->name, 0};
	char *root = lk_path_join(lk_store_dir(s), "analyze");
	size_t i;
	int ret = 0;

	memset(sum, 0, sizeof(*sum));
	j.jobs = opts ? opts->jobs : 0;
	if (!cfg->analyze.n) {
		sum->line = lk_strdup("no analyze: section in the campaign "
				      "file: nothing to do");
		free(root);
		return 0;
	}
	ret = lk_store_report_read(ctx, s, campaign, &in);
	if (!ret) {
		find_columns(&in, &cols);
		table_text(&in, &cols, &table, &j.rows);
		j.root = root;
		j.campaign = in.campaign;
		items_init(sum, &cfg->analyze);
	}
	for (i = 0; !ret && i < cfg->analyze.n; i++)
		ret = run_one(&j, &cfg->analyze.list[i], &sum->items[i], sum,
			      &line);
	if (!ret)
		sum->line = lk_asprintf("%zu %s (%ld done, %ld up to date, %ld "
					"failed) over %zu variants%s",
					cfg->analyze.n, cfg->analyze.n == 1 ?
					"analysis" : "analyses", sum->done,
					sum->earlier, sum->failed, j.rows,
					lk_buf_str(&line));
	lk_report_input_release(&in);
	lk_strv_release(&cols.params);
	lk_strv_release(&cols.metrics);
	lk_buf_release(&table);
	lk_buf_release(&line);
	free(root);
	return ret;
}
