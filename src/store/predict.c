/*
 * Predictions: keyed by the block's text hash and the tool, its version
 * and its parameters, so a block seen in many binaries is predicted once
 * and a rerun skips what is there.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

static const char put_sql[] =
	"INSERT OR REPLACE INTO predictions (block_hash, tool, tool_version,"
	" params, status, value, unit, reason, raw, seconds)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

static const char has_sql[] =
	"SELECT 1 FROM predictions WHERE block_hash = ?1 AND tool = ?2"
	" AND tool_version = ?3 AND params = ?4";

static const char get_sql[] =
	"SELECT block_hash, tool, tool_version, params, status, value, unit,"
	" reason, raw, seconds FROM predictions WHERE block_hash = ?1"
	" AND tool = ?2 AND tool_version = ?3 AND params = ?4";

static int bind_key(sqlite3_stmt *st, const struct lk_prediction_key *key,
		    const char *hash)
{
	return store_bind_text(st, 1, hash) ||
	       store_bind_text(st, 2, key->tool) ||
	       store_bind_text(st, 3, key->version) ||
	       store_bind_text(st, 4, key->params);
}

static int put_one(struct lk_ctx *ctx, struct lk_store *s, sqlite3_stmt *st,
		   const struct lk_prediction_key *key,
		   const struct lk_prediction_rec *r)
{
	int bad;

	sqlite3_reset(st);
	bad = bind_key(st, key, r->block_hash) ||
	      store_bind_text(st, 5, r->status) ||
	      (r->has_value ? sqlite3_bind_double(st, 6, r->value)
			    : sqlite3_bind_null(st, 6)) != SQLITE_OK ||
	      store_bind_text(st, 7, r->unit) ||
	      store_bind_text(st, 8, r->reason ? r->reason : "") ||
	      store_bind_text(st, 9, r->raw) ||
	      sqlite3_bind_double(st, 10, r->seconds) != SQLITE_OK;
	if (bad || sqlite3_step(st) != SQLITE_DONE)
		return store_fail(ctx, s, "cannot store the %s prediction of "
				  "block %s", key->tool, r->block_hash);
	return 0;
}

int lk_store_predictions_put(struct lk_ctx *ctx, struct lk_store *s,
			     const struct lk_prediction_key *key,
			     const struct lk_prediction_rec *recs, size_t n)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret;

	if (!n)
		return 0;
	ret = store_begin(ctx, s);
	if (ret)
		return ret;
	ret = store_prepare(ctx, s, put_sql, &st);
	for (i = 0; !ret && i < n; i++)
		ret = put_one(ctx, s, st, key, &recs[i]);
	sqlite3_finalize(st);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}

int lk_store_prediction_has(struct lk_ctx *ctx, struct lk_store *s,
			    const struct lk_prediction_key *key,
			    const char *block_hash)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, has_sql, &st), rc;

	if (!ret && bind_key(st, key, block_hash))
		ret = store_fail(ctx, s, "cannot bind");
	if (!ret) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			ret = 1;
		else if (rc != SQLITE_DONE)
			ret = store_fail(ctx, s, "cannot look up a "
					 "prediction");
	}
	sqlite3_finalize(st);
	return ret;
}

static void row_read(sqlite3_stmt *st, struct lk_prediction_row *row)
{
	row->block_hash = store_column_dup(st, 0);
	row->tool = store_column_dup(st, 1);
	row->version = store_column_dup(st, 2);
	row->params = store_column_dup(st, 3);
	row->status = store_column_dup(st, 4);
	row->has_value = sqlite3_column_type(st, 5) != SQLITE_NULL;
	row->value = sqlite3_column_double(st, 5);
	row->unit = store_column_dup(st, 6);
	row->reason = store_column_dup(st, 7);
	row->raw = store_column_dup(st, 8);
	row->seconds = sqlite3_column_double(st, 9);
}

int lk_store_prediction_get(struct lk_ctx *ctx, struct lk_store *s,
			    const struct lk_prediction_key *key,
			    const char *block_hash,
			    struct lk_prediction_row *row)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, get_sql, &st), rc;

	memset(row, 0, sizeof(*row));
	if (!ret && bind_key(st, key, block_hash))
		ret = store_fail(ctx, s, "cannot bind");
	if (!ret) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			row_read(st, row);
		else if (rc == SQLITE_DONE)
			ret = lk_error(ctx, LK_ENOTFOUND, "no %s prediction "
				       "of block %s", key->tool, block_hash);
		else
			ret = store_fail(ctx, s, "cannot read a prediction");
	}
	sqlite3_finalize(st);
	return ret;
}

void lk_prediction_row_release(struct lk_prediction_row *row)
{
	if (!row)
		return;
	free(row->block_hash);
	free(row->tool);
	free(row->version);
	free(row->params);
	free(row->status);
	free(row->unit);
	free(row->reason);
	free(row->raw);
	memset(row, 0, sizeof(*row));
}

int lk_store_prediction_count(struct lk_ctx *ctx, struct lk_store *s,
			      long *n)
{
	return store_count(ctx, s, "SELECT count(*) FROM predictions"
			   " WHERE ?1 = ?1", 0, n);
}
