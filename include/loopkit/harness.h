/*
 * harness: the code-analyzer stages that work on a whole campaign from
 * the store: blocks and counts of every variant's kernel, and lifting
 * per-block predictions to the kernel. Each entry point skips what the
 * store already holds (keyed by the binary's content hash) and writes
 * one transaction per unit, so a killed run loses nothing finished.
 */
#ifndef LOOPKIT_HARNESS_H
#define LOOPKIT_HARNESS_H

#include <stdint.h>

#include "config.h"
#include "core.h"
#include "store.h"

/* What happened to one variant in a stage. */
struct lk_stage_item {
	int64_t variant_id;
	char *label;          /* "triad.c gcc O2 N=1000" */
	char *status;         /* ok, stored, failed, skipped, excluded, ... */
	char *reason;         /* "" when there is nothing to say */
};

struct lk_stage_summary {
	struct lk_stage_item *items;   /* one per variant, in id order */
	size_t n;
	long done;            /* done now */
	long earlier;         /* found in the store */
	long failed;          /* tried and failed (the reason is stored) */
	long skipped;         /* nothing to work on (no binary, no count) */
};

void lk_stage_summary_release(struct lk_stage_summary *sum);
/* One item per variant, labelled as loopkit run labels them, status
 * "pending"; then set an item's status and reason (copied). */
void lk_stage_items_init(struct lk_stage_summary *sum,
			 const struct lk_variant_binary *v, size_t n);
void lk_stage_item_set(struct lk_stage_item *item, const char *status,
		       const char *reason);

struct lk_bb_campaign_opts {
	int jobs;             /* counts in parallel; <= 0: online CPUs */
	double timeout;       /* per count, seconds; 0: 600 */
	int retry_failed;     /* count again where the stored count failed */
	int no_hwbp;          /* int3 breakpoints only */
	int quiet;            /* no progress on stderr */
};

/*
 * The content hash of a file (lk_hash of its bytes, hex): the key of
 * blocks and counts in the store.
 */
int lk_binary_hash(struct lk_ctx *ctx, const char *path,
		   char out[LK_HASH_HEX]);

/*
 * Decode the kernel function (the one called between the region markers)
 * of every variant's binary and store it with its blocks, unless that
 * binary's function is stored already. Variants without a binary are
 * skipped and said so. Fails (< 0) only when the store does; a binary
 * that cannot be decoded is an item with status "failed". cfg may be NULL
 * (nothing in it changes how blocks are found today).
 */
int lk_blocks_campaign(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const struct lk_sweep *cfg,
		       const struct lk_bb_campaign_opts *opts,
		       struct lk_stage_summary *sum);

/*
 * Count the blocks of every variant's kernel for ONE kernel call
 * (LK_WARMUP=0 LK_STEPS=1 LK_REPETITIONS=1) under ptrace, opts->jobs
 * at a time, storing the blocks first and then the counts (or the
 * failure and its reason) in one transaction per variant. A binary
 * whose count is stored is skipped; one whose count failed is skipped
 * too unless opts->retry_failed.
 */
int lk_count_campaign(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t campaign, const struct lk_sweep *cfg,
		      const struct lk_bb_campaign_opts *opts,
		      struct lk_stage_summary *sum);

/* A predictor configuration: predictions and lifted rows are per key. */
struct lk_tool_key {
	const char *tool, *tool_version, *params;
};

/* The lifted value of one kernel for one predictor configuration. */
struct lk_lift_result {
	struct lk_tool_key key;  /* borrowed from the input or the keys */
	int ok;                  /* 0: excluded, see reason */
	double value;            /* sum of occurrences x prediction */
	char *unit;              /* the predictions' unit, "/iter" read as
				    "/call"; "" when excluded */
	long nblocks;            /* blocks with a non-zero count */
	long nfailed;            /* of those, without an ok prediction */
	char *reason;            /* "" when ok */
};

/*
 * lifted = sum over blocks b with a non-zero count of count(b) x
 * prediction(b), in block order, for each key in keys[0..nkeys) (nkeys
 * 0: every key the predictions of 'in' have). A kernel where a block
 * with a non-zero count has no ok prediction with a value (none stored,
 * failed, ...) or where the units differ is excluded for that key, the
 * reason naming the first such block. *out gets one result per key;
 * free it with lk_lift_results_free.
 */
void lk_lift_compute(const struct lk_lift_input *in,
		     const struct lk_tool_key *keys, size_t nkeys,
		     LK_GIVE struct lk_lift_result **out, size_t *nout);
void lk_lift_results_free(struct lk_lift_result *r, size_t n);

/* Per predictor configuration, over a campaign. */
struct lk_lift_tally {
	char *tool, *tool_version, *params;
	long lifted, excluded;
};

struct lk_lift_summary {
	struct lk_stage_summary stage;
	struct lk_lift_tally *tools;
	size_t ntools;
};

void lk_lift_summary_release(struct lk_lift_summary *sum);

/*
 * Lift every counted variant of the campaign for every predictor
 * configuration that predicted any block of any counted kernel of the
 * campaign (so a kernel that one configuration never predicted is
 * excluded for it, not silently absent). The lifted rows of each variant
 * are replaced in one transaction: lifting is arithmetic on stored facts
 * and is redone whole each time, as predictions may have been added.
 * Variants without a stored ok count are skipped and said so.
 */
int lk_lift_campaign(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, const struct lk_sweep *cfg,
		     struct lk_lift_summary *sum);

#endif
