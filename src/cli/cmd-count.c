/* loopkit count: exact execution count of every basic block in the region. */
#include <stdio.h>

#include "cli.h"
#include "loopkit/config.h"
#include "loopkit/count.h"
#include "loopkit/store.h"

static const char usage[] =
	"BINARY [--function NAME] [--json] [-- ARGS...]\n"
	"   or: loopkit count -c CAMPAIGN.yaml | -o DIR [-j N]\n\n"
	"Run BINARY under ptrace with one kernel call in the measured region\n"
	"(LK_WARMUP=0 LK_STEPS=1 LK_REPETITIONS=1 unless --steps or\n"
	"--repetitions say otherwise) and count how often every basic block\n"
	"of the kernel ran between lk_roi_begin and lk_roi_end. Only the\n"
	"blocks flow conservation cannot account for are measured. The\n"
	"benchmark's own output goes to /dev/null, or to --output FILE.\n"
	"With -c: count one kernel call of every variant of the campaign,\n"
	"-j at a time, and store the blocks and counts (or why the count\n"
	"failed); a binary already counted is skipped. There, -o is the\n"
	"campaign directory; -o DIR alone: its only campaign.";

static void print_text(const struct lk_count *c, const char *binary)
{
	static const char *const via[] = {"derived", "int3", "hwbp"};
	size_t b, nmeasured = 0;

	for (b = 0; b < c->cfg.nblocks; b++)
		nmeasured += c->via[b] != LK_COUNT_DERIVED;
	printf("function %s in %s: %zu blocks, %zu measured, %llu traps, "
	       "%llu region%s, %.3f s\n",
	       c->cfg.fn.name, binary, c->cfg.nblocks, nmeasured,
	       (unsigned long long)c->traps, (unsigned long long)c->regions,
	       c->regions == 1 ? "" : "s", c->seconds);
	for (b = 0; b < c->cfg.nblocks; b++)
		printf("0x%-10llx %14llu  %s\n",
		       (unsigned long long)c->cfg.blocks[b].start,
		       (unsigned long long)c->counts[b], via[c->via[b]]);
}

static int count(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		 int json)
{
	struct lk_count c;
	struct lk_buf out = LK_BUF_INIT;
	int ret = lk_count_run(ctx, opts, &c);

	if (ret)
		return ret;
	if (c.inlined && !opts->function)
		fprintf(stderr, "loopkit: note: nothing is called between the "
				"region markers (the kernel was inlined); "
				"counting %s, which holds them\n",
			c.cfg.fn.name);
	if (json) {
		lk_count_json(&c, &out);
		fputs(lk_buf_str(&out), stdout);
	} else {
		print_text(&c, opts->binary);
	}
	lk_buf_release(&out);
	lk_count_release(&c);
	if (fflush(stdout))
		return lk_error_errno(ctx, "writing the counts");
	return 0;
}

static int campaign(const char *config, const char *dir,
		    const struct lk_stage_opts *o, struct lk_count_cfg cc)
{
	struct lk_stage_summary sum = {0};
	long failed;
	struct lk_sweep *sw;
	struct lk_store *s;
	struct lk_ctx ctx;
	int64_t id;
	int ret;

	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	ret = lk_cli_campaign_open(&ctx, config, dir, &sw, &s, &id);
	if (!ret && !sw)
		sw = lk_sweep_new(); /* the store's campaign: the options */
	if (!ret) {
		sw->count = cc; /* the options, for the stage */
		ret = lk_count_stage(&ctx, s, id, sw, o, &sum);
	}
	if (!ret)
		lk_cli_print_stage("count", dir, &sum);
	failed = sum.failed;
	lk_stage_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	if (ret)
		return lk_cli_fail(&ctx);
	return failed ? 1 : 0;
}

int cmd_count(int argc, char **argv)
{
	struct lk_count_opts opts = {0};
	struct lk_stage_opts co = {0};
	const char *config = NULL;
	long timeout = 0, jobs = 0;
	int json = 0, first, ret;
	const struct lk_opt table[] = {
		{'f', "function", LK_OPT_STRING, &opts.function, "NAME",
		 "this function (default: the measured kernel)"},
		{0, "json", LK_OPT_BOOL, &json, NULL,
		 "a JSON array of {start, end, count, measured, via}"},
		{0, "steps", LK_OPT_LONG, &opts.steps, "N",
		 "kernel calls per sample (default 1)"},
		{0, "repetitions", LK_OPT_LONG, &opts.repetitions, "N",
		 "samples, each a region (default 1)"},
		{0, "timeout", LK_OPT_LONG, &timeout, "SECONDS",
		 "kill the benchmark after this long (default 600)"},
		{'o', "output", LK_OPT_STRING, &opts.output, "FILE|DIR",
		 "the benchmark's stdout and stderr (default /dev/null); "
		 "with -c, the campaign directory (default ./loopkit.d)"},
		{'c', "config", LK_OPT_STRING, &config, "FILE",
		 "every variant of this campaign, into the store"},
		{'j', "jobs", LK_OPT_LONG, &jobs, "N",
		 "with -c: counts in parallel (default: CPUs)"},
		{0, "retry-failed", LK_OPT_BOOL, &co.retry_failed, NULL,
		 "with -c: count again binaries whose count failed"},
		{'q', "quiet", LK_OPT_BOOL, &co.quiet, NULL,
		 "with -c: no progress"},
		{0, "all-blocks", LK_OPT_BOOL, &opts.no_derive, NULL,
		 "measure every block, derive none"},
		{0, "no-hwbp", LK_OPT_BOOL, &opts.no_hwbp, NULL,
		 "int3 breakpoints only, no hardware counters"},
		LK_OPT_END};
	struct lk_ctx ctx;

	first = lk_opts_parse("count", usage, table, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (opts.steps < 0 || opts.repetitions < 0 || timeout < 0 ||
	    jobs < 0)
		return lk_cli_usage_error("count", "negative number");
	/* -o DIR and no BINARY: the store's campaign. */
	if (config || (first >= argc && opts.output)) {
		if (first < argc || opts.function || json || opts.steps ||
		    opts.repetitions || opts.no_derive)
			return lk_cli_usage_error(
				"count", "with -c, no BINARY, --function, "
				"--json, --steps, --repetitions or "
				"--all-blocks: one kernel call of the kernel "
				"of every variant is counted");
		co.jobs = (int)jobs;
		return campaign(config, opts.output ? opts.output
						    : LK_STORE_DEFAULT_DIR,
				&co, (struct lk_count_cfg){(double)timeout,
							   opts.no_hwbp});
	}
	if (first >= argc)
		return lk_cli_usage_error("count", "name a BINARY");
	opts.binary = argv[first];
	opts.args = argv + first + 1;
	opts.timeout = (double)timeout;
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	ret = count(&ctx, &opts, json);
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
