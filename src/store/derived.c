/*
 * Facts derived after a stage stored its own: a result row added to a
 * finished run (loopkit asm's n/2n difference, computed from the run's
 * two regions), and a variant's prediction as one predicted block times
 * its iterations per kernel call (an asm variant's body). Both are
 * written by src/cli/asm-post.c, which joins the stages that made the
 * facts they come from.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

/* The variant's latest finished run, as lk_store_run_figure orders. */
static const char latest_sql[] =
	"SELECT id, status FROM runs WHERE variant_id = ?1"
	" ORDER BY finished DESC, id DESC LIMIT 1";

static int latest_run(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t variant_id, int64_t *run, char **status)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, latest_sql, &st);

	*run = 0;
	if (status)
		*status = NULL;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, variant_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*run = sqlite3_column_int64(st, 0);
		if (status)
			*status = store_column_dup(st, 1);
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the runs of variant "
				 "%lld", (long long)variant_id);
	}
	sqlite3_finalize(st);
	return ret;
}

static int read_rows(struct lk_ctx *ctx, struct lk_store *s, int64_t run,
		     struct lk_result_row **rows, size_t *n)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc, ret = store_prepare(ctx, s, "SELECT region, metric, source,"
				    " unit, value, reducer, n, spread, flags,"
				    " is_primary FROM results WHERE run_id = ?1"
				    " ORDER BY position", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(*rows, *n + 1, alloc);
		store_result_read(st, &(*rows)[(*n)++]);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the results of run %lld",
				 (long long)run);
	sqlite3_finalize(st);
	return ret;
}

int lk_store_latest_results(struct lk_ctx *ctx, struct lk_store *s,
			    int64_t variant_id, char **status,
			    struct lk_result_row **rows, size_t *n)
{
	int64_t run;
	int ret = latest_run(ctx, s, variant_id, &run, status);

	*rows = NULL;
	*n = 0;
	if (!ret && run)
		ret = read_rows(ctx, s, run, rows, n);
	if (ret) {
		lk_result_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		free(*status);
		*status = NULL;
	}
	return ret;
}

static int bind_rec(sqlite3_stmt *st, int64_t run,
		    const struct lk_result_rec *x)
{
	return sqlite3_bind_int64(st, 1, run) ||
	       store_bind_text(st, 2, x->region) ||
	       store_bind_text(st, 3, x->metric) ||
	       store_bind_text(st, 4, x->source) ||
	       store_bind_text(st, 5, x->unit) ||
	       (x->has_value ? sqlite3_bind_double(st, 6, x->value)
			     : sqlite3_bind_null(st, 6)) ||
	       store_bind_text(st, 7, x->reducer) ||
	       sqlite3_bind_int64(st, 8, x->n) ||
	       sqlite3_bind_double(st, 9, x->spread) ||
	       store_bind_text(st, 10, x->flags) ||
	       sqlite3_bind_int(st, 11, !!x->primary);
}

/* Delete the row of the same region and metric, then append rec. */
static int replace_row(struct lk_ctx *ctx, struct lk_store *s, int64_t run,
		       const struct lk_result_rec *rec)
{
	static const char *const sql[] = {
		"DELETE FROM results WHERE run_id = ?1 AND region IS ?2"
		" AND metric = ?3",
		"INSERT INTO results (run_id, position, region, metric, source,"
		" unit, value, reducer, n, spread, flags, is_primary)"
		" SELECT ?1, COALESCE(MAX(position) + 1, 0), ?2, ?3, ?4, ?5,"
		" ?6, ?7, ?8, ?9, ?10, ?11 FROM results WHERE run_id = ?1"};
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < LK_ARRAY_SIZE(sql); i++) {
		sqlite3_stmt *st = NULL;

		ret = store_prepare(ctx, s, sql[i], &st);
		if (!ret && (i ? bind_rec(st, run, rec)
			       : sqlite3_bind_int64(st, 1, run) ||
					 store_bind_text(st, 2, rec->region) ||
					 store_bind_text(st, 3, rec->metric)))
			ret = store_fail(ctx, s, "cannot bind result %s",
					 rec->metric);
		if (!ret && sqlite3_step(st) != SQLITE_DONE)
			ret = store_fail(ctx, s, "cannot store result %s of "
					 "run %lld", rec->metric,
					 (long long)run);
		sqlite3_finalize(st);
	}
	return ret;
}

int lk_store_result_add(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const struct lk_result_rec *rec)
{
	int64_t run = 0;
	int ret = store_begin(ctx, s);

	if (!ret)
		ret = latest_run(ctx, s, variant_id, &run, NULL);
	if (!ret && !run)
		ret = lk_error(ctx, LK_ENOTFOUND, "variant %lld has no "
			       "finished run", (long long)variant_id);
	if (!ret)
		ret = replace_row(ctx, s, run, rec);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}

int lk_store_variant_prediction_put(struct lk_ctx *ctx, struct lk_store *s,
				    int64_t variant_id,
				    const struct lk_prediction_key *key,
				    const char *block_hash, double copies)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "INSERT OR REPLACE INTO"
				" variant_predictions (variant_id, tool,"
				" tool_version, params, block_hash, copies)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &st);

	if (!ret && (sqlite3_bind_int64(st, 1, variant_id) ||
		     store_bind_text(st, 2, key->tool) ||
		     store_bind_text(st, 3, key->version) ||
		     store_bind_text(st, 4, key->params) ||
		     store_bind_text(st, 5, block_hash) ||
		     sqlite3_bind_double(st, 6, copies) ||
		     sqlite3_step(st) != SQLITE_DONE))
		ret = store_fail(ctx, s, "cannot store the %s prediction of "
				 "variant %lld", key->tool,
				 (long long)variant_id);
	sqlite3_finalize(st);
	return ret;
}
