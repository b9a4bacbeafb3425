/*
 * loopkit memprof: static load/store counts from the GCC plugin, entry/
 * exit traces, exclusive profiles, and load/store latency from both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "loopkit/memprof.h"
#include "loopkit/config.h"
#include "loopkit/store.h"
#include "loopkit/toolchain.h"

static const char usage[] =
	"<subcommand> [options] FILE [--] [compiler flags]\n\n"
	"  static FILE.c [--] [compiler flags]\n"
	"                       static loads and stores per function\n"
	"                       (or FILE.lkmem, already computed)\n"
	"  trace TRACE --text   a binary trace as text lines\n"
	"  profile TRACE        flat profile (--tree: the call tree)\n"
	"  run PROG.c [--] [compiler flags]\n"
	"                       all of it: compile with the plugin, run,\n"
	"                       profile, fit load/store latency\n"
	"  run -c CAMPAIGN.yaml the campaign's memprof stage: every program\n"
	"                       of its memprof: section, into its store\n\n"
	"Options go anywhere. Compiler flags go after '--'; without it, an\n"
	"argument after the file that is not an option of memprof is one\n"
	"(-O2 -march=native), and one of memprof's (-o, -n, --json) is\n"
	"memprof's. Times are TSC ticks, so labelled. Formats:\n"
	"doc/memprof-formats.md.";

struct mp_args {
	int json, text, tree, strict, keep, retry_failed;
	const char *out_dir, *name, *config;
	long max_lines;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static int do_static(struct lk_ctx *ctx, const struct mp_args *a, int argc,
		     char **argv)
{
	struct lk_mem_static st = {0};
	struct lk_buf out = LK_BUF_INIT;
	int ret;

	if (ends_with(argv[0], ".lkmem"))
		ret = lk_mem_static_load(ctx, argv[0], &st);
	else
		ret = lk_mem_static_compile(ctx, argv[0],
					    (const char *const *)argv + 1,
					    (size_t)argc - 1, &st);
	if (!ret) {
		if (a->json)
			lk_mem_static_json(&st, &out);
		else
			lk_mem_static_readable(&st, &out);
		fputs(lk_buf_str(&out), stdout);
	}
	lk_buf_release(&out);
	lk_mem_static_release(&st);
	return ret;
}

static int load_trace(struct lk_ctx *ctx, const struct mp_args *a,
		      const char *path, struct lk_trace *t)
{
	struct lk_buf warnings = LK_BUF_INIT;
	int ret = lk_memprof_trace_load(ctx, path, a->strict, t, &warnings);

	if (warnings.len)
		fputs(lk_buf_str(&warnings), stderr);
	lk_buf_release(&warnings);
	return ret;
}

static int do_trace(struct lk_ctx *ctx, const struct mp_args *a,
		    const char *path)
{
	struct lk_trace t = {0};
	struct lk_buf out = LK_BUF_INIT;
	int ret = load_trace(ctx, a, path, &t);

	if (!ret) {
		lk_trace_text(&t, &out);
		fputs(lk_buf_str(&out), stdout);
	}
	lk_buf_release(&out);
	lk_trace_release(&t);
	return ret;
}

static int profile(struct lk_ctx *ctx, const struct lk_trace *t,
		   struct lk_call_node **nodes, struct lk_func_profile **p,
		   size_t *n)
{
	int ret = lk_calltree_build(ctx, t, nodes);

	if (!ret)
		ret = lk_profile_build(ctx, t, *nodes, p, n);
	return ret;
}

static int do_profile(struct lk_ctx *ctx, const struct mp_args *a,
		      const char *path)
{
	struct lk_trace t = {0};
	struct lk_call_node *nodes = NULL;
	struct lk_func_profile *p = NULL;
	struct lk_buf out = LK_BUF_INIT;
	size_t n = 0;
	int ret = load_trace(ctx, a, path, &t);

	if (!ret)
		ret = profile(ctx, &t, &nodes, &p, &n);
	if (!ret && a->json)
		lk_profile_json(p, n, &out);
	else if (!ret && a->tree)
		lk_calltree_print(&t, nodes, (size_t)a->max_lines, &out);
	else if (!ret)
		lk_profile_flat(p, n, &out);
	fputs(lk_buf_str(&out), stdout);
	lk_buf_release(&out);
	free(nodes);
	free(p);
	lk_trace_release(&t);
	return ret;
}

/* ---- run: compile, run, profile, correlate, store. ---- */

/* The run, in the campaign store: "memprof:<file>" unless --name. */
static int store_run(struct lk_ctx *ctx, const struct mp_args *a,
		     char **argv, int argc,
		     const struct lk_memprof_result *r)
{
	struct lk_strv flags = LK_STRV_INIT;
	struct lk_memprof_source src = {.program = argv[0], .path = argv[0]};
	char *campaign = lk_asprintf("memprof:%s", a->name ? a->name :
				     argv[0]);
	char *cflags;
	struct lk_store *s = NULL;
	int64_t cid, id;
	int i, ret;

	for (i = 1; i < argc; i++)
		lk_strv_push(&flags, argv[i]);
	src.cflags = cflags = lk_strv_join(&flags, " ");
	ret = lk_store_open(ctx, a->out_dir, LK_STORE_CREATE, &s);
	if (!ret)
		ret = lk_store_campaign(ctx, s, campaign, NULL, NULL, &cid);
	if (!ret)
		ret = lk_memprof_store(ctx, s, cid, &src, r, &id);
	lk_store_close(s);
	free(cflags);
	free(campaign);
	lk_strv_release(&flags);
	return ret;
}

static int do_run(struct lk_ctx *ctx, const struct mp_args *a, int argc,
		  char **argv)
{
	struct lk_memprof_opts o = {.cflags = (const char *const *)argv + 1,
				    .ncflags = (size_t)argc - 1,
				    .strict = a->strict, .keep = a->keep};
	struct lk_memprof_result r;
	struct lk_buf out = LK_BUF_INIT;
	int ret = lk_memprof_run(ctx, argv[0], &o, &r);

	fputs(lk_buf_str(&r.messages), stderr);
	if (!ret) {
		lk_memprof_result_print(&r, &out);
		fputs(lk_buf_str(&out), stdout);
		ret = store_run(ctx, a, argv, argc, &r);
	}
	if (a->keep && r.dir)
		fprintf(stderr, "loopkit: kept %s\n", r.dir);
	lk_buf_release(&out);
	lk_memprof_result_release(&r);
	return ret;
}

/* run -c CAMPAIGN.yaml: the campaign's memprof stage, alone. */
static int do_campaign(struct lk_ctx *ctx, const struct mp_args *a)
{
	struct lk_stage_opts o = {.verbose = lk_cli_verbose,
				  .retry_failed = a->retry_failed};
	struct lk_stage_summary sum = {0};
	struct lk_sweep *cfg = NULL;
	struct lk_store *s = NULL;
	int64_t id;
	int ret = lk_sweep_load(ctx, a->config, &cfg);

	if (!ret)
		ret = lk_store_open(ctx, a->out_dir, LK_STORE_CREATE, &s);
	if (!ret)
		ret = lk_store_campaign(ctx, s, cfg->name, cfg->path, NULL,
					&id);
	if (!ret)
		ret = lk_memprof_stage(ctx, s, id, cfg, &o, &sum);
	if (!ret)
		printf("memprof  %s\n", sum.line);
	lk_stage_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(cfg);
	return ret;
}

static int dispatch(struct lk_ctx *ctx, const char *sub,
		    const struct mp_args *a, int argc, char **argv)
{
	int need_plugin = !strcmp(sub, "run") ||
			  (!strcmp(sub, "static") && argc &&
			   !ends_with(argv[0], ".lkmem"));

	int ret;

	if (a->config && strcmp(sub, "run"))
		return lk_error(ctx, LK_EINPUT, "memprof %s: -c CAMPAIGN.yaml "
				"is for 'memprof run'", sub);
	if (a->config && argc)
		return lk_error(ctx, LK_EINPUT, "memprof run -c: unexpected "
				"'%s' (the programs are the campaign's)",
				argv[0]);
	if (a->config)
		return do_campaign(ctx, a);
	if (!argc)
		return lk_error(ctx, LK_EINPUT, "memprof %s: which file?",
				sub);
	/* gcc would take a directory or a device for a linker input */
	if ((ret = lk_file_check_regular(ctx, argv[0])))
		return ret;
	if (need_plugin && access(lk_plugin_path(), R_OK))
		return lk_error(ctx, LK_EUNSUP, "the GCC plugin %s is not "
				"built (needs gcc-12-plugin-dev: make deps, "
				"then make)", lk_plugin_path());
	if (!strcmp(sub, "static"))
		return do_static(ctx, a, argc, argv);
	if (!strcmp(sub, "run"))
		return do_run(ctx, a, argc, argv);
	if (argc > 1)
		return lk_error(ctx, LK_EINPUT, "memprof %s: unexpected '%s'%s",
				sub, argv[1], argv[1][0] == '-' ?
				" (not an option of memprof)" : "");
	if (!strcmp(sub, "trace")) {
		if (!a->text)
			return lk_error(ctx, LK_EINPUT, "memprof trace: say "
				       "--text");
		return do_trace(ctx, a, argv[0]);
	}
	if (!strcmp(sub, "profile"))
		return do_profile(ctx, a, argv[0]);
	return lk_error(ctx, LK_EINPUT, "unknown memprof subcommand '%s' "
			"(static, trace, profile, run)", sub);
}

int cmd_memprof(int argc, char **argv)
{
	struct mp_args a = {.max_lines = 200,
			    .out_dir = LK_STORE_DEFAULT_DIR};
	const struct lk_opt opts[] = {
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		{0, "text", LK_OPT_BOOL, &a.text, NULL,
		 "trace: render as text lines"},
		{0, "tree", LK_OPT_BOOL, &a.tree, NULL,
		 "profile: print the call tree"},
		{'n', "max-lines", LK_OPT_LONG, &a.max_lines, "N",
		 "profile --tree: at most N lines (default 200, 0: all)"},
		{0, "strict", LK_OPT_BOOL, &a.strict, NULL,
		 "stop at the first malformed trace line"},
		{0, "keep", LK_OPT_BOOL, &a.keep, NULL,
		 "run: keep the program, static file and trace"},
		{'o', "output", LK_OPT_STRING, &a.out_dir, "DIR",
		 "run: campaign store (default ./loopkit.d)"},
		{'c', "config", LK_OPT_STRING, &a.config, "CAMPAIGN.yaml",
		 "run: the memprof: section of this campaign"},
		{0, "retry-failed", LK_OPT_BOOL, &a.retry_failed, NULL,
		 "run -c: profile again programs stored as failed"},
		{0, "name", LK_OPT_STRING, &a.name, "NAME",
		 "run: campaign name (default memprof:<file>)"},
		LK_OPT_END};
	struct lk_ctx ctx;
	int first, ret;

	/* After the subcommand and its file, what is not ours is the
	 * compiler's (static, run); "--" says so explicitly. */
	first = lk_opts_parse_pass("memprof", usage, opts, 2, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first >= argc) {
		lk_opts_usage(stderr, "memprof", usage, opts);
		return 2;
	}
	lk_ctx_init(&ctx);
	ret = dispatch(&ctx, argv[first], &a, argc - first - 1,
		       argv + first + 1);
	return ret ? lk_cli_fail(&ctx) : 0;
}
