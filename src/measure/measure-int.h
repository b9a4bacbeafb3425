/* Private to src/measure: one variant's measurement, used by runner.c. */
#ifndef LOOPKIT_MEASURE_PRIVATE_H
#define LOOPKIT_MEASURE_PRIVATE_H

#include "loopkit/measure.h"

struct lk_unit_result {
	char *status;   /* ok, unstable, crashed, timed-out, failed */
	char *reason;
};

/*
 * Measure the binary at 'binary' under the sweep's method and metrics,
 * with 'threads' threads (OMP_NUM_THREADS, LK_THREADS; 0: as the method's
 * CPU set or the environment says), and store the run (samples, infos,
 * results) in one transaction. A benchmark's failure is recorded, not
 * returned: only store or system failures return < 0.
 */
int lk_measure_unit(struct lk_ctx *ctx, struct lk_store *s,
		    const struct lk_sweep *sweep, const char *binary,
		    long threads, int64_t variant_id, int64_t build_id, int64_t env_id,
		    const char *method_hash, struct lk_unit_result *out);

/* Record a run that never started (its build failed). */
int lk_measure_record_failure(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t variant_id, int64_t build_id,
			      int64_t env_id, const char *method_hash,
			      const char *method, const char *status,
			      const char *reason);

/* ---- Shared by launch.c (samples in) and results.c (figures out). ---- */

/*
 * A region reduces its uncontended samples alone (lk_sample_contended)
 * when it has this many: enough that its p25 is not set by the one or
 * two of them an interrupt or a preemption hit (the probes beside a
 * sample do not see what happens inside it).
 */
#define LK_MIN_UNCONTENDED 10

/* One sample, converted to per-step figures. */
struct conv {
	int process, attempt, region, kept;
	double tsc, ns, cal, ratio; /* cal/ratio NAN without a reference */
	double contention;  /* issue probe / its floor; NAN without one */
	double window;      /* window probe / issue probe; NAN without one */
	double sample_ns;   /* raw, for lk_sample_contended() */
	int contended;      /* lk_sample_contended(), lk__classify() */
	double ev[LK_RT_MAX_EVENTS];
	unsigned ev_mask;
	int mux;
};

/* A region's declared work (lk_work), as the first launch declared it. */
struct acc_work {
	int region;
	const char *unit;
	double per_call;
	int differs;    /* a later launch declared another value */
};

struct acc {
	struct lk_strv pool;    /* owns every string the records point to */
	struct lk_strv regions;
	struct lk_strv events;  /* names, as the first launch reported them */
	int ev_ok[LK_RT_MAX_EVENTS], ev_err[LK_RT_MAX_EVENTS];
	const char *ev_reason[LK_RT_MAX_EVENTS];
	struct conv *conv;
	size_t nconv, aconv;
	struct lk_sample_rec *srec;
	size_t nsrec, asrec;
	struct lk_info_rec *irec;
	size_t nirec, airec;
	struct lk_result_rec *rrec;
	size_t nrrec, arrec;
	struct acc_work *work;
	size_t nwork, awork;
	long threads;           /* asked for (the threads axis); 0: none */
	long *region_threads;   /* by region: the most any launch reported */
	size_t aregion_threads;
	int unstable;
	int uncontended_only; /* the region being reduced leaves its
				 contended samples out */
};

/* A copy of s owned by a (records point into it). */
const char *lk__acc_keep(struct acc *a, const char *s);
/* Index of s in sv; appended when absent and add, else -1. */
int lk__index_of(struct lk_strv *sv, const char *s, int add);
/* Mark every sample contended or not, the window probe against its best
 * over the run's samples so far whose issue probe ran at its floor. The
 * floor is four adds per cycle, or the issue probe's best over the run
 * where it never gets there. */
void lk__classify(struct acc *a);
/* A region's samples and how many of them are uncontended: those kept
 * (process < 0) or those of one launch, kept or not. */
void lk__count_clean(const struct acc *a, int region, int process,
		     int attempt, size_t *n, size_t *clean);
/* Reduce the kept samples to one result per region x metric. */
void lk__compute_results(struct acc *a, const struct lk_sweep *sw);

#endif
