/*
 * loopkit campaign: every stage of a campaign, in order, from one YAML
 * file: gen, measure, blocks, count, predict, lift, filter, report. Each
 * stage reads what it needs from the store and skips what is done, so a
 * campaign killed at any point resumes where it stopped when run again.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/gen.h"
#include "loopkit/filter.h"
#include "loopkit/count.h"
#include "loopkit/measure.h"
#include "loopkit/memprof.h"
#include "loopkit/predict.h"
#include "loopkit/report.h"
#include "loopkit/store.h"

static const char usage[] =
	"[options] -c CAMPAIGN.yaml\n\n"
	"Run every stage of a campaign into its store: generate the variants\n"
	"(when the file has a gen: section), build and measure them (min of\n"
	"4 unless the file gives a method), split their kernels into basic\n"
	"blocks, count the blocks' executions, predict every block with every\n"
	"analyzer, lift the predictions to the kernels, filter out the\n"
	"kernels that are not L1-resident, and write the report. A rerun\n"
	"resumes: every stage skips what the store already holds.";

struct campaign {
	struct lk_ctx *ctx;
	struct lk_sweep *cfg;
	struct lk_store *store;
	int64_t id;
	const char *dir;
	int jobs, quiet, retry_failed;
	int not_ok;             /* variants or kernels that failed a stage */
	struct lk_strv lines;   /* one summary line per stage run */
};

typedef int (*stage_fn)(struct campaign *c, char **line);

static void note(char **line, const char *fmt, ...) LK_PRINTF(2, 3);
static void note(char **line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*line = lk_vasprintf(fmt, ap);
	va_end(ap);
}

static int stage_gen(struct campaign *c, char **line)
{
	struct lk_gen_opts o = {c->dir, c->jobs, c->quiet, 0, lk_cli_verbose,
				c->retry_failed};
	struct lk_gen_summary sum = {0};
	size_t i;
	int ret;

	if (!c->cfg->gen.present) {
		note(line, "nothing to do: the file has no gen: section, the "
			   "sources are measured as they are");
		return 0;
	}
	ret = lk_gen_campaign(c->ctx, c->cfg, &o, &sum);
	for (i = 0; !ret && i < sum.n; i++)
		if (*sum.units[i].reason)
			fprintf(stderr, "gen: %s %s: %s: %s\n",
				sum.units[i].kernel, sum.units[i].chain,
				sum.units[i].status, sum.units[i].reason);
	if (!ret) {
		note(line, "%zu units: %ld generated, %ld stored earlier, %ld "
			   "failed; %ld variants",
		     sum.n, sum.generated, sum.skipped, sum.failed,
		     sum.variants);
		c->not_ok += sum.failed > 0;
	}
	lk_gen_summary_release(&sum);
	return ret;
}

/* Kernel measurement: "min of 4" unless the file says how. */
static int stage_measure(struct campaign *c, char **line)
{
	struct lk_run_opts o = {.store_dir = c->dir, .jobs = c->jobs,
				.quiet = c->quiet,
				.retry_failed = c->retry_failed,
				.verbose = lk_cli_verbose};
	struct lk_run_summary sum = {0};
	long failed = 0;
	size_t i;
	int ret;

	if (!c->cfg->method_given) {
		ret = lk_method_set(c->ctx, &c->cfg->method, "mode",
				    "min-of-4", NULL);
		if (ret)
			return ret;
	}
	ret = lk_run_sweep(c->ctx, c->cfg, &o, &sum);
	if (!ret) {
		for (i = 0; i < sum.n; i++)
			failed += strcmp(sum.reports[i].status, "ok") &&
				  strcmp(sum.reports[i].status, "unstable");
		note(line, "%zu variants: %ld measured now, %ld stored "
			   "earlier, %ld not ok",
		     sum.n, sum.measured, sum.skipped, failed);
		c->not_ok += failed > 0;
	}
	lk_run_summary_release(&sum);
	return ret;
}

static void stage_line(struct campaign *c, const struct lk_stage_summary *s,
		       const char *verb, char **line)
{
	note(line, "%zu variants: %ld %s now, %ld stored earlier, %ld "
		   "failed, %ld skipped",
	     s->n, s->done, verb, s->earlier, s->failed, s->skipped);
	c->not_ok += s->failed > 0;
}

static int stage_blocks(struct campaign *c, char **line)
{
	struct lk_bb_campaign_opts o = {.jobs = c->jobs, .quiet = c->quiet,
					.retry_failed = c->retry_failed};
	struct lk_stage_summary sum = {0};
	int ret = lk_blocks_campaign(c->ctx, c->store, c->id, c->cfg, &o,
				     &sum);

	if (!ret)
		stage_line(c, &sum, "decoded", line);
	lk_stage_summary_release(&sum);
	return ret;
}

static int stage_count(struct campaign *c, char **line)
{
	struct lk_bb_campaign_opts o = {.jobs = c->jobs, .quiet = c->quiet,
					.retry_failed = c->retry_failed};
	struct lk_stage_summary sum = {0};
	int ret = lk_count_campaign(c->ctx, c->store, c->id, c->cfg, &o,
				    &sum);

	if (!ret)
		stage_line(c, &sum, "counted", line);
	lk_stage_summary_release(&sum);
	return ret;
}

static int stage_predict(struct campaign *c, char **line)
{
	struct lk_predict_opts o = {.quiet = c->quiet};
	struct lk_predict_summary sum = {0};
	int ret = lk_predict_campaign(c->ctx, c->store, c->id, c->cfg, &o,
				      &sum);

	if (!ret) {
		note(line, "%zu distinct blocks of %zu variants, %zu tools: "
			   "%zu predictions made now (%zu not ok), %zu "
			   "stored earlier",
		     sum.blocks, sum.variants, sum.tools, sum.predicted,
		     sum.failed, sum.stored);
	}
	return ret;
}

static int stage_lift(struct campaign *c, char **line)
{
	struct lk_lift_summary sum = {0};
	struct lk_buf b = LK_BUF_INIT;
	size_t i;
	int ret = lk_lift_campaign(c->ctx, c->store, c->id, c->cfg, &sum);

	if (!ret) {
		lk_buf_addf(&b, "%zu variants", sum.stage.n);
		for (i = 0; i < sum.ntools; i++)
			lk_buf_addf(&b, "%s %s %s: %ld lifted, %ld excluded",
				    i ? ";" : ":", sum.tools[i].tool,
				    sum.tools[i].tool_version,
				    sum.tools[i].lifted,
				    sum.tools[i].excluded);
		if (!sum.ntools)
			lk_buf_adds(&b, ": no prediction to lift");
		*line = lk_buf_detach(&b);
	}
	lk_buf_release(&b);
	lk_lift_summary_release(&sum);
	return ret;
}

static int stage_filter(struct campaign *c, char **line)
{
	struct lk_filter_opts o = {.jobs = c->jobs, .quiet = c->quiet};
	struct lk_stage_summary sum = {0};
	long pass = 0, exclude = 0, unknown = 0;
	size_t i;
	int ret = lk_filter_campaign(c->ctx, c->store, c->id, c->cfg, &o,
				     &sum);

	if (!ret) {
		for (i = 0; i < sum.n; i++) {
			pass += !strcmp(sum.items[i].status, "pass");
			exclude += !strcmp(sum.items[i].status, "exclude");
			unknown += !strcmp(sum.items[i].status, "unknown");
		}
		note(line, "%zu variants: %ld L1-resident, %ld excluded, %ld "
			   "unknown, %ld skipped",
		     sum.n, pass, exclude, unknown, sum.skipped);
	}
	lk_stage_summary_release(&sum);
	return ret;
}

static int stage_memprof(struct campaign *c, char **line)
{
	struct lk_stage_opts o = {.jobs = c->jobs, .quiet = c->quiet,
				  .verbose = lk_cli_verbose,
				  .retry_failed = c->retry_failed};
	struct lk_stage_summary sum = {0};
	int ret = lk_memprof_stage(c->ctx, c->store, c->id, c->cfg, &o, &sum);

	if (!ret) {
		*line = sum.line;
		sum.line = NULL;
		c->not_ok += sum.failed > 0;
	}
	lk_stage_summary_release(&sum);
	return ret;
}

/* The page, then each analyzer's figures on a line of its own. */
static int stage_report(struct campaign *c, char **line)
{
	struct lk_buf figures = LK_BUF_INIT, b = LK_BUF_INIT;
	struct lk_report_opts o = {.summary = &figures};
	int ret = lk_report_campaign(c->ctx, c->store, c->id, c->cfg, &o);
	char *html, *p, *nl;

	if (!ret) {
		html = lk_report_output_path(c->store, c->cfg, &o,
					     LK_REPORT_HTML);
		lk_buf_adds(&b, html);
		free(html);
		for (p = figures.buf; p && (nl = strchr(p, '\n'));
		     p = nl + 1)
			lk_buf_addf(&b, "\n%9s%.*s", "", (int)(nl - p), p);
		*line = lk_buf_detach(&b);
	}
	lk_buf_release(&figures);
	lk_buf_release(&b);
	return ret;
}

static const struct stage {
	const char *name;
	stage_fn run;
	const char *what;
} stages[] = {
	{"gen", stage_gen, "generate and verify the variants (gen:)"},
	{"measure", stage_measure, "build and measure every variant"},
	{"blocks", stage_blocks, "basic blocks of every kernel"},
	{"count", stage_count, "exact block counts for one kernel call"},
	{"predict", stage_predict, "every analyzer on every block"},
	{"lift", stage_lift, "sum of occurrences x prediction per kernel"},
	{"filter", stage_filter, "L1-residency verdict per kernel"},
	{"memprof", stage_memprof, "load/store latency per program"},
	{"report", stage_report, "error and rank correlation per analyzer"},
};

static long stage_index(const char *name)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(stages); i++)
		if (!strcmp(stages[i].name, name))
			return (long)i;
	return -1;
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
			return lk_cli_usage_error("campaign", "unknown stage "
						  "'%s' (gen, measure, blocks,"
						  " count, predict, lift, "
						  "filter, memprof, report)",
						  names[i]);
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

static int open_campaign(struct campaign *c, const char *config)
{
	int ret = lk_sweep_load(c->ctx, config, &c->cfg);

	if (!ret)
		ret = lk_store_open(c->ctx, c->dir, LK_STORE_CREATE, &c->store);
	if (!ret)
		ret = lk_store_campaign(c->ctx, c->store, c->cfg->name,
					c->cfg->path, NULL, &c->id);
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
		double t0 = lk_now();
		char *line = NULL;

		if (!c->quiet)
			fprintf(stderr, "campaign: [%zu/%zu] %s: %s\n",
				i - first + 1, last - first + 1, st->name,
				st->what);
		ret = st->run(c, &line);
		if (ret) {
			fprintf(stderr, "campaign: stage %s stopped the "
					"campaign (a rerun resumes here)\n",
				st->name);
			break;
		}
		stage_done(c, st->name, line ? line : "", lk_now() - t0);
		free(line);
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
	c.jobs = (int)jobs;
	c.quiet = quiet;
	c.retry_failed = retry;
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
