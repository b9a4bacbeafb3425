/*
 * Private to src/store: the store handle, the migration machinery and the
 * small SQLite helpers every file of the module shares.
 */
#ifndef LOOPKIT_STORE_INT_H
#define LOOPKIT_STORE_INT_H

#include <sqlite3.h>

#include "loopkit/store.h"

struct lk_store {
	char *dir;       /* as given to lk_store_open */
	char *db_path;   /* <dir>/store.db, the prefix of every error */
	sqlite3 *db;
	int version;     /* schema version after migrations */
	struct store_lock *lock; /* the writer lock; NULL for a reader */
};

/* Unix seconds as REAL, the one time format of the store. */
#define STORE_NOW "((julianday('now') - 2440587.5) * 86400.0)"

/* Written into PRAGMA application_id so other SQLite files are refused. */
#define LK_STORE_APP_ID 0x4c4b5354 /* "LKST" */

/*
 * Bring db from its PRAGMA user_version up to n by applying scripts
 * [version, n), each in its own transaction that also bumps user_version.
 * A version above n is LK_EUNSUP. Separate from lk_store_open so the
 * unit tests can drive it with their own scripts. *version gets the
 * final version.
 */
int lk_store_migrate_with(struct lk_ctx *ctx, sqlite3 *db, const char *path,
			  const char *const *scripts, int n, int *version);
/* The schema this build writes: the number of built-in migrations. */
int lk_store_latest_version(void);
/* Apply the built-in migrations. */
int lk_store_migrate(struct lk_ctx *ctx, sqlite3 *db, const char *path,
		     int *version);

/*
 * The writer lock on <dir>/store.lock, shared by every handle of this
 * process on the same store. Held by another process: LK_ESTORE naming
 * the holder. store_unlock accepts a store without the lock.
 */
int store_lock(struct lk_ctx *ctx, struct lk_store *s);
void store_unlock(struct lk_store *s);
/* Refuse (LK_EINPUT) a store.db without loopkit's application_id. */
int store_check_identity(struct lk_ctx *ctx, struct lk_store *s);
/* PRAGMA quick_check: a damaged page is LK_ESTORE. */
int store_check_pages(struct lk_ctx *ctx, struct lk_store *s);
/* Build a new store.db whole (as store.db.new, then renamed); hold the
 * lock. */
int store_create(struct lk_ctx *ctx, struct lk_store *s);

/*
 * Record LK_ESTORE as "<db path>: <what>: <SQLite message>". Call it
 * before any other SQLite call, which would replace the message.
 */
int store_fail(struct lk_ctx *ctx, struct lk_store *s, const char *fmt, ...)
	LK_PRINTF(3, 4);
int store_prepare(struct lk_ctx *ctx, struct lk_store *s, const char *sql,
		  sqlite3_stmt **st);
int store_exec(struct lk_ctx *ctx, struct lk_store *s, const char *sql);

/* BEGIN IMMEDIATE: take the write lock now, not at the first write. */
int store_begin(struct lk_ctx *ctx, struct lk_store *s);
int store_commit(struct lk_ctx *ctx, struct lk_store *s);
/* Roll back if a transaction is open; keeps the error already in ctx. */
void store_rollback(struct lk_store *s);

/* Bind helpers: NULL text binds SQL NULL; 0 ids bind NULL. */
int store_bind_text(sqlite3_stmt *st, int i, const char *text);
int store_bind_id(sqlite3_stmt *st, int i, int64_t id);

/*
 * Step a statement whose first column is an id: 0 and *id on a row, 1 when
 * there is none, LK_ESTORE (with 'what' in the message) on error. Resets st.
 */
int store_step_id(struct lk_ctx *ctx, struct lk_store *s, sqlite3_stmt *st,
		  const char *what, int64_t *id);
/*
 * A batch of rows inserted with one prepared statement: ?1 is bound once
 * to owner_id (the run or variant they belong to), bind(st, i, rows)
 * binds row i from ?2 on. A failure says "cannot store <what> <name> of
 * <owner>", name(i, rows) naming the row (NULL: its index).
 */
struct store_rows {
	const char *sql;
	int64_t owner_id;
	const char *owner;      /* "run 12", "variant 3f2a..." */
	const char *what;       /* "sample", "parameter", ... */
	const void *rows;
	size_t n;
	int (*bind)(sqlite3_stmt *st, size_t i, const void *rows);
	const char *(*name)(size_t i, const void *rows);
};

/* The caller holds the transaction. */
int store_insert_rows(struct lk_ctx *ctx, struct lk_store *s,
		      const struct store_rows *r);
/* Run a "SELECT count(*) ... ?1" with ?1 bound to key. */
int store_count(struct lk_ctx *ctx, struct lk_store *s, const char *sql,
		int64_t key, long *n);

/* Owned copy of a text column, "" for NULL. */
LK_GIVE char *store_column_dup(sqlite3_stmt *st, int i);
/* A results row from the current row of st, whose columns are region,
 * metric, source, unit, value, reducer, n, spread, flags, is_primary in
 * that order; the strings are owned by row (runs.c). */
void store_result_read(sqlite3_stmt *st, struct lk_result_row *row);

#endif
