/*
 * Runs: one measurement of one variant under one method, with every raw
 * sample, the facts about each launch, and the reduced results. A run is
 * written whole in one transaction or not at all, so a killed loopkit
 * leaves either the complete run or nothing to redo.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

/* Cascades to the old run's samples, infos and results. */
static int delete_old_run(struct lk_ctx *ctx, struct lk_store *s,
			  const struct lk_run_rec *r)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "DELETE FROM runs WHERE"
				" variant_id = ?1 AND method_hash = ?2", &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, r->variant_id) ||
	    store_bind_text(st, 2, r->method_hash) ||
	    sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot delete the previous run of "
				 "variant %lld", (long long)r->variant_id);
out:
	sqlite3_finalize(st);
	return ret;
}

static int insert_run(struct lk_ctx *ctx, struct lk_store *s,
		      const struct lk_run_rec *r, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO runs (variant_id, build_id, env_id, method_hash,"
		" method, status, reason, attempts, started, finished,"
		" memory_limit)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, r->variant_id) ||
	    store_bind_id(st, 2, r->build_id) ||
	    store_bind_id(st, 3, r->env_id) ||
	    store_bind_text(st, 4, r->method_hash) ||
	    store_bind_text(st, 5, r->method) ||
	    store_bind_text(st, 6, r->status) ||
	    store_bind_text(st, 7, r->reason) ||
	    sqlite3_bind_int(st, 8, r->attempts) ||
	    sqlite3_bind_double(st, 9, r->started) ||
	    sqlite3_bind_double(st, 10, r->finished) ||
	    (r->memory_limit >= 0 ?
		     sqlite3_bind_int64(st, 11, r->memory_limit) :
		     sqlite3_bind_null(st, 11)) ||
	    sqlite3_step(st) != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot store the run of variant %lld",
				 (long long)r->variant_id);
		goto out;
	}
	*id = sqlite3_last_insert_rowid(s->db);
out:
	sqlite3_finalize(st);
	return ret;
}

/*
 * The hot loop of the store (a run can have ~10,000 samples): one
 * statement prepared once, the strings bound without a copy.
 */
static int bind_sample(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_sample_rec *x = (const struct lk_sample_rec *)rows + i;

	return sqlite3_bind_int(st, 2, x->process) ||
	       sqlite3_bind_int(st, 3, x->attempt) ||
	       store_bind_text(st, 4, x->region) ||
	       sqlite3_bind_int64(st, 5, x->idx) ||
	       sqlite3_bind_int64(st, 6, x->steps) ||
	       store_bind_text(st, 7, x->metric) ||
	       sqlite3_bind_double(st, 8, x->raw) ||
	       sqlite3_bind_double(st, 9, x->value);
}

static int bind_info(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_info_rec *x = (const struct lk_info_rec *)rows + i;

	return sqlite3_bind_int(st, 2, x->process) ||
	       sqlite3_bind_int(st, 3, x->attempt) ||
	       store_bind_text(st, 4, x->key) ||
	       store_bind_text(st, 5, x->value);
}

static int bind_result(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_result_rec *x = (const struct lk_result_rec *)rows + i;

	return sqlite3_bind_int64(st, 2, (int64_t)i) ||
	       store_bind_text(st, 3, x->region) ||
	       store_bind_text(st, 4, x->metric) ||
	       store_bind_text(st, 5, x->source) ||
	       store_bind_text(st, 6, x->unit) ||
	       (x->has_value ? sqlite3_bind_double(st, 7, x->value)
			     : sqlite3_bind_null(st, 7)) ||
	       store_bind_text(st, 8, x->reducer) ||
	       sqlite3_bind_int64(st, 9, x->n) ||
	       sqlite3_bind_double(st, 10, x->spread) ||
	       store_bind_text(st, 11, x->flags) ||
	       sqlite3_bind_int(st, 12, !!x->primary);
}

static const char *info_name(size_t i, const void *rows)
{
	return ((const struct lk_info_rec *)rows)[i].key;
}

static const char *result_name(size_t i, const void *rows)
{
	return ((const struct lk_result_rec *)rows)[i].metric;
}

static int insert_rows(struct lk_ctx *ctx, struct lk_store *s, int64_t run,
		       const struct lk_run_rec *r)
{
	char owner[48];
	struct store_rows rows[] = {
		{"INSERT INTO samples (run_id, process, attempt, region, idx,"
		 " steps, metric, raw, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
		 " ?7, ?8, ?9)", run, owner, "sample", r->samples,
		 r->nsamples, bind_sample, NULL},
		{"INSERT INTO run_info (run_id, process, attempt, key, value)"
		 " VALUES (?1, ?2, ?3, ?4, ?5)", run, owner, "info", r->infos,
		 r->ninfos, bind_info, info_name},
		{"INSERT INTO results (run_id, position, region, metric,"
		 " source, unit, value, reducer, n, spread, flags, is_primary)"
		 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
		 run, owner, "result", r->results, r->nresults, bind_result,
		 result_name},
	};
	size_t i;
	int ret = 0;

	snprintf(owner, sizeof(owner), "run %lld", (long long)run);
	for (i = 0; !ret && i < LK_ARRAY_SIZE(rows); i++)
		ret = store_insert_rows(ctx, s, &rows[i]);
	return ret;
}

int lk_store_run_put(struct lk_ctx *ctx, struct lk_store *s,
		     const struct lk_run_rec *r, int64_t *id)
{
	int64_t run = 0;
	int ret;

	if (!r->method_hash || !r->status)
		return lk_error(ctx, LK_EINTERNAL, "run of variant %lld "
				"without method hash or status",
				(long long)r->variant_id);
	ret = store_begin(ctx, s);
	if (ret)
		return ret;
	ret = delete_old_run(ctx, s, r);
	if (!ret)
		ret = insert_run(ctx, s, r, &run);
	if (!ret)
		ret = insert_rows(ctx, s, run, r);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret) {
		store_rollback(s);
		return ret;
	}
	if (id)
		*id = run;
	return 0;
}

int lk_store_run_outcome(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *method_hash,
			 char **status, char **reason)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, "SELECT status, reason FROM runs"
				    " WHERE variant_id = ?1 AND"
				    " method_hash = ?2", &st);

	if (status)
		*status = NULL;
	if (reason)
		*reason = NULL;
	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, variant_id) ||
	    store_bind_text(st, 2, method_hash)) {
		ret = store_fail(ctx, s, "cannot bind run");
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		ret = 1;
		if (status)
			*status = store_column_dup(st, 0);
		if (reason)
			*reason = store_column_dup(st, 1);
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot look up the run of variant "
				 "%lld", (long long)variant_id);
	}
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_store_run_done(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t variant_id, const char *method_hash,
		      char **status)
{
	return lk_store_run_outcome(ctx, s, variant_id, method_hash, status,
				    NULL);
}

int lk_store_runs_forget_failed(struct lk_ctx *ctx, struct lk_store *s,
				int64_t campaign, long *n)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "DELETE FROM runs WHERE status NOT IN"
				" ('ok', 'unstable') AND variant_id IN"
				" (SELECT id FROM variants WHERE"
				" campaign_id = ?1)", &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, campaign) ||
	    sqlite3_step(st) != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot forget failed runs");
		goto out;
	}
	/* Counts the runs only, not the rows the cascade removed. */
	if (n)
		*n = (long)sqlite3_changes(s->db);
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_store_run_count(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, long *n)
{
	return store_count(ctx, s, "SELECT count(*) FROM runs JOIN variants v"
			   " ON v.id = runs.variant_id WHERE"
			   " v.campaign_id = ?1", campaign, n);
}

void store_result_read(sqlite3_stmt *st, struct lk_result_row *row)
{
	row->region = store_column_dup(st, 0);
	row->metric = store_column_dup(st, 1);
	row->source = store_column_dup(st, 2);
	row->unit = store_column_dup(st, 3);
	row->has_value = sqlite3_column_type(st, 4) != SQLITE_NULL;
	row->value = sqlite3_column_double(st, 4);
	row->reducer = store_column_dup(st, 5);
	row->n = (long)sqlite3_column_int64(st, 6);
	row->spread = sqlite3_column_double(st, 7);
	row->flags = store_column_dup(st, 8);
	row->primary = sqlite3_column_int(st, 9);
}

int lk_store_results_get(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *method_hash,
			 struct lk_result_row **rows, size_t *n)
{
	static const char sql[] =
		"SELECT x.region, x.metric, x.source, x.unit, x.value,"
		" x.reducer, x.n, x.spread, x.flags, x.is_primary"
		" FROM results x JOIN runs r ON r.id = x.run_id"
		" WHERE r.variant_id = ?1 AND r.method_hash = ?2"
		" ORDER BY x.position";
	struct lk_result_row *out = NULL;
	size_t len = 0, alloc = 0;
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, variant_id) ||
	    store_bind_text(st, 2, method_hash)) {
		ret = store_fail(ctx, s, "cannot bind run");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(out, len + 1, alloc);
		store_result_read(st, &out[len++]);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the results of variant "
				 "%lld", (long long)variant_id);
out:
	sqlite3_finalize(st);
	if (ret) {
		lk_result_rows_free(out, len);
		out = NULL;
		len = 0;
	}
	*rows = out;
	*n = len;
	return ret;
}

void lk_result_rows_free(struct lk_result_row *rows, size_t n)
{
	size_t i;

	for (i = 0; rows && i < n; i++) {
		free(rows[i].region);
		free(rows[i].metric);
		free(rows[i].source);
		free(rows[i].unit);
		free(rows[i].reducer);
		free(rows[i].flags);
	}
	free(rows);
}
