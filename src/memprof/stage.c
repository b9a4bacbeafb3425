/*
 * memprof in the store: one run of a program with its functions, and the
 * campaign stage that profiles every program of the memprof: section,
 * skipping those already stored under the same key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/config.h"
#include "loopkit/memprof.h"
#include "loopkit/store.h"
#include "loopkit/toolchain.h"

static void func_rec(const struct lk_memprof_row *row,
		     struct lk_memprof_func_rec *r, struct lk_strv *pool)
{
	const struct lk_func_profile *p = row->prof;
	const struct lk_mem_totals *t = &row->totals;

	*r = (struct lk_memprof_func_rec){
		p->name, p->calls, (double)p->total, (double)p->self,
		(double)p->min_self, (double)p->max_self, p->mean_self,
		NULL, NULL, row->has_residual, row->residual};
	if (!row->seen)
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

/* The hash of the program's content, "" when it cannot be read. */
static void program_hash(const char *path, char hash[LK_HASH_HEX])
{
	struct lk_ctx quiet;
	char *data = NULL;
	size_t len;

	lk_ctx_init(&quiet);
	hash[0] = '\0';
	if (!lk_file_read(&quiet, path, &data, &len))
		lk_hash_buf(data, len, hash);
	free(data);
}

int lk_memprof_store(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, const struct lk_memprof_source *src,
		     const struct lk_memprof_result *r, int64_t *id)
{
	struct lk_memprof_func_rec *f = lk_calloc(r->n + 1, sizeof(*f));
	struct lk_strv pool = LK_STRV_INIT;
	char hash[LK_HASH_HEX];
	struct lk_memprof_rec rec = {
		.program = src->program, .program_hash = hash,
		.cflags = src->cflags, .calls = (long)r->trace.ncalls,
		.tsc_hz = (double)r->trace.tsc_hz, .funcs = f, .nfuncs = r->n,
		.fit = lk_memprof_fit_json(r), .stage_key = src->stage_key,
		.status = src->stage_key ? "ok" : NULL};
	size_t i;
	int ret;

	program_hash(src->path, hash);
	for (i = 0; i < r->n; i++)
		func_rec(&r->rows[i], &f[i], &pool);
	ret = lk_store_memprof_put(ctx, s, campaign, &rec, id);
	free((char *)rec.fit);
	free(f);
	lk_strv_release(&pool);
	return ret;
}

/* ---- The campaign stage. ---- */

/* One program of the stage. */
struct program {
	const char *name;       /* as written: what the store records */
	const char *path;       /* absolute */
	char key[LK_HASH_HEX];
	struct lk_stage_item *item;
};

struct stage {
	struct lk_ctx *ctx;
	struct lk_store *s;
	int64_t campaign;
	const struct lk_memprof_cfg *cfg;
	const struct lk_stage_opts *opts;
	struct lk_stage_summary *sum;
	char *cflags;           /* space-joined, as stored */
	char plugin_hash[LK_HASH_HEX];
	struct lk_buf figures;  /* one indented line per program run now */
};

/* The key: the program's name and content, the flags, the plugin. */
static int program_key(struct stage *st, struct program *p)
{
	char content[LK_HASH_HEX];
	struct lk_hash h;
	size_t i;
	int ret = lk_binary_hash(st->ctx, p->path, content);

	if (ret)
		return ret;
	lk_hash_init(&h);
	lk_hash_add_str(&h, "memprof-stage 1");
	lk_hash_add_str(&h, p->name);
	lk_hash_add_str(&h, content);
	for (i = 0; i < st->cfg->cflags.n; i++)
		lk_hash_add_str(&h, st->cfg->cflags.v[i]);
	lk_hash_add_str(&h, st->plugin_hash);
	lk_hash_final(&h, p->key);
	return 0;
}

/* 1 when the program is stored and not to be tried again. */
static int stored_earlier(struct stage *st, struct program *p)
{
	char *status = NULL, *reason = NULL;
	int ret = lk_store_memprof_find(st->ctx, st->s, st->campaign, p->key,
					&status, &reason);

	if (ret == 1 && strcmp(status, "ok") && st->opts->retry_failed)
		ret = 0;
	if (ret == 1) {
		int ok = !strcmp(status, "ok");

		lk_stage_item_set(p->item, ok ? "stored" : status, reason);
		st->sum->earlier += ok;
		st->sum->failed += !ok;
	}
	free(status);
	free(reason);
	return ret;
}

static int store_failure(struct stage *st, const struct program *p,
			 const char *reason)
{
	char hash[LK_HASH_HEX];
	struct lk_memprof_rec rec = {
		.program = p->name, .program_hash = hash,
		.cflags = st->cflags, .stage_key = p->key,
		.status = "failed", .reason = reason};
	int64_t id;

	program_hash(p->path, hash);
	lk_stage_item_set(p->item, "failed", reason);
	st->sum->failed++;
	if (!st->opts->quiet)
		fprintf(stderr, "memprof: %s: failed: %s\n", p->name, reason);
	return lk_store_memprof_put(st->ctx, st->s, st->campaign, &rec, &id);
}

static void add_figures(struct stage *st, const struct program *p,
			const struct lk_memprof_result *r)
{
	const struct lk_mem_fit *f = &r->fit;

	if (r->has_fit)
		lk_buf_addf(&st->figures, "\n%9s%s: load %.2f, store %.2f "
			    "TSC ticks per operation (least squares over %zu "
			    "functions, R^2 %.4f)", "", p->name, f->lsq_load,
			    f->lsq_store, f->n, f->r2);
	else
		lk_buf_addf(&st->figures, "\n%9s%s: no latency fit (%s)", "",
			    p->name, r->no_fit);
}

/* A failure of the program (compile, run, trace) is the unit's; one of
 * the system or the store is the stage's. */
static int unit_failure(int ret)
{
	return ret == LK_EINPUT || ret == LK_ECHILD;
}

static int profile_program(struct stage *st, struct program *p)
{
	struct lk_memprof_opts o = {
		.cflags = (const char *const *)st->cfg->cflags.v,
		.ncflags = st->cfg->cflags.n, .strict = st->cfg->strict};
	struct lk_memprof_source src = {p->name, p->path, st->cflags, p->key};
	struct lk_memprof_result r;
	struct lk_ctx unit;
	int64_t id;
	int ret;

	lk_ctx_init(&unit);
	ret = lk_memprof_run(&unit, p->path, &o, &r);
	if (st->opts->verbose && r.messages.len)
		fputs(lk_buf_str(&r.messages), stderr);
	if (!ret) {
		ret = lk_memprof_store(st->ctx, st->s, st->campaign, &src, &r,
				       &id);
		if (!ret) {
			lk_stage_item_set(p->item, "ok", "");
			st->sum->done++;
			add_figures(st, p, &r);
		}
	} else if (unit_failure(ret)) {
		ret = store_failure(st, p, unit.msg);
	} else {
		ret = lk_error(st->ctx, ret, "%s", unit.msg);
	}
	lk_memprof_result_release(&r);
	return ret;
}

static int stage_program(struct stage *st, struct program *p)
{
	int ret = program_key(st, p);

	if (!ret)
		ret = stored_earlier(st, p);
	if (ret == 0)
		ret = profile_program(st, p);
	return ret < 0 ? ret : 0;
}

static int check_plugin(struct stage *st)
{
	if (access(lk_plugin_path(), R_OK))
		return lk_error(st->ctx, LK_EUNSUP, "the GCC plugin %s is not "
				"built (needs gcc-12-plugin-dev: make deps, "
				"then make)", lk_plugin_path());
	return lk_binary_hash(st->ctx, lk_plugin_path(), st->plugin_hash);
}

static void items_init(struct lk_stage_summary *sum,
		       const struct lk_strv *names)
{
	size_t i;

	sum->items = lk_calloc(names->n + 1, sizeof(*sum->items));
	sum->n = names->n;
	for (i = 0; i < names->n; i++) {
		sum->items[i].label = lk_strdup(names->v[i]);
		lk_stage_item_set(&sum->items[i], "pending", "");
	}
}

static int run_programs(struct stage *st, const struct lk_strv *paths,
			const struct lk_strv *names)
{
	size_t i;
	int ret = check_plugin(st);

	items_init(st->sum, names);
	for (i = 0; !ret && i < paths->n; i++) {
		struct program p = {names->v[i], paths->v[i], "",
				    &st->sum->items[i]};

		if (!st->opts->quiet)
			fprintf(stderr, "memprof: [%zu/%zu] %s\n", i + 1,
				paths->n, p.name);
		ret = stage_program(st, &p);
	}
	return ret;
}

int lk_memprof_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum)
{
	const struct lk_memprof_cfg *m = &cfg->memprof;
	struct stage st = {ctx, s, campaign, m, opts, sum, NULL, "",
			   LK_BUF_INIT};
	int own = m->programs.n > 0;
	int ret;

	if (!m->given) {
		sum->line = lk_strdup("nothing to do: the file has no "
				      "memprof: section");
		return 0;
	}
	st.cflags = lk_strv_join(&m->cflags, " ");
	ret = run_programs(&st, own ? &m->programs : &cfg->sources,
			   own ? &m->program_names : &cfg->source_names);
	if (!ret)
		sum->line = lk_asprintf("%zu program%s: %ld profiled now, "
					"%ld stored earlier, %ld failed%s",
					sum->n, sum->n == 1 ? "" : "s",
					sum->done, sum->earlier, sum->failed,
					lk_buf_str(&st.figures));
	lk_buf_release(&st.figures);
	free(st.cflags);
	return ret;
}
