/* loopkit lift: kernel predictions from block predictions and counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/config.h"
#include "loopkit/predict.h"
#include "loopkit/store.h"

static const char usage[] =
	"[-c CAMPAIGN.yaml] [-o DIR]\n\n"
	"For every counted kernel of the campaign and every predictor\n"
	"configuration (tool, version, parameters) in the store, lifted =\n"
	"sum over the kernel's blocks of occurrences in one call x the\n"
	"block's prediction. A kernel with a block that ran but has no ok\n"
	"prediction is excluded for that predictor, the first such block\n"
	"named. Stores the lifted values and prints them with a tally per\n"
	"predictor. Without -c: the store's only campaign with variants.";

static const char *label_of(const struct lk_stage_summary *st, int64_t id)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->items[i].variant_id == id)
			return st->items[i].label;
	return "?";
}

static void print_rows(const struct lk_lift_summary *sum,
		       const struct lk_lifted_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct lk_lifted_row *r = &rows[i];

		printf("%s  %s %s %s  ", label_of(&sum->stage, r->variant_id),
		       r->tool, r->tool_version,
		       *r->params ? r->params : "-");
		if (!strcmp(r->status, "ok"))
			printf("%.17g %s\n", r->value, r->unit);
		else
			printf("%s: %s\n", r->status, r->reason);
	}
}

static void print_tally(const struct lk_lift_summary *sum)
{
	const struct lk_stage_summary *st = &sum->stage;
	int w[3] = {16, 12, 24};

	for (size_t i = 0; i < sum->ntools; i++) {
		const struct lk_lift_tally *t = &sum->tools[i];
		const char *col[3] = {t->tool, t->tool_version, t->params};

		for (int c = 0; c < 3; c++)
			if ((int)strlen(col[c]) > w[c])
				w[c] = (int)strlen(col[c]);
	}
	printf("\n%-*s %-*s %-*s %8s %8s\n", w[0], "tool", w[1], "version",
	       w[2], "params", "lifted", "excluded");
	for (size_t i = 0; i < sum->ntools; i++) {
		const struct lk_lift_tally *t = &sum->tools[i];

		printf("%-*s %-*s %-*s %8ld %8ld\n", w[0], t->tool, w[1],
		       t->tool_version, w[2], *t->params ? t->params : "-",
		       t->lifted, t->excluded);
	}
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->items[i].status, "skipped"))
			printf("skipped: %s: %s\n", st->items[i].label,
			       st->items[i].reason);
}

static int lift(struct lk_ctx *ctx, const char *config, const char *dir)
{
	struct lk_lift_summary sum = {0};
	struct lk_lifted_row *rows = NULL;
	struct lk_sweep *sw;
	struct lk_store *s;
	size_t n = 0;
	int64_t id;
	int ret = lk_cli_campaign_open(ctx, config, dir, &sw, &s, &id);

	if (ret)
		return ret;
	ret = lk_lift_campaign(ctx, s, id, sw, &sum);
	if (!ret)
		ret = lk_store_lifted_get(ctx, s, id, &rows, &n);
	if (!ret) {
		print_rows(&sum, rows, n);
		print_tally(&sum);
		fprintf(stderr, "loopkit: lift: %zu variants: %ld lifted, "
				"%ld skipped; store: %s\n",
			sum.stage.n, sum.stage.done, sum.stage.skipped, dir);
	}
	lk_lifted_rows_free(rows, n);
	lk_lift_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(ctx, "writing the lifted values");
	return ret;
}

int cmd_lift(int argc, char **argv)
{
	const char *config = NULL, *dir = LK_STORE_DEFAULT_DIR;
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &config, "FILE",
		 "the campaign"},
		{'o', "output", LK_OPT_STRING, &dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		LK_OPT_END};
	struct lk_ctx ctx;
	int first;

	first = lk_opts_parse("lift", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("lift", "unexpected argument '%s'",
					  argv[first]);
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	return lift(&ctx, config, dir) ? lk_cli_fail(&ctx) : 0;
}
