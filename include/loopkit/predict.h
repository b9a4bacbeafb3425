/*
 * predict: throughput predictors run on basic blocks. A predictor takes a
 * batch of blocks (a tool that can, runs them all in one process) and
 * gives each one a prediction in cycles per block iteration, or a status
 * saying why not. Failing on a block is a status, never an error: errors
 * are for a tool that cannot run at all.
 */
#ifndef LOOPKIT_PREDICT_H
#define LOOPKIT_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* One block to predict, as the binary has it. */
struct lk_pblock {
	const char *hash;      /* bb_blocks.hash: of att */
	const char *att;       /* AT&T text, one instruction per line */
	const char *intel;     /* Intel text, the same lines */
	const uint8_t *bytes;  /* the block's machine code */
	size_t len;
	size_t ninsns;
	uint64_t addr;         /* link-time address of bytes[0] */
};

/* One prediction; every string owned (lk_pred_release). */
struct lk_pred {
	char *status;          /* ok, failed, unsupported, timed-out */
	double value;          /* per block iteration, when ok */
	char *unit;            /* cycles/iter, tsc-calibrated-cycles/iter */
	char *reason;          /* "" when ok */
	char *raw;             /* the tool's own output for this block */
	double seconds;        /* this block's share of the tool's time */
};

void lk_pred_release(struct lk_pred *p);

struct lk_predictor {
	char *name;            /* llvm-mca-19, bprof, uica, ... */
	char *version;         /* recorded with every prediction */
	char *params;          /* canonical parameter text, stored */
	/* Fill out[0..n) (each zeroed by the caller). < 0 only when the
	 * tool cannot run at all; ctx then says why. */
	int (*predict)(struct lk_ctx *ctx, struct lk_predictor *p,
		       const struct lk_pblock *blocks, size_t n,
		       struct lk_pred *out);
	void (*destroy)(struct lk_predictor *p); /* frees priv */
	void *priv;
};

/* Free p, its strings and its private state. NULL is fine. */
void lk_predictor_free(struct lk_predictor *p);

#endif
