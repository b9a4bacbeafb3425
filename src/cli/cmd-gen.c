/* loopkit gen: transform a kernel's scop, or a campaign's kernels. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "loopkit/gen.h"
#include "loopkit/measure.h"

static const char usage[] =
	"[options] KERNEL.c --transform T [--transform T ...]\n"
	"   or: loopkit gen [options] -c CAMPAIGN.yaml [--list]\n\n"
	"Read KERNEL.c's '#pragma scop' region, apply each transformation\n"
	"chain (steps joined by '+', e.g. isl+tile,sizes=32x32+vectorize),\n"
	"check it against the dependences, generate the code with isl and\n"
	"verify that the result computes what the original does at\n"
	"-DMINI_DATASET (its --checksum, or a PolyBench program's array\n"
	"dump, linked with the polybench.c beside polybench.h on the -I\n"
	"path). Prints the new source, or writes DIR/<kernel>.<n>.c\n"
	"with -o. With -c, expand the campaign's kernels x transformations\n"
	"into variants in its store and build each variant's binary with its\n"
	"compiler and flags (doc/loopkit-gen.md).";

struct gen_args {
	const char *config, *out_dir, *verify_define;
	struct lk_strv transforms, defines, includes, params;
	long jobs;
	int print, no_verify, no_build, list, quiet, retry_failed;
};

static void cflags_of(const struct gen_args *a, struct lk_strv *cflags)
{
	size_t i;

	for (i = 0; i < a->defines.n; i++)
		lk_strv_pushf(cflags, "-D%s", a->defines.v[i]);
	for (i = 0; i < a->includes.n; i++)
		lk_strv_pushf(cflags, "-I%s", a->includes.v[i]);
}

/* The original's checksum, computed once. */
static int reference_sum(struct lk_ctx *ctx, const char *kernel,
			 const char *tmp, const struct gen_args *a,
			 const struct lk_strv *cflags, char **sum)
{
	if (*sum)
		return 0;
	return lk_gen_checksum(ctx, kernel, tmp, a->verify_define, cflags,
			       sum);
}

static int verify(struct lk_ctx *ctx, const char *kernel,
		  const struct lk_gen_result *r, const char *chain,
		  const struct gen_args *a, const struct lk_strv *cflags,
		  char **ref)
{
	char tmpl[] = "/tmp/loopkit-gen-XXXXXX";
	char *dir = mkdtemp(tmpl);
	const char *base = strrchr(kernel, '/');
	int ret;

	if (!dir)
		return lk_error_errno(ctx, "mkdtemp");
	ret = reference_sum(ctx, kernel, dir, a, cflags, ref);
	if (!ret)
		ret = lk_gen_verify(ctx, r, chain, *ref, dir,
				    base ? base + 1 : kernel, a->verify_define,
				    cflags);
	if (ret && strncmp(ctx->msg, kernel, strlen(kernel))) {
		char *why = lk_strdup(ctx->msg);

		lk_error(ctx, ret, "%s: %s", kernel, why);
		free(why);
	}
	rmdir(dir);
	return ret;
}

static int emit(struct lk_ctx *ctx, const struct lk_gen_scop *scop,
		const struct lk_gen_result *r, const struct gen_args *a,
		size_t idx, size_t n, const char *chain)
{
	char *kname, *name, *path;
	int ret;

	if (!a->out_dir || a->print) {
		if (n > 1)
			printf("/* loopkit gen: %s */\n", chain);
		fputs(lk_gen_result_source(r), stdout);
		if (!a->out_dir)
			return 0;
	}
	if ((ret = lk_mkdir_p(ctx, a->out_dir, 0777)))
		return ret;
	kname = lk_gen_kernel_name(scop);
	name = lk_asprintf("%s.%zu.c", kname, idx);
	path = lk_path_join(a->out_dir, name);
	ret = lk_file_write_atomic(ctx, path, lk_gen_result_source(r),
				   strlen(lk_gen_result_source(r)));
	if (!ret && !a->quiet)
		fprintf(stderr, "loopkit: %s: %s\n", path, chain);
	free(path);
	free(name);
	free(kname);
	return ret;
}

/* One -t chain, start to end: parsed, transformed, verified, written. */
static int gen_chain(struct lk_ctx *ctx, const char *kernel,
		     struct lk_gen_scop *scop, const struct gen_args *a,
		     size_t idx, size_t n, const struct lk_strv *cflags,
		     char **ref)
{
	struct lk_gen_chain chain;
	struct lk_gen_result *r = NULL;
	int ret;

	ret = lk_gen_chain_parse(ctx, a->transforms.n ? a->transforms.v[idx]
						     : "original",
				 "--transform", &chain);
	if (ret)
		return ret;
	ret = lk_gen_transform(ctx, scop, &chain, &r);
	if (!ret && !a->no_verify)
		ret = verify(ctx, kernel, r, chain.text, a, cflags, ref);
	if (!ret)
		ret = emit(ctx, scop, r, a, idx, n, chain.text);
	lk_gen_result_free(r);
	lk_gen_chain_release(&chain);
	return ret;
}

/* Several chains: which were generated and which were not. */
static void chains_summary(const char *kernel, const struct gen_args *a,
			   const int *codes, size_t n)
{
	struct lk_buf ok = LK_BUF_INIT, failed = LK_BUF_INIT;
	size_t i, nok = 0;

	for (i = 0; i < n; i++) {
		struct lk_buf *b = codes[i] ? &failed : &ok;

		lk_buf_addf(b, "%s'%s'", lk_buf_str(b)[0] ? ", " : "",
			    a->transforms.v[i]);
		nok += !codes[i];
	}
	fprintf(stderr, "loopkit: %s: %zu chains: %zu generated%s%s%s, %zu "
		"failed%s%s%s\n", kernel, n, nok, nok ? " (" : "",
		lk_buf_str(&ok), nok ? ")" : "", n - nok, nok < n ? " (" : "",
		lk_buf_str(&failed), nok < n ? ")" : "");
	lk_buf_release(&ok);
	lk_buf_release(&failed);
}

/*
 * Every chain on its own: one that fails is reported (its reason on a
 * line of its own) and the others are still generated. Exit 2 if any
 * chain was bad input (unknown, illegal), else 1 if any failed.
 */
static int gen_file(struct lk_ctx *ctx, const char *kernel,
		    const struct gen_args *a)
{
	struct lk_strv cflags = LK_STRV_INIT;
	struct lk_gen_scop *scop = NULL;
	char *ref = NULL, *dir = lk_path_dirname(kernel);
	size_t i, n = a->transforms.n ? a->transforms.n : 1;
	int *codes = lk_calloc(n, sizeof(*codes)), ret, exit_code = 0;

	cflags_of(a, &cflags);
	/* The kernel's own headers, for verifying from elsewhere. */
	lk_strv_pushf(&cflags, "-I%s", dir);
	ret = lk_gen_scop_parse(ctx, kernel, &cflags, &scop);
	if (ret)
		exit_code = lk_cli_fail(ctx);
	for (i = 0; !ret && i < a->params.n; i++)
		lk_gen_scop_add_size(scop, a->params.v[i]);
	for (i = 0; !ret && i < n; i++) {
		struct lk_ctx one;

		lk_ctx_init(&one);
		one.verbose = ctx->verbose;
		if (gen_chain(&one, kernel, scop, a, i, n, &cflags, &ref))
			codes[i] = lk_cli_fail(&one);
		if (codes[i] > exit_code)
			exit_code = codes[i];
	}
	if (!ret && n > 1 && (exit_code || !a->quiet))
		chains_summary(kernel, a, codes, n);
	free(codes);
	free(dir);
	free(ref);
	lk_gen_scop_free(scop);
	lk_strv_release(&cflags);
	return exit_code;
}

/* One line per unit: kernel, status, chain, and why when it failed. */
static void print_units(const struct lk_gen_summary *sum)
{
	size_t i;

	for (i = 0; i < sum->n; i++) {
		const struct lk_gen_unit_report *u = &sum->units[i];

		printf("%-16s %-14s %s%s%s\n", u->kernel, u->status, u->chain,
		       *u->reason ? "  " : "", u->reason);
	}
}

/*
 * Each variant's binary, as 'run -c' and 'campaign' would build it (the
 * same build key, so they find it stored). A compile error is recorded
 * with the build, not an error of gen.
 */
static int build_variants(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const struct lk_sweep *sw,
			  const struct gen_args *a)
{
	struct lk_run_opts ro = {.jobs = (int)a->jobs, .quiet = a->quiet,
				 .build_only = 1, .verbose = lk_cli_verbose};
	struct lk_run_summary sum = {0};
	int ret = lk_run_sweep(ctx, s, campaign, sw, &ro, &sum);

	if (!ret && !a->quiet)
		fprintf(stderr, "loopkit: builds: %ld compiled now, %ld stored "
			"earlier, %ld failed (their logs: loopkit export "
			"--opt-report)\n", sum.built, sum.cached, sum.failed);
	lk_run_summary_release(&sum);
	return ret;
}

static int gen_campaign(struct lk_ctx *ctx, const struct gen_args *a)
{
	const char *dir = a->out_dir ? a->out_dir : LK_STORE_DEFAULT_DIR;
	struct lk_stage_opts go = {.jobs = (int)a->jobs, .quiet = a->quiet,
				   .list_only = a->list,
				   .verbose = lk_cli_verbose,
				   .retry_failed = a->retry_failed};
	struct lk_gen_summary sum = {0};
	struct lk_sweep *sw = NULL;
	struct lk_store *s = NULL;
	int64_t id = 0;
	int ret = lk_sweep_load(ctx, a->config, &sw);

	if (!ret && !sw->gen.present)
		ret = lk_error(ctx, LK_EINPUT, "%s: no 'gen:' section",
			       a->config);
	if (!ret)
		ret = lk_cli_campaign_create(ctx, dir, sw, &s, &id);
	if (!ret)
		ret = lk_gen_campaign(ctx, s, id, sw, &go, &sum);
	if (!ret) {
		print_units(&sum);
		if (!a->quiet && !a->list)
			fprintf(stderr, "loopkit: %zu units: %ld generated, "
				"%ld stored earlier, %ld not generated; %ld "
				"variants; store: %s\n", sum.n, sum.generated,
				sum.skipped, sum.failed, sum.variants, dir);
	}
	if (!ret && !a->list && !a->no_build && sum.variants > 0)
		ret = build_variants(ctx, s, id, sw, a);
	lk_gen_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	return ret;
}

/* Every --param is NAME=INTEGER: 0, else the usage error's exit. */
static int check_params(const struct lk_strv *params)
{
	size_t i;

	for (i = 0; i < params->n; i++) {
		const char *eq = strchr(params->v[i], '=');
		long v;

		if (!eq || eq == params->v[i] || lk_parse_long(eq + 1, &v))
			return lk_cli_usage_error("gen", "--param expects "
						  "NAME=INTEGER, not '%s'",
						  params->v[i]);
	}
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_args a = {.verify_define = "MINI_DATASET"};
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &a.config, "FILE",
		 "a campaign YAML with a 'gen:' section"},
		{'t', "transform", LK_OPT_LIST, &a.transforms, "T",
		 "a transformation chain (repeatable; default original)"},
		{'D', "define", LK_OPT_LIST, &a.defines, "NAME=VAL",
		 "define a macro for parsing and verifying"},
		{'I', "include", LK_OPT_LIST, &a.includes, "DIR",
		 "add an include directory"},
		{0, "param", LK_OPT_LIST, &a.params, "NAME=N",
		 "a size symbol's value for kernelify (a kernel without "
		 "main, or to override what main passes)"},
		{'o', "output", LK_OPT_STRING, &a.out_dir, "DIR",
		 "write the files here (with -c: the campaign directory)"},
		{0, "print", LK_OPT_BOOL, &a.print, NULL,
		 "print the sources even with -o"},
		{0, "no-verify", LK_OPT_BOOL, &a.no_verify, NULL,
		 "do not compile and compare results"},
		{0, "verify-define", LK_OPT_STRING, &a.verify_define, "NAME",
		 "the size macro for verifying (default MINI_DATASET)"},
		{0, "no-build", LK_OPT_BOOL, &a.no_build, NULL,
		 "with -c: store the variants' sources only, no binaries"},
		{0, "list", LK_OPT_BOOL, &a.list, NULL,
		 "with -c: print what would be made, make nothing"},
		{0, "retry-failed", LK_OPT_BOOL, &a.retry_failed, NULL,
		 "with -c: generate units that failed before again"},
		{'j', "jobs", LK_OPT_LONG, &a.jobs, "N",
		 "parallel units (default: CPUs)"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	struct lk_ctx ctx;
	int first, ret;

	first = lk_opts_parse("gen", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	if (a.config && (first < argc || a.transforms.n))
		ret = lk_cli_usage_error("gen", "with -c, kernels and "
					 "transformations come from the "
					 "campaign file");
	else if (!a.config && first != argc - 1)
		ret = lk_cli_usage_error("gen", "expected one KERNEL.c or "
					 "-c CAMPAIGN.yaml");
	else if (!a.config && a.list)
		ret = lk_cli_usage_error("gen", "--list needs -c");
	else if (a.config && a.params.n)
		ret = lk_cli_usage_error("gen", "--param is for one KERNEL.c");
	else if ((ret = check_params(&a.params)))
		;
	else if (a.config)
		ret = gen_campaign(&ctx, &a) ? lk_cli_fail(&ctx) : 0;
	else
		ret = gen_file(&ctx, argv[first], &a);
	lk_strv_release(&a.transforms);
	lk_strv_release(&a.defines);
	lk_strv_release(&a.includes);
	lk_strv_release(&a.params);
	return ret;
}
