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
#include "loopkit/store.h"
#include "loopkit/subprocess.h"
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
	"                       profile, fit load/store latency\n\n"
	"Options go anywhere. Compiler flags go after '--'; without it, an\n"
	"argument after the file that is not an option of memprof is one\n"
	"(-O2 -march=native), and one of memprof's (-o, -n, --json) is\n"
	"memprof's. Times are TSC ticks, so labelled. Formats:\n"
	"doc/memprof-formats.md.";

struct mp_args {
	int json, text, tree, strict, keep;
	const char *out_dir, *name;
	long max_lines;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* gcc with the plugin: the static file into lkmem, an object or a
 * program into output (NULL: compile only, no output kept). */
static int compile(struct lk_ctx *ctx, const char *source, char **cflags,
		   int ncflags, const char *lkmem, const char *instrument,
		   const char *output)
{
	struct lk_strv argv = LK_STRV_INIT, flags = LK_STRV_INIT;
	struct lk_cc_line line = {.compiler = "gcc", .flags = &flags,
				  .sources = &source, .nsources = 1,
				  .output = output ? output : "/dev/null",
				  .compile_only = !output};
	struct lk_proc_opts o = {.timeout = 300, .result_fd = -1,
				 .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result r;
	int i, ret;

	lk_strv_pushf(&flags, "-fplugin=%s", lk_plugin_path());
	lk_strv_pushf(&flags, "-fplugin-arg-lkmemprof-out=%s", lkmem);
	lk_strv_pushf(&flags, "-fplugin-arg-lkmemprof-instrument=%s",
		      instrument);
	for (i = 0; i < ncflags; i++)
		lk_strv_push(&flags, cflags[i]);
	lk_cc_argv(&line, &argv);
	lk_strv_release(&flags);
	o.argv = (const char *const *)argv.v;
	ret = lk_proc_run(ctx, &o, &r);
	if (!ret && !lk_proc_ok(&r)) {
		char *err = lk_compiler_error(r.out);

		ret = lk_error(ctx, LK_EINPUT, "%s: compile failed%s%s",
			       source, err ? ": " : "", err ? err : "");
		free(err);
	}
	lk_proc_result_release(&r);
	lk_strv_release(&argv);
	return ret;
}

static int read_static(struct lk_ctx *ctx, const char *path,
		       struct lk_mem_static *st)
{
	char *text = NULL;
	size_t len;
	int ret = lk_file_read(ctx, path, &text, &len);

	if (!ret)
		ret = lk_mem_static_parse(ctx, path, text, len, st);
	free(text);
	return ret;
}

static char *scratch_dir(struct lk_ctx *ctx)
{
	char tmpl[] = "/tmp/loopkit-memprof.XXXXXX";

	if (!mkdtemp(tmpl)) {
		lk_error_errno(ctx, "mkdtemp");
		return NULL;
	}
	return lk_strdup(tmpl);
}

static void remove_dir(const char *dir, const char *const *files)
{
	size_t i;

	for (i = 0; files[i]; i++) {
		char *p = lk_path_join(dir, files[i]);

		unlink(p);
		free(p);
	}
	rmdir(dir);
}

static int do_static(struct lk_ctx *ctx, const struct mp_args *a, int argc,
		     char **argv)
{
	static const char *const files[] = {"static.lkmem",
					    "static.lkmem.txt", NULL};
	struct lk_mem_static st = {0};
	struct lk_buf out = LK_BUF_INIT;
	char *dir = NULL, *lkmem = NULL;
	int ret;

	if (ends_with(argv[0], ".lkmem")) {
		ret = read_static(ctx, argv[0], &st);
	} else {
		if (!(dir = scratch_dir(ctx)))
			return LK_ESYS;
		lkmem = lk_path_join(dir, "static.lkmem");
		ret = compile(ctx, argv[0], argv + 1, argc - 1, lkmem, "none",
			      NULL);
		if (!ret)
			ret = read_static(ctx, lkmem, &st);
		remove_dir(dir, files);
	}
	if (!ret) {
		if (a->json)
			lk_mem_static_json(&st, &out);
		else
			lk_mem_static_readable(&st, &out);
		fputs(lk_buf_str(&out), stdout);
	}
	lk_buf_release(&out);
	lk_mem_static_release(&st);
	free(lkmem);
	free(dir);
	return ret;
}

static int load_trace(struct lk_ctx *ctx, const struct mp_args *a,
		      const char *path, struct lk_trace *t)
{
	struct lk_buf warnings = LK_BUF_INIT;
	int ret = lk_trace_load(ctx, path, a->strict, t, &warnings);

	if (warnings.len)
		fputs(lk_buf_str(&warnings), stderr);
	if (!ret && !t->ncalls)
		ret = lk_error(ctx, LK_EINPUT, "%s: no calls in the trace",
			       path);
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

/* ---- run: compile, run, profile, correlate. ---- */

static const struct lk_mem_func *find_func(const struct lk_mem_static *st,
					   const char *name)
{
	size_t i;

	for (i = 0; i < st->nfuncs; i++)
		if (!strcmp(st->funcs[i].name, name))
			return &st->funcs[i];
	return NULL;
}

static void print_row(const struct lk_func_profile *f,
		      const struct lk_mem_totals *t, const double *residual)
{
	char loads[48], stores[48], res[32] = "";

	if (t && t->numeric) {
		snprintf(loads, sizeof(loads), "%.0f", t->loads);
		snprintf(stores, sizeof(stores), "%.0f", t->stores);
	} else {
		snprintf(loads, sizeof(loads), "%.40s",
			 t ? t->sym_loads : "?");
		snprintf(stores, sizeof(stores), "%.40s",
			 t ? t->sym_stores : "?");
	}
	if (residual)
		snprintf(res, sizeof(res), "%+.1f", *residual);
	printf("%-24s %8ld %12s %12s %14.1f %10s\n", f->name, f->calls,
	       loads, stores, f->mean_self, res);
}

static size_t collect_obs(const struct lk_mem_static *st,
			  const struct lk_func_profile *p, size_t n,
			  struct lk_mem_totals *tot, struct lk_mem_obs *obs,
			  size_t *which)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct lk_mem_func *f = find_func(st, p[i].name);

		memset(&tot[i], 0, sizeof(tot[i]));
		if (!f)
			continue;
		lk_mem_func_totals(f, &tot[i]);
		/* A function without memory operations says nothing about
		 * their cost; its own work (main's loop) would only bend
		 * the constant. Symbolic counts have no number to fit. */
		if (!tot[i].numeric || !p[i].calls ||
		    tot[i].loads + tot[i].stores == 0)
			continue;
		obs[k] = (struct lk_mem_obs){p[i].name, tot[i].loads,
					     tot[i].stores, p[i].mean_self};
		which[k++] = i;
	}
	return k;
}

static void print_fit(const struct lk_mem_fit *fit)
{
	printf("\nload/store latency (TSC ticks per operation)\n");
	printf("  Cramer's rule, %ld pairs: load %.2f (sd %.2f), "
	       "store %.2f (sd %.2f)\n", fit->pairs, fit->cramer_load,
	       fit->cramer_load_sd, fit->cramer_store, fit->cramer_store_sd);
	printf("  least squares, %zu functions: load %.2f (se %.2f), "
	       "store %.2f (se %.2f), constant %.1f; R^2 %.4f, RMSE %.2f\n",
	       fit->n, fit->lsq_load, fit->lsq_load_se, fit->lsq_store,
	       fit->lsq_store_se, fit->lsq_const, fit->r2, fit->rmse);
}

/* The static counts joined with the profile, and the fit over them. */
struct joined {
	struct lk_mem_totals *tot;   /* per profiled function */
	size_t *which;               /* observation k is function which[k] */
	size_t k;
	struct lk_mem_fit fit;
	int fit_ret;
};

static void join(struct lk_ctx *ctx, const struct lk_mem_static *st,
		 const struct lk_func_profile *p, size_t n, struct joined *j)
{
	struct lk_mem_obs *obs = lk_calloc(n + 1, sizeof(*obs));

	j->tot = lk_calloc(n + 1, sizeof(*j->tot));
	j->which = lk_calloc(n + 1, sizeof(*j->which));
	j->k = collect_obs(st, p, n, j->tot, obs, j->which);
	j->fit_ret = lk_mem_fit(ctx, obs, j->k, &j->fit);
	free(obs);
}

static const double *residual_of(const struct joined *j, size_t i)
{
	size_t k;

	for (k = 0; !j->fit_ret && k < j->k; k++)
		if (j->which[k] == i)
			return &j->fit.residuals[k];
	return NULL;
}

static void print_joined(const struct lk_mem_static *st,
			 const struct lk_func_profile *p, size_t n,
			 const struct joined *j)
{
	size_t i;

	printf("%-24s %8s %12s %12s %14s %10s\n", "function", "calls",
	       "loads/call", "stores/call", "self/call", "residual");
	for (i = 0; i < n; i++)
		print_row(&p[i], find_func(st, p[i].name) ? &j->tot[i] : NULL,
			  residual_of(j, i));
	if (!j->fit_ret)
		print_fit(&j->fit);
}

static void joined_release(struct joined *j, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		lk_mem_totals_release(&j->tot[i]);
	free(j->tot);
	free(j->which);
	lk_mem_fit_release(&j->fit);
}

static char *fit_json(const struct lk_mem_fit *f)
{
	return lk_asprintf(
		"{\"pairs\":%ld,\"cramer_load\":%.6g,\"cramer_load_sd\":"
		"%.6g,\"cramer_store\":%.6g,\"cramer_store_sd\":%.6g,"
		"\"lsq_load\":%.6g,\"lsq_load_se\":%.6g,\"lsq_store\":"
		"%.6g,\"lsq_store_se\":%.6g,\"lsq_const\":%.6g,\"r2\":%.6g,"
		"\"rmse\":%.6g,\"functions\":%zu,\"unit\":\"tsc-ticks\"}",
		f->pairs, f->cramer_load, f->cramer_load_sd, f->cramer_store,
		f->cramer_store_sd, f->lsq_load, f->lsq_load_se, f->lsq_store,
		f->lsq_store_se, f->lsq_const, f->r2, f->rmse, f->n);
}
static int run_program(struct lk_ctx *ctx, const char *bin, const char *trace)
{
	const char *argv[] = {bin, NULL};
	struct lk_strv env = LK_STRV_INIT;
	struct lk_proc_opts o = {.argv = argv, .timeout = 600,
				 .result_fd = -1};
	struct lk_proc_result r;
	extern char **environ;
	char **e;
	int ret;

	for (e = environ; *e; e++)
		if (strncmp(*e, "LK_PROF_OUT=", 12))
			lk_strv_push(&env, *e);
	lk_strv_pushf(&env, "LK_PROF_OUT=%s", trace);
	o.envp = (const char *const *)env.v;
	ret = lk_proc_run(ctx, &o, &r);
	if (!ret && !lk_proc_ok(&r)) {
		char *why = lk_proc_describe(&r, o.timeout);

		ret = lk_error(ctx, LK_ECHILD, "the instrumented program "
			       "failed (%s)", why);
		free(why);
	}
	if (!ret && r.err_len)
		fputs(r.err, stderr);
	lk_proc_result_release(&r);
	lk_strv_release(&env);
	return ret;
}

static void func_rec(const struct lk_func_profile *p,
		     const struct lk_mem_totals *t, const double *residual,
		     struct lk_memprof_func_rec *r, struct lk_strv *pool)
{
	*r = (struct lk_memprof_func_rec){
		p->name, p->calls, (double)p->total, (double)p->self,
		(double)p->min_self, (double)p->max_self, p->mean_self,
		NULL, NULL, residual != NULL, residual ? *residual : 0};
	if (!t)
		return;
	if (t->numeric) {
		lk_strv_pushf(pool, "%.0f", t->loads);
		r->loads = pool->v[pool->n - 1];
		lk_strv_pushf(pool, "%.0f", t->stores);
	} else {
		lk_strv_push(pool, t->sym_loads);
		r->loads = pool->v[pool->n - 1];
		lk_strv_push(pool, t->sym_stores);
	}
	r->stores = pool->v[pool->n - 1];
}

/* The run, in the campaign store: "memprof:<file>" unless --name. */
static int store_run(struct lk_ctx *ctx, const struct mp_args *a,
		     char **argv, int argc, const struct lk_trace *t,
		     const struct lk_mem_static *st,
		     const struct lk_func_profile *p, size_t n,
		     const struct joined *j)
{
	struct lk_memprof_func_rec *f = lk_calloc(n + 1, sizeof(*f));
	struct lk_strv pool = LK_STRV_INIT, flags = LK_STRV_INIT;
	struct lk_memprof_rec rec = {.program = argv[0], .calls =
				     (long)t->ncalls, .tsc_hz =
				     (double)t->tsc_hz, .funcs = f,
				     .nfuncs = n};
	char hash[LK_HASH_HEX] = "", *data = NULL, *fit = NULL, *cflags;
	char *campaign = lk_asprintf("memprof:%s", a->name ? a->name :
				     argv[0]);
	struct lk_store *s = NULL;
	int64_t cid, id;
	size_t len, i;
	int ret;

	for (i = 1; i < (size_t)argc; i++)
		lk_strv_push(&flags, argv[i]);
	cflags = lk_strv_join(&flags, " ");
	if (!lk_file_read(ctx, argv[0], &data, &len))
		lk_hash_buf(data, len, hash);
	for (i = 0; i < n; i++)
		func_rec(&p[i], find_func(st, p[i].name) ? &j->tot[i] : NULL,
			 residual_of(j, i), &f[i], &pool);
	if (!j->fit_ret)
		fit = fit_json(&j->fit);
	rec.program_hash = hash;
	rec.cflags = cflags;
	rec.fit = fit;
	ret = lk_store_open(ctx, a->out_dir, 1, &s);
	if (!ret)
		ret = lk_store_campaign(ctx, s, campaign, NULL, NULL, &cid);
	if (!ret)
		ret = lk_store_memprof_put(ctx, s, cid, &rec, &id);
	lk_store_close(s);
	free(f);
	free(fit);
	free(data);
	free(cflags);
	free(campaign);
	lk_strv_release(&pool);
	lk_strv_release(&flags);
	return ret;
}

static int do_run(struct lk_ctx *ctx, const struct mp_args *a, int argc,
		  char **argv)
{
	static const char *const files[] = {"prog", "prog.lkmem",
					    "prog.lkmem.txt", "trace", NULL};
	struct lk_mem_static st = {0};
	struct lk_trace t = {0};
	struct lk_call_node *nodes = NULL;
	struct lk_func_profile *p = NULL;
	struct lk_buf flat = LK_BUF_INIT;
	struct joined j;
	char *dir = scratch_dir(ctx), *bin, *lkmem, *trace;
	size_t n = 0;
	int ret;

	if (!dir)
		return LK_ESYS;
	bin = lk_path_join(dir, "prog");
	lkmem = lk_path_join(dir, "prog.lkmem");
	trace = lk_path_join(dir, "trace");
	ret = compile(ctx, argv[0], argv + 1, argc - 1, lkmem, "all", bin);
	if (!ret)
		ret = run_program(ctx, bin, trace);
	if (!ret)
		ret = read_static(ctx, lkmem, &st);
	if (!ret)
		ret = load_trace(ctx, a, trace, &t);
	if (!ret)
		ret = profile(ctx, &t, &nodes, &p, &n);
	if (!ret) {
		struct lk_ctx fit_ctx;

		lk_ctx_init(&fit_ctx);
		lk_profile_flat(p, n, &flat);
		printf("%s\n", lk_buf_str(&flat));
		join(&fit_ctx, &st, p, n, &j);
		print_joined(&st, p, n, &j);
		if (j.fit_ret)
			printf("\nno latency fit: %s\n", fit_ctx.msg);
		ret = store_run(ctx, a, argv, argc, &t, &st, p, n, &j);
		joined_release(&j, n);
	}
	if (a->keep)
		fprintf(stderr, "loopkit: kept %s\n", dir);
	else
		remove_dir(dir, files);
	lk_buf_release(&flat);
	free(nodes);
	free(p);
	lk_trace_release(&t);
	lk_mem_static_release(&st);
	free(bin);
	free(lkmem);
	free(trace);
	free(dir);
	return ret;
}

static int dispatch(struct lk_ctx *ctx, const char *sub,
		    const struct mp_args *a, int argc, char **argv)
{
	int need_plugin = !strcmp(sub, "run") ||
			  (!strcmp(sub, "static") && argc &&
			   !ends_with(argv[0], ".lkmem"));

	int ret;

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
