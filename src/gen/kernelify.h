/*
 * Private to the kernelify step: what the kernel function declares
 * (kernelify-decl.c, from libclang at the chosen dataset), the plan
 * chosen on the isl model (kernelify.c) and its printing as a standalone
 * benchmark (kernelify-emit.c).
 */
#ifndef LOOPKIT_GEN_KERNELIFY_H
#define LOOPKIT_GEN_KERNELIFY_H

#include <isl/aff.h>
#include <isl/ast.h>

#include "gen-int.h"

/* Below this gcc and clang may unroll the (vectorised) loop away. */
#define KFY_TRIP_MIN 256
/* The floor when KFY_TRIP_MIN iterations fit in bytes but not in lines:
 * a walk down a column (a line per element), which no compiler turns
 * into contiguous vectors it would unroll away. */
#define KFY_TRIP_SHORT 64
#define KFY_TRIP_MAX 8192
#define KFY_DEPTH_MAX 32
/* The line the working set is counted in (arrays are aligned to it). */
#define KFY_LINE 64
/*
 * The default budget is this fraction of the L1D `loopkit env` reports
 * (32 KiB when it cannot say): measured with cachegrind on the suite's
 * micro-kernels (doc/loopkit-gen.md), LRU on 8 ways conflicts well
 * before the cache is full.
 */
#define KFY_L1_FILL_NUM 1
#define KFY_L1_FILL_DEN 2
#define KFY_L1D_FALLBACK 32768

/* A parameter or local variable of the kernel function. */
struct kfy_var {
	char *name;
	char *type;       /* the scalar or element type: "double" */
	int array;        /* an array or pointer */
	int global;       /* declared at file scope */
	int known;        /* the call site gives its value */
	int is_float;     /* value in fval, else in ival */
	long long ival;
	double fval;
};

struct kfy_decls {
	struct kfy_var *vars;
	size_t n, alloc;
};

/*
 * Read the declarations of scop->function and the values its first call
 * passes, with libclang and -D<define> added to the scop's flags.
 */
int kfy_decls_read(struct lk_ctx *ctx, const struct lk_gen_scop *s,
		   const char *define, struct kfy_decls *d);
void kfy_decls_release(struct kfy_decls *d);
const struct kfy_var *kfy_decl_find(const struct kfy_decls *d,
				    const char *name);

/* One statement copy of the loop body: cK -> S[i], extended to all cK. */
struct kfy_body {
	int stmt;
	isl_multi_aff *iters;
};

/* An array of the kernel: its extents, proved to hold every access. */
struct kfy_array {
	char *name;
	int dims;         /* 0: a scalar */
	long extent[8];
	long offset[8];   /* added to each index: -(its minimum) if < 0 */
	long touched;     /* distinct elements the loop touches */
};

struct kfy_plan {
	char *loop;               /* the loop's iterator, "c3" */
	int depth;                /* its schedule dimension */
	long first, inc, trip;    /* for (loop = first; ...; loop += inc) */
	long hotness, executions;
	long natural_trip;        /* at the representative point */
	long fixed[KFY_DEPTH_MAX]; /* the outer dimensions' values */
	struct kfy_body *body;
	size_t nbody;
	struct kfy_array *arrays;
	size_t narrays;
	long working_set;         /* bytes */
	long working_set_lines;   /* 64-byte cache lines */
	int accumulates;          /* writes one array element throughout */
	int offsets;              /* 1: an index < 0 in a first dimension,
				   * 2: in an inner one */
	isl_set *conflicts;       /* iterations a compiler would split at */
};

void kfy_plan_release(struct kfy_plan *p);

/* A user node of the AST: which statement, which instances, where. */
struct kuser {
	int stmt;
	isl_map *sched;   /* S[i] -> [c0, ..., cn], sizes fixed */
	long executions;
};

/* An innermost loop of the AST. */
struct cand {
	isl_ast_node *loop;
	int depth;
	long hotness, executions;
	struct kuser **users;     /* the body's, in order */
	size_t nusers;
	char *outer[KFY_DEPTH_MAX]; /* iterators of the loops around it,
				     * by dimension (NULL: no loop) */
};

struct kfy {
	struct lk_ctx *ctx;
	struct lk_gen_scop *s;
	struct kfy_decls decls;
	isl_set *sizes;           /* the size symbols' values */
	long l1, granule;         /* l1: the budget in bytes (lines x 64) */
	const char *l1_from;      /* "l1=", "host L1D", "default L1D" */
	struct cand *cands;
	size_t ncands, alloc;
	int failed;
};

/* Helpers shared by kernelify.c and kernelify-window.c. */
long kfy_count(LK_TAKE isl_set *set);        /* points, -1 if unbounded */
int kfy_dim_bounds(isl_set *set, int d, long *min, long *max);
isl_map *kfy_fix_sizes(struct kfy *k, LK_TAKE isl_map *m);
/* LK_EINPUT: no candidate qualifies, the last for 'why'. */
int kfy_fail(struct kfy *k, const struct cand *c, const char *why);

/*
 * The window (kernelify-window.c): iterations to start after so that no
 * compiler splits the loop (p->conflicts, p->accumulates set), then the
 * longest trip count whose working set (distinct lines x KFY_LINE) fits
 * k->l1, arrays sized.
 */
long kfy_past_conflicts(struct kfy *k, struct kfy_plan *p, long lo);
int kfy_choose_trip(struct kfy *k, const struct cand *c, struct kfy_plan *p,
		    long first, long hi);
void kfy_arrays_release(struct kfy_plan *p);

/* Print the standalone file (kernelify-emit.c). */
LK_GIVE char *kfy_emit(const struct lk_gen_scop *s,
		       const struct kfy_decls *d, const struct kfy_plan *p,
		       const struct lk_gen_result *r, const char *size);

/* The default budget in bytes: the L1D `loopkit env` reports times
 * KFY_L1_FILL, else KFY_L1D_FALLBACK's; *from says which. */
long kfy_default_l1(const char **from);

/* Element size of a C scalar type name (8 when unknown). */
long kfy_type_size(const char *type);

#endif
