/*
 * The whole memprof run of a program: compile it with the GCC plugin
 * (static counts, entry/exit instrumentation), run it with its trace in
 * a scratch directory, profile the trace, join the profile with the
 * static counts and fit load/store latency.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/memprof.h"
#include "loopkit/subprocess.h"
#include "loopkit/toolchain.h"

/* gcc with the plugin: the static file into lkmem, an object or a
 * program into output (NULL: compile only, no output kept). */
static int compile(struct lk_ctx *ctx, const char *source,
		   const char *const *cflags, size_t ncflags,
		   const char *lkmem, const char *instrument,
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
	size_t i;
	int ret;

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

int lk_mem_static_load(struct lk_ctx *ctx, const char *path,
		       struct lk_mem_static *out)
{
	char *text = NULL;
	size_t len;
	int ret = lk_file_read(ctx, path, &text, &len);

	if (!ret)
		ret = lk_mem_static_parse(ctx, path, text, len, out);
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

int lk_mem_static_compile(struct lk_ctx *ctx, const char *source,
			  const char *const *cflags, size_t ncflags,
			  struct lk_mem_static *out)
{
	static const char *const files[] = {"static.lkmem",
					    "static.lkmem.txt", NULL};
	char *dir = scratch_dir(ctx), *lkmem;
	int ret;

	if (!dir)
		return LK_ESYS;
	lkmem = lk_path_join(dir, "static.lkmem");
	ret = compile(ctx, source, cflags, ncflags, lkmem, "none", NULL);
	if (!ret)
		ret = lk_mem_static_load(ctx, lkmem, out);
	remove_dir(dir, files);
	free(lkmem);
	free(dir);
	return ret;
}

int lk_memprof_trace_load(struct lk_ctx *ctx, const char *path, int strict,
			  struct lk_trace *out, struct lk_buf *warnings)
{
	int ret = lk_trace_load(ctx, path, strict, out, warnings);

	if (!ret && !out->ncalls)
		ret = lk_error(ctx, LK_EINPUT, "%s: no calls in the trace",
			       path);
	return ret;
}

/* The program's stderr goes to messages when it succeeds. */
static int run_program(struct lk_ctx *ctx, const char *bin, const char *trace,
		       struct lk_buf *messages)
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
		lk_buf_add(messages, r.err, r.err_len);
	lk_proc_result_release(&r);
	lk_strv_release(&env);
	return ret;
}

static const struct lk_mem_func *find_func(const struct lk_mem_static *st,
					   const char *name)
{
	size_t i;

	for (i = 0; i < st->nfuncs; i++)
		if (!strcmp(st->funcs[i].name, name))
			return &st->funcs[i];
	return NULL;
}

/* The rows, and the observations of the fit (which[k]: their row). */
static size_t join_rows(struct lk_memprof_result *r, struct lk_mem_obs *obs,
			size_t *which)
{
	size_t i, k = 0;

	r->rows = lk_calloc(r->n + 1, sizeof(*r->rows));
	for (i = 0; i < r->n; i++) {
		const struct lk_func_profile *p = &r->prof[i];
		const struct lk_mem_func *f = find_func(&r->st, p->name);
		struct lk_memprof_row *row = &r->rows[i];

		row->prof = p;
		if (!f)
			continue;
		row->seen = 1;
		lk_mem_func_totals(f, &row->totals);
		/* A function without memory operations says nothing about
		 * their cost; its own work (main's loop) would only bend
		 * the constant. Symbolic counts have no number to fit. */
		if (!row->totals.numeric || !p->calls ||
		    row->totals.loads + row->totals.stores == 0)
			continue;
		obs[k] = (struct lk_mem_obs){p->name, row->totals.loads,
					     row->totals.stores, p->mean_self};
		which[k++] = i;
	}
	return k;
}

static void join_and_fit(struct lk_memprof_result *r)
{
	struct lk_mem_obs *obs = lk_calloc(r->n + 1, sizeof(*obs));
	size_t *which = lk_calloc(r->n + 1, sizeof(*which));
	size_t k = join_rows(r, obs, which), i;
	struct lk_ctx fit_ctx;

	lk_ctx_init(&fit_ctx);
	r->has_fit = !lk_mem_fit(&fit_ctx, obs, k, &r->fit);
	r->no_fit = lk_strdup(r->has_fit ? "" : fit_ctx.msg);
	for (i = 0; r->has_fit && i < k; i++) {
		r->rows[which[i]].has_residual = 1;
		r->rows[which[i]].residual = r->fit.residuals[i];
	}
	free(which);
	free(obs);
}

static int profile(struct lk_ctx *ctx, struct lk_memprof_result *r)
{
	int ret = lk_calltree_build(ctx, &r->trace, &r->nodes);

	if (!ret)
		ret = lk_profile_build(ctx, &r->trace, r->nodes, &r->prof,
				       &r->n);
	return ret;
}

static int compile_run_read(struct lk_ctx *ctx, const char *source,
			    const struct lk_memprof_opts *o,
			    struct lk_memprof_result *r)
{
	char *bin = lk_path_join(r->dir, "prog");
	char *lkmem = lk_path_join(r->dir, "prog.lkmem");
	char *trace = lk_path_join(r->dir, "trace");
	int ret = compile(ctx, source, o->cflags, o->ncflags, lkmem, "all",
			  bin);

	if (!ret)
		ret = run_program(ctx, bin, trace, &r->messages);
	if (!ret)
		ret = lk_mem_static_load(ctx, lkmem, &r->st);
	if (!ret)
		ret = lk_memprof_trace_load(ctx, trace, o->strict, &r->trace,
					    &r->messages);
	free(bin);
	free(lkmem);
	free(trace);
	return ret;
}

int lk_memprof_run(struct lk_ctx *ctx, const char *source,
		   const struct lk_memprof_opts *o,
		   struct lk_memprof_result *r)
{
	static const char *const files[] = {"prog", "prog.lkmem",
					    "prog.lkmem.txt", "trace", NULL};
	int ret;

	memset(r, 0, sizeof(*r));
	lk_buf_init(&r->messages);
	if (!(r->dir = scratch_dir(ctx)))
		return LK_ESYS;
	ret = compile_run_read(ctx, source, o, r);
	if (!ret)
		ret = profile(ctx, r);
	if (!ret)
		join_and_fit(r);
	if (!o->keep)
		remove_dir(r->dir, files);
	return ret;
}

void lk_memprof_result_release(struct lk_memprof_result *r)
{
	size_t i;

	for (i = 0; r->rows && i < r->n; i++)
		lk_mem_totals_release(&r->rows[i].totals);
	free(r->rows);
	lk_mem_fit_release(&r->fit);
	free(r->no_fit);
	free(r->prof);
	free(r->nodes);
	lk_trace_release(&r->trace);
	lk_mem_static_release(&r->st);
	lk_buf_release(&r->messages);
	free(r->dir);
	memset(r, 0, sizeof(*r));
}
