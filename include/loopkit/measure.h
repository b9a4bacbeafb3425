/*
 * measure: compile benchmarks against the runtime, launch them, read the
 * runtime's protocol (doc/rt-protocol.md), reduce samples to labelled
 * figures, and store everything.
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
	int mux;                    /* the event group was multiplexed */
	double ev[LK_RT_MAX_EVENTS];/* by index into lk_rt_output.events */
	unsigned ev_mask;           /* which ev[] are set */
};

struct lk_rt_region {
	char *name;
	long steps;
	char *roi_addr;
	int has_overhead;
	double ovh_tsc_min, ovh_tsc_median, ovh_ns_min, ovh_ns_median;
	struct lk_rt_sample *samples;
	size_t nsamples, alloc;
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

/* ---- Building. ---- */

struct lk_build_spec {
	const char *source;       /* path */
	const char *compiler;     /* gcc, clang, a path */
	const char *cflags;       /* user flags, split like a shell */
	const struct lk_param *defines;
	size_t ndefines;
	long align_functions;     /* 0: none */
	int opt_report;           /* ask for the vectoriser's report (gcc
				   * -fopt-info, clang -Rpass) on stderr:
				   * it lands in the build's log */
	size_t memory_limit;      /* the compiler's address space; 0: the
				     default, LK_PROC_UNLIMITED: none (not
				     part of the build's key) */
};

/* Where lkrt.h and liblkrt.a are (LOOPKIT_RT_DIR overrides both). */
const char *lk_rt_include_dir(void);
const char *lk_rt_lib_dir(void);

/*
 * The build's cache key: source content, compiler identity (its
 * --version), the argv, the runtime's header and library. LK_EINPUT for
 * unsplittable flags, LK_ENOTFOUND for a missing source or compiler.
 */
int lk_build_key(struct lk_ctx *ctx, const struct lk_build_spec *spec,
		 char key[LK_HASH_HEX]);

/*
 * Compile spec into the store's object area unless a build with the same
 * key is already stored (then reuse it, success or failure). b is filled
 * (release with lk_build_rec_release). A compile error is not a function
 * failure: b->ok is 0 and b->reason says why. Thread-safe when every
 * thread has its own ctx; store writes are serialised inside.
 */
int lk_build(struct lk_ctx *ctx, struct lk_store *s,
	     const struct lk_build_spec *spec, struct lk_build_rec *b);

/* The first line of a compiler's output that says what went wrong, with
 * its file:line ("x.c:3:7: error: ..."), or NULL. */
LK_GIVE char *lk_compiler_error(const char *log);

/* ---- Running. ---- */

struct lk_run_opts {
	const char *store_dir;  /* campaign directory */
	int jobs;               /* parallel compiles; <= 0: CPUs */
	int quiet;              /* no progress */
	int retry_failed;       /* forget failed runs first */
	int list_only;          /* print the plan, run nothing */
	int build_only;         /* build (through the cache), measure
				 * nothing: sum->built, ->cached, ->failed
				 * count distinct builds, no reports */
	int verbose;
};

/* One measured variant's outcome, for printing. */
struct lk_run_report {
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
 * Run a sweep into the store: expand, record variants, compile in
 * parallel through the build cache, measure one variant at a time
 * (measurements never overlap), store each run in one transaction.
 * Finished units are skipped on a rerun. A variant that fails to
 * compile, crashes or times out is stored with its reason and the sweep
 * goes on: only a failure of loopkit itself (store, system) returns < 0.
 */
int lk_run_sweep(struct lk_ctx *ctx, const struct lk_sweep *sweep,
		 const struct lk_run_opts *opts, struct lk_run_summary *sum);
void lk_run_summary_release(struct lk_run_summary *sum);

/* ---- Capabilities (loopkit check). ---- */

struct lk_cap {
	const char *name;     /* "pmu", "ptrace", "llvm-mca", ... */
	int available;
	char *detail;         /* version, reason it is missing, ... */
};

/* Probe what this build and machine can do; free with lk_caps_free. */
int lk_caps_probe(struct lk_ctx *ctx, struct lk_cap **caps, size_t *n);
void lk_caps_free(struct lk_cap *caps, size_t n);
/* Is capability 'name' available? (probes only that one) */
int lk_cap_available(struct lk_ctx *ctx, const char *name);

#endif
