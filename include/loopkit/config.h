/*
 * config: YAML sweep files → the experiment model. Everything is
 * validated before anything runs; every error names file:line.
 */
#ifndef LOOPKIT_CONFIG_H
#define LOOPKIT_CONFIG_H

#include "core.h"

enum lk_reducer {
	LK_REDUCE_MEDIAN = 0,
	LK_REDUCE_MIN,
	LK_REDUCE_MEAN,
	LK_REDUCE_PERCENTILE, /* method.percentile */
	LK_REDUCE_TRIMMED,    /* the X/T/R rule: method.trim_* */
};

/* How to measure. All figures per process unless said otherwise. */
struct lk_method {
	long warmup;             /* kernel calls before the first sample */
	long steps;              /* kernel calls per sample; 0 = auto */
	long min_sample_ticks;   /* with steps auto */
	long repetitions;        /* samples per process */
	long processes;          /* separate launches */
	enum lk_reducer reducer;
	double percentile;       /* 0..100, LK_REDUCE_PERCENTILE */
	long trim_runs;          /* X: samples per attempt (default 5) */
	double trim_tolerance;   /* T as a fraction (default 0.02) */
	long trim_retries;       /* R: redo at most R times (default 3) */
	long relaunches;         /* contended launches run again at most
				    this many times per run (default 5,
				    or $LOOPKIT_RELAUNCHES) */
	int cold_cache;          /* flush before every sample */
	struct lk_cpuset cpus;   /* pin every launch to this set; empty:
				    no pinning */
	char cpu_where[160];     /* where cpu was set ("f.yaml:12",
				    "command line"), for messages; "" if
				    nowhere. Not in the canonical text */
	int fifo;                /* try SCHED_FIFO */
	int calibrate;           /* time a reference chain beside samples */
	int no_aslr;             /* run with ADDR_NO_RANDOMIZE */
	long align_functions;    /* -falign-functions=N added; 0: none */
	int opt_report;          /* builds keep the vectoriser's report */
	double timeout;          /* seconds per process */
	long round;              /* the same measurement taken again: round
				    N > 0 is a run of its own (a key of its
				    own); in the canonical text only when
				    set */
	size_t memory_limit;     /* bytes of address space per launch and
				    per compile; LK_PROC_UNLIMITED: none.
				    Not part of the
				    canonical text (a run's key): stored
				    beside it */
};

/* The defaults: warmup 10, steps auto (20000 ticks), 30 repetitions,
 * 3 processes, p25, X=5 T=2% R=3, 5 relaunches ($LOOPKIT_RELAUNCHES),
 * hot, no pinning, no FIFO, calibrate, no ASLR, functions aligned to 64,
 * 60 s timeout, a memory limit of half the physical memory. */
void lk_method_init(struct lk_method *m);

#define LK_RELAUNCHES_DEFAULT 5
#define LK_RELAUNCHES_MAX 10

/* $LOOPKIT_RELAUNCHES: 0 unset, 1 *out set, -1 not an integer from 0 to
 * LK_RELAUNCHES_MAX (the CLI refuses to start). */
int lk_relaunches_env(long *out);

/*
 * Set one method key from its text form, as the YAML 'method:' map and
 * the CLI's --method KEY=VALUE both spell it. Keys: warmup, steps
 * (N|auto), min-sample-ticks, repetitions, processes, reducer
 * (min|median|mean|pNN|trimmed-mean), stability.runs,
 * stability.tolerance (2% or 0.02), stability.retries, relaunches (0 to
 * 10), cache (hot|cold),
 * cpu (none, or a CPU list: 3, 0-3, 0-3,6; see lk_cpuset_parse), fifo (bool), calibrate (bool), aslr (bool),
 * align-functions (N, power of two or 0), opt-report (bool: the
 * compiler's vectorisation report kept in the build's log), timeout
 * (seconds), memory-limit (64M, 12G, 50% of the physical memory, bytes,
 * or none), mode
 * (min-of-4: 4 processes, 1 repetition, reducer min; any min-of-N).
 * Booleans: true/false, yes/no, on/off, 1/0. Keys apply in order, a
 * later one overriding. 'where' prefixes the error message (e.g.
 * "sweep.yaml:12"); NULL for none. LK_EINPUT on an unknown key (with a
 * did-you-mean) or a bad value; m is then unchanged.
 */
int lk_method_set(struct lk_ctx *ctx, struct lk_method *m, const char *key,
		  const char *value, const char *where);
/* Canonical "key=value;..." text of every field: hashed into run keys. */
LK_GIVE char *lk_method_canonical(const struct lk_method *m);
/* "median", "min", "p10", "trimmed-mean" */
LK_GIVE char *lk_reducer_name(const struct lk_method *m);

/* Metric names loopkit measures; NULL-terminated. */
extern const char *const lk_metric_names[];
int lk_metric_known(const char *name);

/* A -D axis: NAME and its values, in order (ranges already expanded). */
struct lk_axis {
	char *name;
	struct lk_strv values;
	long line;
	int implicit;            /* an asm: section's axis (asm, asm.n...)
				    or threads: a variant parameter, never
				    a -D */
};

/* A named set of compiler flags. */
struct lk_flagset {
	char *name;
	char *flags;
};

/*
 * The sweep's row selection, 'exclude:' and 'only:' (src/config/select.c):
 * selectors pick which combinations become variants. Named apart from the
 * L1 filter stage (src/filter, the 'filter:' section).
 */
enum lk_selector_op { LK_SEL_EQ, LK_SEL_NE, LK_SEL_LT, LK_SEL_LE,
		      LK_SEL_GT, LK_SEL_GE, LK_SEL_IN, LK_SEL_NOT_IN };

/* key OP values: LT..GE compare numbers, the rest strings. */
struct lk_selector_cond {
	char *key;               /* source, compiler, flags or an axis name */
	enum lk_selector_op op;
	struct lk_strv values;   /* one value except for IN / NOT_IN */
};

/* A conjunction: matches a variant when every condition holds. */
struct lk_selector {
	struct lk_selector_cond *conds;
	size_t nconds;
	long line;
};

/* The report: section (src/config/report.c). */
struct lk_report_cfg {
	int given;                /* the file has a report: section */
	char *title;              /* NULL: "loopkit report: <campaign>" */
	char *output;             /* absolute; NULL: <store dir>/report */
	struct lk_strv group_by;  /* keys: compiler, flagset, source or a
				   * variant parameter */
	int group_by_given;       /* 0: every key with >= 2 values */
	long group_by_line;       /* for messages about a key */
};

/* An external predictor declared under predict.adapters. */
struct lk_adapter_config {
	char *name;
	struct lk_strv command;  /* argv template: {asm} {arch} {mcpu}
				    {iterations} are replaced */
	char *parse;             /* POSIX ERE; group 1 is the number */
	struct lk_strv version;  /* argv printing its version; empty: none */
	int iaca_markers;        /* markers: iaca */
	char *arch;              /* NULL: derived from the -mcpu */
	long line;
};

/* The 'predict:' section: which throughput predictors, how. */
struct lk_predict_config {
	struct lk_strv tools;    /* empty: every installed llvm-mca, every
				    registered tool, every adapter */
	long *tool_lines;        /* parallel to tools */
	char *mcpu;              /* NULL: the host's (never "native") */
	long mcpu_line;
	long iterations[2];      /* I1 < I2, default 100, 200 */
	double timeout;          /* seconds per tool process, default 60 */
	struct lk_adapter_config *adapters;
	size_t nadapters;
	long line;               /* of 'predict:'; 0 when absent */
};

void lk_predict_config_init(struct lk_predict_config *c);
void lk_predict_config_release(struct lk_predict_config *c);
/*
 * The generator's transformations (doc/loopkit-gen.md). A step is a name
 * and key=value parameters; a chain is steps applied in order, written
 * "isl+tile,sizes=32x32+vectorize".
 */
struct lk_gen_step {
	char *name;
	struct lk_strv keys, values;   /* parallel */
};

struct lk_gen_chain {
	char *text;                    /* canonical spelling */
	struct lk_gen_step *steps;
	size_t nsteps;
	long line;                     /* in the config; 0 from the CLI */
};

/* The 'gen:' section. */
struct lk_gen_config {
	int present;
	struct lk_gen_chain *chains;   /* default: one, "original" */
	size_t nchains;
	char *verify_define;           /* default "MINI_DATASET" */
	int verify;                    /* default 1 */
};

/*
 * Parse one chain. Unknown transformations and keys are LK_EINPUT with a
 * did-you-mean; values are checked (numbers in range, known words).
 * 'where' prefixes the message ("c.yaml:12"), NULL for none. out is
 * filled on success (release it), untouched on failure.
 */
int lk_gen_chain_parse(struct lk_ctx *ctx, const char *text, const char *where,
		       struct lk_gen_chain *out);
void lk_gen_chain_release(struct lk_gen_chain *c);
/* The value of key in step s, or NULL. */
const char *lk_gen_step_get(const struct lk_gen_step *s, const char *key);
/* Known transformation names, NULL-terminated. */
extern const char *const lk_gen_transform_names[];
void lk_gen_config_release(struct lk_gen_config *g);

/*
 * The 'filter:' section: the L1-residency filter of the code-analyzer
 * harness (doc/loopkit-filter.md). All zero means every default, so a
 * sweep without the section filters with the defaults. Named apart from
 * struct lk_selector (exclude/only), which selects variants to build.
 */
struct lk_l1_filter_cfg {
	int disabled;            /* enabled: false */
	int has_threshold;       /* threshold given */
	double threshold;        /* warm D1 miss ratio above which a
				    variant is excluded, in [0, 1] */
	long l1d_size;           /* bytes; 0: the host's (else 32 KiB) */
	long l1d_assoc;          /* ways; 0: the host's (else 8) */
	long line_size;          /* bytes; 0: the host's (else 64) */
	long calls[2];           /* kernel calls of the two cachegrind runs
				    whose difference is the warm ratio;
				    0: 1 and 3 */
	double timeout;          /* seconds per cachegrind run; 0: 300 */
	char working_set_param[128]; /* "": working_set_bytes */
	int redo;                /* no YAML key: loopkit filter --redo, judge
				    again what has a verdict */
};

/* The count stage's settings. No YAML section: loopkit count's options
 * write them; all zero means every default. */
struct lk_count_cfg {
	double timeout;          /* per count, seconds; 0: 600 */
	int no_hwbp;             /* int3 breakpoints only */
};

/*
 * The 'memprof:' section (src/config/memprof.c): the programs the
 * campaign's memprof stage profiles (doc/loopkit-memprof.md).
 */
struct lk_memprof_cfg {
	int given;               /* the file has a memprof: section */
	struct lk_strv programs; /* absolute paths, checked to exist; empty:
				    the sweep's sources */
	struct lk_strv program_names; /* as written, parallel */
	struct lk_strv cflags;   /* gcc's flags, one word each; default
				    none, as 'memprof run PROG.c' */
	int strict;              /* a malformed trace line fails the
				    program (default: skipped) */
	long line;               /* of 'memprof:' */
};

/*
 * The 'mdl:' section (src/config/mdl.c): loopkit mdl eval's settings
 * (doc/loopkit-mdl.md, "eval"). All zero means every default.
 */
struct lk_mdl_cfg {
	int given;               /* the file has an mdl: section */
	unsigned levels;         /* 1 << (0 L1, 1 L2, 2 L3, 3 RAM); 0: the
				    levels of the database */
	long max_streams;        /* replay refuses more; 0: 7 */
	long orders, kmax;       /* k-NN; 0: 1 and 8 */
	int combine_sum;         /* combine: sum (default joint) */
	int no_mca;              /* mca: false */
	long line;               /* of 'mdl:' */
};

/* A grouped plot of an analysis: y against x, one line or point set per
 * value of group (NULL: one). */
struct lk_analysis_plot {
	char *x, *y, *group;      /* y NULL: the target */
	int scatter;              /* 0: lines */
};

/*
 * One analysis of the 'analyze:' section (src/config/analyze.c): which
 * parameters of the campaign's variants explain a metric
 * (doc/loopkit-analyze.md). Strings are as written and checked for form
 * here; columns are checked against the table when the stage runs.
 */
struct lk_analysis_cfg {
	char *name;               /* the output directory's name */
	char *target;             /* a metric (cycles, ...) or a parameter */
	struct lk_strv features;  /* empty: the columns with >= 2 values */
	struct lk_strv derive;    /* "NAME=EXPR" */
	struct lk_strv where;     /* "COL:OP:V[,V]", analyze --where's form */
	char *normalize;          /* none, minmax, zscore, log; NULL: none */
	char *categories;         /* none, kde, step:FROM:WIDTH; NULL: kde */
	char *bandwidth;          /* NULL: silverman */
	char *criterion;          /* gini, entropy; NULL: gini */
	long max_depth, min_samples_split, min_samples_leaf, max_leaf_nodes;
	double ccp_alpha;
	long forest;              /* trees (default 100; 0: none) */
	long forest_max_depth;
	long knn;                 /* default 10; 0: none */
	long permutation;         /* repeats, default 10; 0: none */
	double test;              /* seeded test fraction, default 0.2 */
	long seed;
	char *tau_by;             /* Kendall's tau per value; NULL: none */
	struct lk_analysis_plot *plots;
	size_t nplots;
	long line;                /* of the analysis in the file */
};

struct lk_analyze_cfg {
	int given;                /* the file has an analyze: section */
	struct lk_analysis_cfg *list;
	size_t n;
	long line;
};

/*
 * The 'asm:' section (src/config/asm.c, doc/loopkit-asm.md): instruction
 * micro-benchmarks, MARTA's asm_body. Each version is a list of
 * instructions (or, with chains, of templates using {r}); the selection
 * adds the implicit axes 'asm' (the version) and 'asm.n' (prefix),
 * 'asm.order' (permutations, subsets: "2-0-1") or 'asm.chains'.
 */
enum lk_asm_select { LK_ASM_ALL, LK_ASM_PREFIX, LK_ASM_PERMUTATIONS,
		     LK_ASM_SUBSETS };

struct lk_asm_version {
	char *name;
	struct lk_strv body;      /* one instruction (or template) each */
	long *body_lines;         /* parallel to body; 0 from the CLI */
	struct lk_strv init;      /* run once per call; empty: zero the
				     registers the body names */
	int init_given;
	long line;
};

struct lk_asm_cfg {
	int given;                /* the file has an asm: section */
	int intel;                /* syntax: intel (default att) */
	long unroll;              /* body copies per kernel call, default 100 */
	long memory;              /* scratch bytes, address in %r14; 0: 4096 */
	enum lk_asm_select select;
	struct lk_asm_version *versions;
	size_t nversions;
	long *chains;             /* with chains: templates; NULL: lists */
	size_t nchains;
	struct lk_strv regs;      /* {r}'s registers, expanded ("xmm3");
				     empty: by the template's width */
	int difference;           /* also measure 2 x unroll copies: the
				     n/2n difference per copy */
	long line;
};

void lk_asm_cfg_release(struct lk_asm_cfg *a);

struct lk_sweep {
	char *path;               /* the YAML file, as given; NULL if built */
	char *name;               /* 'name:' or the file's base name */
	struct lk_strv sources;   /* absolute paths, checked to exist */
	struct lk_strv source_names; /* the same sources as written (for
				      * filters and messages), parallel to
				      * sources */
	struct lk_strv compilers; /* default: gcc */
	struct lk_flagset *flagsets; /* default: one, "default" = "-O2" */
	size_t nflagsets;
	struct lk_axis *axes;
	size_t naxes;
	struct lk_selector *exclude; /* drop a combination matching any */
	size_t nexclude;
	struct lk_selector *only;    /* if any: keep only those matching one */
	size_t nonly;
	struct lk_strv metrics;    /* default: tsc, cycles, ns */
	struct lk_method method;
	int method_given;          /* the file has a 'method:' section */
	struct lk_report_cfg report;
	struct lk_predict_config predict;
	struct lk_gen_config gen;  /* the 'gen:' section */
	struct lk_l1_filter_cfg filter; /* 'filter:' */
	struct lk_count_cfg count; /* loopkit count's options */
	struct lk_memprof_cfg memprof; /* 'memprof:' */
	struct lk_analyze_cfg analyze; /* 'analyze:' */
	struct lk_mdl_cfg mdl;     /* 'mdl:' */
	struct lk_asm_cfg asm_body; /* 'asm:' (asm is a GNU C keyword) */
};

/* One point of the Cartesian product (borrowed pointers into the sweep). */
struct lk_variant {
	const char *source;
	const char *compiler;
	const struct lk_flagset *flagset;
	const char **values;      /* values[i] is axis i's value */
};

/*
 * Load and validate a sweep file. Relative source paths are relative to
 * the file's directory. Unknown keys, wrong types, empty axes, unknown
 * metrics, missing sources, bad filters: LK_EINPUT with "file:line:
 * message"; a path that names nothing or no regular file: LK_EINPUT;
 * a file that cannot be read otherwise: LK_ESYS. NULL *out on failure.
 * Limits: a range gives at most 100,000 values, all axes together at
 * most 1,000,000, at most 1000 axes, 100,000 values in all filters,
 * lists and maps nested at most 64 deep. An optional key left empty
 * ("defines:" with its entries commented out) keeps its default.
 */
int lk_sweep_load(struct lk_ctx *ctx, const char *path,
		  LK_GIVE struct lk_sweep **out);
/*
 * Same from a buffer; 'name' is used in messages, for the default sweep
 * name, and its directory anchors relative source paths.
 */
int lk_sweep_parse(struct lk_ctx *ctx, const char *name, const char *text,
		   size_t len, LK_GIVE struct lk_sweep **out);
/*
 * An empty sweep with the defaults, for building one from CLI options:
 * name "cli", no sources, compilers [gcc], one flag set "default" =
 * "-O2", no axes or filters, metrics tsc, cycles, ns, lk_method_init().
 */
LK_GIVE struct lk_sweep *lk_sweep_new(void);
void lk_sweep_free(struct lk_sweep *s);

/*
 * Append a NAME=VALUE (or NAME) -D axis with a single value. NAME must be
 * a C identifier, not already an axis, and not source, compiler or flags
 * (the filter keys). LK_EINPUT otherwise.
 */
int lk_sweep_add_define(struct lk_ctx *ctx, struct lk_sweep *s,
			const char *def);
/*
 * Append a source file (relative to the current directory), checked to
 * be an existing regular file and not already listed. LK_EINPUT if not.
 */
int lk_sweep_add_source(struct lk_ctx *ctx, struct lk_sweep *s,
			const char *path);

/*
 * Expand sources × compilers × flagsets × axes, in that nesting order
 * (last axis fastest), and apply the filters. *out is an array of *n
 * variants (NULL and 0 when the filters drop everything, which is not an
 * error); free it with lk_variants_free(). LK_EINPUT if the product has
 * more than 1,000,000 combinations before filtering. With an asm:
 * section there are no sources: every variant's source is "asm" (gen
 * writes the real file) and combinations naming no valid asm point (a
 * prefix longer than its version) are dropped.
 */
int lk_sweep_expand(struct lk_ctx *ctx, const struct lk_sweep *s,
		    LK_GIVE struct lk_variant **out, size_t *n);
void lk_variants_free(struct lk_variant *v, size_t n);
/*
 * The thread count of variant v: its value of the implicit axis
 * 'threads' (the sweep's threads: key: a count, a list of counts or a
 * {from, to, step} range, where nproc stands for the CPUs online), or 0
 * when the sweep has no threads: key. The runner launches the variant
 * with OMP_NUM_THREADS and LK_THREADS set to it.
 */
long lk_variant_threads(const struct lk_sweep *s, const struct lk_variant *v);

/*
 * Does variant v (from lk_sweep_expand on s) match filter f? 'source'
 * matches the source's base name, its path as written or its absolute
 * path; 'compiler' the compiler as written or its base name; 'flags' the
 * flag set's name. LT..GE never match a value that is not a number.
 */
int lk_selector_match(const struct lk_sweep *s, const struct lk_selector *f,
		    const struct lk_variant *v);
/*
 * One condition on a thing going by nnames names (NULLs skipped): eq/in
 * hold if any name is listed, ne/not-in if none is, comparisons compare
 * the first as a number (0 when either side is not one).
 */
int lk_selector_cond_holds(const struct lk_selector_cond *c,
			   const char *const *names, size_t nnames);

/* ---- asm: instruction benchmarks (src/config/asm.c) ---- */

/*
 * The registers 'text' names (AT&T: %name; intel: bare words),
 * canonical and appended once each to names: the 64-bit GPR for any of
 * its names (eax, ax, al -> rax), xmmN for xmmN/ymmN/zmmN, kN. rip and
 * segment registers are not listed. *width (may be NULL) gets the widest
 * vector register named: 0, 128, 256 or 512.
 */
void lk_asm_scan_regs(const char *text, int intel, struct lk_strv *names,
		      int *width);
/*
 * Why the instruction line 'text' cannot be benchmarked, or NULL: it
 * names %rsp or %rbp (any width: the kernel's stack and frame), or
 * writes %r14 (the scratch memory's address).
 */
const char *lk_asm_line_problem(const char *text, int intel);
/*
 * A register list, "xmm0-xmm9,r8,rax" (commas or spaces; a range has one
 * prefix), appended expanded and canonical (xmm3, rax) to out. %rsp and
 * %rbp are refused. LK_EINPUT naming 'where' (NULL: the list) if bad.
 */
int lk_asm_regs_parse(struct lk_ctx *ctx, const char *list, const char *where,
		      struct lk_strv *out);
/*
 * Check s->asm_body as the loader or loopkit asm filled it (every line
 * benchmarkable, templates using {r} as a source and the destination,
 * enough registers for the largest chain count, a selection within the
 * 1,000,000 cap) and append its implicit axes to s->axes. LK_EINPUT with
 * file:line (or the template, from the CLI) otherwise.
 */
int lk_sweep_asm_finish(struct lk_ctx *ctx, struct lk_sweep *s);
/* Does variant v name a valid point of the asm section (a prefix no
 * longer than its version, an order of its length)? 1 without one. */
int lk_asm_variant_valid(const struct lk_sweep *s, const struct lk_variant *v);
/*
 * The instruction lines of variant v, appended to body: the selected
 * lines of its version, or its templates with {r} replaced, chain by
 * chain. *ver (may be NULL) gets its version. LK_EINPUT when v has no
 * asm point.
 */
int lk_asm_variant_body(struct lk_ctx *ctx, const struct lk_sweep *s,
			const struct lk_variant *v,
			const struct lk_asm_version **ver,
			struct lk_strv *body);

#endif
