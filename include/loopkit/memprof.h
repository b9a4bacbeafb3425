/*
 * memprof: static load/store counts (from the GCC plugin's .lkmem files),
 * entry/exit traces (binary or text), call trees, exclusive profiles, and
 * the load/store latency fitted from both. Formats: doc/memprof-formats.md.
 */
#ifndef LOOPKIT_MEMPROF_H
#define LOOPKIT_MEMPROF_H

#include <stdint.h>
#include <stdio.h>

#include "core.h"

/* ---- Static counts. ---- */

struct lk_mem_block {
	long index;
	long loads, stores;      /* statements in the block */
	struct lk_strv factors;  /* trip counts, outermost first: "10",
				    or "sym:EXPR" */
};

struct lk_mem_func {
	char *name, *file;
	long line;
	struct lk_mem_block *blocks;
	size_t nblocks, alloc;
};

struct lk_mem_static {
	struct lk_mem_func *funcs;
	size_t nfuncs, alloc;
};

/*
 * Parse machine-readable static files (several may be concatenated).
 * Errors: LK_EINPUT "name:line: what". Appends to *out, which must be
 * zeroed or hold earlier results.
 */
int lk_mem_static_parse(struct lk_ctx *ctx, const char *name, const char *text,
			size_t len, struct lk_mem_static *out);
void lk_mem_static_release(struct lk_mem_static *s);

/* Totals per call of one function. When every factor is numeric,
 * *numeric = 1 and the doubles hold the totals; otherwise *numeric = 0,
 * the doubles are NAN, and *sym_loads / *sym_stores (to free) hold the
 * expressions ("3 + 2*10 + 1*(n)", "0" when there are none). */
struct lk_mem_totals {
	int numeric;
	double loads, stores;
	char *sym_loads, *sym_stores;
};
void lk_mem_func_totals(const struct lk_mem_func *f, struct lk_mem_totals *t);
void lk_mem_totals_release(struct lk_mem_totals *t);

/* The readable form (doc/memprof-formats.md) and JSON (per function:
 * name, loads, stores as numbers or expression strings). */
void lk_mem_static_readable(const struct lk_mem_static *s, struct lk_buf *out);
void lk_mem_static_json(const struct lk_mem_static *s, struct lk_buf *out);

/* ---- Traces. ---- */

struct lk_call {
	uint64_t id;        /* call id: entry order */
	uint32_t func;      /* index into lk_trace.names */
	uint32_t depth;     /* as recorded; not trusted by the tree */
	uint64_t enter, exit; /* TSC; exit 0 = never returned */
};

struct lk_trace {
	struct lk_strv names;
	struct lk_call *calls;  /* sorted by id once loaded */
	size_t ncalls, alloc;
	uint64_t tsc_hz;        /* 0 if unknown (text traces) */
	long bad_lines;         /* text: malformed lines skipped */
	/* Where the calls were read, for messages: the file (owned; NULL:
	 * built in memory), and for a text trace the line of calls[i]
	 * (lines[i]); a binary trace's calls[i] is its record i. Kept out
	 * of struct lk_call: 32 bytes, the binary record, read at memory
	 * speed. */
	char *source;
	uint32_t *lines;        /* text only, else NULL */
};

/*
 * Text traces: one "Call X to function NAME enter cycle WW exit cycle YY"
 * per line (flex scanner + bison grammar). A malformed line is reported
 * in *warnings as "name:line: reason" and skipped, unless strict, where
 * it is LK_EINPUT. Duplicate call ids, exit < enter and numbers over 64
 * bits are malformed; "exit cycle 0" means never returned, as in binary
 * traces. Blank lines and '#' comments are allowed. Only the first 100
 * malformed lines are written out (then one line with how many more);
 * bad_lines counts them all. warnings may be NULL. These readers
 * overwrite *out; on failure it is left released.
 */
int lk_trace_parse_text(struct lk_ctx *ctx, const char *name, const char *text,
			size_t len, int strict, struct lk_trace *out,
			struct lk_buf *warnings);
/* Binary traces (LKTRACE1), read directly. Truncated or inconsistent
 * input: LK_EINPUT with the byte offset. Beyond the format, records must
 * have strictly increasing ids, names must be non-empty, unique and
 * without NUL bytes, and nothing may follow the last record. */
int lk_trace_read_binary(struct lk_ctx *ctx, const char *name,
			 const void *data, size_t len, struct lk_trace *out);
/* Read a file of either form (binary by its magic). */
int lk_trace_load(struct lk_ctx *ctx, const char *path, int strict,
		  struct lk_trace *out, struct lk_buf *warnings);
void lk_trace_release(struct lk_trace *t);
/* Render as text lines. */
void lk_trace_text(const struct lk_trace *t, struct lk_buf *out);
/* Append t as a binary LKTRACE1 trace (calls must be sorted by id). */
void lk_trace_write_binary(const struct lk_trace *t, struct lk_buf *out);

/* ---- Call tree and exclusive profile. ---- */

#define LK_NO_PARENT SIZE_MAX

struct lk_call_node {
	size_t parent;        /* index of the parent call, LK_NO_PARENT */
	uint64_t inclusive;   /* exit - enter */
	uint64_t self;        /* inclusive minus the children's */
	uint32_t depth;       /* computed from the nesting */
};

/*
 * The n-ary tree by interval nesting: the parent of a call is the most
 * recent call whose interval contains it. Linear time with a stack over
 * the calls in entry order. nodes[i] belongs to t->calls[i]. A call that
 * overlaps its would-be parent without nesting is LK_EINPUT (the trace is
 * inconsistent); calls that never returned are closed at the last TSC
 * seen.
 */
int lk_calltree_build(struct lk_ctx *ctx, const struct lk_trace *t,
		      LK_GIVE struct lk_call_node **nodes);

struct lk_func_profile {
	const char *name;     /* borrowed from the trace */
	long calls;
	uint64_t total;       /* sum of inclusive (recursive calls counted
				 once: only the outermost instance) */
	uint64_t self;        /* sum of self */
	uint64_t min_self, max_self;
	double mean_self;
};

/* Aggregate per function, sorted by self descending. */
int lk_profile_build(struct lk_ctx *ctx, const struct lk_trace *t,
		     const struct lk_call_node *nodes,
		     LK_GIVE struct lk_func_profile **prof, size_t *n);
/* gprof-like flat profile and an indented call tree (at most max_lines
 * lines; 0: all). Values in TSC ticks, so labelled. */
void lk_profile_flat(const struct lk_func_profile *p, size_t n,
		     struct lk_buf *out);
void lk_profile_json(const struct lk_func_profile *p, size_t n,
		     struct lk_buf *out);
void lk_calltree_print(const struct lk_trace *t,
		       const struct lk_call_node *nodes, size_t max_lines,
		       struct lk_buf *out);

/* ---- Correlation: load and store latency. ---- */

struct lk_mem_obs {
	const char *name;
	double loads, stores;  /* static, per call */
	double self;           /* measured exclusive ticks per call */
};

struct lk_mem_fit {
	/* Cramer's rule on every pair of functions whose 2x2 system is
	 * well conditioned, then averaged (the reference method). */
	long pairs;
	double cramer_load, cramer_store;       /* means */
	double cramer_load_sd, cramer_store_sd; /* spreads */
	/* Least squares over all functions: self = a*loads + b*stores + c. */
	double lsq_load, lsq_store, lsq_const;
	double lsq_load_se, lsq_store_se;       /* standard errors */
	double r2, rmse;
	double *residuals;                      /* per observation, to free */
	size_t n;
};

/* Fit; LK_EINPUT when there are too few usable observations (with a
 * message saying how many are needed: 4, as the least-squares fit with
 * an intercept is always made), on non-finite values, and when loads
 * and stores are collinear (no pair for Cramer's rule, or a singular
 * least-squares system). */
int lk_mem_fit(struct lk_ctx *ctx, const struct lk_mem_obs *obs, size_t n,
	       struct lk_mem_fit *fit);
void lk_mem_fit_release(struct lk_mem_fit *fit);

/* ---- The whole run: compile with the plugin, run, profile, fit
 * (src/memprof/run.c, report.c). ---- */

/* Read a machine-readable static file (lk_mem_static_parse). */
int lk_mem_static_load(struct lk_ctx *ctx, const char *path,
		       struct lk_mem_static *out);
/* The static counts of a C source: gcc -c with the GCC plugin and the
 * flags, in a scratch directory removed afterwards. A compile error is
 * LK_EINPUT "source: compile failed: <the compiler's first error>". */
int lk_mem_static_compile(struct lk_ctx *ctx, const char *source,
			  const char *const *cflags, size_t ncflags,
			  struct lk_mem_static *out);
/* lk_trace_load, and LK_EINPUT "path: no calls in the trace" when the
 * trace holds none. */
int lk_memprof_trace_load(struct lk_ctx *ctx, const char *path, int strict,
			  struct lk_trace *out, struct lk_buf *warnings);

struct lk_memprof_opts {
	const char *const *cflags;  /* gcc's, after the plugin's */
	size_t ncflags;
	int strict;                 /* a malformed trace line is an error */
	int keep;                   /* leave the scratch directory */
};

/* A profiled function with its static counts and its fit residual. */
struct lk_memprof_row {
	const struct lk_func_profile *prof;
	int seen;                   /* the plugin saw it: totals hold */
	struct lk_mem_totals totals; /* per call */
	int has_residual;           /* it was an observation of the fit */
	double residual;
};

struct lk_memprof_result {
	char *dir;                  /* the scratch directory, NULL before */
	struct lk_mem_static st;
	struct lk_trace trace;
	struct lk_call_node *nodes;
	struct lk_func_profile *prof; /* by self, descending */
	struct lk_memprof_row *rows;  /* rows[i] is prof[i] */
	size_t n;
	int has_fit;
	struct lk_mem_fit fit;
	char *no_fit;               /* why there is no fit, "" with one */
	struct lk_buf messages;     /* for stderr: the program's own, then
				       the trace's malformed lines */
};

/*
 * Compile source with the plugin instrumenting every function, run it
 * (600 s at most) with its trace in a scratch directory, read the static
 * counts and the trace, profile, join and fit load/store latency. Too
 * few observations for a fit is not a failure (r->no_fit says why).
 * Compile errors, malformed static files or traces are LK_EINPUT, a
 * failing program LK_ECHILD, the system LK_ESYS. The scratch directory
 * is removed unless o->keep. Release *r in every case.
 */
int lk_memprof_run(struct lk_ctx *ctx, const char *source,
		   const struct lk_memprof_opts *o,
		   struct lk_memprof_result *r);
void lk_memprof_result_release(struct lk_memprof_result *r);

/* What 'loopkit memprof run' prints: the flat profile, the functions
 * with their counts and residuals, the fit (or why there is none). */
void lk_memprof_result_print(const struct lk_memprof_result *r,
			     struct lk_buf *out);
/* The fit as a JSON object (what the store keeps); NULL without one. */
LK_GIVE char *lk_memprof_fit_json(const struct lk_memprof_result *r);

/* ---- The store and the campaign stage (src/memprof/stage.c). ---- */

struct lk_store;
struct lk_sweep;
struct lk_stage_opts;
struct lk_stage_summary;

/* Where a run comes from, as the store records it. */
struct lk_memprof_source {
	const char *program;        /* the name stored */
	const char *path;           /* the file (its content is hashed) */
	const char *cflags;         /* space-joined */
	const char *stage_key;      /* NULL outside a campaign stage */
};

/* Store the run (r: a finished lk_memprof_run) in one transaction. */
int lk_memprof_store(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, const struct lk_memprof_source *src,
		     const struct lk_memprof_result *r, int64_t *id);

/*
 * The memprof stage (an lk_stage_fn, store.h): every program of cfg's
 * memprof: section (its programs, else the sweep's sources), compiled
 * with its flags, run, profiled and fitted into the campaign, one
 * summary item per program. A program is keyed by the content of its
 * source, its flags, the plugin's content and its name: one already
 * stored is skipped ("stored"; stored as failed, it is tried again with
 * opts->retry_failed). A program that does not compile or run is stored
 * as failed with the reason. Without a memprof: section nothing is done.
 * A missing GCC plugin is LK_EUNSUP.
 */
int lk_memprof_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum);

#endif
