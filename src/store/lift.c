/*
 * What lift reads (a function's blocks, their occurrences and every
 * prediction of their text) and writes (lifted rows per variant), and
 * the filters' verdicts.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int lk_store_campaigns_with_variants(struct lk_ctx *ctx, struct lk_store *s,
				     int64_t **ids, struct lk_strv *names,
				     size_t *n)
{
	static const char sql[] =
		"SELECT c.id, c.name FROM campaigns c WHERE EXISTS"
		" (SELECT 1 FROM variants v WHERE v.campaign_id = c.id)"
		" ORDER BY c.id";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	*ids = NULL;
	*n = 0;
	if (ret)
		return ret;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(*ids, *n + 1, cap);
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
		lk_strv_push_take(names, store_column_dup(st, 1));
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot list the campaigns");
	sqlite3_finalize(st);
	return ret;
}

static int read_lift_blocks(struct lk_ctx *ctx, struct lk_store *s,
			    int64_t function_id, struct lk_lift_input *in)
{
	/* Counts only from an ok count run: a failed one has none. */
	static const char sql[] =
		"SELECT b.idx, b.start, coalesce(c.count, 0), b.hash"
		" FROM bb_blocks b"
		" LEFT JOIN bb_count_runs r ON r.function_id = b.function_id"
		"  AND r.status = 'ok'"
		" LEFT JOIN bb_counts c ON c.function_id = r.function_id"
		"  AND c.idx = b.idx"
		" WHERE b.function_id = ?1 ORDER BY b.idx";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, function_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_lift_block *b;

		LK_GROW(in->blocks, in->nblocks + 1, cap);
		b = &in->blocks[in->nblocks++];
		b->idx = (long)sqlite3_column_int64(st, 0);
		b->start = (uint64_t)sqlite3_column_int64(st, 1);
		b->count = (uint64_t)sqlite3_column_int64(st, 2);
		b->hash = store_column_dup(st, 3);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the blocks of function "
				 "%lld", (long long)function_id);
	sqlite3_finalize(st);
	return ret;
}

static size_t block_of(const struct lk_lift_input *in, long idx)
{
	size_t lo = 0, hi = in->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->blocks[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int read_lift_preds(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id, struct lk_lift_input *in)
{
	static const char sql[] =
		"SELECT b.idx, p.tool, p.tool_version, p.params, p.status,"
		" p.value, p.unit, p.reason"
		" FROM bb_blocks b JOIN predictions p ON p.block_hash = b.hash"
		" WHERE b.function_id = ?1"
		" ORDER BY p.tool, p.tool_version, p.params, b.idx";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, function_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_lift_prediction *p;

		LK_GROW(in->preds, in->npreds + 1, cap);
		p = &in->preds[in->npreds++];
		p->block = block_of(in, (long)sqlite3_column_int64(st, 0));
		p->tool = store_column_dup(st, 1);
		p->tool_version = store_column_dup(st, 2);
		p->params = store_column_dup(st, 3);
		p->status = store_column_dup(st, 4);
		p->has_value = sqlite3_column_type(st, 5) != SQLITE_NULL;
		p->value = sqlite3_column_double(st, 5);
		p->unit = store_column_dup(st, 6);
		p->reason = store_column_dup(st, 7);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the predictions of "
				 "function %lld", (long long)function_id);
	sqlite3_finalize(st);
	return ret;
}

int lk_store_lift_input(struct lk_ctx *ctx, struct lk_store *s,
			int64_t function_id, struct lk_lift_input *in)
{
	int ret;

	memset(in, 0, sizeof(*in));
	ret = read_lift_blocks(ctx, s, function_id, in);
	if (!ret)
		ret = read_lift_preds(ctx, s, function_id, in);
	return ret;
}

void lk_lift_input_release(struct lk_lift_input *in)
{
	size_t i;

	for (i = 0; i < in->nblocks; i++)
		free(in->blocks[i].hash);
	for (i = 0; i < in->npreds; i++) {
		struct lk_lift_prediction *p = &in->preds[i];

		free(p->tool);
		free(p->tool_version);
		free(p->params);
		free(p->status);
		free(p->unit);
		free(p->reason);
	}
	free(in->blocks);
	free(in->preds);
	memset(in, 0, sizeof(*in));
}

/* ---- Lifted rows ---- */

static int bind_lifted(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_lifted_rec *l = (const struct lk_lifted_rec *)rows + i;

	return store_bind_text(st, 3, l->tool) ||
	       store_bind_text(st, 4, l->tool_version) ||
	       store_bind_text(st, 5, l->params) ||
	       store_bind_text(st, 6, l->status) ||
	       (l->has_value ? sqlite3_bind_double(st, 7, l->value)
			     : sqlite3_bind_null(st, 7)) ||
	       store_bind_text(st, 8, l->unit) ||
	       sqlite3_bind_int64(st, 9, l->nblocks) ||
	       sqlite3_bind_int64(st, 10, l->nfailed) ||
	       store_bind_text(st, 11, l->reason ? l->reason : "");
}

static const char *lifted_name(size_t i, const void *rows)
{
	return ((const struct lk_lifted_rec *)rows)[i].tool;
}

static int delete_lifted(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "DELETE FROM lifted WHERE"
				" variant_id = ?1", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, variant_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot forget the lifted rows of "
				 "variant %lld", (long long)variant_id);
	sqlite3_finalize(st);
	return ret;
}

/* Not store_insert_rows: it binds one owner id, these rows have two. */
static int insert_lifted(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, int64_t function_id,
			 const struct lk_lifted_rec *rows, size_t n)
{
	static const char sql[] =
		"INSERT INTO lifted (variant_id, function_id, tool,"
		" tool_version, params, status, value, unit, nblocks,"
		" nfailed, reason)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret = store_prepare(ctx, s, sql, &st);

	for (i = 0; !ret && i < n; i++) {
		if (sqlite3_bind_int64(st, 1, variant_id) ||
		    sqlite3_bind_int64(st, 2, function_id) ||
		    bind_lifted(st, i, rows) ||
		    sqlite3_step(st) != SQLITE_DONE)
			ret = store_fail(ctx, s, "cannot store the lifted "
					 "value of %s for variant %lld",
					 lifted_name(i, rows),
					 (long long)variant_id);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ret;
}

int lk_store_lifted_put(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, int64_t function_id,
			const struct lk_lifted_rec *rows, size_t n)
{
	int ret = store_begin(ctx, s);

	if (!ret)
		ret = delete_lifted(ctx, s, variant_id);
	if (!ret)
		ret = insert_lifted(ctx, s, variant_id, function_id, rows, n);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}

static void lifted_row_read(sqlite3_stmt *st, struct lk_lifted_row *l)
{
	l->variant_id = sqlite3_column_int64(st, 0);
	l->function_id = sqlite3_column_int64(st, 1);
	l->tool = store_column_dup(st, 2);
	l->tool_version = store_column_dup(st, 3);
	l->params = store_column_dup(st, 4);
	l->status = store_column_dup(st, 5);
	l->has_value = sqlite3_column_type(st, 6) != SQLITE_NULL;
	l->value = sqlite3_column_double(st, 6);
	l->unit = store_column_dup(st, 7);
	l->nblocks = (long)sqlite3_column_int64(st, 8);
	l->nfailed = (long)sqlite3_column_int64(st, 9);
	l->reason = store_column_dup(st, 10);
}

int lk_store_lifted_get(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, struct lk_lifted_row **rows,
			size_t *n)
{
	static const char sql[] =
		"SELECT l.variant_id, l.function_id, l.tool, l.tool_version,"
		" l.params, l.status, l.value, l.unit, l.nblocks, l.nfailed,"
		" l.reason FROM lifted l JOIN variants v ON v.id = l.variant_id"
		" WHERE v.campaign_id = ?1"
		" ORDER BY l.variant_id, l.tool, l.tool_version, l.params";
	struct lk_lifted_row *v = NULL;
	size_t nv = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	*rows = NULL;
	*n = 0;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(v, nv + 1, cap);
		lifted_row_read(st, &v[nv++]);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the lifted rows of "
				 "campaign %lld", (long long)campaign);
		lk_lifted_rows_free(v, nv);
	} else {
		*rows = v;
		*n = nv;
	}
	sqlite3_finalize(st);
	return ret;
}

void lk_lifted_rows_free(struct lk_lifted_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].tool);
		free(rows[i].tool_version);
		free(rows[i].params);
		free(rows[i].status);
		free(rows[i].unit);
		free(rows[i].reason);
	}
	free(rows);
}

/* ---- Verdicts ---- */

int lk_store_verdict_put(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const struct lk_verdict_rec *v)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO verdicts (variant_id, filter, verdict,"
		" value, source, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		return ret;
	if (sqlite3_bind_int64(st, 1, variant_id) ||
	    store_bind_text(st, 2, v->filter) ||
	    store_bind_text(st, 3, v->verdict) ||
	    (v->has_value ? sqlite3_bind_double(st, 4, v->value)
			  : sqlite3_bind_null(st, 4)) ||
	    store_bind_text(st, 5, v->source) ||
	    store_bind_text(st, 6, v->reason ? v->reason : "") ||
	    sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot store the %s verdict of "
				 "variant %lld", v->filter,
				 (long long)variant_id);
	sqlite3_finalize(st);
	return ret;
}

int lk_store_verdict_get(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *filter,
			 struct lk_verdict_row *out)
{
	static const char sql[] =
		"SELECT filter, verdict, value, source, reason FROM verdicts"
		" WHERE variant_id = ?1 AND filter = ?2";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, variant_id);
	store_bind_text(st, 2, filter);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->filter = store_column_dup(st, 0);
		out->verdict = store_column_dup(st, 1);
		out->has_value = sqlite3_column_type(st, 2) != SQLITE_NULL;
		out->value = sqlite3_column_double(st, 2);
		out->source = store_column_dup(st, 3);
		out->reason = store_column_dup(st, 4);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the %s verdict of "
				 "variant %lld", filter, (long long)variant_id);
	}
	sqlite3_finalize(st);
	return ret;
}

void lk_verdict_row_release(struct lk_verdict_row *v)
{
	if (!v)
		return;
	free(v->filter);
	free(v->verdict);
	free(v->source);
	free(v->reason);
	memset(v, 0, sizeof(*v));
}
