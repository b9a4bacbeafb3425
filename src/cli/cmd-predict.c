/* loopkit predict: throughput predictions of basic blocks, per tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/config.h"
#include "loopkit/predict.h"
#include "loopkit/store.h"
#include "predict-mdl.h"

static const char usage[] =
	"BINARY... [--function NAME] [--tool T]... [--mcpu CPU] [-o DIR] "
	"[--json]\n"
	"   or: loopkit predict -c CAMPAIGN.yaml [-o DIR] [--tool T]...\n\n"
	"Predict the cycles per iteration of every basic block of a function\n"
	"(default: the kernel the benchmark measures) with every installed\n"
	"llvm-mca (many blocks per process, two iteration counts\n"
	"differenced), bprof and the adapters a campaign declares; MDL's\n"
	"tools (mdl, mdl-l2, mdl-l3, mdl-ram: single-block loops against\n"
	"the databases of the store -o DIR) when named. With -c: every\n"
	"block of every built variant of the campaign, stored; blocks\n"
	"already predicted by the same tool, version and parameters are\n"
	"skipped.";

struct predict_args {
	const char *function, *mcpu, *config, *out_dir;
	struct lk_strv tools;
	long batch, iterations1, iterations2;
	int json, raw, quiet;
};

struct tool_result {
	struct lk_predictor *p;
	struct lk_pred *preds;
	double seconds;
};

static void json_pred(struct lk_buf *o, const struct tool_result *t,
		      size_t b, int raw)
{
	const struct lk_pred *r = &t->preds[b];

	lk_buf_adds(o, "{\"tool\": ");
	lk_buf_add_json_str(o, t->p->name);
	lk_buf_adds(o, ", \"version\": ");
	lk_buf_add_json_str(o, t->p->version);
	lk_buf_adds(o, ", \"params\": ");
	lk_buf_add_json_str(o, t->p->params);
	lk_buf_adds(o, ", \"status\": ");
	lk_buf_add_json_str(o, r->status ? r->status : "failed");
	if (r->status && !strcmp(r->status, "ok"))
		lk_buf_addf(o, ", \"value\": %.17g", r->value);
	else
		lk_buf_adds(o, ", \"value\": null");
	lk_buf_adds(o, ", \"unit\": ");
	lk_buf_add_json_str(o, r->unit ? r->unit : "cycles/iter");
	lk_buf_adds(o, ", \"reason\": ");
	lk_buf_add_json_str(o, r->reason ? r->reason : "");
	lk_buf_addf(o, ", \"seconds\": %.6f, \"input\": ", r->seconds);
	if (r->input)
		lk_buf_add_json_str(o, r->input);
	else
		lk_buf_adds(o, "null");
	if (raw) {
		lk_buf_adds(o, ", \"raw\": ");
		lk_buf_add_json_str(o, r->raw ? r->raw : "");
	}
	lk_buf_adds(o, "}");
}

static void json_block(struct lk_buf *o, const struct lk_pblock *b,
		       const struct tool_result *t, size_t nt, size_t i,
		       int raw)
{
	size_t k;

	lk_buf_addf(o, "%s{\"start\": \"0x%llx\", \"end\": \"0x%llx\", "
		    "\"hash\": \"%s\", \"instructions\": ",
		    i ? ",\n " : "[", (unsigned long long)b->addr,
		    (unsigned long long)(b->addr + b->len), b->hash);
	lk_buf_add_json_str(o, b->att);
	lk_buf_adds(o, ", \"predictions\": [");
	for (k = 0; k < nt; k++) {
		if (k)
			lk_buf_adds(o, ", ");
		json_pred(o, &t[k], i, raw);
	}
	lk_buf_adds(o, "]}");
}

static void print_text(const struct lk_block_set *bs,
		       const struct tool_result *t, size_t nt)
{
	size_t i, k;

	for (k = 0; k < nt; k++) {
		printf("tool %s %s (%s): %.2f s\n", t[k].p->name,
		       t[k].p->version, t[k].p->params, t[k].seconds);
		if (t[k].p->note && *t[k].p->note)
			printf("  note: %s\n", t[k].p->note);
	}
	for (i = 0; i < bs->n; i++) {
		const struct lk_pblock *b = &bs->blocks[i];

		printf("block [0x%llx, 0x%llx) %zu instruction%s\n",
		       (unsigned long long)b->addr,
		       (unsigned long long)(b->addr + b->len), b->ninsns,
		       b->ninsns == 1 ? "" : "s");
		for (k = 0; k < nt; k++) {
			const struct lk_pred *r = &t[k].preds[i];

			if (r->status && !strcmp(r->status, "ok"))
				printf("  %-16s %10.3f %s\n", t[k].p->name,
				       r->value, r->unit);
			else
				printf("  %-16s %10s %s\n", t[k].p->name,
				       r->status ? r->status : "failed",
				       r->reason ? r->reason : "");
		}
	}
}

static int run_tools(struct lk_ctx *ctx, const struct lk_block_set *bs,
		     struct tool_result *t, size_t nt)
{
	size_t k;
	int ret = 0;

	for (k = 0; !ret && k < nt; k++) {
		double start = lk_now();

		t[k].preds = lk_calloc(bs->n ? bs->n : 1, sizeof(*t[k].preds));
		ret = t[k].p->predict(ctx, t[k].p, bs->blocks, bs->n,
				      t[k].preds);
		t[k].seconds = lk_now() - start;
	}
	return ret;
}

static void results_free(const struct lk_block_set *bs, struct tool_result *t,
			 size_t nt)
{
	size_t i, k;

	for (k = 0; k < nt; k++) {
		for (i = 0; t[k].preds && i < bs->n; i++)
			lk_pred_release(&t[k].preds[i]);
		free(t[k].preds);
	}
	free(t);
}

static int print_results(struct lk_ctx *ctx, const struct predict_args *a,
			 const struct lk_block_set *bs,
			 const struct tool_result *t, size_t nt)
{
	struct lk_buf o = LK_BUF_INIT;
	size_t i;

	if (a->json) {
		for (i = 0; i < bs->n; i++)
			json_block(&o, &bs->blocks[i], t, nt, i, a->raw);
		lk_buf_adds(&o, bs->n ? "]\n" : "[]\n");
		fputs(lk_buf_str(&o), stdout);
	} else {
		print_text(bs, t, nt);
	}
	lk_buf_release(&o);
	if (fflush(stdout))
		return lk_error_errno(ctx, "writing the predictions");
	return 0;
}

static int standalone(struct lk_ctx *ctx, const struct predict_args *a,
		      int nbin, char **bins, struct lk_predict_config *cfg)
{
	struct lk_cli_mdl_tools mdl;
	struct lk_predict_family mdl_family = lk_cli_mdl_family(&mdl);
	struct lk_predict_setup st = {cfg, NULL, &a->tools, a->mcpu,
				      (size_t)a->batch, &mdl_family, 1};
	struct lk_block_set bs = {0};
	struct lk_predictor **tools = NULL;
	struct tool_result *t = NULL;
	size_t ntools = 0, k;
	int i, ret = 0;

	lk_cli_mdl_tools_init(&mdl, NULL, a->out_dir);
	for (i = 0; !ret && i < nbin; i++)
		ret = lk_block_set_add_binary(ctx, &bs, bins[i], a->function,
					      NULL);
	if (!ret)
		ret = lk_predictors_make(ctx, &st, &tools, &ntools);
	if (!ret) {
		t = lk_calloc(ntools, sizeof(*t));
		for (k = 0; k < ntools; k++)
			t[k].p = tools[k];
		ret = run_tools(ctx, &bs, t, ntools);
	}
	if (!ret)
		ret = print_results(ctx, a, &bs, t, ntools);
	if (t)
		results_free(&bs, t, ntools);
	lk_predictors_free(tools, ntools);
	lk_cli_mdl_tools_release(&mdl);
	lk_block_set_release(&bs);
	return ret;
}

/* --mcpu and --tool override the file's predict: section (line 0: said
 * in messages as the options). */
static void options_into(struct lk_predict_config *c,
			 const struct predict_args *a)
{
	if (a->mcpu) {
		free(c->mcpu);
		c->mcpu = lk_strdup(a->mcpu);
		c->mcpu_line = 0;
	}
	if (!a->tools.n)
		return;
	lk_strv_release(&c->tools);
	for (size_t i = 0; i < a->tools.n; i++)
		lk_strv_push(&c->tools, a->tools.v[i]);
	free(c->tool_lines);
	c->tool_lines = lk_calloc(a->tools.n, sizeof(*c->tool_lines));
}

static int campaign(struct lk_ctx *ctx, const struct predict_args *a)
{
	struct lk_stage_opts o = {.quiet = a->quiet};
	struct lk_cli_mdl_tools mdl;
	struct lk_predict_family mdl_family = lk_cli_mdl_family(&mdl);
	struct lk_predict_summary sum;
	struct lk_sweep *sw = NULL;
	struct lk_store *s = NULL;
	int64_t id;
	int ret = lk_sweep_load(ctx, a->config, &sw);

	if (!ret)
		ret = lk_cli_campaign_create(ctx, a->out_dir, sw, &s, &id);
	if (!ret) {
		options_into(&sw->predict, a);
		lk_cli_mdl_tools_init(&mdl, s, NULL);
		ret = lk_predict_campaign(ctx, s, id, sw, &o, &mdl_family, 1,
					  &sum);
		lk_cli_mdl_tools_release(&mdl);
	}
	if (!ret)
		printf("%s: %zu variants (%zu without a binary), %zu distinct "
		       "blocks, %zu tools: %zu predicted now (%zu not ok), "
		       "%zu stored earlier; store: %s\n",
		       sw->name, sum.variants, sum.skipped_variants,
		       sum.blocks, sum.tools, sum.predicted, sum.failed,
		       sum.stored, a->out_dir);
	lk_store_close(s);
	lk_sweep_free(sw);
	return ret;
}

static int check_args(const struct predict_args *a, int nargs)
{
	if (a->config && nargs)
		return lk_cli_usage_error("predict", "with -c, the binaries "
					  "come from the campaign");
	if (a->config && (a->function || a->json || a->raw || a->batch ||
			  a->iterations1 || a->iterations2))
		return lk_cli_usage_error("predict", "with -c, the campaign's "
					  "predict: section says how (no "
					  "--function, --json, --raw, --batch "
					  "or --iterations)");
	if (!a->config && !nargs)
		return lk_cli_usage_error("predict", "name a BINARY or -c "
					  "CAMPAIGN.yaml");
	if (a->batch < 0 || a->iterations1 < 0 || a->iterations2 < 0)
		return lk_cli_usage_error("predict", "negative number");
	if (a->iterations2 && a->iterations2 <= a->iterations1)
		return lk_cli_usage_error("predict", "--iterations2 must be "
					  "above --iterations1");
	return 0;
}

int cmd_predict(int argc, char **argv)
{
	struct predict_args a = {.out_dir = LK_STORE_DEFAULT_DIR};
	const struct lk_opt opts[] = {
		{'f', "function", LK_OPT_STRING, &a.function, "NAME",
		 "this function (default: the measured kernel)"},
		{'t', "tool", LK_OPT_LIST, &a.tools, "T",
		 "llvm-mca, llvm-mca-NN, bprof, mdl, mdl-ram, an adapter "
		 "(repeatable; default: all but mdl)"},
		{0, "mcpu", LK_OPT_STRING, &a.mcpu, "CPU",
		 "CPU to simulate (default: this host's, by name)"},
		{0, "iterations1", LK_OPT_LONG, &a.iterations1, "N",
		 "the smaller iteration count (default 100)"},
		{0, "iterations2", LK_OPT_LONG, &a.iterations2, "N",
		 "the larger iteration count (default 200)"},
		{0, "batch", LK_OPT_LONG, &a.batch, "N",
		 "at most N blocks per llvm-mca process (default 500)"},
		{'c', "config", LK_OPT_STRING, &a.config, "FILE",
		 "a campaign YAML: predict every variant's blocks"},
		{'o', "output", LK_OPT_STRING, &a.out_dir, "DIR",
		 "campaign directory, or the store holding MDL databases "
		 "(default ./loopkit.d)"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL,
		 "a JSON array of blocks with their predictions"},
		{0, "raw", LK_OPT_BOOL, &a.raw, NULL,
		 "the tools' own output in the JSON"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	struct lk_predict_config cfg;
	struct lk_ctx ctx;
	int first, ret;

	first = lk_opts_parse("predict", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (check_args(&a, argc - first)) {
		lk_strv_release(&a.tools);
		return 2;
	}
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	lk_predict_config_init(&cfg);
	if (a.iterations1)
		cfg.iterations[0] = a.iterations1;
	if (a.iterations2 || a.iterations1)
		cfg.iterations[1] = a.iterations2 ? a.iterations2
						  : 2 * cfg.iterations[0];
	ret = a.config ? campaign(&ctx, &a)
		       : standalone(&ctx, &a, argc - first, argv + first,
				    &cfg);
	lk_predict_config_release(&cfg);
	lk_strv_release(&a.tools);
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
