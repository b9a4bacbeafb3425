/*
 * After an asm: sweep is measured (loopkit asm, run -c): what joins its
 * variants (gen), their runs (measure), llvm-mca (predict) and their
 * binaries, stages that may not include each other:
 *
 *  - asm.difference: the cycles per copy by n/2n differencing, from the
 *    run's two regions, added to the run's results;
 *  - a warning when a kernel outgrows the decoded-op cache;
 *  - every installed llvm-mca's prediction of one copy of each body,
 *    stored under the tool's key and linked to the variant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/binary.h"
#include "loopkit/env.h"
#include "loopkit/gen.h"
#include "loopkit/measure.h"
#include "loopkit/predict.h"

/* ---- n/2n differencing. ---- */

static const struct lk_result_row *find_row(const struct lk_result_row *rows,
					    size_t n, const char *region,
					    const char *metric)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].region, region) &&
		    !strcmp(rows[i].metric, metric))
			return &rows[i];
	return NULL;
}

/* The flags of both rows, each once. */
static char *join_flags(const char *a, const char *b)
{
	struct lk_strv parts = LK_STRV_INIT;
	char *copy = lk_asprintf("%s,%s", a, b), *save = NULL, *f, *out;
	size_t i;

	for (f = strtok_r(copy, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < parts.n && strcmp(parts.v[i], f); i++)
			;
		if (i == parts.n)
			lk_strv_push(&parts, f);
	}
	out = parts.n ? lk_strv_join(&parts, ",") : lk_strdup("");
	lk_strv_release(&parts);
	free(copy);
	return out;
}

/*
 * (t(2U) - t(U)) / U from the cycles rows of the two regions: what one
 * copy of the body costs without the call, the zeroing and the timer
 * around it. The spread is the two rows' absolute spreads over the
 * difference (they add up, the difference is smaller than either).
 * 0 and *out filled (its strings owned), else 1: no such pair.
 */
static int difference_row(const struct lk_result_row *rows, size_t n,
			  long unroll, struct lk_result_row *out)
{
	const struct lk_result_row *u = find_row(rows, n, "kernel", "cycles");
	const struct lk_result_row *u2 = find_row(rows, n, LK_ASM_REGION_2U,
						  "cycles");
	double d;

	if (!u || !u2 || !u->has_value || !u2->has_value)
		return 1;
	memset(out, 0, sizeof(*out));
	d = u2->value - u->value;
	out->region = lk_strdup("kernel");
	out->metric = lk_strdup("cycles/copy");
	out->source = lk_asprintf("n/2n:%s", u->source);
	out->unit = lk_strdup("cycles/copy");
	out->reducer = lk_strdup(u->reducer);
	out->n = u->n < u2->n ? u->n : u2->n;
	out->flags = join_flags(u->flags, u2->flags);
	out->has_value = d > 0;
	out->value = d / (double)unroll;
	out->spread = d > 0 ? (u->spread * u->value + u2->spread * u2->value) /
				      d
			    : 0;
	if (d <= 0) {
		char *f = join_flags(out->flags, "difference-not-positive");

		free(out->flags);
		out->flags = f;
	}
	return 0;
}

static void row_release(struct lk_result_row *r)
{
	free(r->region);
	free(r->metric);
	free(r->source);
	free(r->unit);
	free(r->reducer);
	free(r->flags);
}

/* Append a copy of row to the report's results when they are those of
 * the run it was computed from (their kernel cycles agree). */
static void add_to_report(struct lk_run_summary *sum, int64_t variant,
			  const struct lk_result_row *ref,
			  const struct lk_result_row *row)
{
	struct lk_run_report *r = NULL;
	const struct lk_result_row *c;
	size_t i;

	for (i = 0; sum && i < sum->n; i++)
		if (sum->reports[i].variant_id == variant)
			r = &sum->reports[i];
	if (!r || find_row(r->results, r->nresults, row->region, row->metric))
		return;
	c = find_row(r->results, r->nresults, "kernel", "cycles");
	if (!c || c->value != ref->value)
		return;
	r->results = lk_reallocarray(r->results, r->nresults + 1,
				     sizeof(*r->results));
	r->results[r->nresults++] = (struct lk_result_row){
		lk_strdup(row->region), lk_strdup(row->metric),
		lk_strdup(row->source), lk_strdup(row->unit),
		lk_strdup(row->reducer), lk_strdup(row->flags),
		row->has_value, row->value, row->n, row->spread, 0};
}

static int difference_one(struct lk_ctx *ctx, struct lk_store *s,
			  const struct lk_asm_unit *u,
			  struct lk_run_summary *sum)
{
	struct lk_result_row *rows = NULL, d;
	char *status = NULL;
	size_t n = 0;
	int ret = lk_store_latest_results(ctx, s, u->variant_id, &status,
					  &rows, &n);

	if (!ret && status && difference_row(rows, n, u->unroll, &d) == 0) {
		struct lk_result_rec rec = {d.region, d.metric, d.source,
					    d.unit, d.has_value, d.value,
					    d.reducer, d.n, d.spread, d.flags,
					    0};

		if (!find_row(rows, n, d.region, d.metric))
			ret = lk_store_result_add(ctx, s, u->variant_id, &rec);
		if (!ret)
			add_to_report(sum, u->variant_id,
				      find_row(rows, n, "kernel", "cycles"),
				      &d);
		row_release(&d);
	}
	lk_result_rows_free(rows, n);
	free(status);
	return ret;
}

/* ---- The decoded-op cache. ---- */

/* Ops the decoded-op cache of a micro-architecture holds (the names of
 * lk_env_microarch): AMD's and Intel's figures, as Chips and Cheese
 * measured Zen 4's (6.75K); 0 where unknown. */
static long op_cache_ops(const char *uarch)
{
	static const struct {
		const char *name;
		long ops;
	} table[] = {
		{"Zen", 2048},           {"Zen+", 2048},
		{"Zen 2", 4096},         {"Zen 3", 4096},
		{"Zen 4", 6912},         {"Skylake", 1536},
		{"Skylake-SP/Cascade Lake", 1536},
		{"Kaby Lake/Coffee Lake", 1536}, {"Comet Lake", 1536},
		{"Ice Lake (client)", 2304}, {"Ice Lake (server)", 2304},
		{"Tiger Lake", 2304},    {"Rocket Lake", 2304},
		{"Alder Lake", 4096},    {"Raptor Lake", 4096},
		{"Sapphire Rapids", 4096}, {"Emerald Rapids", 4096},
		{"Sapphire Rapids or later", 4096},
	};
	size_t i;

	for (i = 0; uarch && i < LK_ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].name, uarch))
			return table[i].ops;
	return 0;
}

/* Without the micro-architecture's figure: what 512 lines of 64 bytes
 * (Zen 2 and 3: 4K ops, 8 per line) cover. */
#define OP_CACHE_BYTES_DEFAULT 32768L

static char *host_uarch(void)
{
	struct lk_microarch u;

	lk_env_host_microarch(&u);
	return lk_strdup(u.name);
}

/* Warn when the kernel of copies x insns instructions, bytes long,
 * cannot run from the op cache. */
static void check_op_cache(struct lk_ctx *ctx, const char *uarch,
			   const struct lk_asm_unit *u, const char *binary,
			   const char *kernel, long copies)
{
	struct lk_function fn = {0};
	struct lk_ctx quiet;
	long ops = op_cache_ops(uarch), insns = copies * u->insns;

	lk_ctx_init(&quiet);
	if (lk_elf_function(&quiet, binary, kernel, &fn))
		return;
	if (ops && insns > ops)
		lk_warn(ctx, "%s: %ld instructions a call (%llu bytes) do "
			"not fit the %ld-op cache of %s: the figure measures "
			"the legacy decoders (lower the unroll)", u->label,
			insns, (unsigned long long)fn.size, ops, uarch);
	else if (!ops && (long)fn.size > OP_CACHE_BYTES_DEFAULT)
		lk_warn(ctx, "%s: the kernel's %llu bytes exceed the %ld "
			"KiB an op cache covers: the figure may measure the "
			"legacy decoders (lower the unroll)", u->label,
			(unsigned long long)fn.size,
			OP_CACHE_BYTES_DEFAULT / 1024);
	lk_function_release(&fn);
}

static int op_cache_all(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, const struct lk_asm_plan *plan)
{
	struct lk_variant_binary *v = NULL;
	char *uarch = host_uarch();
	size_t n = 0, i, k;
	int ret = lk_store_variant_binaries(ctx, s, campaign, &v, &n);

	for (i = 0; !ret && i < plan->n; i++) {
		const struct lk_asm_unit *u = &plan->units[i];

		for (k = 0; k < n && v[k].variant_id != u->variant_id; k++)
			;
		if (k == n || !*v[k].binary)
			continue;
		check_op_cache(ctx, uarch, u, v[k].binary, "asm_kernel",
			       u->unroll);
		if (u->difference)
			check_op_cache(ctx, uarch, u, v[k].binary,
				       "asm_kernel_2u", 2 * u->unroll);
	}
	lk_variant_binaries_free(v, n);
	free(uarch);
	return ret;
}

/* ---- llvm-mca's prediction of each body. ---- */

static int predict_tool(struct lk_ctx *ctx, struct lk_store *s,
			struct lk_predictor *p, const struct lk_asm_plan *plan,
			char (*hash)[LK_HASH_HEX])
{
	struct lk_prediction_key key = {p->name, p->version, p->params};
	struct lk_pblock *todo = lk_calloc(plan->n + 1, sizeof(*todo));
	struct lk_pred *out = lk_calloc(plan->n + 1, sizeof(*out));
	struct lk_prediction_rec *recs = lk_calloc(plan->n + 1, sizeof(*recs));
	size_t i, n = 0;
	int ret = 0, has;

	for (i = 0; !ret && i < plan->n; i++) {
		has = lk_store_prediction_has(ctx, s, &key, hash[i]);
		ret = has < 0 ? has : 0;
		/* Twice the same body (two compilers): predicted once. */
		for (size_t j = 0; !has && j < n; j++)
			has = !strcmp(todo[j].hash, hash[i]);
		if (!ret && !has)
			todo[n++] = (struct lk_pblock){
				hash[i], plan->units[i].copy, NULL, NULL, 0,
				(size_t)plan->units[i].insns, 0};
	}
	if (!ret && n)
		ret = p->predict(ctx, p, todo, n, out);
	for (i = 0; !ret && i < n; i++) {
		int ok = out[i].status && !strcmp(out[i].status, "ok");

		recs[i] = (struct lk_prediction_rec){
			todo[i].hash, out[i].status ? out[i].status : "failed",
			ok, out[i].value, out[i].unit, out[i].reason,
			out[i].raw, out[i].seconds};
	}
	if (!ret && n)
		ret = lk_store_predictions_put(ctx, s, &key, recs, n);
	for (i = 0; !ret && i < plan->n; i++)
		ret = lk_store_variant_prediction_put(
			ctx, s, plan->units[i].variant_id, &key, hash[i],
			(double)plan->units[i].unroll);
	for (i = 0; i < n; i++)
		lk_pred_release(&out[i]);
	free(todo);
	free(out);
	free(recs);
	return ret;
}

static int predict_all(struct lk_ctx *ctx, struct lk_store *s,
		       const struct lk_sweep *sw,
		       const struct lk_asm_plan *plan,
		       struct lk_cli_asm_mca *mca)
{
	struct lk_strv tools = LK_STRV_INIT;
	struct lk_predict_setup st = {.cfg = &sw->predict, .tools = &tools};
	char(*hash)[LK_HASH_HEX] = lk_calloc(plan->n + 1, sizeof(*hash));
	struct lk_predictor **p = NULL;
	size_t np = 0, i;
	int ret;

	lk_strv_push(&tools, "llvm-mca");
	ret = lk_predictors_make(ctx, &st, &p, &np);
	lk_strv_release(&tools);
	if (ret == LK_ENOTFOUND || ret == LK_EINPUT || (!ret && !np)) {
		/* No llvm-mca here: nothing to predict, said in -h. */
		lk_ctx_clear(ctx);
		ret = 0;
	}
	for (i = 0; i < plan->n; i++)
		lk_hash_buf(plan->units[i].copy, strlen(plan->units[i].copy),
			    hash[i]);
	for (i = 0; !ret && i < np; i++)
		ret = predict_tool(ctx, s, p[i], plan, hash);
	if (!ret && np) {
		mca->ntools = np;
		mca->tool = lk_strdup(p[0]->name);
		mca->version = lk_strdup(p[0]->version);
		mca->params = lk_strdup(p[0]->params);
	}
	lk_predictors_free(p, np);
	free(hash);
	return ret;
}

int lk_cli_asm_post(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *sw, const struct lk_asm_plan *plan,
		    struct lk_run_summary *sum, int predict,
		    struct lk_cli_asm_mca *mca)
{
	size_t i;
	int ret = 0;

	memset(mca, 0, sizeof(*mca));
	for (i = 0; !ret && i < plan->n; i++)
		if (plan->units[i].difference)
			ret = difference_one(ctx, s, &plan->units[i], sum);
	if (!ret)
		ret = op_cache_all(ctx, s, campaign, plan);
	if (!ret && predict)
		ret = predict_all(ctx, s, sw, plan, mca);
	return ret;
}

void lk_cli_asm_mca_release(struct lk_cli_asm_mca *m)
{
	free(m->tool);
	free(m->version);
	free(m->params);
	memset(m, 0, sizeof(*m));
}

int lk_cli_asm_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum)
{
	struct lk_cli_asm_mca mca = {0};
	struct lk_asm_plan plan = {0};
	int ret;

	(void)opts;
	memset(sum, 0, sizeof(*sum));
	if (!cfg->asm_body.given) {
		sum->line = lk_strdup("nothing to do: the file has no asm: "
				      "section");
		return 0;
	}
	ret = lk_asm_campaign(ctx, s, campaign, cfg, &plan);
	if (!ret)
		ret = lk_cli_asm_post(ctx, s, campaign, cfg, &plan, NULL, 1,
				      &mca);
	if (!ret) {
		lk_asm_plan_items(&plan, sum);
		sum->line = lk_asprintf("%zu asm variants: %s; bodies "
					"predicted by %zu llvm-mca%s",
					plan.n, cfg->asm_body.difference
					? "n/2n rows stored" : "no n/2n",
					mca.ntools, mca.ntools == 1 ? "" : "s");
	}
	lk_cli_asm_mca_release(&mca);
	lk_asm_plan_release(&plan);
	return ret;
}
