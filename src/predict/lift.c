/*
 * lift: a kernel's prediction from its blocks' predictions,
 * lifted(K) = sum over blocks b of occurrences(b) x prediction(b).
 * A block that ran without an ok prediction makes the kernel excluded
 * for that predictor: a partial sum would look like a fast kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/predict.h"

static int key_eq(const struct lk_prediction_key *a, const char *tool,
		  const char *version, const char *params)
{
	return !strcmp(a->tool, tool) && !strcmp(a->version, version) &&
	       !strcmp(a->params, params);
}

static int pred_has_key(const struct lk_lift_prediction *p,
			const struct lk_prediction_key *k)
{
	return key_eq(k, p->tool, p->tool_version, p->params);
}

/* The distinct keys of in's predictions (borrowed strings). */
static struct lk_prediction_key *input_keys(const struct lk_lift_input *in,
				      size_t *n)
{
	struct lk_prediction_key *keys = lk_calloc(in->npreds + 1, sizeof(*keys));
	size_t nk = 0, i, j;

	for (i = 0; i < in->npreds; i++) {
		for (j = 0; j < nk && !pred_has_key(&in->preds[i], &keys[j]);
		     j++)
			;
		if (j == nk)
			keys[nk++] = (struct lk_prediction_key){
				in->preds[i].tool, in->preds[i].tool_version,
				in->preds[i].params};
	}
	*n = nk;
	return keys;
}

/* "cycles/iter" per block iteration is "cycles/call" once lifted. */
static char *lifted_unit(const char *unit)
{
	size_t len = strlen(unit);

	if (len >= 5 && !strcmp(unit + len - 5, "/iter"))
		return lk_asprintf("%.*s/call", (int)(len - 5), unit);
	return lk_strdup(unit);
}

static char *missing_reason(const struct lk_lift_block *b,
			    const struct lk_lift_prediction *p)
{
	if (!p)
		return lk_asprintf("block %ld at 0x%llx (%llu occurrences) "
				   "has no prediction", b->idx,
				   (unsigned long long)b->start,
				   (unsigned long long)b->count);
	return lk_asprintf("block %ld at 0x%llx (%llu occurrences): %s%s%s",
			   b->idx, (unsigned long long)b->start,
			   (unsigned long long)b->count,
			   strcmp(p->status, "ok") ? p->status : "no value",
			   *p->reason ? ": " : "", p->reason);
}

static void exclude(struct lk_lift_result *r, char *reason)
{
	if (r->ok) {
		r->ok = 0;
		r->reason = reason;
	} else {
		free(reason);
	}
	r->nfailed++;
}

/* Add block b under key r->key, given its prediction p (NULL: none). */
static void lift_block(struct lk_lift_result *r,
		       const struct lk_lift_block *b,
		       const struct lk_lift_prediction *p)
{
	if (!p || strcmp(p->status, "ok") || !p->has_value) {
		exclude(r, missing_reason(b, p));
		return;
	}
	if (!r->unit) {
		r->unit = lk_strdup(p->unit);
	} else if (strcmp(r->unit, p->unit)) {
		exclude(r, lk_asprintf("block %ld at 0x%llx is predicted in "
				       "'%s', earlier blocks in '%s'",
				       b->idx, (unsigned long long)b->start,
				       p->unit, r->unit));
		return;
	}
	r->value += (double)b->count * p->value;
}

static void lift_one(const struct lk_lift_input *in,
		     const struct lk_lift_prediction **by_block,
		     struct lk_lift_result *r)
{
	char *unit;

	r->ok = 1;
	for (size_t b = 0; b < in->nblocks; b++) {
		if (!in->blocks[b].count)
			continue;
		r->nblocks++;
		lift_block(r, &in->blocks[b], by_block[b]);
	}
	unit = lifted_unit(r->unit ? r->unit : "");
	free(r->unit);
	r->unit = r->ok ? unit : (free(unit), lk_strdup(""));
	if (r->ok)
		r->reason = lk_strdup("");
	else
		r->value = 0;
}

void lk_lift_compute(const struct lk_lift_input *in,
		     const struct lk_prediction_key *keys, size_t nkeys,
		     struct lk_lift_result **out, size_t *nout)
{
	const struct lk_lift_prediction **by_block =
		lk_calloc(in->nblocks + 1, sizeof(*by_block));
	struct lk_prediction_key *own = NULL;
	struct lk_lift_result *r;

	if (!nkeys)
		keys = own = input_keys(in, &nkeys);
	r = lk_calloc(nkeys + 1, sizeof(*r));
	for (size_t k = 0; k < nkeys; k++) {
		memset(by_block, 0, (in->nblocks + 1) * sizeof(*by_block));
		for (size_t i = 0; i < in->npreds; i++)
			if (in->preds[i].block < in->nblocks &&
			    pred_has_key(&in->preds[i], &keys[k]))
				by_block[in->preds[i].block] = &in->preds[i];
		r[k].key = keys[k];
		lift_one(in, by_block, &r[k]);
	}
	/* Keys borrowed from 'in' stay valid after own is freed. */
	free(own);
	free(by_block);
	*out = r;
	*nout = nkeys;
}

void lk_lift_results_free(struct lk_lift_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].unit);
		free(r[i].reason);
	}
	free(r);
}
