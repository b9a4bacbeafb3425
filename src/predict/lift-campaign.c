/* lift over a campaign: every counted kernel, every predictor key. */
#include <stdlib.h>
#include <string.h>

#include "loopkit/predict.h"

struct kernel {
	int64_t function_id;
	struct lk_lift_input in;
	struct lk_stage_item *item;
	int loaded;
};

void lk_lift_summary_release(struct lk_lift_summary *sum)
{
	if (!sum)
		return;
	lk_stage_summary_release(&sum->stage);
	for (size_t i = 0; i < sum->ntools; i++) {
		free(sum->tools[i].tool);
		free(sum->tools[i].tool_version);
		free(sum->tools[i].params);
	}
	free(sum->tools);
	sum->tools = NULL;
	sum->ntools = 0;
}

static void skip(struct lk_stage_summary *sum, struct lk_stage_item *item,
		 char *reason)
{
	lk_stage_item_set(item, "skipped", reason);
	free(reason);
	sum->skipped++;
}

/* The variant's counted kernel: 1 loaded, 0 skipped, < 0 error. */
static int load_kernel(struct lk_ctx *ctx, struct lk_store *s,
		       const struct lk_variant_binary *v, struct kernel *k,
		       struct lk_stage_summary *sum)
{
	char hash[LK_HASH_HEX], *status = NULL, *reason = NULL;
	int ret, counted = 0;

	if (!*v->binary) {
		skip(sum, k->item, lk_asprintf("no binary (run status %s)",
					       v->run_status));
		return 0;
	}
	if (lk_binary_hash(ctx, v->binary, hash)) {
		skip(sum, k->item, lk_strdup(ctx->msg));
		lk_ctx_clear(ctx);
		return 0;
	}
	ret = lk_store_bb_function_find(ctx, s, hash, NULL, &k->function_id);
	if (ret == 1)
		ret = lk_store_bb_count_status(ctx, s, k->function_id,
					       &status, &reason);
	if (ret == 1 && !strcmp(status, "ok")) {
		counted = 1;
		ret = lk_store_lift_input(ctx, s, k->function_id, &k->in);
	} else if (ret == 1)
		skip(sum, k->item, lk_asprintf("its count %s: %s", status,
					       reason));
	else if (!ret)
		skip(sum, k->item, lk_strdup("not counted (run loopkit "
					     "count -c first)"));
	free(status);
	free(reason);
	if (ret < 0)
		return ret;
	k->loaded = counted;
	return counted;
}

/* Every key predicted for any loaded kernel (borrowed strings). */
static struct lk_prediction_key *campaign_keys(const struct kernel *k, size_t n,
					 size_t *nkeys)
{
	struct lk_prediction_key *keys = NULL;
	size_t nk = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct lk_lift_input *in = &k[i].in;

		for (size_t p = 0; k[i].loaded && p < in->npreds; p++) {
			const struct lk_lift_prediction *x = &in->preds[p];
			size_t j;

			for (j = 0; j < nk; j++)
				if (!strcmp(keys[j].tool, x->tool) &&
				    !strcmp(keys[j].version,
					    x->tool_version) &&
				    !strcmp(keys[j].params, x->params))
					break;
			if (j < nk)
				continue;
			LK_GROW(keys, nk + 1, cap);
			keys[nk++] = (struct lk_prediction_key){
				x->tool, x->tool_version, x->params};
		}
	}
	*nkeys = nk;
	return keys;
}

static void tally_init(struct lk_lift_summary *sum,
		       const struct lk_prediction_key *keys, size_t nkeys)
{
	sum->tools = lk_calloc(nkeys + 1, sizeof(*sum->tools));
	sum->ntools = nkeys;
	for (size_t i = 0; i < nkeys; i++) {
		sum->tools[i].tool = lk_strdup(keys[i].tool);
		sum->tools[i].tool_version = lk_strdup(keys[i].version);
		sum->tools[i].params = lk_strdup(keys[i].params);
	}
}

static int lift_kernel(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t variant_id, const struct kernel *k,
		       const struct lk_prediction_key *keys, size_t nkeys,
		       struct lk_lift_summary *sum)
{
	struct lk_lift_result *r;
	struct lk_lifted_rec *rows;
	size_t nr, i;
	long excluded = 0;
	int ret;

	lk_lift_compute(&k->in, keys, nkeys, &r, &nr);
	rows = lk_calloc(nr + 1, sizeof(*rows));
	for (i = 0; i < nr; i++) {
		rows[i] = (struct lk_lifted_rec){
			r[i].key.tool, r[i].key.version, r[i].key.params,
			r[i].ok ? "ok" : "excluded", r[i].ok, r[i].value,
			r[i].unit, r[i].nblocks, r[i].nfailed, r[i].reason};
		sum->tools[i].lifted += r[i].ok;
		sum->tools[i].excluded += !r[i].ok;
		excluded += !r[i].ok;
	}
	ret = lk_store_lifted_put(ctx, s, variant_id, k->function_id, rows,
				  nr);
	if (!ret && !nr) {
		lk_stage_item_set(k->item, "skipped", "no prediction for any "
			       "counted block of the campaign (run loopkit "
			       "predict first)");
		sum->stage.skipped++;
	} else if (!ret) {
		char *why = lk_asprintf("%zu predictor%s, excluded by %ld", nr,
					nr == 1 ? "" : "s", excluded);

		lk_stage_item_set(k->item, "ok", why);
		free(why);
		sum->stage.done++;
	}
	free(rows);
	lk_lift_results_free(r, nr);
	return ret;
}

int lk_lift_campaign(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, const struct lk_sweep *cfg,
		     struct lk_lift_summary *sum)
{
	struct lk_variant_binary *v = NULL;
	struct kernel *k = NULL;
	struct lk_prediction_key *keys = NULL;
	size_t n = 0, nkeys = 0, i;
	int ret = lk_store_variant_binaries(ctx, s, campaign, &v, &n);

	memset(sum, 0, sizeof(*sum));
	if (ret)
		return ret;
	lk_stage_items_init(&sum->stage, v, n);
	k = lk_calloc(n + 1, sizeof(*k));
	for (i = 0; !ret && i < n; i++) {
		k[i].item = &sum->stage.items[i];
		ret = load_kernel(ctx, s, &v[i], &k[i], &sum->stage);
		ret = ret < 0 ? ret : 0;
	}
	if (!ret)
		keys = campaign_keys(k, n, &nkeys);
	tally_init(sum, keys, nkeys);
	for (i = 0; !ret && i < n; i++)
		if (k[i].loaded)
			ret = lift_kernel(ctx, s, v[i].variant_id, &k[i], keys,
					  nkeys, sum);
	for (i = 0; i < n; i++)
		lk_lift_input_release(&k[i].in);
	free(keys);
	free(k);
	lk_variant_binaries_free(v, n);
	return ret;
}

/* "N variants: TOOL VERSION: L lifted, E excluded; ..." */
static char *lift_line(const struct lk_lift_summary *l)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_addf(&b, "%zu variants", l->stage.n);
	for (size_t i = 0; i < l->ntools; i++)
		lk_buf_addf(&b, "%s %s %s: %ld lifted, %ld excluded",
			    i ? ";" : ":", l->tools[i].tool,
			    l->tools[i].tool_version, l->tools[i].lifted,
			    l->tools[i].excluded);
	if (!l->ntools)
		lk_buf_adds(&b, ": no prediction to lift");
	return lk_buf_detach(&b);
}

int lk_lift_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		  const struct lk_sweep *cfg, const struct lk_stage_opts *opts,
		  struct lk_stage_summary *sum)
{
	struct lk_lift_summary l;
	int ret = lk_lift_campaign(ctx, s, campaign, cfg, &l);

	if (!ret) {
		char *line = lift_line(&l);

		*sum = l.stage;
		memset(&l.stage, 0, sizeof(l.stage));
		sum->line = line;
	}
	lk_lift_summary_release(&l);
	return ret;
}
