/*
 * loopkit analyze: which parameters explain a metric, from a CSV table
 * (doc/loopkit-analyze.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/analyze.h"
#include "loopkit/store.h"

static const char usage[] =
	"--csv FILE --target COL [options]\n"
	"   or: loopkit analyze -c CAMPAIGN.yaml [-o DIR]\n\n"
	"Reads a CSV table ('-': stdin), makes categories of a numeric\n"
	"target (kde, step:FROM:WIDTH, or none: a regression), fits a\n"
	"decision tree, a random forest and a k-NN baseline, and prints\n"
	"their test scores and feature importances. -o DIR writes the\n"
	"processed table, the tree (text, DOT, JSON, SVG), importance,\n"
	"confusion and categories CSVs, summary.json, gnuplot plots and\n"
	"analysis.html; a rerun with the same input and options does\n"
	"nothing. With -c, the campaign file's analyze: section runs on its\n"
	"variants in the campaign directory DIR (./loopkit.d), into\n"
	"DIR/analyze/NAME/.";

struct args {
	const char *csv, *target, *categories, *bandwidth, *split_column;
	const char *tau_by;
	const char *normalize, *criterion, *test, *outdir, *ccp;
	struct lk_strv features, derive, where;
	long max_depth, forest, forest_max_depth, seed, knn, jobs, permutation;
	long min_split, min_leaf, max_leaf, grid, min_count;
	int json, no_plots;
	const char *config;
};

static int list(struct lk_strv *out, const char *csv)
{
	const char *s = csv, *c;

	do {
		c = strchr(s, ',');
		lk_strv_push_take(out, c ? lk_strndup(s, (size_t)(c - s))
					 : lk_strdup(s));
		s = c + 1;
	} while (c);
	return 0;
}

static int categories(struct lk_analyze_options *o, const char *s)
{
	char *end;

	if (!s || !strcmp(s, "none"))
		o->cat.method = LK_CAT_NONE;
	else if (!strcmp(s, "kde"))
		o->cat.method = LK_CAT_KDE;
	else if (!strncmp(s, "step:", 5)) {
		o->cat.method = LK_CAT_STEP;
		o->cat.step_from = strtod(s + 5, &end);
		if (end == s + 5 || *end != ':')
			return -1;
		s = end + 1;
		o->cat.step_width = strtod(s, &end);
		if (end == s || *end || !(o->cat.step_width > 0))
			return -1;
	} else
		return -1;
	return 0;
}

static int named(const char *s, const char *const *names, int *out)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

static int convert(struct args *a, struct lk_analyze_options *o,
		   struct lk_ctx *ctx)
{
	static const char *const norms[] = {"none", "minmax", "zscore", "log",
					    NULL};
	static const char *const crits[] = {"gini", "entropy", NULL};
	size_t i;
	int v = 0;

	if (!a->csv || !a->target)
		return lk_cli_usage_error("analyze", "expected -c CAMPAIGN.yaml, "
					  "or --csv FILE and --target COL");
	o->csv = a->csv;
	o->target = a->target;
	for (i = 0; i < a->features.n; i++)
		list(&o->features, a->features.v[i]);
	o->derive = a->derive;
	for (i = 0; i < a->where.n; i++)
		if (lk_where_parse(ctx, a->where.v[i], &o->where))
			return lk_cli_fail(ctx);
	if (categories(o, a->categories))
		return lk_cli_usage_error("analyze", "--categories: expected "
					  "none, kde or step:FROM:WIDTH");
	o->cat_given = a->categories != NULL;
	o->cat.bandwidth = a->bandwidth;
	o->cat.grid = (size_t)(a->grid > 0 ? a->grid : 0);
	o->cat.min_count = (size_t)(a->min_count > 0 ? a->min_count : 0);
	if (a->normalize && named(a->normalize, norms, &v))
		return lk_cli_usage_error("analyze", "--normalize: expected "
					  "none, minmax, zscore or log");
	o->normalize = (enum lk_normalize)v;
	v = 0;
	if (a->criterion && named(a->criterion, crits, &v))
		return lk_cli_usage_error("analyze", "--criterion: expected "
					  "gini or entropy");
	o->tree.criterion = (enum lk_criterion)v;
	o->tree.max_depth = a->max_depth;
	o->tree.min_samples_split = a->min_split;
	o->tree.min_samples_leaf = a->min_leaf;
	o->tree.max_leaf_nodes = a->max_leaf;
	o->tree.seed = (uint64_t)a->seed;
	if (a->ccp && (lk_parse_double(a->ccp, &o->tree.ccp_alpha) ||
		       !(o->tree.ccp_alpha >= 0)))
		return lk_cli_usage_error("analyze", "--ccp-alpha: expected a "
					  "number >= 0");
	o->forest = a->forest;
	o->forest_max_depth = a->forest_max_depth;
	o->knn = (int)a->knn;
	if (a->permutation < 0 || a->permutation > 1000)
		return lk_cli_usage_error("analyze", "--permutation: expected "
					  "0 to 1000 repeats");
	o->permutation = (int)a->permutation;
	o->split_column = a->split_column;
	o->tau_by = a->tau_by;
	o->test_fraction = 0.2;
	if (a->test && (lk_parse_double(a->test, &o->test_fraction) ||
			!(o->test_fraction > 0 && o->test_fraction < 1)))
		return lk_cli_usage_error("analyze", "--test: expected a "
					  "fraction in (0, 1)");
	o->seed = (uint64_t)a->seed;
	o->jobs = (int)a->jobs;
	o->outdir = a->outdir;
	if (a->no_plots)
		o->gnuplot = o->dot = "";
	if (a->max_depth < 0 || a->forest < 0 || a->knn < 0 ||
	    a->min_split < 0 || a->min_leaf < 0 || a->max_leaf < 0 ||
	    a->forest > 100000 || a->knn > 100000)
		return lk_cli_usage_error("analyze", "a count option is "
					  "negative or too large");
	return 0;
}

static void release(struct args *a, struct lk_analyze_options *o)
{
	lk_analyze_options_release(o);
	lk_strv_release(&a->features);
	lk_strv_release(&a->derive);
	lk_strv_release(&a->where);
}

static int print_stored(struct lk_ctx *ctx, const char *dir, int json)
{
	char *path = lk_path_join(dir, "summary.json"), *text = NULL;
	size_t len;
	int ret = 0;

	fprintf(stderr, "analyze: %s: up to date\n", dir);
	if (json && !(ret = lk_file_read(ctx, path, &text, &len)))
		fwrite(text, 1, len, stdout);
	free(text);
	free(path);
	return ret;
}

/* loopkit analyze -c: the stage over the campaign's variants. */
static int campaign_mode(const struct args *a)
{
	const char *dir = a->outdir ? a->outdir : LK_STORE_DEFAULT_DIR;
	struct lk_stage_summary sum = {0};
	struct lk_stage_opts so = {0};
	struct lk_sweep *sw;
	struct lk_store *s;
	struct lk_ctx ctx;
	int64_t id;
	size_t i;
	int ret;

	lk_ctx_init(&ctx);
	ret = lk_cli_campaign_open(&ctx, a->config, dir, &sw, &s, &id);
	if (ret)
		return lk_cli_fail(&ctx);
	ret = lk_analyze_stage(&ctx, s, id, sw, &so, &sum);
	if (ret)
		ret = lk_cli_fail(&ctx);
	else
		printf("analyze: %s\n", sum.line);
	for (i = 0; !ret && i < sum.n; i++)
		if (!strcmp(sum.items[i].status, "failed")) {
			fprintf(stderr, "loopkit: error: %s\n",
				sum.items[i].reason);
			ret = 2;
		}
	lk_stage_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	return ret;
}

int cmd_analyze(int argc, char **argv)
{
	struct args a = {.max_depth = 0, .forest = 100, .knn = 10, .jobs = 0,
			 .permutation = 10};
	struct lk_analyze_options o = {0};
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &a.config, "FILE",
		 "the campaign whose analyze: section to run"},
		{0, "csv", LK_OPT_STRING, &a.csv, "FILE", "the table ('-': stdin)"},
		{0, "target", LK_OPT_STRING, &a.target, "COL", "the column to explain"},
		{0, "features", LK_OPT_LIST, &a.features, "A,B,...",
		 "the explaining columns (default: all others)"},
		{0, "derive", LK_OPT_LIST, &a.derive, "NAME=EXPR",
		 "a new column: + - * / ( ), numbers, columns, min max abs "
		 "floor ceil log log2 exp sqrt distinct"},
		{0, "where", LK_OPT_LIST, &a.where, "COL:OP:V[,V]",
		 "keep rows where it holds (eq ne lt le gt ge in not-in)"},
		{0, "normalize", LK_OPT_STRING, &a.normalize, "HOW",
		 "the target: none, minmax, zscore, log"},
		{0, "categories", LK_OPT_STRING, &a.categories, "M",
		 "none (regression), kde, step:FROM:WIDTH"},
		{0, "bandwidth", LK_OPT_STRING, &a.bandwidth, "M",
		 "silverman (default), scott, isj, isj-kdepy or a number"},
		{0, "grid", LK_OPT_LONG, &a.grid, "N", "KDE grid points (1024)"},
		{0, "min-count", LK_OPT_LONG, &a.min_count, "N",
		 "smaller KDE categories merge (2)"},
		{0, "criterion", LK_OPT_STRING, &a.criterion, "C", "gini or entropy"},
		{0, "max-depth", LK_OPT_LONG, &a.max_depth, "N", "tree depth (0: none)"},
		{0, "min-samples-split", LK_OPT_LONG, &a.min_split, "N", "(2)"},
		{0, "min-samples-leaf", LK_OPT_LONG, &a.min_leaf, "N", "(1)"},
		{0, "max-leaf-nodes", LK_OPT_LONG, &a.max_leaf, "N",
		 "best-first growth to N leaves"},
		{0, "ccp-alpha", LK_OPT_STRING, &a.ccp, "A", "cost-complexity pruning"},
		{0, "forest", LK_OPT_LONG, &a.forest, "N", "trees (100; 0: none)"},
		{0, "forest-max-depth", LK_OPT_LONG, &a.forest_max_depth, "N",
		 "their depth (0: none)"},
		{0, "permutation", LK_OPT_LONG, &a.permutation, "N",
		 "permutation importance repeats (10; 0: none)"},
		{0, "knn", LK_OPT_LONG, &a.knn, "K", "k-NN baseline (10; 0: none)"},
		{0, "tau-by", LK_OPT_STRING, &a.tau_by, "COL",
		 "Kendall's tau with the target within each value of COL too"},
		{0, "split-column", LK_OPT_STRING, &a.split_column, "NAME",
		 "'test' (or non-zero) rows are the test set"},
		{0, "test", LK_OPT_STRING, &a.test, "F", "seeded test fraction (0.2)"},
		{0, "seed", LK_OPT_LONG, &a.seed, "S", "split, trees, forest (0)"},
		{'j', "jobs", LK_OPT_LONG, &a.jobs, "N", "threads for the forest"},
		{'o', "output", LK_OPT_STRING, &a.outdir, "DIR",
		 "write the outputs (with -c: the campaign directory)"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print the JSON summary"},
		{0, "no-plots", LK_OPT_BOOL, &a.no_plots, NULL,
		 "-o: no gnuplot plots, the tree as text (the page says so)"},
		LK_OPT_END};
	int first = lk_opts_parse("analyze", usage, opts, argc, argv);
	struct lk_buf json = LK_BUF_INIT, text = LK_BUF_INIT;
	struct lk_ctx ctx;
	int ret, fresh = 0;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("analyze", "unexpected '%s'",
					  argv[first]);
	if (a.config && (a.csv || a.target))
		return lk_cli_usage_error("analyze", "-c runs the campaign "
					  "file's analyses: no --csv or "
					  "--target with it");
	if (a.config) {
		ret = campaign_mode(&a);
		release(&a, &o);
		return ret;
	}
	lk_ctx_init(&ctx);
	ret = convert(&a, &o, &ctx);
	if (!ret && lk_analyze_run(&ctx, &o, &json, &text, &fresh))
		ret = lk_cli_fail(&ctx);
	else if (!ret && fresh)
		ret = print_stored(&ctx, o.outdir, a.json) ? lk_cli_fail(&ctx) : 0;
	else if (!ret)
		fputs(lk_buf_str(a.json ? &json : &text), stdout);
	lk_buf_release(&json);
	lk_buf_release(&text);
	release(&a, &o);
	return ret;
}
