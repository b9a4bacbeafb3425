/*
 * The experiment's nouns in the store: campaigns, environment snapshots,
 * variants with their -D parameters, and builds.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int lk_store_campaign(struct lk_ctx *ctx, struct lk_store *s, const char *name,
		      const char *config_path, const char *config_hash,
		      int64_t *id)
{
	/* The config may have moved or changed: remember the latest. */
	static const char sql[] =
		"INSERT INTO campaigns (name, config_path, config_hash)"
		" VALUES (?1, ?2, ?3) ON CONFLICT (name) DO UPDATE SET"
		" config_path = coalesce(excluded.config_path, config_path),"
		" config_hash = coalesce(excluded.config_hash, config_hash)"
		" RETURNING id";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (store_bind_text(st, 1, name) ||
	    store_bind_text(st, 2, config_path) ||
	    store_bind_text(st, 3, config_hash)) {
		ret = store_fail(ctx, s, "cannot bind campaign %s", name);
		goto out;
	}
	ret = store_step_id(ctx, s, st, "cannot record the campaign", id);
	if (ret > 0)
		ret = lk_error(ctx, LK_EINTERNAL, "campaign %s: no id", name);
out:
	sqlite3_finalize(st);
	return ret;
}

/*
 * The unique key makes "insert unless present, then look up" safe without
 * a transaction, even with several writers.
 */
int lk_store_env_put(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const char *json, int64_t *id)
{
	sqlite3_stmt *ins = NULL, *sel = NULL;
	char hash[LK_HASH_HEX];
	int ret;

	lk_hash_buf(json, strlen(json), hash);
	ret = store_prepare(ctx, s, "INSERT INTO environments (campaign_id,"
			    " hash, snapshot) VALUES (?1, ?2, ?3)"
			    " ON CONFLICT DO NOTHING", &ins);
	if (!ret)
		ret = store_prepare(ctx, s, "SELECT id FROM environments"
				    " WHERE campaign_id = ?1 AND hash = ?2",
				    &sel);
	if (ret)
		goto out;
	if (sqlite3_bind_int64(ins, 1, campaign) ||
	    store_bind_text(ins, 2, hash) || store_bind_text(ins, 3, json) ||
	    sqlite3_bind_int64(sel, 1, campaign) ||
	    store_bind_text(sel, 2, hash)) {
		ret = store_fail(ctx, s, "cannot bind environment");
		goto out;
	}
	if (sqlite3_step(ins) != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot store environment %s", hash);
		goto out;
	}
	ret = store_step_id(ctx, s, sel, "cannot look up environment", id);
	if (ret > 0)
		ret = lk_error(ctx, LK_EINTERNAL, "environment %s: no id",
			       hash);
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	return ret;
}

static int bind_param(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_param *p = (const struct lk_param *)rows + i;

	return sqlite3_bind_int64(st, 2, (int64_t)i) ||
	       store_bind_text(st, 3, p->name) ||
	       store_bind_text(st, 4, p->value);
}

static const char *param_name(size_t i, const void *rows)
{
	return ((const struct lk_param *)rows)[i].name;
}

static int insert_params(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant, const struct lk_variant_rec *v)
{
	char *owner = lk_asprintf("variant %s", v->hash);
	struct store_rows rows = {
		"INSERT INTO variant_params (variant_id, position, name, value)"
		" VALUES (?1, ?2, ?3, ?4)", variant, owner, "parameter",
		v->params, v->nparams, bind_param, param_name};
	int ret = store_insert_rows(ctx, s, &rows);

	free(owner);
	return ret;
}

static int lookup_variant(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const char *hash, int64_t *id)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "SELECT id FROM variants WHERE"
				" campaign_id = ?1 AND hash = ?2", &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, campaign) ||
	    store_bind_text(st, 2, hash)) {
		ret = store_fail(ctx, s, "cannot bind variant %s", hash);
		goto out;
	}
	ret = store_step_id(ctx, s, st, "cannot look up the variant", id);
	if (ret > 0)
		ret = lk_error(ctx, LK_EINTERNAL, "variant %s: no id", hash);
out:
	sqlite3_finalize(st);
	return ret;
}

/* Insert the variant row; *inserted says whether it was new. */
static int insert_variant(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const struct lk_variant_rec *v,
			  int64_t *id, int *inserted)
{
	static const char sql[] =
		"INSERT INTO variants (campaign_id, hash, source, source_hash,"
		" compiler, flagset, cflags)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		" ON CONFLICT DO NOTHING RETURNING id";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (sqlite3_bind_int64(st, 1, campaign) ||
	    store_bind_text(st, 2, v->hash) ||
	    store_bind_text(st, 3, v->source) ||
	    store_bind_text(st, 4, v->source_hash) ||
	    store_bind_text(st, 5, v->compiler) ||
	    store_bind_text(st, 6, v->flagset) ||
	    store_bind_text(st, 7, v->cflags)) {
		ret = store_fail(ctx, s, "cannot bind variant %s", v->hash);
		goto out;
	}
	ret = store_step_id(ctx, s, st, "cannot store the variant", id);
	*inserted = ret == 0;
	if (ret > 0) /* already there */
		ret = lookup_variant(ctx, s, campaign, v->hash, id);
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_store_variant_put(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_variant_rec *v,
			 int64_t *id)
{
	int inserted = 0;
	int ret = store_begin(ctx, s);

	if (ret)
		return ret;
	ret = insert_variant(ctx, s, campaign, v, id, &inserted);
	if (!ret && inserted)
		ret = insert_params(ctx, s, *id, v);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}

int lk_store_variant_count(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t campaign, long *n)
{
	return store_count(ctx, s, "SELECT count(*) FROM variants"
			   " WHERE campaign_id = ?1", campaign, n);
}

int lk_store_build_get(struct lk_ctx *ctx, struct lk_store *s,
		       const char *hash, struct lk_build_rec *b)
{
	static const char sql[] =
		"SELECT id, hash, compiler, compiler_version, command, ok,"
		" reason, log, binary, seconds FROM builds WHERE hash = ?1";
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (store_bind_text(st, 1, hash)) {
		ret = store_fail(ctx, s, "cannot bind build %s", hash);
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		ret = lk_error(ctx, LK_ENOTFOUND, "no build %s", hash);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = store_fail(ctx, s, "cannot look up build %s", hash);
		goto out;
	}
	b->id = sqlite3_column_int64(st, 0);
	b->hash = store_column_dup(st, 1);
	b->compiler = store_column_dup(st, 2);
	b->compiler_version = store_column_dup(st, 3);
	b->command = store_column_dup(st, 4);
	b->ok = sqlite3_column_int(st, 5);
	b->reason = store_column_dup(st, 6);
	b->log = store_column_dup(st, 7);
	b->binary = store_column_dup(st, 8);
	b->seconds = sqlite3_column_double(st, 9);
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_store_variant_builds_set(struct lk_ctx *ctx, struct lk_store *s,
				const int64_t *variant_ids,
				const int64_t *build_ids, size_t n)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO variant_builds (variant_id, build_id)"
		" VALUES (?1, ?2)";
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret = store_begin(ctx, s);

	if (!ret)
		ret = store_prepare(ctx, s, sql, &st);
	for (i = 0; !ret && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, variant_ids[i]);
		sqlite3_bind_int64(st, 2, build_ids[i]);
		if (sqlite3_step(st) != SQLITE_DONE)
			ret = store_fail(ctx, s, "cannot record the build of "
					 "variant %lld",
					 (long long)variant_ids[i]);
	}
	sqlite3_finalize(st);
	if (!ret)
		ret = store_commit(ctx, s);
	else
		store_rollback(s);
	return ret;
}

/* An upsert, not INSERT OR REPLACE: the id stays, so runs keep theirs. */
int lk_store_build_put(struct lk_ctx *ctx, struct lk_store *s,
		       struct lk_build_rec *b)
{
	static const char sql[] =
		"INSERT INTO builds (hash, compiler, compiler_version, command,"
		" ok, reason, log, binary, seconds)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
		" ON CONFLICT (hash) DO UPDATE SET"
		" compiler = excluded.compiler,"
		" compiler_version = excluded.compiler_version,"
		" command = excluded.command, ok = excluded.ok,"
		" reason = excluded.reason, log = excluded.log,"
		" binary = excluded.binary, seconds = excluded.seconds,"
		" created = " STORE_NOW " RETURNING id";
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, sql, &st);

	if (ret)
		goto out;
	if (store_bind_text(st, 1, b->hash) ||
	    store_bind_text(st, 2, b->compiler) ||
	    store_bind_text(st, 3, b->compiler_version) ||
	    store_bind_text(st, 4, b->command) ||
	    sqlite3_bind_int(st, 5, b->ok) ||
	    store_bind_text(st, 6, b->reason) ||
	    store_bind_text(st, 7, b->log) ||
	    store_bind_text(st, 8, b->binary) ||
	    sqlite3_bind_double(st, 9, b->seconds)) {
		ret = store_fail(ctx, s, "cannot bind build %s", b->hash);
		goto out;
	}
	ret = store_step_id(ctx, s, st, "cannot store the build", &b->id);
	if (ret > 0)
		ret = lk_error(ctx, LK_EINTERNAL, "build %s: no id", b->hash);
out:
	sqlite3_finalize(st);
	return ret;
}

void lk_build_rec_release(struct lk_build_rec *b)
{
	if (!b)
		return;
	free(b->hash);
	free(b->compiler);
	free(b->compiler_version);
	free(b->command);
	free(b->reason);
	free(b->log);
	free(b->binary);
	memset(b, 0, sizeof(*b));
}
