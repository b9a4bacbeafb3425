/* memprof runs in the store, and their export. */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

static int insert_run(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t campaign, const struct lk_memprof_rec *r,
		      int64_t *id)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "INSERT INTO memprof_runs"
				" (campaign_id, program, program_hash, cflags,"
				" env_id, calls, tsc_hz, fit, stage_key,"
				" status, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
				" ?8, ?9, ?10, ?11) RETURNING id", &st);

	if (ret)
		return ret;
	if (sqlite3_bind_int64(st, 1, campaign) ||
	    store_bind_text(st, 2, r->program) ||
	    store_bind_text(st, 3, r->program_hash) ||
	    store_bind_text(st, 4, r->cflags) ||
	    store_bind_id(st, 5, r->env_id) ||
	    sqlite3_bind_int64(st, 6, r->calls) ||
	    (r->tsc_hz > 0 ? sqlite3_bind_double(st, 7, r->tsc_hz) :
			     sqlite3_bind_null(st, 7)) ||
	    store_bind_text(st, 8, r->fit) ||
	    store_bind_text(st, 9, r->stage_key) ||
	    store_bind_text(st, 10, r->status) ||
	    store_bind_text(st, 11, r->reason))
		ret = store_fail(ctx, s, "cannot bind the memprof run");
	else
		ret = store_step_id(ctx, s, st, "memprof run", id) ? LK_ESTORE
								   : 0;
	sqlite3_finalize(st);
	return ret;
}

static int bind_func(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_memprof_func_rec *f =
		(const struct lk_memprof_func_rec *)rows + i;

	return store_bind_text(st, 2, f->name) ||
	       sqlite3_bind_int64(st, 3, f->calls) ||
	       sqlite3_bind_double(st, 4, f->total) ||
	       sqlite3_bind_double(st, 5, f->self) ||
	       sqlite3_bind_double(st, 6, f->min_self) ||
	       sqlite3_bind_double(st, 7, f->max_self) ||
	       sqlite3_bind_double(st, 8, f->mean_self) ||
	       store_bind_text(st, 9, f->loads) ||
	       store_bind_text(st, 10, f->stores) ||
	       (f->has_residual ? sqlite3_bind_double(st, 11, f->residual) :
				  sqlite3_bind_null(st, 11));
}

static const char *func_name(size_t i, const void *rows)
{
	return ((const struct lk_memprof_func_rec *)rows)[i].name;
}

static int insert_funcs(struct lk_ctx *ctx, struct lk_store *s, int64_t run,
			const struct lk_memprof_rec *r)
{
	char owner[48];
	struct store_rows rows = {
		"INSERT INTO memprof_functions VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
		" ?7, ?8, ?9, ?10, ?11)", run, owner, "function", r->funcs,
		r->nfuncs, bind_func, func_name};

	snprintf(owner, sizeof(owner), "memprof run %lld", (long long)run);
	return store_insert_rows(ctx, s, &rows);
}

/* The campaign's run under the same stage key goes (its functions with
 * it, ON DELETE CASCADE). */
static int forget_keyed(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, const char *key)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "DELETE FROM memprof_runs WHERE"
				" campaign_id = ?1 AND stage_key = ?2", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	store_bind_text(st, 2, key);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot replace the memprof run of "
				 "key %s", key);
	sqlite3_finalize(st);
	return ret;
}

int lk_store_memprof_put(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_memprof_rec *r,
			 int64_t *id)
{
	int ret = store_begin(ctx, s);

	if (!ret && r->stage_key)
		ret = forget_keyed(ctx, s, campaign, r->stage_key);
	if (!ret)
		ret = insert_run(ctx, s, campaign, r, id);
	if (!ret)
		ret = insert_funcs(ctx, s, *id, r);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}

int lk_store_memprof_find(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const char *stage_key,
			  char **status, char **reason)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, "SELECT status, reason FROM"
				    " memprof_runs WHERE campaign_id = ?1 AND"
				    " stage_key = ?2 ORDER BY id DESC LIMIT 1",
				    &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	store_bind_text(st, 2, stage_key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*status = store_column_dup(st, 0);
		*reason = store_column_dup(st, 1);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the memprof run of key "
				 "%s", stage_key);
	}
	sqlite3_finalize(st);
	return ret;
}

/* ---- Export: any query's rows, typed by SQLite's column types. ---- */

static void cell(struct lk_buf *b, sqlite3_stmt *st, int i, int json)
{
	const char *text = (const char *)sqlite3_column_text(st, i);

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		lk_buf_adds(b, json ? "null" : "");
		break;
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		lk_buf_addf(b, "%.17g", sqlite3_column_double(st, i));
		break;
	default:
		if (json)
			lk_buf_add_json_str(b, text ? text : "");
		else
			lk_buf_add_csv_field(b, text ? text : "");
	}
}

static void row(struct lk_buf *b, sqlite3_stmt *st, int json, int first)
{
	int i, n = sqlite3_column_count(st);

	lk_buf_adds(b, json ? (first ? "{" : ",\n{") : "");
	for (i = 0; i < n; i++) {
		if (json) {
			lk_buf_adds(b, i ? "," : "");
			lk_buf_add_json_str(b, sqlite3_column_name(st, i));
			lk_buf_addch(b, ':');
		} else if (i) {
			lk_buf_addch(b, ',');
		}
		cell(b, st, i, json);
	}
	lk_buf_adds(b, json ? "}" : "\n");
}

static void header(struct lk_buf *b, sqlite3_stmt *st)
{
	int i, n = sqlite3_column_count(st);

	for (i = 0; i < n; i++) {
		if (i)
			lk_buf_addch(b, ',');
		lk_buf_add_csv_field(b, sqlite3_column_name(st, i));
	}
	lk_buf_addch(b, '\n');
}

int lk_store_export_memprof(struct lk_ctx *ctx, struct lk_store *s,
			    const char *campaign, int json, FILE *out)
{
	static const char sql[] =
		"SELECT c.name AS campaign, r.id AS run, r.program, r.cflags,"
		" f.name AS function, f.calls, f.total, f.self, f.min_self,"
		" f.max_self, f.mean_self, f.loads, f.stores, f.residual"
		" FROM memprof_functions f JOIN memprof_runs r"
		" ON r.id = f.run_id JOIN campaigns c ON c.id = r.campaign_id"
		" WHERE ?1 IS NULL OR c.name = ?1"
		" ORDER BY r.id, f.self DESC, f.name";
	struct lk_buf b = LK_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc, n = 0, ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		return ret;
	store_bind_text(st, 1, campaign);
	if (json)
		lk_buf_addch(&b, '[');
	else
		header(&b, st);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(&b, st, json, !n++);
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the memprof runs");
	if (json)
		lk_buf_adds(&b, "]\n");
	if (!ret && fwrite(b.buf, 1, b.len, out) != b.len)
		ret = lk_error_errno(ctx, "writing the export");
	sqlite3_finalize(st);
	lk_buf_release(&b);
	return ret;
}
