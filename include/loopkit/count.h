/*
 * count: the exact execution count of every basic block of one function
 * between lk_roi_begin and lk_roi_end, on the unmodified binary, under
 * ptrace.
 *
 * Only some blocks are measured (an int3 breakpoint at their start, or a
 * hardware execution breakpoint counted by perf for up to four hot ones);
 * the others follow from flow conservation over the CFG. The unknowns are
 * block counts, edge counts and the flow entering or leaving the function
 * at "open" blocks; every block gives two equations (its count is the sum
 * of its in-edges plus what enters from outside, and the sum of its
 * out-edges plus what leaves). Any equation with one unknown left is
 * solved, until nothing changes. lk_count_plan() starts from every block
 * measured and drops blocks, the most deeply nested loops first, as long
 * as all block counts still follow.
 */
#ifndef LOOPKIT_COUNT_H
#define LOOPKIT_COUNT_H

#include <stdint.h>

#include "binary.h"
#include "core.h"
#include "store.h"

/*
 * LK_COUNT_BALANCED: every execution of the function inside the region
 * starts and ends inside it (the measured kernel, called between the
 * markers), so what enters equals what leaves and calls out of the
 * function come back to their fall-through block. Without it, the
 * fall-through of every call is an open entry (the function may be on
 * the stack when the region starts or ends) and nothing is assumed about
 * the totals.
 */
enum {
	LK_COUNT_BALANCED = 1 << 0,
};

/*
 * Choose the blocks to measure: measured[b] is set to 1 or 0 for each of
 * cfg's blocks. Returns how many are measured. Functions of more than
 * LK_COUNT_PLAN_MAX blocks, or with an indirect jump (a jump table may
 * enter any block), get fewer or no derivations, never wrong ones.
 */
#define LK_COUNT_PLAN_MAX 2000
size_t lk_count_plan(const struct lk_cfg *cfg, unsigned flags,
		     unsigned char *measured);

/*
 * Fill counts[b] of every unmeasured block from the measured ones (the
 * same flags as the plan). LK_EINTERNAL when a count does not follow or
 * the equations contradict each other (a negative edge, two values for
 * one count): the CFG does not describe what ran.
 */
int lk_count_derive(struct lk_ctx *ctx, const struct lk_cfg *cfg,
		    unsigned flags, const unsigned char *measured,
		    uint64_t *counts);

/* How a block was counted. */
enum lk_count_via {
	LK_COUNT_DERIVED = 0,
	LK_COUNT_INT3,   /* a software breakpoint, one trap per execution */
	LK_COUNT_HWBP,   /* a perf hardware breakpoint: no trap */
};

struct lk_count_opts {
	const char *binary;
	const char *function;    /* NULL: lk_elf_roi_function's */
	char *const *args;       /* the benchmark's arguments, NULL-ended;
				    NULL for none */
	long steps, repetitions; /* 0: 1 each (one kernel call) */
	double timeout;          /* seconds; 0: 600 */
	size_t memory_limit;     /* bytes of address space; 0: half the
				    physical memory, LK_PROC_UNLIMITED:
				    none */
	const char *output;      /* the benchmark's stdout and stderr go
				    here; NULL: /dev/null */
	int no_derive;           /* measure every block */
	int no_hwbp;             /* int3 only */
};

struct lk_count {
	struct lk_cfg cfg;       /* at link-time addresses */
	int inlined;             /* the default function holds the markers */
	unsigned flags;          /* LK_COUNT_* used */
	uint64_t *counts;        /* per block, summed over the regions */
	enum lk_count_via *via;  /* per block */
	uint64_t load_bias;      /* run-time minus link-time address */
	uint64_t regions;        /* lk_roi_begin..lk_roi_end pairs seen */
	uint64_t traps;          /* int3 hits on blocks */
	double seconds;          /* wall time of the traced run */
};

/*
 * Run opts->binary under ptrace with LK_WARMUP=0 and LK_STEPS,
 * LK_REPETITIONS from opts, and count. LK_ENOTFOUND for a missing
 * function, LK_ECHILD when the benchmark cannot start, crashes (the
 * message names the signal), exits non-zero, never reaches the markers
 * or outlives the timeout (it is killed); LK_EUNSUP when ptrace is
 * refused. Release out with lk_count_release() on success only.
 */
int lk_count_run(struct lk_ctx *ctx, const struct lk_count_opts *opts,
		 struct lk_count *out);
void lk_count_release(struct lk_count *c);

/* A JSON array of {"start", "end", "count", "measured", "via"}. */
void lk_count_json(const struct lk_count *c, struct lk_buf *out);

/* ---- The bb stage over a campaign (src/bb/campaign.c): blocks and
 * counts of every variant's kernel from the store. Each entry point skips
 * what the store already holds (keyed by the binary's content hash,
 * lk_binary_hash) and writes one transaction per unit, so a killed run
 * loses nothing finished. ---- */

/*
 * The blocks stage (lk_stage_fn): decode the kernel function (the one
 * called between the region markers) of every variant's binary and
 * store it with its blocks, unless that binary's function is stored
 * already. Variants without a binary are skipped and said so. Fails
 * (< 0) only when the store does; a binary that cannot be decoded is an
 * item with status "failed". cfg may be NULL (nothing in it changes how
 * blocks are found today).
 */
lk_stage_fn lk_blocks_stage;

/*
 * The count stage (lk_stage_fn): count the blocks of every variant's
 * kernel for ONE kernel call (LK_WARMUP=0 LK_STEPS=1 LK_REPETITIONS=1)
 * under ptrace, opts->jobs at a time, storing the blocks first and then
 * the counts (or the failure and its reason) in one transaction per
 * variant, with cfg->count's timeout and breakpoints (cfg NULL: the
 * defaults). A binary whose count is stored is skipped; one whose count
 * failed is skipped too unless opts->retry_failed.
 */
lk_stage_fn lk_count_stage;

#endif
