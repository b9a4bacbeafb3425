/*
 * store: the campaign store, a directory holding store.db (SQLite, WAL)
 * and content-addressed files. Every stage writes its facts here in one
 * transaction per unit of work, so a killed run loses nothing finished.
 */
#ifndef LOOPKIT_STORE_H
#define LOOPKIT_STORE_H

#include <stdint.h>
#include <stdio.h>

#include "core.h"

#define LK_STORE_DEFAULT_DIR "loopkit.d"

struct lk_store;

enum {
	/* Create the directory and store.db when there is none. */
	LK_STORE_CREATE = 1 << 0,
	/* Only read: take no writer lock; never with LK_STORE_CREATE. */
	LK_STORE_READER = 1 << 1,
};

/*
 * Open the campaign store in dir and bring its schema up to date.
 *
 * Without LK_STORE_READER the handle is a writer: it holds the store's
 * lock (an flock on <dir>/store.lock, dropped by the kernel when the
 * process ends however it ends) until lk_store_close. Several handles of
 * one process share the lock; another process's writer is LK_ESTORE,
 * "<dir>/store.db: in use by <its command> (pid N)". Readers work beside
 * a writer (WAL).
 *
 * Without LK_STORE_CREATE a missing store.db is LK_ENOTFOUND. With it, a
 * missing store.db is created whole (built aside and renamed into place);
 * an existing file is never re-created. A store.db that is not a loopkit
 * store (an empty file, not SQLite, SQLite without loopkit's
 * application_id) is LK_EINPUT and is left untouched; a damaged page
 * (PRAGMA quick_check) is LK_ESTORE before anything is written. A schema
 * newer than this build knows is LK_EUNSUP. Times in the store are Unix
 * seconds (REAL). A handle is one SQLite connection: calls through it
 * must not overlap (lock around them, or open one handle per thread);
 * readers wait up to 10 s for SQLite's own write lock.
 */
int lk_store_open(struct lk_ctx *ctx, const char *dir, unsigned flags,
		  LK_GIVE struct lk_store **out);
void lk_store_close(struct lk_store *s);
const char *lk_store_dir(const struct lk_store *s);
int lk_store_schema_version(const struct lk_store *s);

/*
 * Content-addressed file area: "<dir>/objects/<h[0:2]>/<h[2:]><suffix>".
 * The path is returned whether or not the file exists.
 */
LK_GIVE char *lk_store_object_path(const struct lk_store *s, const char *hash,
				   const char *suffix);
/*
 * Put data[0..len) into that area under its content hash (into hash,
 * LK_HASH_HEX bytes), written atomically unless a file of that name is
 * already there; *path (the caller's) gets its path, even on failure.
 */
int lk_store_object_put(struct lk_ctx *ctx, const struct lk_store *s,
			const void *data, size_t len, const char *suffix,
			char *hash, LK_GIVE char **path);

/*
 * Get or create the campaign called name; config fields may be NULL.
 * Non-NULL config fields replace the stored ones (the config may have
 * moved or changed since the campaign began).
 */
int lk_store_campaign(struct lk_ctx *ctx, struct lk_store *s, const char *name,
		      const char *config_path, const char *config_hash,
		      int64_t *id);

/* Store an environment snapshot (JSON object) once per content. */
int lk_store_env_put(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const char *json, int64_t *id);

struct lk_param {
	const char *name;
	const char *value;
};

/* ---- Variant names (src/store/name.c). ---- */

/*
 * A variant's name for people. One 'loopkit gen' made (its parameters
 * hold a non-empty kernel= and transformation=) is named by its kernel,
 * chain, compiler, flag set, then the sweep's axes (the parameters gen
 * stores before kernel=): "gemm isl+tile,sizes=32x32+kernelify gcc O2
 * N=400"; the generator's other parameters (family, the chain's step
 * parameters, the micro-kernel's facts) are left out. Any other variant
 * keeps its file's base name and shows every parameter: "triad.c gcc O2
 * N=1000". A parameter with an empty value shows as its name alone.
 * Never fails.
 */
LK_GIVE char *lk_variant_name(const char *source, const char *compiler,
			      const char *flagset,
			      const struct lk_param *params, size_t nparams);
/* What a variant's source is called: a generated variant's kernel, "asm"
 * for an asm: variant (parameters asm.insns and asm.unroll), else the
 * source's base name (borrowed from params, source or static). */
LK_KEEP const char *lk_variant_source_name(const char *source,
					   const struct lk_param *params,
					   size_t nparams);
/* Whether 'loopkit gen' made the variant (see lk_variant_name). */
int lk_variant_generated(const struct lk_param *params, size_t nparams);
/* Whether the generator parameter called name is a fact kernelify
 * records about a micro-kernel (working_set_bytes, working_set_lines,
 * kernel.*, fixed.*): it describes a variant, no one chose it, so the
 * report does not group by it unless asked. */
int lk_variant_fact(const char *name);
/* The value of the first parameter called name, NULL when none. */
LK_KEEP const char *lk_variant_param(const struct lk_param *params,
				     size_t nparams, const char *name);

struct lk_variant_rec {
	const char *hash;        /* of everything below */
	const char *source;      /* path as configured */
	const char *source_hash; /* of the file's content */
	const char *compiler;
	const char *flagset;     /* flag set name */
	const char *cflags;      /* the flags themselves */
	const struct lk_param *params; /* -D axes: name, value */
	size_t nparams;
};

/* Insert a variant unless (campaign, hash) exists; *id either way. */
int lk_store_variant_put(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_variant_rec *v,
			 int64_t *id);
/* Number of variants of a campaign. */
int lk_store_variant_count(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t campaign, long *n);

struct lk_build_rec {
	int64_t id;
	char *hash;          /* key: source content, compiler, flags, rt */
	char *compiler;
	char *compiler_version;
	char *command;       /* the argv, space-joined, for the record */
	int ok;
	char *reason;        /* why it failed, "" when ok */
	char *log;           /* compiler output (warnings, opt reports) */
	char *binary;        /* path relative to the store dir, "" if failed */
	double seconds;
};

/* 0 and *b filled (release it) when found, LK_ENOTFOUND when not.
 * Strings stored as NULL come back as "". */
int lk_store_build_get(struct lk_ctx *ctx, struct lk_store *s,
		       const char *hash, struct lk_build_rec *b);
/* Insert or replace by hash; sets b->id, which a replace keeps. */
int lk_store_build_put(struct lk_ctx *ctx, struct lk_store *s,
		       struct lk_build_rec *b);
void lk_build_rec_release(struct lk_build_rec *b);
/* Record build_ids[i] as variant_ids[i]'s latest build, in one
 * transaction. */
int lk_store_variant_builds_set(struct lk_ctx *ctx, struct lk_store *s,
				const int64_t *variant_ids,
				const int64_t *build_ids, size_t n);

/* One raw figure of one sample. */
struct lk_sample_rec {
	int process;         /* launch index within the run */
	int attempt;         /* redo index (trimmed-mean rule), from 0 */
	const char *region;
	long idx;            /* sample index within the process */
	long steps;          /* kernel calls in the sample */
	const char *metric;  /* tsc, ns, ref_tsc, ref_cycles, or an event */
	double raw;          /* as the runtime reported it */
	double value;        /* per step, overhead subtracted where it applies */
};

/* A fact about one launch: tsc_hz, fifo, cpu, roi_addr, overhead... */
struct lk_info_rec {
	int process;
	int attempt;
	const char *key;
	const char *value;
};

/* A reduced figure. */
struct lk_result_rec {
	const char *region;
	const char *metric;  /* tsc, ns, cycles, instructions, ... */
	const char *source;  /* tsc, clock_monotonic_raw, pmu,
				tsc-calibrated, perf-sw, unsupported */
	const char *unit;    /* ticks/step, ns/step, cycles/step, ... */
	int has_value;       /* 0: no number (unsupported, failed) */
	double value;
	const char *reducer; /* median, min, p10, trimmed-mean, ... */
	long n;              /* samples behind the value */
	double spread;       /* relative: (p90 - p10) / value; 0 if n < 2 */
	const char *flags;   /* comma list: unstable, multiplexed,
				calibration-unreliable, unsupported:ENOENT */
	int primary;         /* the run's headline figure */
};

struct lk_run_rec {
	int64_t variant_id;
	int64_t build_id;    /* 0: none (build failed before) */
	int64_t env_id;      /* 0: none */
	const char *method_hash;
	const char *method;  /* canonical method text */
	const char *status;  /* ok, unstable, build-failed, crashed,
				timed-out, failed */
	const char *reason;  /* "" when ok */
	int attempts;
	double started, finished; /* Unix time, seconds */
	int64_t memory_limit; /* bytes the launches were limited to, 0: none;
				 < 0: not recorded */
	const struct lk_sample_rec *samples;
	size_t nsamples;
	const struct lk_info_rec *infos;
	size_t ninfos;
	const struct lk_result_rec *results;
	size_t nresults;
};

/*
 * Is there a finished run of this variant under this method? 1 yes (its
 * status in *status if non-NULL, to free), 0 no, < 0 error.
 */
int lk_store_run_done(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t variant_id, const char *method_hash,
		      LK_GIVE char **status);
/* Same, with the run's reason too ("" when ok); both to free. */
int lk_store_run_outcome(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *method_hash,
			 LK_GIVE char **status, LK_GIVE char **reason);
/* Write a run with all its samples, infos and results in ONE transaction,
 * replacing an earlier run with the same (variant, method hash). On any
 * error nothing changed. id may be NULL. */
int lk_store_run_put(struct lk_ctx *ctx, struct lk_store *s,
		     const struct lk_run_rec *r, int64_t *id);
/* Forget the runs of a campaign whose status is not ok/unstable, so that
 * they are tried again. *n gets how many. */
int lk_store_runs_forget_failed(struct lk_ctx *ctx, struct lk_store *s,
				int64_t campaign, long *n);
/* Count runs of a campaign (all statuses). */
int lk_store_run_count(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, long *n);

/* A stored reduced figure, owned (strings freed by lk_result_rows_free). */
struct lk_result_row {
	char *region, *metric, *source, *unit, *reducer, *flags;
	int has_value;
	double value;
	long n;
	double spread;
	int primary;
};

/* The results of the finished run (variant, method hash), in the order
 * they were stored; *n = 0 when there is none. */
int lk_store_results_get(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *method_hash,
			 LK_GIVE struct lk_result_row **rows, size_t *n);
void lk_result_rows_free(struct lk_result_row *rows, size_t n);

/* A memprof run: a program's exclusive profile joined with its static
 * load/store counts. */
struct lk_memprof_func_rec {
	const char *name;
	long calls;
	double total, self, min_self, max_self, mean_self; /* TSC ticks */
	const char *loads, *stores; /* per call, number or expression;
				       NULL when the function was not seen
				       by the plugin */
	int has_residual;
	double residual;
};

struct lk_memprof_rec {
	const char *program;      /* path as given */
	const char *program_hash; /* of its content */
	const char *cflags;
	int64_t env_id;           /* 0: none */
	long calls;
	double tsc_hz;            /* 0: unknown */
	const char *fit;          /* JSON object, NULL: no fit */
	const struct lk_memprof_func_rec *funcs;
	size_t nfuncs;
	/* The campaign stage's (NULL for 'memprof run PROG.c'): the key it
	 * skips a stored program by, the outcome (ok, failed) and why. */
	const char *stage_key;
	const char *status;
	const char *reason;
};

/* Store a memprof run and its functions in one transaction; with a
 * stage_key, replacing the campaign's run stored under that key. On
 * error nothing changed. */
int lk_store_memprof_put(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_memprof_rec *r,
			 int64_t *id);
/* 1 with *status and *reason (both to free) when the campaign has a run
 * stored under stage_key, 0 when not, < 0 on error. */
int lk_store_memprof_find(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const char *stage_key,
			  LK_GIVE char **status, LK_GIVE char **reason);
/* Every memprof function row of the campaign (NULL: all), as CSV or
 * JSON: campaign, run, program, cflags, function, calls, total, self,
 * min_self, max_self, mean_self, loads, stores, residual. */
int lk_store_export_memprof(struct lk_ctx *ctx, struct lk_store *s,
			    const char *campaign, int json, FILE *out);

/*
 * Every variant's build log as of its latest run, headed by one line
 * "== <variant> <source> <compiler> <flagset> [<transformation>]": with
 * method.opt-report the compiler's vectorisation report (gcc
 * -fopt-info-vec-optimized-missed, clang -Rpass*=loop-vectorize).
 * "(not built)" for a variant never run. campaign NULL: all; an
 * unknown name is LK_ENOTFOUND.
 */
int lk_store_export_opt_reports(struct lk_ctx *ctx, struct lk_store *s,
				const char *campaign, FILE *out);

enum lk_export_format { LK_EXPORT_CSV, LK_EXPORT_JSON };

/*
 * Tidy table: one row per variant x region x metric of the variant's
 * latest run (the one finished last, whatever its method). A variant
 * whose run has no results gets one row with its status and reason, a
 * variant never run one row with status "pending". Columns: campaign,
 * variant (first 12 hex of its hash), source, compiler, flagset, cflags,
 * one column per -D parameter (union over the exported variants, by first
 * appearance; "D_<name>" when the name is one of the fixed columns),
 * region, metric, value, unit, metric_source, reducer, samples, spread,
 * primary (1/0), status, flags, reason. Rows ordered by campaign, variant,
 * result. campaign NULL: every campaign; an unknown name is LK_ENOTFOUND
 * naming the campaigns there are.
 *
 * CSV: a header line, RFC 4180 quoting, LF line ends, an empty cell for
 * NULL. JSON: an array of objects with the same keys, null for NULL, -D
 * values that are JSON numbers as written stay numbers. Floating-point
 * numbers are printed in the fewest digits (15 to 17) that read back
 * exactly. Everything is written to out, which is flushed.
 */
int lk_store_export(struct lk_ctx *ctx, struct lk_store *s,
		    const char *campaign, enum lk_export_format fmt, FILE *out);

/* A variant of a campaign with the binary its latest run was built into:
 * what the analysis stages (blocks, count, predict, lift, filter) work
 * on. */
struct lk_variant_binary {
	int64_t variant_id;
	char *variant_hash;
	char *source;        /* as configured */
	char *compiler, *flagset, *cflags;
	int64_t build_id;    /* 0: never built */
	char *build_hash;
	char *binary;        /* absolute path, "" when the build failed */
	char *run_status;    /* of the latest run, "pending" when none */
	struct lk_param *params; /* -D and generator parameters, in order */
	size_t nparams;
};

/* Every current variant of the campaign (lk_store_variants_current), in
 * id order, with its binary: its latest run's build, else its latest
 * build (gen -c), else none. *n = 0 when there is none. Free with
 * lk_variant_binaries_free. */
int lk_store_variant_binaries(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t campaign,
			      LK_GIVE struct lk_variant_binary **rows,
			      size_t *n);
void lk_variant_binaries_free(struct lk_variant_binary *rows, size_t n);
/*
 * Make ids[0..n) the campaign's current variants, the sweep as it now
 * is (gen and asm call it after recording theirs), in one transaction:
 * run -c measures and lk_store_variant_binaries lists only those. The
 * others stay stored with their runs and predictions (the report and
 * export still show them). A campaign never marked has every variant
 * current. Ids of another campaign are ignored.
 */
int lk_store_variants_current(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t campaign, const int64_t *ids, size_t n);

/* ---- Facts derived after a stage stored its own (src/store/derived.c):
 * loopkit asm's difference row and its body predictions. ---- */

struct lk_prediction_key;

/*
 * The latest finished run of variant_id (the one lk_store_run_figure
 * reads): *status (NULL when there is none) and its results in stored
 * order, all owned (free *status; lk_result_rows_free).
 */
int lk_store_latest_results(struct lk_ctx *ctx, struct lk_store *s,
			    int64_t variant_id, LK_GIVE char **status,
			    LK_GIVE struct lk_result_row **rows, size_t *n);
/*
 * Add rec after the results of variant_id's latest finished run,
 * replacing its row of the same region and metric, in one transaction:
 * a figure derived from the run's own after it was stored.
 * LK_ENOTFOUND when the variant has no finished run.
 */
int lk_store_result_add(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const struct lk_result_rec *rec);
/*
 * Record that variant_id's prediction under key is the stored
 * prediction of block_hash under the same key times copies (block
 * iterations per kernel call), replacing its link under key: an asm
 * variant's body, predicted once per copy. The report reads it with the
 * lifted rows, per kernel call, its params followed by " body".
 */
int lk_store_variant_prediction_put(struct lk_ctx *ctx, struct lk_store *s,
				    int64_t variant_id,
				    const struct lk_prediction_key *key,
				    const char *block_hash, double copies);

/* ---- The stage summary (src/store/stage.c): what happened to each
 * unit in a campaign stage (every lk_stage_fn below fills one). ---- */

/* What happened to one variant in a stage. */
struct lk_stage_item {
	int64_t variant_id;
	char *label;          /* "triad.c gcc O2 N=1000" */
	char *status;         /* ok, stored, failed, skipped, excluded, ... */
	char *reason;         /* "" when there is nothing to say */
};

struct lk_stage_summary {
	struct lk_stage_item *items;   /* one per unit (variant, gen unit,
					  memprof program), in order */
	size_t n;
	long done;            /* done now */
	long earlier;         /* found in the store */
	long failed;          /* tried and failed (the reason is stored) */
	long skipped;         /* nothing to work on (no binary, no count) */
	char *line;           /* what the stage did, for 'campaign': one
				 line, then optional indented lines of
				 figures; owned, NULL before the stage ran */
};

/*
 * The stage interface. Every stage (gen, measure, blocks, count, predict,
 * lift, filter, memprof, report) is an lk_stage_fn: it reads the parsed
 * campaign file 'cfg' and what earlier stages stored for 'campaign' in
 * the open store 's', stores its own facts, skips what the store already
 * holds, and fills *sum (which the caller releases, whatever the result).
 * A failing unit (a variant that does not build, a block a tool refuses)
 * is stored with its reason and counted in sum->failed; only a failure
 * of loopkit itself (store, system, a tool that cannot run at all)
 * returns < 0. Options a command line gives for one stage (predict's
 * --mcpu, filter's --l1d-size, ...) are written into cfg's section for
 * that stage before the call, so the stage reads one source.
 */
struct lk_sweep;

struct lk_stage_opts {
	int jobs;             /* parallel units; <= 0: one per CPU */
	int quiet;            /* no progress on stderr */
	int verbose;          /* say more on stderr */
	int retry_failed;     /* try again units stored as failed */
	int list_only;        /* gen, measure: list the units, do nothing */
};

typedef int lk_stage_fn(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, const struct lk_sweep *cfg,
			const struct lk_stage_opts *opts,
			struct lk_stage_summary *sum);

void lk_stage_summary_release(struct lk_stage_summary *sum);
/* One item per variant, labelled as loopkit run labels them, status
 * "pending"; then set an item's status and reason (copied). */
void lk_stage_items_init(struct lk_stage_summary *sum,
			 const struct lk_variant_binary *v, size_t n);
void lk_stage_item_set(struct lk_stage_item *item, const char *status,
		       const char *reason);

/*
 * The content hash of a file (lk_hash of its bytes, hex): the key of
 * blocks and counts in the store.
 */
int lk_binary_hash(struct lk_ctx *ctx, const char *path,
		   char out[LK_HASH_HEX]);

/* ---- report: what loopkit report reads (src/store/report.c). ---- */

/* The names of every campaign, in creation order, appended to names. */
int lk_store_report_campaign_names(struct lk_ctx *ctx, struct lk_store *s,
				   struct lk_strv *names);
/* The id of the campaign called name (never creates it). LK_ENOTFOUND
 * naming the campaigns there are when it does not exist. */
int lk_store_report_find_campaign(struct lk_ctx *ctx, struct lk_store *s,
				  const char *name, int64_t *id);

/* A variant with the results of its latest ok run (strings owned). */
struct lk_variant_measure {
	int64_t id;
	char *hash, *source, *compiler, *flagset;
	struct lk_param *params;     /* owned strings, in order */
	size_t nparams;
	char *status;    /* "ok" when an ok run exists (results are its);
			    else the latest run's status, "pending" none */
	char *reason;    /* the latest run's reason when not ok, else "" */
	struct lk_result_row *results;
	size_t nresults;
};

/* A lifted prediction (table lifted), strings owned. */
struct lk_report_lifted {
	int64_t variant_id;
	char *tool, *version, *params;
	char *status;    /* ok, excluded */
	int has_value;
	double value;    /* per kernel call */
	char *unit, *reason;
};


/* A filter verdict (table verdicts), strings owned. */
struct lk_report_verdict {
	int64_t variant_id;
	char *filter;    /* l1, ... */
	char *verdict;   /* pass, exclude, unknown */
	int has_value;
	double value;
	char *source, *reason;
};

/* Everything the report reads about one campaign, owned. */
struct lk_report_input {
	char *campaign;                      /* its name */
	struct lk_variant_measure *variants; /* in id order */
	size_t nvariants;
	struct lk_report_lifted *lifted;     /* by tool, version, params,
						variant */
	size_t nlifted;
	struct lk_report_verdict *verdicts;  /* by variant, filter */
	size_t nverdicts;
};

/*
 * Read the campaign's variants (with the results of their latest ok
 * run), lifted predictions and filter verdicts in one read transaction.
 * LK_ENOTFOUND for an unknown campaign id. Release with
 * lk_report_input_release (also after a failure).
 */
int lk_store_report_read(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, struct lk_report_input *in);
void lk_report_input_release(struct lk_report_input *in);
/* ---- Predictions (the predict stage): one row per (block hash, tool,
 * tool version, params), in the predictions table. ---- */

/* The key a prediction is stored under. */
struct lk_prediction_key {
	const char *tool;      /* llvm-mca-19, bprof, an adapter's name */
	const char *version;
	const char *params;    /* canonical parameter text */
};

struct lk_prediction_rec {
	const char *block_hash;
	const char *status;    /* ok, failed, unsupported, timed-out */
	int has_value;         /* 0: value stored as NULL */
	double value;          /* per block iteration */
	const char *unit;      /* cycles/iter, ... */
	const char *reason;    /* "" when ok */
	const char *raw;       /* the tool's output for this block */
	double seconds;
};

/* Store n predictions under key in ONE transaction, replacing any with
 * the same block hash. On error nothing changed. */
int lk_store_predictions_put(struct lk_ctx *ctx, struct lk_store *s,
			     const struct lk_prediction_key *key,
			     const struct lk_prediction_rec *recs, size_t n);
/* Is there a prediction of block_hash under key? 1 yes, 0 no, < 0 error. */
int lk_store_prediction_has(struct lk_ctx *ctx, struct lk_store *s,
			    const struct lk_prediction_key *key,
			    const char *block_hash);

/* A stored prediction, owned (lk_prediction_row_release). Strings stored
 * as NULL come back as "". */
struct lk_prediction_row {
	char *block_hash, *tool, *version, *params, *status, *unit, *reason,
		*raw;
	int has_value;
	double value, seconds;
};
/* 0 and *row filled, or LK_ENOTFOUND. */
int lk_store_prediction_get(struct lk_ctx *ctx, struct lk_store *s,
			    const struct lk_prediction_key *key,
			    const char *block_hash,
			    struct lk_prediction_row *row);
void lk_prediction_row_release(struct lk_prediction_row *row);
/* Number of stored predictions (all tools) into *n. */
int lk_store_prediction_count(struct lk_ctx *ctx, struct lk_store *s,
			      long *n);
/* ---- The code-analyzer harness: basic blocks, counts, lifted
 * predictions, filter verdicts (src/store/bb.c, src/store/lift.c). ----
 * Blocks and counts belong to a function of a binary, keyed by the
 * binary's CONTENT hash (lk_binary_hash above) and the function's
 * name, so the same binary in two variants or campaigns is decoded and
 * counted once. Each put is one transaction. */

struct lk_bb_block_rec {
	uint64_t start, end;     /* [start, end), link-time */
	long ninsns;
	const char *hash;        /* lk_block_hash */
	const char *att, *intel; /* one instruction per line */
	const char *succ;        /* successor indices, space-separated */
};

struct lk_bb_function_rec {
	const char *binary_hash;
	const char *function;
	uint64_t addr, size;
	int inlined;             /* the markers are inside it */
	const struct lk_bb_block_rec *blocks; /* in index order */
	size_t nblocks;
};

/*
 * 1 and *id when (binary_hash, function) is stored, 0 when not, < 0 on
 * error. function NULL: the binary's function that has a count run (the
 * most recent), else any of its functions.
 */
int lk_store_bb_function_find(struct lk_ctx *ctx, struct lk_store *s,
			      const char *binary_hash, const char *function,
			      int64_t *id);
/* Store the function and all its blocks in one transaction unless
 * (binary_hash, function) is there already; *id either way. */
int lk_store_bb_function_put(struct lk_ctx *ctx, struct lk_store *s,
			     const struct lk_bb_function_rec *f, int64_t *id);
/* The same with the function's machine code (f->size bytes from
 * f->addr; NULL: none), each block storing its own [start, end) of it;
 * blocks outside [addr, addr + size) store none. */
int lk_store_bb_function_put_code(struct lk_ctx *ctx, struct lk_store *s,
				  const struct lk_bb_function_rec *f,
				  const uint8_t *code, int64_t *id);

/* The stored function id: 1 and *out (release it), 0 when there is no
 * such function, < 0 on error. */
struct lk_bb_function_row {
	char *function;
	uint64_t addr, size;
	int inlined;
};
int lk_store_bb_function_get(struct lk_ctx *ctx, struct lk_store *s,
			     int64_t id, struct lk_bb_function_row *out);
void lk_bb_function_row_release(struct lk_bb_function_row *row);

struct lk_bb_block_row {
	long idx;
	uint64_t start, end;
	long ninsns;
	char *hash, *att, *intel, *succ;
	uint8_t *code;           /* end - start bytes; NULL when the block
				    was stored without (before schema 7) */
	size_t code_len;
};

/* The blocks of a stored function in index order (*n = 0: none). */
int lk_store_bb_blocks_get(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id,
			   LK_GIVE struct lk_bb_block_row **rows, size_t *n);
void lk_bb_block_rows_free(struct lk_bb_block_row *rows, size_t n);

/* One count of a function: occurrences of each block in ONE kernel
 * call, or why there are none. */
struct lk_bb_count_rec {
	const char *status;      /* ok, failed, timed-out */
	const char *reason;      /* "" when ok */
	long regions, traps;
	double seconds;
	const uint64_t *counts;  /* per block index; n = 0 unless ok */
	const char *const *via;  /* derived, int3, hwbp; per block */
	size_t n;
};

/* Replace the function's count run and counts in one transaction. */
int lk_store_bb_counts_put(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id,
			   const struct lk_bb_count_rec *c);
/* 1 with *status and *reason (both to free; either may be NULL) when
 * the function has a count run, 0 when not, < 0 on error. */
int lk_store_bb_count_status(struct lk_ctx *ctx, struct lk_store *s,
			     int64_t function_id, LK_GIVE char **status,
			     LK_GIVE char **reason);
/* The counts of the function's blocks by index (*n = number of blocks;
 * a block with no count row reads 0). */
int lk_store_bb_counts_get(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t function_id, LK_GIVE uint64_t **counts,
			   size_t *n);

/* The campaigns that have variants (what the harness stages can work
 * on), by id: ids[i] named names->v[i]. *n = 0 when there is none. */
int lk_store_campaigns_with_variants(struct lk_ctx *ctx, struct lk_store *s,
				     LK_GIVE int64_t **ids,
				     struct lk_strv *names, size_t *n);

/* What lift needs for one function: its blocks with their occurrences,
 * and every stored prediction of their text. */
struct lk_lift_block {
	long idx;
	uint64_t start;
	uint64_t count;          /* occurrences in one kernel call */
	char *hash;
};

struct lk_lift_prediction {
	size_t block;            /* index into lk_lift_input.blocks */
	char *tool, *tool_version, *params, *status, *unit, *reason;
	int has_value;
	double value;            /* per block iteration */
};

struct lk_lift_input {
	struct lk_lift_block *blocks;  /* by idx */
	size_t nblocks;
	struct lk_lift_prediction *preds; /* by tool, version, params, block */
	size_t npreds;
};

/* Read the blocks, counts (ok count run only) and predictions of a
 * function. Release with lk_lift_input_release in every case. */
int lk_store_lift_input(struct lk_ctx *ctx, struct lk_store *s,
			int64_t function_id, struct lk_lift_input *in);
void lk_lift_input_release(struct lk_lift_input *in);

struct lk_lifted_rec {
	const char *tool, *tool_version, *params;
	const char *status;      /* ok, excluded */
	int has_value;
	double value;            /* per kernel call */
	const char *unit;
	long nblocks;            /* blocks with a non-zero count */
	long nfailed;            /* of those, without an ok prediction */
	const char *reason;      /* "" when ok */
};

/* Replace every lifted row of the variant with rows[0..n), all for
 * function_id, in one transaction. */
int lk_store_lifted_put(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, int64_t function_id,
			const struct lk_lifted_rec *rows, size_t n);

struct lk_lifted_row {
	int64_t variant_id, function_id;
	char *tool, *tool_version, *params, *status, *unit, *reason;
	int has_value;
	double value;
	long nblocks, nfailed;
};

/* The lifted rows of a campaign's variants, by variant, tool, version,
 * params. */
int lk_store_lifted_get(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, LK_GIVE struct lk_lifted_row **rows,
			size_t *n);
void lk_lifted_rows_free(struct lk_lifted_row *rows, size_t n);

struct lk_verdict_rec {
	const char *filter;      /* l1 */
	const char *verdict;     /* pass, exclude, unknown */
	int has_value;
	double value;            /* e.g. the warm D1 miss ratio */
	const char *source;      /* cachegrind, generator, ... */
	const char *reason;
};

/* Insert or replace the variant's verdict of rec->filter. */
int lk_store_verdict_put(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const struct lk_verdict_rec *v);

struct lk_verdict_row {
	char *filter, *verdict, *source, *reason;
	int has_value;
	double value;
};

/* 1 and *out (release it) when the variant has a verdict of filter, 0
 * when not, < 0 on error. */
int lk_store_verdict_get(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *filter,
			 struct lk_verdict_row *out);
void lk_verdict_row_release(struct lk_verdict_row *v);

/* ---- The MDL seed database (src/store/mdl.c; doc/loopkit-mdl.md). ----
 * A database is one ISA class's seeds measured at some memory levels,
 * keyed by the hash of everything that made it (seeds' text, class,
 * levels, exploration, method). Its benchmarks are ordinary variants of
 * the campaign "mdl-db:<isa>"; these tables keep what the k-NN needs. */

#define LK_MDL_NFEATURES 6

/* A feature's place in the vector (doc/loopkit-mdl.md, "predict"). */
enum lk_mdl_feature {
	LK_MDL_F_LOAD,       /* loads per stream */
	LK_MDL_F_STORE,      /* stores per stream */
	LK_MDL_F_STREAMS,
	LK_MDL_F_ADD,
	LK_MDL_F_MUL,
	LK_MDL_F_FAR         /* new lines of far accesses */
};

struct lk_mdl_seed_row {
	char *name, *kind, *mdl;            /* mdl: the seed's text */
	double features[LK_MDL_NFEATURES];  /* load/S, store/S, S, add, mul,
					       far streams */
};

/* A seed's value at one level: the minimum over its variants. */
struct lk_mdl_perf_row {
	char *seed, *level;                 /* "L1", "L2", "L3", "RAM" */
	int has_value;                      /* 0: no variant measured ok */
	double value;                       /* per canonical iteration */
	char *unit;                         /* "cycles/iter" */
	char *source;                       /* "tsc-calibrated" */
	long best_unroll, best_bundles;
	int64_t variant_id;                 /* the best variant, 0: none */
	double spread;                      /* the best variant's */
	long variants;                      /* measured ok at this level */
	char *flags;                        /* "" or a comma list */
};

/* A whole database; strings owned when read, borrowed when put. */
struct lk_mdl_db_row {
	int64_t id;
	char *hash, *machine, *isa, *levels, *params;
	int64_t campaign_id, env_id;        /* 0: none */
	double created;                     /* Unix seconds (read only) */
	struct lk_mdl_seed_row *seeds;
	size_t nseeds;
	struct lk_mdl_perf_row *perf;
	size_t nperf;
};

/*
 * Store db (its id into *id when id is not NULL) in one transaction,
 * replacing a database stored under the same hash. Nothing changes on
 * error.
 */
int lk_store_mdl_db_put(struct lk_ctx *ctx, struct lk_store *s,
			const struct lk_mdl_db_row *db, int64_t *id);
/*
 * The latest database of ISA class isa (every class when isa is NULL:
 * the latest of all) into *out, seeds by name, perf by seed and level.
 * 1 found, 0 none (*out zeroed), < 0 error. Release with
 * lk_mdl_db_row_release.
 */
int lk_store_mdl_db_get(struct lk_ctx *ctx, struct lk_store *s,
			const char *isa, struct lk_mdl_db_row *out);
void lk_mdl_db_row_release(struct lk_mdl_db_row *db);

/*
 * loopkit mdl eval's rows (doc/loopkit-mdl.md, "eval"): one per
 * (variant, innermost loop, level); a loop extraction refused has one
 * row with level "". Figures are tsc-calibrated cycles per canonical
 * iteration (llvm-mca's: its cycles per iteration / unroll); NaN (NULL
 * in the store) where there is none. Strings owned when read, borrowed
 * when put.
 */
struct lk_mdl_eval_row {
	int64_t variant_id;
	char *variant;                      /* its name, lk_variant_name */
	char *function;
	uint64_t loop;                      /* the loop's first address */
	char *level;                        /* "L1".."RAM", "" refused */
	char *isa;                          /* the loop's class, "" refused */
	char *status;                       /* ok, refused, no-database,
					       replay-refused, replay-failed */
	char *reason;                       /* "" when ok */
	long unroll;                        /* canonical per loop iteration */
	double predicted, replayed, mca;
	char *mca_tool;                     /* "" without llvm-mca */
	char *db_hash;                      /* "" without a database */
	int64_t replay_variant_id;          /* 0: none */
};

/* Replace campaign's rows by rows[0..n) in one transaction. Nothing
 * changes on error. */
int lk_store_mdl_eval_put(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const struct lk_mdl_eval_row *rows,
			  size_t n);
/* campaign's rows, by variant, loop and level (L1 to RAM). */
int lk_store_mdl_eval_get(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, LK_GIVE struct lk_mdl_eval_row **rows,
			  size_t *n);
void lk_mdl_eval_rows_free(struct lk_mdl_eval_row *rows, size_t n);

/* A variant's latest finished run and its figure of one metric. */
struct lk_run_figure {
	char *status;          /* ok, unstable, failed, ...; NULL: no run */
	int has_value;
	double value, spread;
	char *source, *unit, *flags;
};

/* *out for variant_id's latest finished run (status NULL when it has
 * none; has_value 0 when the run has no such metric). Release with
 * lk_run_figure_release. */
int lk_store_run_figure(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const char *metric,
			struct lk_run_figure *out);
/* The same, among the runs measured under the canonical method text
 * method (NULL: any). */
int lk_store_run_figure_of(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t variant_id, const char *method,
			   const char *metric, struct lk_run_figure *out);
void lk_run_figure_release(struct lk_run_figure *f);
/* Does f hold a value of a run that measured (status ok or unstable)? */
int lk_run_figure_usable(const struct lk_run_figure *f);
/*
 * *ticks: the fewest TSC ticks per step over every sample (all
 * processes and attempts) of that same run, in the region of its first
 * "cycles" result; 0 when it has none.
 */
int lk_store_run_least_ticks(struct lk_ctx *ctx, struct lk_store *s,
			     int64_t variant_id, const char *method,
			     double *ticks);
/*
 * *clock: that same run's clock, core cycles per TSC tick: its fastest
 * reference (the largest ref_cycles / ref_tsc of its samples); 0 when
 * it has none.
 */
int lk_store_run_clock(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t variant_id, const char *method, double *clock);
/*
 * The clock of each of campaign's runs that has references (as
 * lk_store_run_clock), ascending, in *v (n of them; caller frees).
 */
int lk_store_campaign_run_clocks(struct lk_ctx *ctx, struct lk_store *s,
				 int64_t campaign_id, LK_GIVE double **v,
				 size_t *n);
/*
 * *ratio: the clock of campaign's runs, core cycles per TSC tick: the
 * 99th percentile over their samples of the reference chain's cycles
 * over its ticks (a neighbour or an interrupt only slows the chain, so
 * the fast end is the clock; the percentile leaves out the odd reading
 * faster than the rest). 0 when no sample has a reference.
 */
int lk_store_campaign_clock(struct lk_ctx *ctx, struct lk_store *s,
			    int64_t campaign_id, double *ratio);

#endif
