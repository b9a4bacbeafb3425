/* The MDL seed database in the store (tables mdl_dbs, mdl_seeds,
 * mdl_seed_perf; migration 8). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

static int forget_db(struct lk_ctx *ctx, struct lk_store *s,
		     const char *hash)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "DELETE FROM mdl_dbs WHERE hash = ?1",
				&st);

	if (ret)
		return ret;
	if (store_bind_text(st, 1, hash) || sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot replace MDL database %.12s",
				 hash);
	sqlite3_finalize(st);
	return ret;
}

static int insert_db(struct lk_ctx *ctx, struct lk_store *s,
		     const struct lk_mdl_db_row *db, int64_t *id)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "INSERT INTO mdl_dbs (hash, machine,"
				" isa, levels, params, campaign_id, env_id)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
				" RETURNING id", &st);

	if (ret)
		return ret;
	if (store_bind_text(st, 1, db->hash) ||
	    store_bind_text(st, 2, db->machine) ||
	    store_bind_text(st, 3, db->isa) ||
	    store_bind_text(st, 4, db->levels) ||
	    store_bind_text(st, 5, db->params) ||
	    store_bind_id(st, 6, db->campaign_id) ||
	    store_bind_id(st, 7, db->env_id))
		ret = store_fail(ctx, s, "cannot bind the MDL database");
	else
		ret = store_step_id(ctx, s, st, "MDL database", id) ? LK_ESTORE
								  : 0;
	sqlite3_finalize(st);
	return ret;
}

static int bind_seed(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_mdl_seed_row *r =
		(const struct lk_mdl_seed_row *)rows + i;
	int k, bad = store_bind_text(st, 2, r->name) ||
		     store_bind_text(st, 3, r->kind) ||
		     store_bind_text(st, 4, r->mdl);

	for (k = 0; k < LK_MDL_NFEATURES && !bad; k++)
		bad = sqlite3_bind_double(st, 5 + k, r->features[k]);
	return bad;
}

static const char *seed_name(size_t i, const void *rows)
{
	return ((const struct lk_mdl_seed_row *)rows)[i].name;
}

static int bind_perf(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_mdl_perf_row *r =
		(const struct lk_mdl_perf_row *)rows + i;

	return store_bind_text(st, 2, r->seed) ||
	       store_bind_text(st, 3, r->level) ||
	       (r->has_value ? sqlite3_bind_double(st, 4, r->value)
			     : sqlite3_bind_null(st, 4)) ||
	       store_bind_text(st, 5, r->unit) ||
	       store_bind_text(st, 6, r->source) ||
	       sqlite3_bind_int64(st, 7, r->best_unroll) ||
	       sqlite3_bind_int64(st, 8, r->best_bundles) ||
	       store_bind_id(st, 9, r->variant_id) ||
	       sqlite3_bind_double(st, 10, r->spread) ||
	       sqlite3_bind_int64(st, 11, r->variants) ||
	       store_bind_text(st, 12, r->flags ? r->flags : "");
}

static const char *perf_name(size_t i, const void *rows)
{
	return ((const struct lk_mdl_perf_row *)rows)[i].seed;
}

int lk_store_mdl_db_put(struct lk_ctx *ctx, struct lk_store *s,
			const struct lk_mdl_db_row *db, int64_t *id)
{
	struct store_rows seeds = {
		"INSERT INTO mdl_seeds (db_id, name, kind, mdl, f_load,"
		" f_store, f_streams, f_add, f_mul, f_far) VALUES (?1, ?2,"
		" ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", 0, "MDL database",
		"seed", db->seeds, db->nseeds, bind_seed, seed_name};
	struct store_rows perf = {
		"INSERT INTO mdl_seed_perf VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
		" ?7, ?8, ?9, ?10, ?11, ?12)", 0, "MDL database",
		"seed value", db->perf, db->nperf, bind_perf, perf_name};
	int64_t db_id = 0;
	int ret = store_begin(ctx, s);

	if (ret)
		return ret;
	if ((ret = forget_db(ctx, s, db->hash)) ||
	    (ret = insert_db(ctx, s, db, &db_id)))
		goto fail;
	seeds.owner_id = perf.owner_id = db_id;
	if ((ret = store_insert_rows(ctx, s, &seeds)) ||
	    (ret = store_insert_rows(ctx, s, &perf)) ||
	    (ret = store_commit(ctx, s)))
		goto fail;
	if (id)
		*id = db_id;
	return 0;
fail:
	store_rollback(s);
	return ret;
}

/* ---- Reading. ---- */

static int read_head(struct lk_ctx *ctx, struct lk_store *s, const char *isa,
		     struct lk_mdl_db_row *out)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, "SELECT id, hash, machine, isa,"
				    " levels, params, campaign_id, env_id,"
				    " created FROM mdl_dbs WHERE ?1 IS NULL"
				    " OR isa = ?1 ORDER BY created DESC,"
				    " id DESC LIMIT 1", &st);

	if (ret)
		return ret;
	if (store_bind_text(st, 1, isa)) {
		ret = store_fail(ctx, s, "cannot bind the ISA class");
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(st, 0);
		out->hash = store_column_dup(st, 1);
		out->machine = store_column_dup(st, 2);
		out->isa = store_column_dup(st, 3);
		out->levels = store_column_dup(st, 4);
		out->params = store_column_dup(st, 5);
		out->campaign_id = sqlite3_column_int64(st, 6);
		out->env_id = sqlite3_column_int64(st, 7);
		out->created = sqlite3_column_double(st, 8);
		ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the MDL databases");
	}
out:
	sqlite3_finalize(st);
	return ret;
}

static int read_seeds(struct lk_ctx *ctx, struct lk_store *s,
		      struct lk_mdl_db_row *out)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int k, rc, ret = store_prepare(ctx, s, "SELECT name, kind, mdl,"
				       " f_load, f_store, f_streams, f_add,"
				       " f_mul, f_far FROM mdl_seeds WHERE"
				       " db_id ="
				       " ?1 ORDER BY name", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, out->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct lk_mdl_seed_row *r;

		LK_GROW(out->seeds, out->nseeds + 1, alloc);
		r = &out->seeds[out->nseeds++];
		r->name = store_column_dup(st, 0);
		r->kind = store_column_dup(st, 1);
		r->mdl = store_column_dup(st, 2);
		for (k = 0; k < LK_MDL_NFEATURES; k++)
			r->features[k] = sqlite3_column_double(st, 3 + k);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the MDL seeds");
	sqlite3_finalize(st);
	return ret;
}

static void read_perf_row(sqlite3_stmt *st, struct lk_mdl_perf_row *r)
{
	r->seed = store_column_dup(st, 0);
	r->level = store_column_dup(st, 1);
	r->has_value = sqlite3_column_type(st, 2) != SQLITE_NULL;
	r->value = sqlite3_column_double(st, 2);
	r->unit = store_column_dup(st, 3);
	r->source = store_column_dup(st, 4);
	r->best_unroll = sqlite3_column_int64(st, 5);
	r->best_bundles = sqlite3_column_int64(st, 6);
	r->variant_id = sqlite3_column_int64(st, 7);
	r->spread = sqlite3_column_double(st, 8);
	r->variants = sqlite3_column_int64(st, 9);
	r->flags = store_column_dup(st, 10);
}

static int read_perf(struct lk_ctx *ctx, struct lk_store *s,
		     struct lk_mdl_db_row *out)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc, ret = store_prepare(ctx, s, "SELECT name, level, value, unit,"
				    " source, best_unroll, best_bundles,"
				    " variant_id, spread, variants, flags"
				    " FROM mdl_seed_perf WHERE db_id = ?1"
				    " ORDER BY name, CASE level WHEN 'L1'"
				    " THEN 1 WHEN 'L2' THEN 2 WHEN 'L3' THEN"
				    " 3 ELSE 4 END", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, out->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(out->perf, out->nperf + 1, alloc);
		read_perf_row(st, &out->perf[out->nperf++]);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the MDL seed values");
	sqlite3_finalize(st);
	return ret;
}

int lk_store_mdl_db_get(struct lk_ctx *ctx, struct lk_store *s,
			const char *isa, struct lk_mdl_db_row *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = read_head(ctx, s, isa, out);
	if (ret == 1 && ((ret = read_seeds(ctx, s, out)) == 0) &&
	    ((ret = read_perf(ctx, s, out)) == 0))
		ret = 1;
	if (ret != 1)
		lk_mdl_db_row_release(out);
	return ret;
}

void lk_mdl_db_row_release(struct lk_mdl_db_row *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nseeds; i++) {
		free(db->seeds[i].name);
		free(db->seeds[i].kind);
		free(db->seeds[i].mdl);
	}
	for (i = 0; i < db->nperf; i++) {
		free(db->perf[i].seed);
		free(db->perf[i].level);
		free(db->perf[i].unit);
		free(db->perf[i].source);
		free(db->perf[i].flags);
	}
	free(db->seeds);
	free(db->perf);
	free(db->hash);
	free(db->machine);
	free(db->isa);
	free(db->levels);
	free(db->params);
	memset(db, 0, sizeof(*db));
}

/* ---- A variant's figure. ---- */

int lk_store_run_figure(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const char *metric,
			struct lk_run_figure *out)
{
	return lk_store_run_figure_of(ctx, s, variant_id, NULL, metric, out);
}

int lk_store_run_figure_of(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t variant_id, const char *method,
			   const char *metric, struct lk_run_figure *out)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, "SELECT r.status, x.value,"
				    " x.spread, x.source, x.unit, x.flags"
				    " FROM runs r LEFT JOIN results x ON"
				    " x.run_id = r.id AND x.metric = ?2"
				    " WHERE r.variant_id = ?1 AND"
				    " (?3 IS NULL OR r.method = ?3) ORDER BY"
				    " r.finished DESC, r.id DESC,"
				    " x.position LIMIT 1", &st);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	if (sqlite3_bind_int64(st, 1, variant_id) ||
	    store_bind_text(st, 2, metric) ||
	    (method ? store_bind_text(st, 3, method)
		    : sqlite3_bind_null(st, 3))) {
		ret = store_fail(ctx, s, "cannot bind the run's metric");
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->status = store_column_dup(st, 0);
		out->has_value = sqlite3_column_type(st, 1) != SQLITE_NULL;
		out->value = sqlite3_column_double(st, 1);
		out->spread = sqlite3_column_double(st, 2);
		out->source = store_column_dup(st, 3);
		out->unit = store_column_dup(st, 4);
		out->flags = store_column_dup(st, 5);
	} else if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the runs of variant "
				 "%lld", (long long)variant_id);
	}
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_run_figure_usable(const struct lk_run_figure *f)
{
	return f->status && f->has_value &&
	       (!strcmp(f->status, "ok") || !strcmp(f->status, "unstable"));
}

void lk_run_figure_release(struct lk_run_figure *f)
{
	if (!f)
		return;
	free(f->status);
	free(f->source);
	free(f->unit);
	free(f->flags);
	memset(f, 0, sizeof(*f));
}

/* ---- loopkit mdl eval's rows (migration 9). ---- */

static int bind_double_or_null(sqlite3_stmt *st, int i, double v)
{
	return v == v ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

static int bind_eval(sqlite3_stmt *st, size_t i, const void *rows)
{
	const struct lk_mdl_eval_row *r =
		(const struct lk_mdl_eval_row *)rows + i;

	return store_bind_id(st, 2, r->variant_id) ||
	       store_bind_text(st, 3, r->variant ? r->variant : "") ||
	       store_bind_text(st, 4, r->function) ||
	       sqlite3_bind_int64(st, 5, (sqlite3_int64)r->loop) ||
	       store_bind_text(st, 6, r->level ? r->level : "") ||
	       store_bind_text(st, 7, r->isa ? r->isa : "") ||
	       store_bind_text(st, 8, r->status) ||
	       store_bind_text(st, 9, r->reason ? r->reason : "") ||
	       sqlite3_bind_int64(st, 10, r->unroll) ||
	       bind_double_or_null(st, 11, r->predicted) ||
	       bind_double_or_null(st, 12, r->replayed) ||
	       bind_double_or_null(st, 13, r->mca) ||
	       store_bind_text(st, 14, r->mca_tool ? r->mca_tool : "") ||
	       store_bind_text(st, 15, r->db_hash ? r->db_hash : "") ||
	       store_bind_id(st, 16, r->replay_variant_id);
}

static const char *eval_name(size_t i, const void *rows)
{
	return ((const struct lk_mdl_eval_row *)rows)[i].function;
}

static int forget_evals(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(ctx, s, "DELETE FROM mdl_evals WHERE"
				" campaign_id = ?1", &st);

	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	if (sqlite3_step(st) != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot replace the MDL evaluation");
	sqlite3_finalize(st);
	return ret;
}

int lk_store_mdl_eval_put(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const struct lk_mdl_eval_row *rows,
			  size_t n)
{
	struct store_rows r = {
		"INSERT INTO mdl_evals VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)", campaign,
		"MDL evaluation", "loop", rows, n, bind_eval, eval_name};
	int ret = store_begin(ctx, s);

	if (ret)
		return ret;
	if ((ret = forget_evals(ctx, s, campaign)) ||
	    (ret = store_insert_rows(ctx, s, &r)) ||
	    (ret = store_commit(ctx, s)))
		store_rollback(s);
	return ret;
}

static double column_double_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL
		       ? NAN : sqlite3_column_double(st, i);
}

static void read_eval_row(sqlite3_stmt *st, struct lk_mdl_eval_row *r)
{
	r->variant_id = sqlite3_column_int64(st, 0);
	r->variant = store_column_dup(st, 1);
	r->function = store_column_dup(st, 2);
	r->loop = (uint64_t)sqlite3_column_int64(st, 3);
	r->level = store_column_dup(st, 4);
	r->isa = store_column_dup(st, 5);
	r->status = store_column_dup(st, 6);
	r->reason = store_column_dup(st, 7);
	r->unroll = sqlite3_column_int64(st, 8);
	r->predicted = column_double_or_nan(st, 9);
	r->replayed = column_double_or_nan(st, 10);
	r->mca = column_double_or_nan(st, 11);
	r->mca_tool = store_column_dup(st, 12);
	r->db_hash = store_column_dup(st, 13);
	r->replay_variant_id = sqlite3_column_int64(st, 14);
}

int lk_store_mdl_eval_get(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, struct lk_mdl_eval_row **rows,
			  size_t *n)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc, ret = store_prepare(ctx, s, "SELECT variant_id, variant,"
				    " function, loop, level, isa, status,"
				    " reason, unroll, predicted, replayed,"
				    " mca, mca_tool, db_hash,"
				    " replay_variant_id FROM mdl_evals"
				    " WHERE campaign_id = ?1 ORDER BY"
				    " variant_id, loop, CASE level WHEN ''"
				    " THEN 0 WHEN 'L1' THEN 1 WHEN 'L2' THEN"
				    " 2 WHEN 'L3' THEN 3 ELSE 4 END", &st);

	*rows = NULL;
	*n = 0;
	if (ret)
		return ret;
	sqlite3_bind_int64(st, 1, campaign);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(*rows, *n + 1, alloc);
		read_eval_row(st, &(*rows)[(*n)++]);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the MDL evaluation");
		lk_mdl_eval_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
	}
	sqlite3_finalize(st);
	return ret;
}

void lk_mdl_eval_rows_free(struct lk_mdl_eval_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].variant);
		free(rows[i].function);
		free(rows[i].level);
		free(rows[i].isa);
		free(rows[i].status);
		free(rows[i].reason);
		free(rows[i].mca_tool);
		free(rows[i].db_hash);
	}
	free(rows);
}

/* The run lk_store_run_figure_of reads, in SQL (?1 variant, ?2 method). */
#define LATEST_RUN                                                             \
	"(SELECT r.id FROM runs r WHERE r.variant_id = ?1 AND (?2 IS NULL"    \
	" OR r.method = ?2) ORDER BY r.finished DESC, r.id DESC LIMIT 1)"

/* One number about variant_id's run under method (NULL: the latest), by
 * sql (?1 variant, ?2 method) into *out; 0 when the query has none. */
static int run_number(struct lk_ctx *ctx, struct lk_store *s, const char *sql,
		      int64_t variant_id, const char *method, const char *what,
		      double *out)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(ctx, s, sql, &st);

	*out = 0;
	if (ret)
		return ret;
	if (sqlite3_bind_int64(st, 1, variant_id) ||
	    (method ? store_bind_text(st, 2, method)
		    : sqlite3_bind_null(st, 2))) {
		ret = store_fail(ctx, s, "cannot bind the run's variant");
		goto out;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_double(st, 0);
	else if (rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the %s of variant %lld",
				 what, (long long)variant_id);
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_store_run_least_ticks(struct lk_ctx *ctx, struct lk_store *s,
			     int64_t variant_id, const char *method,
			     double *ticks)
{
	return run_number(ctx, s, "SELECT MIN(m.value) FROM samples m WHERE"
			  " m.run_id = " LATEST_RUN " AND m.metric = 'tsc'"
			  " AND m.value > 0 AND m.region IS (SELECT x.region"
			  " FROM results x WHERE x.run_id = m.run_id AND"
			  " x.metric = 'cycles' ORDER BY x.position LIMIT 1)",
			  variant_id, method, "samples", ticks);
}

/* A run's reference pairs, as SQL over samples c (ref_cycles) joined to
 * t (ref_tsc): one row per sample that has both. */
#define REF_PAIRS                                                              \
	" samples c JOIN samples t ON t.run_id = c.run_id AND t.metric ="     \
	" 'ref_tsc' AND t.process = c.process AND t.attempt = c.attempt AND"  \
	" t.idx = c.idx AND t.region IS c.region WHERE c.metric ="            \
	" 'ref_cycles' AND t.raw > 0 AND c.raw > 0"
/* The ids of campaign ?1's runs. */
#define CAMPAIGN_RUNS                                                          \
	" (SELECT r.id FROM runs r JOIN variants v ON v.id = r.variant_id"    \
	" WHERE v.campaign_id = ?1)"

int lk_store_run_clock(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t variant_id, const char *method, double *clock)
{
	return run_number(ctx, s, "SELECT MAX(c.raw / t.raw) FROM" REF_PAIRS
			  " AND c.run_id = " LATEST_RUN, variant_id, method,
			  "references", clock);
}

/* The numbers sql (?1 the campaign) gives, in its order, into *v (n of
 * them; caller frees, NULL and 0 on error). */
static int campaign_numbers(struct lk_ctx *ctx, struct lk_store *s,
			    const char *sql, int64_t campaign_id, double **v,
			    size_t *n)
{
	sqlite3_stmt *st = NULL;
	size_t alloc = 0;
	int rc, ret = store_prepare(ctx, s, sql, &st);

	*v = NULL;
	*n = 0;
	if (ret)
		return ret;
	if (sqlite3_bind_int64(st, 1, campaign_id)) {
		ret = store_fail(ctx, s, "cannot bind the campaign");
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		LK_GROW(*v, *n + 1, alloc);
		(*v)[(*n)++] = sqlite3_column_double(st, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = store_fail(ctx, s, "cannot read the references of "
				 "campaign %lld", (long long)campaign_id);
		free(*v);
		*v = NULL;
		*n = 0;
	}
out:
	sqlite3_finalize(st);
	return ret;
}

int lk_store_campaign_run_clocks(struct lk_ctx *ctx, struct lk_store *s,
				 int64_t campaign_id, double **v, size_t *n)
{
	return campaign_numbers(ctx, s, "SELECT MAX(c.raw / t.raw) AS q FROM"
				REF_PAIRS " AND c.run_id IN" CAMPAIGN_RUNS
				" GROUP BY c.run_id ORDER BY q", campaign_id,
				v, n);
}

int lk_store_campaign_clock(struct lk_ctx *ctx, struct lk_store *s,
			    int64_t campaign_id, double *ratio)
{
	double *v;
	size_t n;
	int ret = campaign_numbers(ctx, s, "SELECT c.raw / t.raw AS q FROM"
				   REF_PAIRS " AND c.run_id IN" CAMPAIGN_RUNS
				   " ORDER BY q", campaign_id, &v, &n);

	*ratio = !ret && n ? v[(size_t)(0.99 * (double)(n - 1))] : 0;
	free(v);
	return ret;
}
