/* loopkit env: describe the machine; tune it for measuring and undo. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "loopkit/env.h"
#include "loopkit/store.h"

static const char usage[] =
	"[--json] [--no-calibrate] [--tune [--dry-run] | --restore] "
	"[--store [-o DIR]]\n\n"
	"Print what this machine is and what it can measure: CPU and\n"
	"micro-architecture, TSC, the calibrated core/TSC clock ratio,\n"
	"governor, turbo, SMT, caches, PMU, virtualisation, kernel,\n"
	"compilers. --tune applies what it can for stable measurements\n"
	"(saving the old values) and --restore undoes it; without the\n"
	"privilege, or with --dry-run, it says what it would do.";

static int do_tune(int tune, int dry_run)
{
	struct lk_buf report = LK_BUF_INIT;
	struct lk_ctx ctx;
	int ret;

	lk_ctx_init(&ctx);
	ret = tune ? lk_env_tune(&ctx, !dry_run, &report) :
		     lk_env_restore(&ctx, &report);
	fputs(lk_buf_str(&report), stdout);
	lk_buf_release(&report);
	return ret ? lk_cli_fail(&ctx) : 0;
}

static int store_snapshot(struct lk_ctx *ctx, const char *dir,
			  const char *json)
{
	struct lk_store *s;
	int64_t campaign, id;
	int ret = lk_store_open(ctx, dir, LK_STORE_CREATE, &s);

	if (ret)
		return ret;
	ret = lk_store_campaign(ctx, s, "env", NULL, NULL, &campaign);
	if (!ret)
		ret = lk_store_env_put(ctx, s, campaign, json, &id);
	lk_store_close(s);
	return ret;
}

int cmd_env(int argc, char **argv)
{
	int json = 0, tune = 0, restore = 0, dry_run = 0, no_cal = 0;
	int store = 0, first, ret;
	const char *dir = LK_STORE_DEFAULT_DIR;
	const struct lk_opt opts[] = {
		{0, "json", LK_OPT_BOOL, &json, NULL, "print JSON"},
		{0, "no-calibrate", LK_OPT_BOOL, &no_cal, NULL,
		 "skip timing the core/TSC ratio"},
		{0, "tune", LK_OPT_BOOL, &tune, NULL,
		 "tune the machine for measuring"},
		{0, "dry-run", LK_OPT_BOOL, &dry_run, NULL,
		 "with --tune: only say what would change"},
		{0, "restore", LK_OPT_BOOL, &restore, NULL,
		 "undo what --tune changed"},
		{0, "store", LK_OPT_BOOL, &store, NULL,
		 "also record the snapshot in the campaign store"},
		{'o', "output", LK_OPT_STRING, &dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		LK_OPT_END};
	struct lk_env env = {NULL, 0, 0};
	struct lk_ctx ctx;
	char *text;

	first = lk_opts_parse("env", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("env", "unexpected argument '%s'",
					  argv[first]);
	if (tune && restore)
		return lk_cli_usage_error("env", "--tune and --restore "
						 "exclude each other");
	if (tune || restore)
		return do_tune(tune, dry_run);
	lk_ctx_init(&ctx);
	ret = lk_env_collect(&ctx, &env, no_cal ? 0 : LK_ENV_CALIBRATE);
	if (!ret) {
		text = json ? lk_env_json(&env) : lk_env_text(&env);
		fputs(text, stdout);
		if (json)
			fputc('\n', stdout);
		free(text);
	}
	if (!ret && store) {
		text = lk_env_json(&env);
		ret = store_snapshot(&ctx, dir, text);
		free(text);
	}
	lk_env_release(&env);
	return ret ? lk_cli_fail(&ctx) : 0;
}
