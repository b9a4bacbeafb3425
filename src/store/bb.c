/*
 * Basic blocks and their counts: a function of a binary (by content
 * hash) with its blocks, and the occurrences of each block in one kernel
 * call. Both are written whole in one transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int lk_store_bb_function_find(struct lk_ctx *ctx, struct lk_store *s,
			      const char *binary_hash, const char *function,
			      int64_t *id)
{
	static const char by_name[] =
		"SELECT id FROM bb_functions"
		" WHERE binary_hash = ?1 AND function = ?2";
	/* The counted function first, the latest count run first. */
	static const char any[] =
		"SELECT f.id FROM bb_functions f"
		" LEFT JOIN bb_count_runs c ON c.function_id = f.id"
		" WHERE f.binary_hash = ?1"
		" ORDER BY c.function_id IS NULL, c.created DESC, f.id DESC"
		" LIMIT 1";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, function ? by_name : any, &st);

	if (ret)
		return ret;
	if (store_bind_text(st, 1, binary_hash) ||
	    (function && store_bind_text(st, 2, function)))
		ret = store_fail(ctx, s, "cannot bind binary hash");
	else
		ret = store_step_id(ctx, s, st, "cannot look up a function",
				    id);
	sqlite3_finalize(st);
	if (ret < 0)
		return ret;
	return ret == 0;
}

/* A function's blocks with the code they are cut from. */
struct block_rows {
	const struct lk_bb_function_rec *f;
	const uint8_t *code;   /* f->size bytes at f->addr, or NULL */
};

/* Block b's bytes within the function's code, bound as a blob (NULL
 * when there is no code or the block is not inside it). */
static int bind_code(sqlite3_stmt *st, int col, const struct block_rows *r,
		     const struct lk_bb_block_rec *b)
{
	const struct lk_bb_function_rec *f = r->f;

	if (!r->code || b->start < f->addr || b->end <= b->start ||
	    b->end - f->addr > f->size)
		return sqlite3_bind_null(st, col);
	return sqlite3_bind_blob(st, col, r->code + (b->start - f->addr),
				 (int)(b->end - b->start), SQLITE_STATIC);
}

static int bind_block(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct block_rows *r = rows;
	const struct lk_bb_block_rec *b = &r->f->blocks[i];

	return sqlite3_bind_int64(st, 2, (int64_t)i) ||
	       sqlite3_bind_int64(st, 3, (int64_t)b->start) ||
	       sqlite3_bind_int64(st, 4, (int64_t)b->end) ||
	       sqlite3_bind_int64(st, 5, b->ninsns) ||
	       store_bind_text(st, 6, b->hash) ||
	       store_bind_text(st, 7, b->att) ||
	       store_bind_text(st, 8, b->intel) ||
	       store_bind_text(st, 9, b->succ ? b->succ : "") ||
	       bind_code(st, 10, r, b);
}

static int insert_function(struct lk_ctx *ctx, struct lk_store *s,
			   const struct lk_bb_function_rec *f, int64_t *id)
{
	static const char sql[] =
		"INSERT INTO bb_functions (binary_hash, function, addr, size,"
		" inlined) VALUES (?1, ?2, ?3, ?4, ?5)";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		return ret;
	if (store_bind_text(st, 1, f->binary_hash) ||
	    store_bind_text(st, 2, f->function) ||
	    sqlite3_bind_int64(st, 3, (int64_t)f->addr) ||
	    sqlite3_bind_int64(st, 4, (int64_t)f->size) ||
	    sqlite3_bind_int(st, 5, !!f->inlined) ||
	    sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot store function %s of binary "
				 "%s", f->function, f->binary_hash);
	else
		*id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return ret;
}

int lk_store_bb_function_put(struct lk_ctx *ctx, struct lk_store *s,
			     const struct lk_bb_function_rec *f, int64_t *id)
{
	return lk_store_bb_function_put_code(ctx, s, f, NULL, id);
}

int lk_store_bb_function_put_code(struct lk_ctx *ctx, struct lk_store *s,
				  const struct lk_bb_function_rec *f,
				  const uint8_t *code, int64_t *id)
{
	struct block_rows rows = {f, code};
	char *owner = NULL;
	int ret = store_begin(ctx, s);

	if (ret)
		return ret;
	/* Under the write lock: another process may have stored it. */
	ret = lk_store_bb_function_find(ctx, s, f->binary_hash, f->function,
					id);
	if (ret == 1) {
		ret = 0;
		goto commit;
	}
	if (!ret)
		ret = insert_function(ctx, s, f, id);
	if (!ret) {
		struct store_rows r = {
			"INSERT INTO bb_blocks (function_id, idx, start, end,"
			" ninsns, hash, att, intel, succ, code)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
			*id, NULL, "block", &rows, f->nblocks,
			bind_block, NULL};

		owner = lk_asprintf("function %s", f->function);
		r.owner = owner;
		ret = store_insert_rows(ctx, s, &r);
	}
commit:
	free(owner);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}

int lk_store_bb_function_get(struct lk_ctx *ctx, struct lk_store *s,
			     int64_t id, struct lk_bb_function_row *out)
{
	static const char sql[] = "SELECT function, addr, size, inlined"
				  " FROM bb_functions WHERE id = ?1";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->function = store_column_dup(st, 0);
		out->addr = (uint64_t)sqlite3_column_int64(st, 1);
		out->size = (uint64_t)sqlite3_column_int64(st, 2);
		out->inlined = sqlite3_column_int(st, 3);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read function %lld",
				 (long long)id);
	}
	sqlite3_finalize(st);
	return ret;
}

void lk_bb_function_row_release(struct lk_bb_function_row *row)
{
	if (!row)
		return;
	free(row->function);
	memset(row, 0, sizeof(*row));
}

/* The code column: a copy of the bytes, or NULL when there are none. */
static void read_code(sqlite3_stmt *st, int i, struct lk_bb_block_row *b)
{
	const void *blob = sqlite3_column_blob(st, i);
	int len = sqlite3_column_bytes(st, i);

	b->code = NULL;
	b->code_len = 0;
	if (!blob || len <= 0)
		return;
	b->code = lk_malloc((size_t)len);
	memcpy(b->code, blob, (size_t)len);
	b->code_len = (size_t)len;
}

int lk_store_bb_blocks_get(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id, struct lk_bb_block_row **rows,
			   size_t *n)
{
	static const char sql[] =
		"SELECT idx, start, end, ninsns, hash, att, intel, succ, code"
		" FROM bb_blocks WHERE function_id = ?1 ORDER BY idx";
	struct lk_bb_block_row *v = NULL;
	size_t nv = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	*rows = NULL;
	*n = 0;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, function_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_bb_block_row *b;

		LK_GROW(v, nv + 1, cap);
		b = &v[nv++];
		b->idx = (long)sqlite3_column_int64(st, 0);
		b->start = (uint64_t)sqlite3_column_int64(st, 1);
		b->end = (uint64_t)sqlite3_column_int64(st, 2);
		b->ninsns = (long)sqlite3_column_int64(st, 3);
		b->hash = store_column_dup(st, 4);
		b->att = store_column_dup(st, 5);
		b->intel = store_column_dup(st, 6);
		b->succ = store_column_dup(st, 7);
		read_code(st, 8, b);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the blocks of function "
				 "%lld", (long long)function_id);
		lk_bb_block_rows_free(v, nv);
	} else {
		*rows = v;
		*n = nv;
	}
	sqlite3_finalize(st);
	return ret;
}

void lk_bb_block_rows_free(struct lk_bb_block_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].hash);
		free(rows[i].att);
		free(rows[i].intel);
		free(rows[i].succ);
		free(rows[i].code);
	}
	free(rows);
}

/* ---- Counts ---- */

static int delete_counts(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t function_id)
{
	static const char *const sql[] = {
		"DELETE FROM bb_counts WHERE function_id = ?1",
		"DELETE FROM bb_count_runs WHERE function_id = ?1"};
	int ret = 0;

	for (size_t i = 0; !ret && i < LK_ARRAY_SIZE(sql); i++) {
		sqlite3_stmt *st = NULL;

		ret = store_prepare(ctx, s, sql[i], &st);
		if (ret)
			break;
		sqlite3_bind_int64(st, 1, function_id);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = store_fail(ctx, s, "cannot forget the counts "
					 "of function %lld",
					 (long long)function_id);
		sqlite3_finalize(st);
	}
	return ret;
}

static int insert_count_run(struct lk_ctx *ctx, struct lk_store *s,
			    int64_t function_id,
			    const struct lk_bb_count_rec *c)
{
	static const char sql[] =
		"INSERT INTO bb_count_runs (function_id, status, reason,"
		" regions, traps, seconds) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		return ret;
	if (sqlite3_bind_int64(st, 1, function_id) ||
	    store_bind_text(st, 2, c->status) ||
	    store_bind_text(st, 3, c->reason ? c->reason : "") ||
	    sqlite3_bind_int64(st, 4, c->regions) ||
	    sqlite3_bind_int64(st, 5, c->traps) ||
	    sqlite3_bind_double(st, 6, c->seconds) ||
	    sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot store the count run of "
				 "function %lld", (long long)function_id);
	sqlite3_finalize(st);
	return ret;
}

static int bind_count(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_bb_count_rec *c = rows;

	return sqlite3_bind_int64(st, 2, (int64_t)i) ||
	       sqlite3_bind_int64(st, 3, (int64_t)c->counts[i]) ||
	       store_bind_text(st, 4, c->via ? c->via[i] : "derived");
}

int lk_store_bb_counts_put(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id,
			   const struct lk_bb_count_rec *c)
{
	struct store_rows r = {
		"INSERT INTO bb_counts (function_id, idx, count, via)"
		" VALUES (?1, ?2, ?3, ?4)",
		function_id, NULL, "count", c, c->counts ? c->n : 0,
		bind_count, NULL};
	char *owner = lk_asprintf("function %lld", (long long)function_id);
	int ret = store_begin(ctx, s);

	r.owner = owner;
	if (!ret)
		ret = delete_counts(ctx, s, function_id);
	if (!ret)
		ret = insert_count_run(ctx, s, function_id, c);
	/* bind_count reads row i out of the one record: rows is c. */
	if (!ret && r.n)
		ret = store_insert_rows(ctx, s, &r);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	free(owner);
	return ret;
}

int lk_store_bb_count_status(struct lk_ctx *ctx, struct lk_store *s,
			     int64_t function_id, char **status,
			     char **reason)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "SELECT status, reason FROM"
				" bb_count_runs WHERE function_id = ?1", &st);
	int rc;

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, function_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (status)
			*status = store_column_dup(st, 0);
		if (reason)
			*reason = store_column_dup(st, 1);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the count run of "
				 "function %lld", (long long)function_id);
	}
	sqlite3_finalize(st);
	return ret;
}

int lk_store_bb_counts_get(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id, uint64_t **counts, size_t *n)
{
	static const char sql[] =
		"SELECT b.idx, coalesce(c.count, 0) FROM bb_blocks b"
		" LEFT JOIN bb_counts c ON c.function_id = b.function_id"
		"  AND c.idx = b.idx"
		" WHERE b.function_id = ?1 ORDER BY b.idx";
	uint64_t *v = NULL;
	size_t nv = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st), rc;

	*counts = NULL;
	*n = 0;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, function_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(v, nv + 1, cap);
		v[nv++] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the counts of function "
				 "%lld", (long long)function_id);
		free(v);
	} else {
		*counts = v;
		*n = nv;
	}
	sqlite3_finalize(st);
	return ret;
}
