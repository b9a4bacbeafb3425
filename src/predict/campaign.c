/*
 * lk_predict_campaign: every distinct block of every built variant, by
 * every configured tool, into the store; what is there is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"
#include "loopkit/store.h"
#include "predict-int.h"

/* Blocks go to the store in chunks: one transaction, one progress step. */
#define CHUNK 200

/*
 * The campaign's distinct blocks: each variant's kernel as the blocks
 * stage stored it (its code decoded again, the binary left alone), or,
 * when the store has not got it with its code, decoded from the binary.
 */
static int campaign_blocks(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t campaign, struct lk_block_set *bs,
			   struct lk_predict_summary *sum)
{
	struct lk_variant_binary *v;
	size_t n, i;
	int ret = lk_store_variant_binaries(ctx, s, campaign, &v, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct lk_ctx vctx;

		if (!*v[i].binary) {
			sum->skipped_variants++;
			continue;
		}
		lk_ctx_init(&vctx);
		ret = lk_block_set_add_kernel(&vctx, bs, s, v[i].binary, NULL);
		if (ret == LK_ESTORE) {
			lk_error(ctx, ret, "%s", vctx.msg);
			break;
		}
		if (ret) {
			lk_warn(ctx, "variant %.12s: no blocks: %s",
				v[i].variant_hash, vctx.msg);
			sum->skipped_variants++;
			ret = 0;
			continue;
		}
		sum->variants++;
	}
	lk_variant_binaries_free(v, n);
	sum->blocks = bs->n;
	return ret;
}

static void to_rec(const struct lk_pblock *b, const struct lk_pred *p,
		   struct lk_prediction_rec *r)
{
	r->block_hash = b->hash;
	r->status = p->status ? p->status : "failed";
	r->has_value = p->status && !strcmp(p->status, "ok");
	r->value = p->value;
	r->unit = p->unit;
	r->reason = p->reason;
	r->raw = p->raw;
	r->seconds = p->seconds;
}

static int predict_chunk(struct lk_ctx *ctx, struct lk_store *s,
			 struct lk_predictor *p, const struct lk_pblock *b,
			 size_t n, struct lk_predict_summary *sum)
{
	struct lk_prediction_key key = {p->name, p->version, p->params};
	struct lk_pred *out = lk_calloc(n, sizeof(*out));
	struct lk_prediction_rec *recs = lk_calloc(n, sizeof(*recs));
	size_t i;
	int ret = p->predict(ctx, p, b, n, out);

	for (i = 0; !ret && i < n; i++) {
		to_rec(&b[i], &out[i], &recs[i]);
		sum->failed += !recs[i].has_value;
	}
	if (!ret)
		ret = lk_store_predictions_put(ctx, s, &key, recs, n);
	if (!ret)
		sum->predicted += n;
	for (i = 0; i < n; i++)
		lk_pred_release(&out[i]);
	free(out);
	free(recs);
	return ret;
}

/* The blocks this tool has not predicted yet, copied into todo. */
static int pending(struct lk_ctx *ctx, struct lk_store *s,
		   const struct lk_predictor *p, const struct lk_block_set *bs,
		   struct lk_pblock *todo, size_t *n,
		   struct lk_predict_summary *sum)
{
	struct lk_prediction_key key = {p->name, p->version, p->params};
	size_t i;

	*n = 0;
	for (i = 0; i < bs->n; i++) {
		int has = lk_store_prediction_has(ctx, s, &key,
						  bs->blocks[i].hash);

		if (has < 0)
			return has;
		if (has)
			sum->stored++;
		else
			todo[(*n)++] = bs->blocks[i];
	}
	return 0;
}

static int predict_tool(struct lk_ctx *ctx, struct lk_store *s,
			struct lk_predictor *p, const struct lk_block_set *bs,
			int quiet, struct lk_predict_summary *sum)
{
	struct lk_pblock *todo = lk_calloc(bs->n ? bs->n : 1, sizeof(*todo));
	struct lk_progress prog;
	size_t n, at;
	int ret = pending(ctx, s, p, bs, todo, &n, sum);

	if (!ret && n) {
		char *label = lk_asprintf("predict %s", p->name);

		lk_progress_init(&prog, label, n, quiet);
		for (at = 0; !ret && at < n; at += CHUNK) {
			size_t k = n - at < CHUNK ? n - at : CHUNK;
			char what[64];

			ret = predict_chunk(ctx, s, p, todo + at, k, sum);
			snprintf(what, sizeof(what), "%zu blocks", k);
			prog.done += k - 1;
			lk_progress_step(&prog, what, ret ? "error" : "ok");
		}
		lk_progress_end(&prog);
		free(label);
	}
	free(todo);
	return ret;
}

int lk_predict_campaign(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, const struct lk_sweep *cfg,
			const struct lk_stage_opts *opts,
			const struct lk_predict_family *extra, size_t nextra,
			struct lk_predict_summary *sum)
{
	struct lk_predict_setup st = {&cfg->predict, cfg->path, NULL, NULL,
				      0, extra, nextra};
	struct lk_block_set bs = {0};
	struct lk_predictor **tools = NULL;
	size_t ntools = 0, i;
	int ret;

	memset(sum, 0, sizeof(*sum));
	ret = lk_predictors_make(ctx, &st, &tools, &ntools);
	if (!ret)
		ret = campaign_blocks(ctx, s, campaign, &bs, sum);
	sum->tools = ntools;
	for (i = 0; !ret && i < ntools; i++)
		ret = predict_tool(ctx, s, tools[i], &bs, opts->quiet, sum);
	lk_predictors_free(tools, ntools);
	lk_block_set_release(&bs);
	return ret;
}

int lk_predict_stage_families(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t campaign, const struct lk_sweep *cfg,
			      const struct lk_stage_opts *opts,
			      const struct lk_predict_family *extra,
			      size_t nextra, struct lk_stage_summary *sum)
{
	struct lk_predict_summary p;
	int ret = lk_predict_campaign(ctx, s, campaign, cfg, opts, extra,
				      nextra, &p);

	memset(sum, 0, sizeof(*sum));
	if (ret)
		return ret;
	sum->done = (long)p.predicted;
	sum->earlier = (long)p.stored;
	sum->failed = (long)p.failed;
	sum->skipped = (long)p.skipped_variants;
	sum->line = lk_asprintf("%zu distinct blocks of %zu variants, %zu "
				"tools: %zu predictions made now (%zu not "
				"ok), %zu stored earlier",
				p.blocks, p.variants, p.tools, p.predicted,
				p.failed, p.stored);
	return 0;
}

int lk_predict_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum)
{
	return lk_predict_stage_families(ctx, s, campaign, cfg, opts, NULL, 0,
					 sum);
}
