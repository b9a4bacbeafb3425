/*
 * measure: launch benchmarks (compiled through toolchain.h's build
 * cache), read the runtime's protocol (doc/rt-protocol.md), reduce
 * samples to labelled figures, and store everything.
 */
#ifndef LOOPKIT_MEASURE_H
#define LOOPKIT_MEASURE_H

#include <stdint.h>

#include "config.h"
#include "core.h"
#include "stats.h"
#include "store.h"

/* ---- The runtime protocol, parsed. ---- */

#define LK_RT_MAX_EVENTS 16

struct lk_rt_event {
	char *name;
	int ok;
	int err;        /* errno when !ok */
	char *reason;   /* errno name when !ok */
};

struct lk_rt_sample {
	long idx, steps;
	double tsc, ns;             /* raw, overhead included */
	double ref_tsc, ref_cycles; /* reference chain; has_ref */
	int has_ref;
	double issue_tsc, issue_cycles; /* issue probe; has_issue */
	int has_issue;
	double window_tsc;          /* window probe; has_window */
	int has_window;
	int mux;                    /* the event group was multiplexed */
	double ev[LK_RT_MAX_EVENTS];/* by index into lk_rt_output.events */
	unsigned ev_mask;           /* which ev[] are set */
};

/* A region's declared work (lk_work): per_call units per kernel call. */
#define LK_RT_MAX_WORK 16

struct lk_rt_work {
	char *unit;             /* [a-z0-9_], 1 to 32 characters */
	double per_call;        /* finite, > 0 */
};

struct lk_rt_region {
	char *name;
	long steps;
	char *roi_addr;
	int has_overhead;
	double ovh_tsc_min, ovh_tsc_median, ovh_ns_min, ovh_ns_median;
	struct lk_rt_sample *samples;
	size_t nsamples, alloc;
	struct lk_rt_work *work;
	size_t nwork;
	long threads;           /* threads the process had when the region
				   ended (its 'threads' info); 0: not said */
};

struct lk_rt_output {
	struct lk_strv info_keys, info_values; /* global info, in order */
	struct lk_rt_event *events;
	size_t nevents;
	struct lk_rt_region *regions;
	size_t nregions;
	char *error;          /* the runtime's own 'error' line */
	int complete;         /* an 'end' line was seen */
	long end_samples;
};

/*
 * Parse the runtime's output. Malformed lines are LK_EINPUT with
 * "name:line: ..." (name labels the stream in messages). A stream cut
 * short (no 'end') is not an error: out->complete says so.
 */
int lk_rt_parse(struct lk_ctx *ctx, const char *name, const char *text,
		size_t len, struct lk_rt_output *out);
void lk_rt_output_release(struct lk_rt_output *out);
const char *lk_rt_info(const struct lk_rt_output *out, const char *key);

/* ---- Reduction. ---- */

/* Quantiles, means, the trimmed mean: loopkit/stats.h. */

/* Reduce with the method's reducer (min, median, mean, pNN); for
 * LK_REDUCE_TRIMMED the plain trimmed mean. */
double lk_reduce(const struct lk_method *m, const double *v, size_t n);

/*
 * Is core-cycle calibration trustworthy for this kernel? ticks[i] is the
 * kernel's time of sample i, ratio[i] the reference chain's core/TSC
 * ratio beside it. Calibration is reliable when the calibrated values
 * are no more dispersed than the raw ones (the kernel's time follows the
 * core clock); *clock_moved says whether the reference varied enough
 * (> 0.5 %) for the test to mean anything.
 */
int lk_calibration_reliable(const double *ticks, const double *ratio,
			    size_t n, int *clock_moved);

/*
 * A sample is contended when one of the runtime's probes beside it
 * (rt/lkrt.h) says the core was shared: the issue probe (four independent
 * add chains, floor_cycles core cycles at best) ran more than
 * LK_CONTENDED times its floor (its best over the run on a core that
 * never reaches floor_cycles), as when a neighbour's thread on the same
 * core takes issue slots; or the window probe, against the issue probe
 * beside it, ran more than LK_WINDOW_SLACK times its best over the run's
 * samples whose issue probe was at its floor, as when a neighbour's
 * thread holds half the out-of-order window. Such a sample is slower by
 * what the neighbour took (doc/method.md). Only samples of at most
 * LK_CONTENTION_SPAN_NS are judged: the probes at the two ends of a longer
 * one do not speak for its middle.
 */
#define LK_CONTENDED 1.01
#define LK_WINDOW_SLACK 1.10
#define LK_CONTENTION_SPAN_NS 1e6

/*
 * The issue probe's core cycles over its floor: (issue_tsc - overhead_tsc)
 * TSC ticks at ratio core cycles per tick, over floor_cycles. 1 when the
 * core issued four adds per cycle. NAN when ratio is NAN or floor_cycles
 * <= 0.
 */
double lk_issue_contention(double issue_tsc, double overhead_tsc,
			   double ratio, double floor_cycles);

/*
 * Is a sample of sample_ns nanoseconds contended, given the issue probe's
 * contention (lk_issue_contention) and the window probe against its best
 * in the run (window_ratio)? A NAN stands for a probe that did not run
 * and never makes a sample contended.
 */
int lk_sample_contended(double contention, double window_ratio,
			double sample_ns);

/* ---- Running. ---- */

struct lk_run_opts {
	int jobs;               /* parallel compiles; <= 0: CPUs */
	int quiet;              /* no progress */
	int retry_failed;       /* forget failed runs first */
	int list_only;          /* print the plan, run nothing */
	int build_only;         /* build (through the cache), measure
				 * nothing: sum->built, ->cached, ->failed
				 * count distinct builds, no reports */
	int verbose;
	/* A sweep of stored variants (gen.present): measure only these
	 * (nonly of them); NULL: every one */
	const int64_t *only;
	size_t nonly;
};

/* One measured variant's outcome, for printing. */
struct lk_run_report {
	int64_t variant_id;
	char *label;            /* "triad.c gcc default N=1000" */
	char *status;
	char *reason;
	int skipped;            /* already done before this invocation */
	struct lk_result_row *results;
	size_t nresults;
	char **param_names, **param_values;
	size_t nparams;
	char *source, *compiler, *flagset;
};

struct lk_run_summary {
	struct lk_run_report *reports;
	size_t n;
	long built, cached, measured, skipped, failed;
};

/*
 * Can every launch be pinned to m->cpus (method.cpu)? 0 when it can or
 * when there is no pinning; LK_EINPUT naming where the set was given
 * (m->cpu_where: "file:line", "command line") when one of its CPUs is
 * not online here, or lies outside the CPUs this process may run on (a
 * taskset, cpuset or cgroup); LK_ESYS when neither can be read.
 * lk_run_sweep checks it first; a command checks it before it opens
 * the store.
 */
int lk_measure_check_cpus(struct lk_ctx *ctx, const struct lk_method *m);

/*
 * Run a sweep into the open store 's' as campaign 'campaign' (whose
 * config hash is recorded): expand, record variants, compile in
 * parallel through the build cache, measure one variant at a time
 * (measurements never overlap), store each run in one transaction.
 * Finished units are skipped on a rerun. A variant that fails to
 * compile, crashes or times out is stored with its reason and the sweep
 * goes on: only a failure of loopkit itself (store, system) returns < 0.
 * The build threads share 's' (SQLite serialises them); a launch forks
 * and execs the benchmark, which never touches the store.
 */
int lk_run_sweep(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		 const struct lk_sweep *sweep, const struct lk_run_opts *opts,
		 struct lk_run_summary *sum);
void lk_run_summary_release(struct lk_run_summary *sum);

/*
 * The measure stage (lk_stage_fn): lk_run_sweep with the sweep's method
 * as it stands, one item per variant (its run's status and reason),
 * done = measured now, earlier = stored earlier, failed = variants whose
 * latest run is neither ok nor unstable, and the campaign's line.
 */
lk_stage_fn lk_measure_stage;

#endif
