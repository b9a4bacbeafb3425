/*
 * bprof: loopkit's own basic-block profiler, in the spirit of BHive. A
 * block's machine code is copied U times in a row and run in a forked,
 * sandboxed child whose address space holds nothing but the sandbox:
 * registers start at one fixed value, every page the code touches is
 * mapped on its first fault onto one shared physical page, and the two
 * unroll factors are timed and differenced so that the fixed cost of a
 * run cancels. See doc/loopkit-bprof.md for the method and its limits.
 */
#ifndef LOOPKIT_BPROF_H
#define LOOPKIT_BPROF_H

#include <stdint.h>

#include "core.h"
#include "predict.h"

/* How the ticks of a run become core cycles. */
enum lk_bprof_clock {
	LK_BPROF_CLOCK_AUTO = 0, /* the PMU's cycles when it opens, else
				    the TSC calibrated by an imul chain */
	LK_BPROF_CLOCK_TSC,	 /* always the calibrated TSC */
	LK_BPROF_CLOCK_PMU,	 /* the PMU or refuse (LK_EUNSUP) */
};

struct lk_bprof_opts {
	unsigned unroll1, unroll2; /* U1 < U2: copies of the block per run */
	unsigned repetitions;	   /* timed runs of each unroll factor; the
				      minimum is kept */
	double timeout;		   /* seconds per block, child killed after */
	int cpu;		   /* pin the child to this CPU; -1: don't */
	unsigned max_pages;	   /* distinct pages a block may touch */
	uint64_t value;		   /* every register's initial value */
	enum lk_bprof_clock clock;
};

/* The defaults (doc/loopkit-bprof.md says why these). */
void lk_bprof_opts_init(struct lk_bprof_opts *opts);

/*
 * A predictor named "bprof" that measures each block it is given on this
 * machine. opts NULL: the defaults. Its version and params strings record
 * the options, the clock and the method. LK_EINPUT for inconsistent
 * options, LK_EUNSUP when this machine cannot run it (not x86-64, or
 * LK_BPROF_CLOCK_PMU without a PMU). Per block, predict() gives status
 * "ok" with the value in "cycles/iter" (PMU) or
 * "tsc-calibrated-cycles/iter", "unsupported" (a block that cannot run
 * in the sandbox: syscall, int, hlt, ud2, privileged instructions, control
 * flow inside the block), "failed" (a signal the sandbox cannot resolve,
 * a page it cannot map, faults in the timed runs, noise) or "timed-out",
 * each with a reason.
 */
int lk_bprof_predictor(struct lk_ctx *ctx, const struct lk_bprof_opts *opts,
		       LK_GIVE struct lk_predictor **out);

#endif
