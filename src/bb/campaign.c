/*
 * Blocks and counts of every variant of a campaign, into the store. The
 * blocks of a binary are cheap (milliseconds) and found one variant at a
 * time; the counts run the benchmark under ptrace and go in parallel,
 * the store (one connection) behind a lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"
#include "loopkit/count.h"
#include "loopkit/store.h"

/* One variant's kernel on its way through the stage. */
struct unit {
	const struct lk_variant_binary *v;
	struct lk_stage_item *item;
	char hash[LK_HASH_HEX];
	int64_t function_id;
	int pending;           /* to count */
};

struct counting {
	struct lk_store *s;
	const struct lk_stage_opts *opts;
	const struct lk_count_cfg *cfg;
	struct unit *units;
	size_t *todo;          /* indices of pending units */
	struct lk_progress progress;
	pthread_mutex_t lock;  /* the store, the progress, the tallies */
	long done, failed;
	int store_failed;      /* a store error: the first one is kept */
	struct lk_ctx store_ctx;
};

/* ---- Blocks ---- */

static void fill_block(const struct lk_cfg *cfg, size_t b,
		       struct lk_bb_block_rec *r)
{
	r->start = cfg->blocks[b].start;
	r->end = cfg->blocks[b].end;
	r->ninsns = (long)cfg->blocks[b].ninsns;
	r->hash = lk_block_hash(cfg, b);
	r->att = lk_block_att(cfg, b);
	r->intel = lk_block_intel(cfg, b);
	r->succ = lk_block_succ(cfg, b);
}

static int put_cfg(struct lk_ctx *ctx, struct lk_store *s, const char *hash,
		   const struct lk_cfg *cfg, int inlined, int64_t *id)
{
	struct lk_bb_block_rec *blocks =
		lk_calloc(cfg->nblocks + 1, sizeof(*blocks));
	struct lk_bb_function_rec f = {hash, cfg->fn.name, cfg->fn.addr,
				       cfg->fn.size, inlined, blocks,
				       cfg->nblocks};
	size_t b;
	int ret;

	for (b = 0; b < cfg->nblocks; b++)
		fill_block(cfg, b, &blocks[b]);
	ret = lk_store_bb_function_put_code(ctx, s, &f, cfg->fn.code, id);
	for (b = 0; b < cfg->nblocks; b++) {
		free((char *)blocks[b].hash);
		free((char *)blocks[b].att);
		free((char *)blocks[b].intel);
		free((char *)blocks[b].succ);
	}
	free(blocks);
	return ret;
}

/*
 * Find the binary's kernel, and store it with its blocks unless it is
 * there. 1 when it was there, 0 when stored now; LK_ESTORE for the
 * store, other codes (the message in ctx) for the binary.
 */
static int unit_blocks(struct lk_ctx *ctx, struct lk_store *s,
		       struct unit *u)
{
	struct lk_function fn;
	struct lk_cfg cfg;
	int inlined = 0, ret;

	ret = lk_binary_hash(ctx, u->v->binary, u->hash);
	if (!ret)
		ret = lk_elf_roi_function(ctx, u->v->binary, &fn, &inlined);
	if (ret)
		return ret;
	ret = lk_store_bb_function_find(ctx, s, u->hash, fn.name,
					&u->function_id);
	if (ret) {
		lk_function_release(&fn);
		return ret;
	}
	ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &cfg);
	if (ret)
		return ret;
	ret = put_cfg(ctx, s, u->hash, &cfg, inlined, &u->function_id);
	lk_cfg_release(&cfg);
	return ret;
}

/* Blocks for one unit, the outcome in its item. < 0 only for the store. */
static int unit_blocks_item(struct lk_ctx *ctx, struct lk_store *s,
			    struct unit *u, struct lk_stage_summary *sum)
{
	int ret;

	if (!*u->v->binary) {
		char *why = lk_asprintf("no binary (run status %s)",
					u->v->run_status);

		lk_stage_item_set(u->item, "skipped", why);
		free(why);
		sum->skipped++;
		return 1;
	}
	ret = unit_blocks(ctx, s, u);
	if (ret == LK_ESTORE)
		return ret;
	if (ret < 0) {
		lk_stage_item_set(u->item, "failed", ctx->msg);
		lk_ctx_clear(ctx);
		sum->failed++;
		return 1;
	}
	lk_stage_item_set(u->item, ret ? "stored" : "ok", "");
	if (ret)
		sum->earlier++;
	else
		sum->done++;
	return 0;
}

static int list_units(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t campaign, struct lk_variant_binary **v,
		      size_t *n, struct unit **units,
		      struct lk_stage_summary *sum)
{
	int ret = lk_store_variant_binaries(ctx, s, campaign, v, n);

	if (ret)
		return ret;
	lk_stage_items_init(sum, *v, *n);
	*units = lk_calloc(*n ? *n : 1, sizeof(**units));
	for (size_t i = 0; i < *n; i++) {
		(*units)[i].v = &(*v)[i];
		(*units)[i].item = &sum->items[i];
	}
	return 0;
}

/* The campaign's line of a blocks or count stage. */
static void stage_line(struct lk_stage_summary *sum, const char *verb)
{
	sum->line = lk_asprintf("%zu variants: %ld %s now, %ld stored "
				"earlier, %ld failed, %ld skipped",
				sum->n, sum->done, verb, sum->earlier,
				sum->failed, sum->skipped);
}

int lk_blocks_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *cfg,
		    const struct lk_stage_opts *opts,
		    struct lk_stage_summary *sum)
{
	struct lk_variant_binary *v = NULL;
	struct unit *units = NULL;
	size_t n = 0, i;
	int ret = list_units(ctx, s, campaign, &v, &n, &units, sum);

	for (i = 0; !ret && i < n; i++)
		if (unit_blocks_item(ctx, s, &units[i], sum) < 0)
			ret = LK_ESTORE;
	if (!ret)
		stage_line(sum, "decoded");
	free(units);
	lk_variant_binaries_free(v, n);
	return ret;
}

/* ---- Counts ---- */

/* Is the count of this unit's function to be done (again)? */
static int count_wanted(struct lk_ctx *ctx, struct lk_store *s,
			struct unit *u, const struct lk_stage_opts *opts)
{
	char *status = NULL, *reason = NULL;
	int ret = lk_store_bb_count_status(ctx, s, u->function_id, &status,
					   &reason);

	if (ret < 0)
		return ret;
	if (ret == 1 && (!strcmp(status, "ok") || !opts->retry_failed)) {
		lk_stage_item_set(u->item, strcmp(status, "ok") ? status : "stored",
			 reason);
		ret = 0;
	} else {
		ret = 1;
	}
	free(status);
	free(reason);
	return ret;
}

static const char *count_status(const struct lk_ctx *ctx)
{
	/* lk_count_run's words for its watchdog. */
	return strstr(ctx->msg, "ran longer than") ? "timed-out" : "failed";
}

static int store_count(struct lk_ctx *ctx, struct lk_store *s,
		       const struct unit *u, const struct lk_count *c,
		       const char *status, const char *reason)
{
	static const char *const via_names[] = {"derived", "int3", "hwbp"};
	const char **via = NULL;
	struct lk_bb_count_rec rec = {status, reason, 0, 0, 0, NULL, NULL, 0};
	int ret;

	if (c) {
		via = lk_calloc(c->cfg.nblocks + 1, sizeof(*via));
		for (size_t b = 0; b < c->cfg.nblocks; b++)
			via[b] = via_names[c->via[b]];
		rec.regions = (long)c->regions;
		rec.traps = (long)c->traps;
		rec.seconds = c->seconds;
		rec.counts = c->counts;
		rec.via = via;
		rec.n = c->cfg.nblocks;
	}
	ret = lk_store_bb_counts_put(ctx, s, u->function_id, &rec);
	free(via);
	return ret;
}

static void count_one(void *arg, size_t i)
{
	struct counting *k = arg;
	struct unit *u = &k->units[k->todo[i]];
	struct lk_count_opts o = {.binary = u->v->binary,
				  .timeout = k->cfg->timeout,
				  .no_hwbp = k->cfg->no_hwbp};
	struct lk_count c;
	struct lk_ctx ctx;
	int ret;

	lk_ctx_init(&ctx);
	ret = lk_count_run(&ctx, &o, &c);
	pthread_mutex_lock(&k->lock);
	if (!ret) {
		ret = store_count(&k->store_ctx, k->s, u, &c, "ok", "");
		lk_stage_item_set(u->item, "ok", "");
		k->done++;
		lk_count_release(&c);
	} else {
		lk_stage_item_set(u->item, count_status(&ctx), ctx.msg);
		ret = store_count(&k->store_ctx, k->s, u, NULL,
				  u->item->status, ctx.msg);
		k->failed++;
	}
	if (ret)
		k->store_failed = 1;
	lk_progress_step(&k->progress, u->item->label, u->item->status);
	pthread_mutex_unlock(&k->lock);
}

static int count_pending(struct lk_ctx *ctx, struct lk_store *s,
			 struct unit *units, size_t n,
			 const struct lk_sweep *cfg,
			 const struct lk_stage_opts *opts,
			 struct lk_stage_summary *sum)
{
	static const struct lk_count_cfg defaults;
	struct counting k = {.s = s, .opts = opts,
			     .cfg = cfg ? &cfg->count : &defaults,
			     .units = units};
	size_t ntodo = 0, i;

	k.todo = lk_calloc(n ? n : 1, sizeof(*k.todo));
	for (i = 0; i < n; i++)
		if (units[i].pending)
			k.todo[ntodo++] = i;
	lk_ctx_init(&k.store_ctx);
	pthread_mutex_init(&k.lock, NULL);
	lk_progress_init(&k.progress, "count", ntodo, opts->quiet);
	lk_pool_run(opts->jobs, ntodo, count_one, &k);
	lk_progress_end(&k.progress);
	pthread_mutex_destroy(&k.lock);
	free(k.todo);
	sum->done += k.done;
	sum->failed += k.failed;
	if (k.store_failed) {
		*ctx = k.store_ctx;
		return ctx->code ? ctx->code : LK_ESTORE;
	}
	return 0;
}

int lk_count_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		   const struct lk_sweep *cfg, const struct lk_stage_opts *opts,
		   struct lk_stage_summary *sum)
{
	struct lk_stage_summary blocks = {0};
	struct lk_variant_binary *v = NULL;
	struct unit *units = NULL;
	size_t n = 0, i;
	int ret = list_units(ctx, s, campaign, &v, &n, &units, sum);

	/* The blocks stage's tallies are not this stage's: count apart. */
	for (i = 0; !ret && i < n; i++) {
		ret = unit_blocks_item(ctx, s, &units[i], &blocks);
		if (ret > 0) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = count_wanted(ctx, s, &units[i], opts);
		if (ret == 1) {
			units[i].pending = 1;
			ret = 0;
		} else if (!ret) {
			sum->earlier++;
		}
	}
	sum->skipped = blocks.skipped;
	sum->failed = blocks.failed;
	if (!ret)
		ret = count_pending(ctx, s, units, n, cfg, opts, sum);
	if (!ret)
		stage_line(sum, "counted");
	free(units);
	lk_variant_binaries_free(v, n);
	return ret;
}
