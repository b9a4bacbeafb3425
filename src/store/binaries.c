/*
 * The analysis stages' view of a campaign: each current variant (the
 * sweep as gen or asm last expanded it) with the binary its latest run
 * was built into, else its latest build ('gen -c' builds every variant:
 * blocks, predict and the filter need no run). A variant never built has
 * no binary; the stages skip it and say so.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

static const char variants_sql[] =
	"SELECT v.id, v.hash, v.source, v.compiler, v.flagset, v.cflags,"
	" b.id, b.hash, b.binary, b.ok, r.status"
	" FROM variants v"
	" LEFT JOIN runs r ON r.id = (SELECT id FROM runs"
	"  WHERE variant_id = v.id ORDER BY finished DESC, id DESC LIMIT 1)"
	" LEFT JOIN variant_builds vb ON vb.variant_id = v.id"
	" LEFT JOIN builds b ON b.id = COALESCE(r.build_id, vb.build_id)"
	" WHERE v.campaign_id = ?1 AND v.current ORDER BY v.id";

static const char params_sql[] =
	"SELECT name, value FROM variant_params WHERE variant_id = ?1"
	" ORDER BY position";

static char *binary_path(const struct lk_store *s, sqlite3_stmt *st)
{
	const char *rel = (const char *)sqlite3_column_text(st, 8);

	if (!rel || !*rel || !sqlite3_column_int(st, 9))
		return lk_strdup("");
	if (rel[0] == '/')
		return lk_strdup(rel);
	return lk_asprintf("%s/%s", lk_store_dir(s), rel);
}

static int load_params(struct lk_ctx *ctx, struct lk_store *s,
		       sqlite3_stmt *st, struct lk_variant_binary *v)
{
	size_t cap = 0;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, v->variant_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_param *p;

		if (v->nparams == cap) {
			cap = cap ? 2 * cap : 4;
			v->params = lk_realloc(v->params,
					       cap * sizeof(*v->params));
		}
		p = &v->params[v->nparams++];
		p->name = store_column_dup(st, 0);
		p->value = store_column_dup(st, 1);
	}
	if (rc != SQLITE_DONE)
		return store_fail(ctx, s, "cannot read the parameters of "
				  "variant %lld", (long long)v->variant_id);
	return 0;
}

int lk_store_variant_binaries(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t campaign,
			      struct lk_variant_binary **rows, size_t *n)
{
	sqlite3_stmt *st = NULL, *pst = NULL;
	struct lk_variant_binary *v = NULL;
	size_t nv = 0, cap = 0;
	int ret, rc;

	*rows = NULL;
	*n = 0;
	ret = store_prepare(ctx, s, variants_sql, &st);
	if (!ret)
		ret = store_prepare(ctx, s, params_sql, &pst);
	if (ret)
		goto out;
	sqlite3_bind_int64(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_variant_binary *x;
		const char *status;

		if (nv == cap) {
			cap = cap ? 2 * cap : 16;
			v = lk_realloc(v, cap * sizeof(*v));
		}
		x = &v[nv++];
		memset(x, 0, sizeof(*x));
		x->variant_id = sqlite3_column_int64(st, 0);
		x->variant_hash = store_column_dup(st, 1);
		x->source = store_column_dup(st, 2);
		x->compiler = store_column_dup(st, 3);
		x->flagset = store_column_dup(st, 4);
		x->cflags = store_column_dup(st, 5);
		x->build_id = sqlite3_column_int64(st, 6);
		x->build_hash = store_column_dup(st, 7);
		x->binary = binary_path(s, st);
		status = (const char *)sqlite3_column_text(st, 10);
		x->run_status = lk_strdup(status ? status : "pending");
		ret = load_params(ctx, s, pst, x);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot list the variants of "
				 "campaign %lld", (long long)campaign);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(pst);
	if (ret) {
		lk_variant_binaries_free(v, nv);
		return ret;
	}
	*rows = v;
	*n = nv;
	return 0;
}

void lk_variant_binaries_free(struct lk_variant_binary *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lk_variant_binary *x = &rows[i];

		free(x->variant_hash);
		free(x->source);
		free(x->compiler);
		free(x->flagset);
		free(x->cflags);
		free(x->build_hash);
		free(x->binary);
		free(x->run_status);
		for (size_t j = 0; j < x->nparams; j++) {
			free((char *)x->params[j].name);
			free((char *)x->params[j].value);
		}
		free(x->params);
	}
	free(rows);
}

int lk_store_variants_current(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t campaign, const int64_t *ids, size_t n)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	int ret = store_begin(ctx, s);

	if (!ret)
		ret = store_prepare(ctx, s, "UPDATE variants SET current = 0"
				    " WHERE campaign_id = ?1", &st);
	if (!ret && (sqlite3_bind_int64(st, 1, campaign) ||
		     sqlite3_step(st) != SQLITE_DONE))
		ret = store_fail(ctx, s, "cannot mark the variants of "
				 "campaign %lld", (long long)campaign);
	sqlite3_finalize(st);
	st = NULL;
	if (!ret)
		ret = store_prepare(ctx, s, "UPDATE variants SET current = 1"
				    " WHERE id = ?1 AND campaign_id = ?2", &st);
	for (i = 0; !ret && i < n; i++) {
		sqlite3_reset(st);
		if (sqlite3_bind_int64(st, 1, ids[i]) ||
		    sqlite3_bind_int64(st, 2, campaign) ||
		    sqlite3_step(st) != SQLITE_DONE)
			ret = store_fail(ctx, s, "cannot mark variant %lld",
					 (long long)ids[i]);
	}
	sqlite3_finalize(st);
	if (!ret)
		ret = store_commit(ctx, s);
	if (ret)
		store_rollback(s);
	return ret;
}
