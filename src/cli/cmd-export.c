/* loopkit export: the store's results as a tidy table. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "loopkit/store.h"

static const char usage[] =
	"(--csv | --json) [--memprof] [-o DIR] [--campaign NAME]\n"
	"   or: loopkit export --opt-report [-o DIR] [--campaign NAME]\n\n"
	"Write one row per variant x metric, -D parameters as columns, to\n"
	"stdout: a table pandas reads as it is (pd.read_csv). With\n"
	"--opt-report, every variant's build log instead: the compiler's\n"
	"vectorisation report when built with method.opt-report.";

int cmd_export(int argc, char **argv)
{
	int csv = 0, json = 0, memprof = 0, report = 0, first, ret;
	const char *dir = LK_STORE_DEFAULT_DIR, *campaign = NULL;
	const struct lk_opt opts[] = {
		{0, "csv", LK_OPT_BOOL, &csv, NULL, "CSV (RFC 4180)"},
		{0, "json", LK_OPT_BOOL, &json, NULL, "a JSON array"},
		{0, "memprof", LK_OPT_BOOL, &memprof, NULL,
		 "the memprof function profiles instead of the runs"},
		{0, "opt-report", LK_OPT_BOOL, &report, NULL,
		 "the builds' optimisation reports, as text"},
		{0, "campaign", LK_OPT_STRING, &campaign, "NAME",
		 "only this campaign (default: all)"},
		{'o', "output", LK_OPT_STRING, &dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		LK_OPT_END};
	struct lk_store *s;
	struct lk_ctx ctx;

	first = lk_opts_parse("export", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("export", "unexpected argument '%s'",
					  argv[first]);
	if (csv == json && !report)
		return lk_cli_usage_error("export", "say --csv or --json");
	lk_ctx_init(&ctx);
	ret = lk_store_open(&ctx, dir, LK_STORE_READER, &s);
	if (ret == LK_ENOTFOUND) {
		fprintf(stderr, "loopkit: error: %s: no campaign store here "
				"(run 'loopkit run' first, or -o DIR)\n",
			dir);
		return 2;
	}
	if (!ret) {
		ret = report ? lk_store_export_opt_reports(&ctx, s, campaign,
							   stdout) :
		      memprof ? lk_store_export_memprof(&ctx, s, campaign,
							json, stdout) :
				lk_store_export(&ctx, s, campaign,
						csv ? LK_EXPORT_CSV :
						      LK_EXPORT_JSON, stdout);
		lk_store_close(s);
	}
	if (!ret && fflush(stdout))
		ret = lk_error_errno(&ctx, "writing the export");
	return ret ? lk_cli_fail(&ctx) : 0;
}
