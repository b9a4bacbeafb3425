/*
 * Opening and closing the store, and the SQLite helpers the rest of the
 * module shares.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int store_fail(struct lk_ctx *ctx, struct lk_store *s, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	what = lk_vasprintf(fmt, ap);
	va_end(ap);
	lk_error_at(ctx, LK_ESTORE, s->db_path, 0, "%s: %s", what,
		    sqlite3_errmsg(s->db));
	free(what);
	return LK_ESTORE;
}

int store_prepare(struct lk_ctx *ctx, struct lk_store *s, const char *sql,
		  sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return store_fail(ctx, s, "cannot prepare \"%.48s\"", sql);
	return 0;
}

int store_exec(struct lk_ctx *ctx, struct lk_store *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_fail(ctx, s, "cannot run \"%.48s\"", sql);
	return 0;
}

int store_begin(struct lk_ctx *ctx, struct lk_store *s)
{
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		return store_fail(ctx, s, "cannot start a transaction");
	return 0;
}

int store_commit(struct lk_ctx *ctx, struct lk_store *s)
{
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL))
		return store_fail(ctx, s, "cannot commit");
	return 0;
}

void store_rollback(struct lk_store *s)
{
	/* A failed COMMIT or an I/O error may already have rolled back. */
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *text)
{
	if (!text)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, text, -1, SQLITE_STATIC);
}

int store_bind_id(sqlite3_stmt *st, int i, int64_t id)
{
	if (!id)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_int64(st, i, id);
}

int store_step_id(struct lk_ctx *ctx, struct lk_store *s, sqlite3_stmt *st,
		  const char *what, int64_t *id)
{
	int rc = sqlite3_step(st), ret = 1;

	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "%s", what);
	}
	sqlite3_reset(st);
	return ret;
}

int store_count(struct lk_ctx *ctx, struct lk_store *s, const char *sql,
		int64_t key, long *n)
{
	sqlite3_stmt *st = NULL;
	int64_t count = 0;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, key) != SQLITE_OK) {
		ret = store_fail(ctx, s, "cannot bind");
		goto out;
	}
	ret = store_step_id(ctx, s, st, "cannot count", &count);
	if (ret > 0)
		ret = 0;
	*n = (long)count;
out:
	sqlite3_finalize(st);
	return ret;
}

static int row_failed(struct lk_ctx *ctx, struct lk_store *s,
		      const struct store_rows *r, size_t i)
{
	const char *name = r->name ? r->name(i, r->rows) : NULL;

	if (r->name)
		return store_fail(ctx, s, "cannot store %s %s of %s", r->what,
				  name ? name : "(null)", r->owner);
	return store_fail(ctx, s, "cannot store %s %zu of %s", r->what, i,
			  r->owner);
}

int store_insert_rows(struct lk_ctx *ctx, struct lk_store *s,
		      const struct store_rows *r)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret = store_prepare(ctx, s, r->sql, &st);

	if (!ret && sqlite3_bind_int64(st, 1, r->owner_id))
		ret = store_fail(ctx, s, "cannot bind %s", r->owner);
	for (i = 0; !ret && i < r->n; i++) {
		if (r->bind(st, i, r->rows) || sqlite3_step(st) != SQLITE_DONE)
			ret = row_failed(ctx, s, r, i);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return ret;
}

char *store_column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *text = sqlite3_column_text(st, i);

	return lk_strdup(text ? (const char *)text : "");
}

/*
 * WAL lets readers work beside the writer; synchronous=NORMAL keeps every
 * commit across a killed process (not across power loss, which we accept
 * for speed); foreign keys carry the ON DELETE CASCADEs of the schema.
 */
static int set_pragmas(struct lk_ctx *ctx, struct lk_store *s)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *mode;
	int ret;

	ret = store_prepare(ctx, s, "PRAGMA journal_mode = WAL", &st);
	if (ret)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW) {
		ret = store_fail(ctx, s, "cannot switch to WAL mode");
		goto out;
	}
	mode = sqlite3_column_text(st, 0);
	if (!mode || strcmp((const char *)mode, "wal"))
		lk_warn(ctx, "%s: journal mode is %s, not wal", s->db_path,
			mode ? (const char *)mode : "unknown");
	ret = store_exec(ctx, s, "PRAGMA synchronous = NORMAL;"
				 "PRAGMA foreign_keys = ON");
out:
	sqlite3_finalize(st);
	return ret;
}

/*
 * A writer takes the lock before it looks at store.db, so it never sees a
 * store another writer is creating; a reader sees store.db whole or not
 * at all.
 */
static int find_or_create(struct lk_ctx *ctx, struct lk_store *s,
			  unsigned flags)
{
	int ret = 0;

	if (!(flags & LK_STORE_CREATE) && !lk_path_exists(s->db_path))
		return lk_error(ctx, LK_ENOTFOUND, "no loopkit store in %s "
				"(%s does not exist)", s->dir, s->db_path);
	if ((flags & LK_STORE_CREATE) && lk_mkdir_p(ctx, s->dir, 0777))
		return LK_ESYS;
	if (!(flags & LK_STORE_READER))
		ret = store_lock(ctx, s);
	if (!ret && !lk_path_exists(s->db_path))
		ret = store_create(ctx, s);
	return ret;
}

/* Never SQLITE_OPEN_CREATE: only store_create makes a store.db. */
static int open_db(struct lk_ctx *ctx, struct lk_store *s)
{
	if (sqlite3_open_v2(s->db_path, &s->db, SQLITE_OPEN_READWRITE,
			    NULL) != SQLITE_OK)
		return store_fail(ctx, s, "cannot open");
	sqlite3_extended_result_codes(s->db, 1);
	if (sqlite3_busy_timeout(s->db, 10000) != SQLITE_OK)
		return store_fail(ctx, s, "cannot set the busy timeout");
	return 0;
}

int lk_store_open(struct lk_ctx *ctx, const char *dir, unsigned flags,
		  struct lk_store **out)
{
	struct lk_store *s = lk_calloc(1, sizeof(*s));
	int ret;

	if ((flags & LK_STORE_CREATE) && (flags & LK_STORE_READER))
		LK_BUG("a reader never creates the store");
	*out = NULL;
	s->dir = lk_strdup(dir);
	s->db_path = lk_path_join(dir, "store.db");
	ret = find_or_create(ctx, s, flags);
	if (!ret)
		ret = open_db(ctx, s);
	if (!ret)
		ret = store_check_identity(ctx, s);
	if (!ret)
		ret = store_check_pages(ctx, s);
	if (!ret)
		ret = set_pragmas(ctx, s);
	if (!ret)
		ret = lk_store_migrate(ctx, s->db, s->db_path, &s->version);
	if (ret) {
		lk_store_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

void lk_store_close(struct lk_store *s)
{
	if (!s)
		return;
	/* Every statement is finalized where it was prepared. */
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		LK_BUG("store closed with statements still open");
	store_unlock(s);
	free(s->dir);
	free(s->db_path);
	free(s);
}

const char *lk_store_dir(const struct lk_store *s)
{
	return s->dir;
}

int lk_store_schema_version(const struct lk_store *s)
{
	return s->version;
}

char *lk_store_object_path(const struct lk_store *s, const char *hash,
			   const char *suffix)
{
	char *objects, *path;

	if (strlen(hash) < 3)
		LK_BUG("object hash too short");
	objects = lk_path_join(s->dir, "objects");
	path = lk_asprintf("%s/%.2s/%s%s", objects, hash, hash + 2,
			   suffix ? suffix : "");
	free(objects);
	return path;
}

int lk_store_object_put(struct lk_ctx *ctx, const struct lk_store *s,
			const void *data, size_t len, const char *suffix,
			char *hash, char **path)
{
	char *dir;
	int ret;

	lk_hash_buf(data, len, hash);
	*path = lk_store_object_path(s, hash, suffix);
	if (lk_path_exists(*path))
		return 0;
	dir = lk_path_dirname(*path);
	ret = lk_mkdir_p(ctx, dir, 0777);
	free(dir);
	return ret ? ret : lk_file_write_atomic(ctx, *path, data, len);
}
