/* loopkit report: how well each analyzer predicts the measured kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/report.h"
#include "loopkit/store.h"

static const char usage[] =
	"[-c CAMPAIGN.yaml] [-o DIR] [--campaign NAME] [--html FILE]\n"
	"       [--csv FILE] [--json FILE] [--variants-csv FILE]\n\n"
	"Compare every analyzer's lifted prediction with the measured cycles\n"
	"of each variant of a campaign: kernels covered, failed and excluded,\n"
	"MAPE, quartiles of the relative error, RMSE and Kendall's tau-b, per\n"
	"analyzer and per group (report: group-by in the campaign file), with\n"
	"plots, in one self-contained HTML page plus CSV and JSON. Files go\n"
	"to report.output of the campaign file, else DIR/report/; FILE '-'\n"
	"is stdout. Lists the files written and each analyzer's coverage,\n"
	"MAPE, median |error| and tau-b. Exit 1 with the reason when there\n"
	"is nothing to report.";

struct report_args {
	const char *config, *dir, *campaign;
	struct lk_report_opts opts;
	int no_plots, quiet;
};

/* --campaign, else the campaign file's name, else the only campaign. */
static int pick_campaign(struct lk_ctx *ctx, struct lk_store *s,
			 const struct report_args *a,
			 const struct lk_sweep *sw, int64_t *id)
{
	struct lk_strv names = LK_STRV_INIT;
	char *list;
	int ret;

	if (a->campaign || sw)
		return lk_store_report_find_campaign(
			ctx, s, a->campaign ? a->campaign : sw->name, id);
	ret = lk_store_report_campaign_names(ctx, s, &names);
	if (!ret && names.n == 1)
		ret = lk_store_report_find_campaign(ctx, s, names.v[0], id);
	else if (!ret && !names.n)
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: the store has no "
			       "campaigns", a->dir);
	else if (!ret) {
		list = lk_strv_join(&names, ", ");
		ret = lk_error(ctx, LK_EINPUT, "%s holds %zu campaigns (%s): "
			       "say which with --campaign NAME or -c FILE",
			       a->dir, names.n, list);
		free(list);
	}
	lk_strv_release(&names);
	return ret;
}

/* The files written, then each analyzer's figures; on stderr when a
 * file goes to stdout. */
static void print_paths(struct lk_store *s, const struct lk_sweep *sw,
			const struct report_args *a,
			const struct lk_buf *figures)
{
	FILE *out = stdout;
	int which;

	for (which = 0; which < LK_REPORT_NFILES; which++) {
		char *path = lk_report_output_path(s, sw, &a->opts, which);

		if (!strcmp(path, "-"))
			out = stderr;
		free(path);
	}
	for (which = 0; which < LK_REPORT_NFILES; which++) {
		char *path = lk_report_output_path(s, sw, &a->opts, which);

		if (strcmp(path, "-"))
			fprintf(out, "%s\n", path);
		free(path);
	}
	if (figures->len)
		fputs(figures->buf, out);
}

static int report(struct lk_ctx *ctx, struct report_args *a)
{
	struct lk_buf figures = LK_BUF_INIT;
	struct lk_sweep *sw = NULL;
	struct lk_store *s = NULL;
	int64_t id = 0;
	int ret = 0;

	if (a->config)
		ret = lk_sweep_load(ctx, a->config, &sw);
	if (!ret) {
		ret = lk_store_open(ctx, a->dir, LK_STORE_READER, &s);
		if (ret == LK_ENOTFOUND)
			ret = lk_error(ctx, LK_EINPUT, "%s: no campaign store "
				       "here (run 'loopkit run' first, or -o "
				       "DIR)", a->dir);
	}
	if (!ret)
		ret = pick_campaign(ctx, s, a, sw, &id);
	a->opts.summary = &figures;
	if (!ret)
		ret = lk_report_campaign(ctx, s, id, sw, &a->opts);
	if (!ret && !a->quiet)
		print_paths(s, sw, a, &figures);
	lk_buf_release(&figures);
	lk_store_close(s);
	lk_sweep_free(sw);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = {.dir = LK_STORE_DEFAULT_DIR};
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &a.config, "FILE",
		 "the campaign file (its name and report: section)"},
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		{0, "campaign", LK_OPT_STRING, &a.campaign, "NAME",
		 "this campaign (default: the file's, or the only one)"},
		{0, "html", LK_OPT_STRING, &a.opts.html, "FILE",
		 "the page (default OUT/report.html)"},
		{0, "csv", LK_OPT_STRING, &a.opts.csv, "FILE",
		 "the statistics table (default OUT/report.csv)"},
		{0, "json", LK_OPT_STRING, &a.opts.json, "FILE",
		 "everything as JSON (default OUT/report.json)"},
		{0, "variants-csv", LK_OPT_STRING, &a.opts.variants_csv,
		 "FILE", "a row per variant and analyzer (default "
		 "OUT/variants.csv)"},
		{0, "report-dir", LK_OPT_STRING, &a.opts.out_dir, "OUT",
		 "where the files go (default: report.output, else "
		 "DIR/report)"},
		{0, "no-plots", LK_OPT_BOOL, &a.no_plots, NULL,
		 "do not run gnuplot"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL,
		 "do not list the files written nor the figures"},
		LK_OPT_END};
	struct lk_ctx ctx;
	int first, ret;

	first = lk_opts_parse("report", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("report", "unexpected argument '%s'",
					  argv[first]);
	a.opts.dash = stdout;
	if (a.no_plots)
		a.opts.gnuplot = "";
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	ret = report(&ctx, &a);
	return ret ? lk_cli_fail(&ctx) : 0;
}
