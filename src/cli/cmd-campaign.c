/*
 * loopkit campaign: every stage of a campaign, in order, from one YAML
 * file: gen, measure, asm, blocks, count, predict, lift, filter,
 * memprof, mdl, report, analyze. Each
 * stage reads what it needs from the store and skips what is done, so a
 * campaign killed at any point resumes where it stopped when run again.
 * The command is a table of stages, each an lk_stage_fn of its module
 * (store.h), and a loop that prints the line each stage's summary gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/analyze.h"
#include "loopkit/gen.h"
#include "loopkit/filter.h"
#include "loopkit/count.h"
#include "loopkit/measure.h"
#include "loopkit/memprof.h"
#include "loopkit/predict.h"
#include "loopkit/report.h"
#include "loopkit/store.h"
#include "predict-mdl.h"

static const char usage[] =
	"[options] -c CAMPAIGN.yaml\n\n"
	"Run every stage of a campaign into its store: generate the variants\n"
	"(when the file has a gen: or asm: section), build and measure them\n"
	"(min of 4 unless the file gives a method), store the n/2n rows and\n"
	"llvm-mca's predictions of asm: bodies, split their kernels into basic\n"
	"blocks, count the blocks' executions, predict every block with every\n"
	"analyzer, lift the predictions to the kernels, filter out the\n"
	"kernels that are not L1-resident, profile the memprof: section's\n"
	"programs (when there is one), evaluate MDL on the innermost loops\n"
	"(when the file has an mdl: section), write the report, and run the\n"
	"analyze: section's analyses (when there is one). A rerun\n"
	"resumes: every stage skips what the store already holds.";

struct campaign {
	struct lk_ctx *ctx;
	struct lk_sweep *cfg;
	struct lk_store *store;
	int64_t id;
	const char *dir;
	struct lk_stage_opts opts;
	int not_ok;             /* variants or kernels that failed a stage */
	struct lk_strv lines;   /* one summary line per stage run */
};

/* Every stage, in order. */
static const struct stage {
	const char *name;
	lk_stage_fn *run;
	const char *what;
} stages[] = {
	{"gen", lk_gen_stage, "generate and verify the variants (gen:)"},
	{"measure", lk_measure_stage, "build and measure every variant"},
	/* Joins gen, measure and predict: in the CLI (asm-post.c). */
	{"asm", lk_cli_asm_stage, "n/2n rows and llvm-mca's prediction of "
				  "each asm body (asm:)"},
	{"blocks", lk_blocks_stage, "basic blocks of every kernel"},
	{"count", lk_count_stage, "exact block counts for one kernel call"},
	/* With the mdl tool, which the CLI gives predict (predict-mdl.c). */
	{"predict", lk_cli_predict_stage, "every analyzer on every block"},
	{"lift", lk_lift_stage, "sum of occurrences x prediction per kernel"},
	{"filter", lk_filter_stage, "L1-residency verdict per kernel"},
	{"memprof", lk_memprof_stage, "load/store latency per program "
				      "(memprof:)"},
	{"mdl", lk_cli_mdl_eval_stage, "MDL's predictions of the innermost "
				       "loops against their replays (mdl:)"},
	{"report", lk_report_stage, "error and rank correlation per analyzer"},
	{"analyze", lk_analyze_stage, "which parameters explain a metric "
				      "(analyze:)"},
};

static long stage_index(const char *name)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(stages); i++)
		if (!strcmp(stages[i].name, name))
			return (long)i;
	return -1;
}

static int unknown_stage(const char *name)
{
	struct lk_buf list = LK_BUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < LK_ARRAY_SIZE(stages); i++)
		lk_buf_addf(&list, "%s%s", i ? ", " : "", stages[i].name);
	ret = lk_cli_usage_error("campaign", "unknown stage '%s' (%s)", name,
				 list.buf);
	lk_buf_release(&list);
	return ret;
}

static int pick_stages(const char *from, const char *to, const char *only,
		       size_t *first, size_t *last)
{
	const char *names[] = {from, to, only};
	long idx[3] = {0, (long)LK_ARRAY_SIZE(stages) - 1, -1};
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!names[i])
			continue;
		idx[i] = stage_index(names[i]);
		if (idx[i] < 0)
			return unknown_stage(names[i]);
	}
	if (only)
		idx[0] = idx[1] = idx[2];
	if (idx[0] > idx[1])
		return lk_cli_usage_error("campaign", "--from %s comes after "
					  "--to %s", from, to);
	*first = (size_t)idx[0];
	*last = (size_t)idx[1];
	return 0;
}

/* Kernel measurement: "min of 4" unless the file says how. */
static int open_campaign(struct campaign *c, const char *config)
{
	int ret = lk_sweep_load(c->ctx, config, &c->cfg);

	if (!ret && !c->cfg->method_given)
		ret = lk_method_set(c->ctx, &c->cfg->method, "mode",
				    "min-of-4", NULL);

	if (!ret)
		ret = lk_cli_campaign_create(c->ctx, c->dir, c->cfg, &c->store,
					     &c->id);
	return ret;
}

/* "name     first line (time)", then the line's other lines. */
static void stage_done(struct campaign *c, const char *name,
		       const char *line, double seconds)
{
	const char *nl = strchr(line, '\n');
	int first = nl ? (int)(nl - line) : (int)strlen(line);

	lk_strv_push_take(&c->lines, lk_asprintf("%-8s %.*s (%.1f s)%s",
						 name, first, line, seconds,
						 nl ? nl : ""));
}

static int run_stages(struct campaign *c, size_t first, size_t last)
{
	size_t i;
	int ret = 0;

	for (i = first; !ret && i <= last; i++) {
		const struct stage *st = &stages[i];
		struct lk_stage_summary sum = {0};
		double t0 = lk_now();

		if (!c->opts.quiet)
			fprintf(stderr, "campaign: [%zu/%zu] %s: %s\n",
				i - first + 1, last - first + 1, st->name,
				st->what);
		ret = st->run(c->ctx, c->store, c->id, c->cfg, &c->opts, &sum);
		if (ret) {
			fprintf(stderr, "campaign: stage %s stopped the "
					"campaign (a rerun resumes here)\n",
				st->name);
		} else {
			stage_done(c, st->name, sum.line ? sum.line : "",
				   lk_now() - t0);
			/* Variants failed (predict's failures are blocks). */
			c->not_ok += sum.n && sum.failed > 0;
		}
		lk_stage_summary_release(&sum);
	}
	return ret;
}

int cmd_campaign(int argc, char **argv)
{
	const char *config = NULL, *from = NULL, *to = NULL, *only = NULL;
	const char *dir = LK_STORE_DEFAULT_DIR;
	long jobs = 0;
	int quiet = 0, retry = 0;
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &config, "FILE",
		 "the campaign (see doc/loopkit-campaign.md)"},
		{'o', "output", LK_OPT_STRING, &dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		{'j', "jobs", LK_OPT_LONG, &jobs, "N",
		 "parallel builds, counts and filters (default: CPUs)"},
		{0, "from", LK_OPT_STRING, &from, "STAGE",
		 "start at this stage (the earlier ones are done)"},
		{0, "to", LK_OPT_STRING, &to, "STAGE",
		 "stop after this stage"},
		{0, "only", LK_OPT_STRING, &only, "STAGE",
		 "run this stage alone"},
		{0, "retry-failed", LK_OPT_BOOL, &retry, NULL,
		 "try again units whose gen, build, run or count failed"},
		{'q', "quiet", LK_OPT_BOOL, &quiet, NULL, "no progress"},
		LK_OPT_END};
	struct lk_ctx ctx;
	struct campaign c = {.ctx = &ctx, .lines = LK_STRV_INIT};
	size_t first = 0, last = 0, i;
	int ret;

	ret = lk_opts_parse("campaign", usage, opts, argc, argv);
	if (ret < 0)
		return ret == -1 ? 0 : 2;
	if (ret != argc || !config)
		return lk_cli_usage_error("campaign", "expected -c "
					  "CAMPAIGN.yaml and no operand");
	if (pick_stages(from, to, only, &first, &last))
		return 2;
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	c.dir = dir;
	c.opts = (struct lk_stage_opts){.jobs = (int)jobs, .quiet = quiet,
					.verbose = lk_cli_verbose,
					.retry_failed = retry};
	ret = open_campaign(&c, config);
	if (!ret)
		ret = run_stages(&c, first, last);
	for (i = 0; i < c.lines.n; i++)
		printf("%s\n", c.lines.v[i]);
	if (ret)
		ret = lk_cli_fail(&ctx);
	else if (!quiet)
		fprintf(stderr, "campaign '%s': %zu stages done%s; store: "
				"%s\n",
			c.cfg->name, c.lines.n,
			c.not_ok ? " (some variants failed a stage: the "
				   "reasons are stored)" : "",
			dir);
	lk_strv_release(&c.lines);
	lk_store_close(c.store);
	lk_sweep_free(c.cfg);
	return ret;
}
