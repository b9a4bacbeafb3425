/*
 * Prediction of a description against a stored seed database: the
 * k-NN over the seeds measured at one level, on the union of the
 * µkernels (joint) or µkernel by µkernel (sum).
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/env.h"
#include "loopkit/mdl.h"

/* The seeds with a value at level, as k-NN seeds (names borrowed). */
static size_t level_seeds(const struct lk_mdl_db_row *db,
			  enum lk_mdl_level level,
			  struct lk_mdl_knn_seed **out, size_t **index)
{
	size_t *idx = lk_calloc(db->nseeds + 1, sizeof(*idx));
	const char *name = lk_mdl_level_name(level);
	struct lk_mdl_knn_seed *v = lk_calloc(db->nseeds + 1, sizeof(*v));
	size_t i, j, n = 0;

	for (i = 0; i < db->nperf; i++) {
		const struct lk_mdl_perf_row *p = &db->perf[i];

		if (!p->has_value || strcmp(p->level, name))
			continue;
		for (j = 0; j < db->nseeds; j++)
			if (!strcmp(db->seeds[j].name, p->seed))
				break;
		if (j == db->nseeds)
			continue;
		idx[n] = j;
		v[n].name = db->seeds[j].name;
		memcpy(v[n].f, db->seeds[j].features, sizeof(v[n].f));
		v[n++].perf = p->value;
	}
	*out = v;
	*index = idx;
	return n;
}

/* The steps of r, their seeds renumbered into the database's. */
static void append_steps(struct lk_mdl_prediction *out,
			 const struct lk_mdl_knn_result *r, size_t ukernel,
			 const size_t *index)
{
	size_t i, n = out->nsteps + r->nsteps;

	out->steps = lk_reallocarray(out->steps, n + 1, sizeof(*out->steps));
	out->step_ukernel = lk_reallocarray(out->step_ukernel, n + 1,
					    sizeof(*out->step_ukernel));
	for (i = 0; i < r->nsteps; i++) {
		out->steps[out->nsteps + i] = r->steps[i];
		out->steps[out->nsteps + i].seed = index[r->steps[i].seed];
		out->step_ukernel[out->nsteps + i] = ukernel;
	}
	out->nsteps = n;
}

/* The distance's weights at L3 and RAM, where a far line costs most. */
static const double far_weight[LK_MDL_NFEATURES] = {
	[LK_MDL_F_LOAD] = 1, [LK_MDL_F_STORE] = 1, [LK_MDL_F_STREAMS] = 1,
	[LK_MDL_F_ADD] = 1, [LK_MDL_F_MUL] = 1,
	[LK_MDL_F_FAR] = LK_MDL_FAR_WEIGHT};

/* The bytes of the cache nearer than level, on this machine (0 at L1,
 * or unknown). */
static long long near_bytes(enum lk_mdl_level level)
{
	struct lk_env_caches c;

	if (level == LK_MDL_L1)
		return 0;
	lk_env_cache_sizes(&c);
	return level == LK_MDL_L2 ? c.l1d : level == LK_MDL_L3 ? c.l2 : c.l3;
}

/*
 * Is m predicted against db at level per pair of canonical iterations?
 * A packed 4-byte element loop is: its instructions then move the bytes
 * and do the operations of one of a seed's, and touch twice its far
 * lines (a line per access whatever the access's width). Scalar code
 * moves and computes one element per instruction whatever its width:
 * so per iteration at L1, where instructions cost and bytes hardly do;
 * beyond, per pair for its bytes (two instructions of each operation),
 * bounded by its instructions (instruction_bound).
 */
static int per_pair(const struct lk_mdl_db_row *db, const struct lk_mdl *m,
		    enum lk_mdl_level level)
{
	return lk_mdl_element_bytes(m) == 4 &&
	       (strcmp(db->isa, "scalar") || level > LK_MDL_L1);
}

/* One k-NN on the features of µkernel k (k < 0: all, joint), per pair
 * of canonical iterations or per iteration. */
static int predict_part(struct lk_ctx *ctx, const struct lk_mdl_db_row *db,
			const char *file, const struct lk_mdl *m, long k,
			const struct lk_mdl_knn_seed *seeds,
			const size_t *index, size_t n,
			enum lk_mdl_level level, long long near, int pair,
			const struct lk_mdl_predict_opts *o,
			struct lk_mdl_prediction *out)
{
	struct lk_mdl_knn_opts knn = o->knn;
	struct lk_mdl_knn_result r;
	double f[LK_MDL_NFEATURES];
	int ret = lk_mdl_features_near(ctx, file, m, k, near, f);

	if (ret)
		return ret;
	if (pair) {
		f[LK_MDL_F_FAR] *= 2;
		if (!strcmp(db->isa, "scalar")) {
			f[LK_MDL_F_ADD] *= 2;
			f[LK_MDL_F_MUL] *= 2;
		}
	}
	if (level >= LK_MDL_L3 && !knn.weight)
		knn.weight = far_weight;
	lk_mdl_knn(f, seeds, n, &knn, &r);
	out->value += pair ? r.value / 2 : r.value;
	if (r.residual > out->residual)
		out->residual = r.residual;
	append_steps(out, &r, k < 0 ? 0 : (size_t)k, index);
	lk_mdl_knn_result_release(&r);
	return 0;
}

/* A whole-number meta value of m, 0 when absent. */
static long meta_long(const struct lk_mdl *m, const char *key)
{
	const struct lk_mdl_attr *a = lk_mdl_attr_find(m->meta, m->nmeta,
						       key);

	return a && a->kind == LK_MDL_INT ? strtol(a->text, NULL, 10) : 0;
}

/* The database's latency of op (cycles per operation), 0 if none. */
static double latency(const struct lk_mdl_db_row *db, enum lk_mdl_latency op)
{
	const char *name = lk_mdl_latency_name(op);
	size_t i;

	for (i = 0; i < db->nperf; i++)
		if (db->perf[i].has_value && !strcmp(db->perf[i].seed, name))
			return db->perf[i].value;
	return 0;
}

/*
 * Cycles per canonical iteration of m's carried recurrence (meta
 * chain_*, over chain_distance iterations and meta.unroll canonical
 * ones each), 0 when m has none or the database lacks a latency it
 * needs. An FMA without its latency (a CPU without FMA has no FMA
 * chain) takes the add's; an "other" operation (a move, a shuffle, a
 * logic operation) one cycle.
 */
static double chain_bound(const struct lk_mdl_db_row *db,
			  const struct lk_mdl *m)
{
	static const char *const keys[LK_MDL_NCHAIN] = {
		"chain_add", "chain_mul", "chain_fma", "chain_div",
		"chain_other", "chain_forward"};
	static const enum lk_mdl_latency ops[LK_MDL_NCHAIN] = {
		LK_MDL_LAT_ADD, LK_MDL_LAT_MUL, LK_MDL_LAT_FMA, LK_MDL_LAT_DIV,
		LK_MDL_LAT_NONE, LK_MDL_LAT_STORE};
	long unroll = meta_long(m, "unroll");
	long distance = meta_long(m, "chain_distance");
	double sum = 0, lat;
	int k;

	for (k = 0; k < LK_MDL_NCHAIN; k++) {
		long n = meta_long(m, keys[k]);

		if (!n)
			continue;
		lat = ops[k] == LK_MDL_LAT_NONE ? 1 : latency(db, ops[k]);
		if (!lat && ops[k] == LK_MDL_LAT_FMA)
			lat = latency(db, LK_MDL_LAT_ADD);
		if (!lat)
			return 0;
		sum += (double)n * lat;
	}
	return sum / (double)(distance > 0 ? distance : 1) /
	       (double)(unroll > 0 ? unroll : 1);
}

/*
 * Cycles per canonical iteration of m's failed store forwards (meta
 * forward_fail per compiled iteration, over meta.unroll): each waits
 * for the stores before it to reach the cache, one after the other.
 * 0 when m has none or the database lacks their latency.
 */
static double forward_bound(const struct lk_mdl_db_row *db,
			    const struct lk_mdl *m)
{
	long n = meta_long(m, "forward_fail"), unroll = meta_long(m, "unroll");

	return n ? (double)n * latency(db, LK_MDL_LAT_FORWARD_FAIL) /
			   (double)(unroll > 0 ? unroll : 1)
		 : 0;
}

/*
 * Scalar code predicted per pair (of 4-byte elements, beyond L1): its
 * k-NN counts the bytes it moves, half a seed's per instruction; its
 * instructions cost at least what they cost at L1, where the k-NN per
 * iteration counts them. That L1 figure, or 0 (no value at L1).
 */
static double instruction_bound(struct lk_ctx *ctx,
				const struct lk_mdl_db_row *db,
				const char *file, const struct lk_mdl *m,
				const struct lk_mdl_predict_opts *o)
{
	struct lk_mdl_prediction l1;
	double v;

	if (lk_mdl_predict(ctx, db, file, m, LK_MDL_L1, o, &l1)) {
		lk_ctx_clear(ctx);
		return 0;
	}
	v = l1.knn;
	lk_mdl_prediction_release(&l1);
	return v;
}

int lk_mdl_predict(struct lk_ctx *ctx, const struct lk_mdl_db_row *db,
		   const char *file, const struct lk_mdl *m,
		   enum lk_mdl_level level,
		   const struct lk_mdl_predict_opts *o,
		   struct lk_mdl_prediction *out)
{
	struct lk_mdl_knn_seed *seeds = NULL;
	size_t *index = NULL;
	size_t k, nuk = lk_mdl_ukernel_count(m);
	long long near = near_bytes(level);
	int pair = per_pair(db, m, level), ret = 0;

	memset(out, 0, sizeof(*out));
	out->level = level;
	out->seeds = level_seeds(db, level, &seeds, &index);
	if (!out->seeds)
		ret = lk_error(ctx, LK_EINPUT, "the %s database %.12s has no "
			       "seed measured at %s: build it with 'loopkit "
			       "mdl db build --isa %s --levels %s'", db->isa,
			       db->hash, lk_mdl_level_name(level), db->isa,
			       lk_mdl_level_name(level));
	else if (o->combine == LK_MDL_COMBINE_JOINT || nuk < 2)
		ret = predict_part(ctx, db, file, m, -1, seeds, index,
				   out->seeds, level, near, pair, o, out);
	for (k = 0; !ret && o->combine == LK_MDL_COMBINE_SUM && nuk > 1 &&
		    k < nuk; k++)
		ret = predict_part(ctx, db, file, m, (long)k, seeds, index,
				   out->seeds, level, near, pair, o, out);
	free(seeds);
	free(index);
	if (ret) {
		lk_mdl_prediction_release(out);
		return ret;
	}
	out->knn = out->value;
	lk_mdl_trailing(m, near, &out->trailing);
	if (pair && !strcmp(db->isa, "scalar"))
		out->instructions = instruction_bound(ctx, db, file, m, o);
	if (out->instructions > out->value)
		out->value = out->instructions;
	out->bound = chain_bound(db, m);
	if (forward_bound(db, m) > out->bound)
		out->bound = forward_bound(db, m);
	if (out->bound > out->value)
		out->value = out->bound;
	return 0;
}

void lk_mdl_prediction_release(struct lk_mdl_prediction *p)
{
	if (!p)
		return;
	free(p->steps);
	free(p->step_ukernel);
	lk_strv_release(&p->trailing);
	memset(p, 0, sizeof(*p));
}
