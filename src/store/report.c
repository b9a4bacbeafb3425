/*
 * What loopkit report reads: a campaign's variants with the results of
 * their latest ok run, the lifted predictions and the filter verdicts.
 * All read in one snapshot by the caller's transaction, if it wants one.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int lk_store_report_campaign_names(struct lk_ctx *ctx, struct lk_store *s,
				   struct lk_strv *names)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, "SELECT name FROM campaigns"
				    " ORDER BY id", &st);

	if (ret)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		lk_strv_push_take(names, store_column_dup(st, 0));
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot list the campaigns");
	sqlite3_finalize(st);
	return ret;
}

static int campaign_not_found(struct lk_ctx *ctx, struct lk_store *s,
			      const char *name)
{
	struct lk_strv names = LK_STRV_INIT;
	char *list;
	int ret = lk_store_report_campaign_names(ctx, s, &names);

	if (ret)
		return ret;
	list = lk_strv_join(&names, ", ");
	ret = lk_error(ctx, LK_ENOTFOUND, "no campaign '%s' in %s; %s%s",
		       name, s->dir, names.n ? "campaigns: " :
		       "the store has no campaigns", list);
	free(list);
	lk_strv_release(&names);
	return ret;
}

int lk_store_report_find_campaign(struct lk_ctx *ctx, struct lk_store *s,
				  const char *name, int64_t *id)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "SELECT id FROM campaigns"
				" WHERE name = ?1", &st);

	if (ret)
		return ret;
	if (store_bind_text(st, 1, name))
		ret = store_fail(ctx, s, "cannot bind campaign");
	else
		ret = store_step_id(ctx, s, st, "cannot look up the campaign",
				    id);
	sqlite3_finalize(st);
	if (ret > 0)
		ret = campaign_not_found(ctx, s, name);
	return ret;
}

/*
 * The latest ok run's id (NULL: none) and the latest run's status and
 * reason, whatever it was.
 */
static void variants_free(struct lk_variant_measure *rows, size_t n);
static void lifted_free(struct lk_report_lifted *rows, size_t n);
static void verdicts_free(struct lk_report_verdict *rows, size_t n);

static const char variants_sql[] =
	"SELECT v.id, v.hash, v.source, v.compiler, v.flagset,"
	" (SELECT id FROM runs WHERE variant_id = v.id AND status = 'ok'"
	"  ORDER BY finished DESC, id DESC LIMIT 1),"
	" r.status, r.reason"
	" FROM variants v"
	" LEFT JOIN runs r ON r.id = (SELECT id FROM runs"
	"  WHERE variant_id = v.id ORDER BY finished DESC, id DESC LIMIT 1)"
	" WHERE v.campaign_id = ?1 ORDER BY v.id";

static const char params_sql[] =
	"SELECT name, value FROM variant_params WHERE variant_id = ?1"
	" ORDER BY position";

static const char results_sql[] =
	"SELECT region, metric, source, unit, value, reducer, n, spread,"
	" flags, is_primary FROM results WHERE run_id = ?1"
	" ORDER BY position";

static int load_params(struct lk_ctx *ctx, struct lk_store *s,
		       sqlite3_stmt *st, struct lk_variant_measure *v)
{
	size_t alloc = 0;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, v->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(v->params, v->nparams + 1, alloc);
		v->params[v->nparams].name = store_column_dup(st, 0);
		v->params[v->nparams++].value = store_column_dup(st, 1);
	}
	if (rc != SQLITE_DONE)
		return store_fail(ctx, s, "cannot read the parameters of "
				  "variant %lld", (long long)v->id);
	return 0;
}

static int load_results(struct lk_ctx *ctx, struct lk_store *s,
			sqlite3_stmt *st, int64_t run,
			struct lk_variant_measure *v)
{
	size_t alloc = 0;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(v->results, v->nresults + 1, alloc);
		store_result_read(st, &v->results[v->nresults++]);
	}
	if (rc != SQLITE_DONE)
		return store_fail(ctx, s, "cannot read the results of run "
				  "%lld", (long long)run);
	return 0;
}

/* One row of variants_sql into v (zeroed), its params and results too. */
static int read_variant(struct lk_ctx *ctx, struct lk_store *s,
			sqlite3_stmt *st, sqlite3_stmt *pst,
			sqlite3_stmt *rst, struct lk_variant_measure *v)
{
	int64_t ok_run = sqlite3_column_int64(st, 5);
	int ret;

	v->id = sqlite3_column_int64(st, 0);
	v->hash = store_column_dup(st, 1);
	v->source = store_column_dup(st, 2);
	v->compiler = store_column_dup(st, 3);
	v->flagset = store_column_dup(st, 4);
	if (ok_run) {
		v->status = lk_strdup("ok");
		v->reason = lk_strdup("");
	} else if (sqlite3_column_type(st, 6) == SQLITE_NULL) {
		v->status = lk_strdup("pending");
		v->reason = lk_strdup("");
	} else {
		v->status = store_column_dup(st, 6);
		v->reason = store_column_dup(st, 7);
	}
	ret = load_params(ctx, s, pst, v);
	if (!ret && ok_run)
		ret = load_results(ctx, s, rst, ok_run, v);
	return ret;
}

static int read_variants(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, struct lk_variant_measure **rows,
			 size_t *n)
{
	sqlite3_stmt *st = NULL, *pst = NULL, *rst = NULL;
	struct lk_variant_measure *v = NULL;
	size_t nv = 0, alloc = 0;
	int ret, rc = SQLITE_DONE;

	*rows = NULL;
	*n = 0;
	ret = store_prepare(ctx, s, variants_sql, &st);
	if (!ret)
		ret = store_prepare(ctx, s, params_sql, &pst);
	if (!ret)
		ret = store_prepare(ctx, s, results_sql, &rst);
	if (!ret)
		sqlite3_bind_int64(st, 1, campaign);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(v, nv + 1, alloc);
		memset(&v[nv], 0, sizeof(v[nv]));
		ret = read_variant(ctx, s, st, pst, rst, &v[nv++]);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot list the variants of "
				 "campaign %lld", (long long)campaign);
	sqlite3_finalize(st);
	sqlite3_finalize(pst);
	sqlite3_finalize(rst);
	if (ret) {
		variants_free(v, nv);
		return ret;
	}
	*rows = v;
	*n = nv;
	return 0;
}

static void variants_free(struct lk_variant_measure *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		struct lk_variant_measure *v = &rows[i];

		free(v->hash);
		free(v->source);
		free(v->compiler);
		free(v->flagset);
		free(v->status);
		free(v->reason);
		for (size_t j = 0; j < v->nparams; j++) {
			free((char *)v->params[j].name);
			free((char *)v->params[j].value);
		}
		free(v->params);
		lk_result_rows_free(v->results, v->nresults);
	}
	free(rows);
}

/* The lifted rows, and the variant predictions made of one block (an
 * asm variant's body times its copies per call: migration 10), as
 * rows of their own analyzer, per kernel call. */
static const char lifted_sql[] =
	"SELECT l.variant_id, l.tool, l.tool_version, l.params, l.status,"
	" l.value, l.unit, l.reason"
	" FROM lifted l JOIN variants v ON v.id = l.variant_id"
	" WHERE v.campaign_id = ?1"
	" UNION ALL"
	" SELECT b.variant_id, b.tool, b.tool_version,"
	" b.params || ' body', p.status,"
	" p.value * b.copies, REPLACE(p.unit, '/iter', '/call'), p.reason"
	" FROM variant_predictions b JOIN variants v ON v.id = b.variant_id"
	" JOIN predictions p ON p.block_hash = b.block_hash"
	"  AND p.tool = b.tool AND p.tool_version = b.tool_version"
	"  AND p.params = b.params"
	" WHERE v.campaign_id = ?1"
	" ORDER BY 2, 3, 4, 1";

static int read_lifted(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, struct lk_report_lifted **rows,
		       size_t *n)
{
	struct lk_report_lifted *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t nv = 0, alloc = 0;
	int rc, ret = store_prepare(ctx, s, lifted_sql, &st);

	*rows = NULL;
	*n = 0;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_report_lifted *l;

		LK_GROW(v, nv + 1, alloc);
		l = &v[nv++];
		l->variant_id = sqlite3_column_int64(st, 0);
		l->tool = store_column_dup(st, 1);
		l->version = store_column_dup(st, 2);
		l->params = store_column_dup(st, 3);
		l->status = store_column_dup(st, 4);
		l->has_value = sqlite3_column_type(st, 5) != SQLITE_NULL;
		l->value = sqlite3_column_double(st, 5);
		l->unit = store_column_dup(st, 6);
		l->reason = store_column_dup(st, 7);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the lifted predictions "
				 "of campaign %lld", (long long)campaign);
	sqlite3_finalize(st);
	if (ret) {
		lifted_free(v, nv);
		return ret;
	}
	*rows = v;
	*n = nv;
	return 0;
}

static void lifted_free(struct lk_report_lifted *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].tool);
		free(rows[i].version);
		free(rows[i].params);
		free(rows[i].status);
		free(rows[i].unit);
		free(rows[i].reason);
	}
	free(rows);
}

static const char verdicts_sql[] =
	"SELECT d.variant_id, d.filter, d.verdict, d.value, d.source, d.reason"
	" FROM verdicts d JOIN variants v ON v.id = d.variant_id"
	" WHERE v.campaign_id = ?1 ORDER BY d.variant_id, d.filter";

static int read_verdicts(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, struct lk_report_verdict **rows,
			 size_t *n)
{
	struct lk_report_verdict *v = NULL;
	sqlite3_stmt *st = NULL;
	size_t nv = 0, alloc = 0;
	int rc, ret = store_prepare(ctx, s, verdicts_sql, &st);

	*rows = NULL;
	*n = 0;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_report_verdict *d;

		LK_GROW(v, nv + 1, alloc);
		d = &v[nv++];
		d->variant_id = sqlite3_column_int64(st, 0);
		d->filter = store_column_dup(st, 1);
		d->verdict = store_column_dup(st, 2);
		d->has_value = sqlite3_column_type(st, 3) != SQLITE_NULL;
		d->value = sqlite3_column_double(st, 3);
		d->source = store_column_dup(st, 4);
		d->reason = store_column_dup(st, 5);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the filter verdicts of "
				 "campaign %lld", (long long)campaign);
	sqlite3_finalize(st);
	if (ret) {
		verdicts_free(v, nv);
		return ret;
	}
	*rows = v;
	*n = nv;
	return 0;
}

static void verdicts_free(struct lk_report_verdict *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].filter);
		free(rows[i].verdict);
		free(rows[i].source);
		free(rows[i].reason);
	}
	free(rows);
}

static int campaign_name(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, char **name)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, "SELECT name FROM campaigns"
				    " WHERE id = ?1", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*name = store_column_dup(st, 0);
	else if (rc == SQLITE_DONE)
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: no campaign %lld",
			       s->db_path, (long long)campaign);
	else
		ret = store_fail(ctx, s, "cannot look up campaign %lld",
				 (long long)campaign);
	sqlite3_finalize(st);
	return ret;
}

int lk_store_report_read(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, struct lk_report_input *in)
{
	int ret;

	memset(in, 0, sizeof(*in));
	/* One snapshot: a stage writing meanwhile does not tear it. */
	ret = store_exec(ctx, s, "BEGIN");
	if (ret)
		return ret;
	ret = campaign_name(ctx, s, campaign, &in->campaign);
	if (!ret)
		ret = read_variants(ctx, s, campaign, &in->variants,
				    &in->nvariants);
	if (!ret)
		ret = read_lifted(ctx, s, campaign, &in->lifted, &in->nlifted);
	if (!ret)
		ret = read_verdicts(ctx, s, campaign, &in->verdicts,
				    &in->nverdicts);
	store_rollback(s); /* ends the read transaction */
	if (ret)
		lk_report_input_release(in);
	return ret;
}

void lk_report_input_release(struct lk_report_input *in)
{
	free(in->campaign);
	variants_free(in->variants, in->nvariants);
	lifted_free(in->lifted, in->nlifted);
	verdicts_free(in->verdicts, in->nverdicts);
	memset(in, 0, sizeof(*in));
}
