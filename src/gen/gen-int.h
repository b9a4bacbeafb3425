/*
 * Private to src/gen: the front end's walker shared by scop.c (regions,
 * loops, statements) and expr.c (affine expressions, accesses), and the
 * helpers between the model, the transformations and the printer.
 */
#ifndef LOOPKIT_GEN_INT_H
#define LOOPKIT_GEN_INT_H

#include <clang-c/Index.h>

#include "poly.h"

/* A node of the original loop tree, turned into an isl schedule. */
struct snode {
	int stmt;                 /* statement index, -1 for a loop/block */
	struct lk_strv iters;     /* a loop band: perfectly nested loops */
	int *signs;               /* +1 increasing, -1 decreasing */
	struct snode **kids;
	size_t nkids, alloc;
};

/* A statement being read: its text pieces and isl texts. */
struct stmt_build {
	struct lk_strv conds;     /* isl constraints of its domain */
	struct lk_strv reads, writes; /* "A[i, j]" texts */
};

struct walker {
	struct lk_ctx *ctx;
	CXTranslationUnit tu;
	const char *file;
	struct lk_gen_scop *scop;
	struct lk_strv macros;    /* names of macros defined in the TU */
	struct lk_strv iters;     /* loops around the current point */
	struct lk_strv conds;     /* their constraints and if conditions */
	struct lk_strv written;   /* scalars assigned in the region */
	const char *expanding;    /* a non-constant macro being read */
	struct stmt_build *builds;
	size_t nbuilds, alloc;
	int err;
};

/* Report "file:line: unsupported <what>" at cursor c (first error wins). */
int gen_unsupported(struct walker *w, CXCursor c, const char *fmt, ...)
	LK_PRINTF(3, 4);
long gen_cursor_line(CXCursor c);
/* The single child of an expression wrapper, or c itself. */
CXCursor gen_strip(CXCursor c);
size_t gen_children(CXCursor c, CXCursor *out, size_t max);
/* The source spelling of c's extent, tokens joined as written. */
LK_GIVE char *gen_cursor_text(struct walker *w, CXCursor c);
/* The byte offsets of a source range in its file. */
void gen_offsets(CXSourceRange r, unsigned *begin, unsigned *end);

/* An affine expression of c in isl syntax, into b. */
int gen_affine(struct walker *w, CXCursor c, struct lk_buf *b);
/* An affine condition in isl syntax; negate for an else branch. */
int gen_condition(struct walker *w, CXCursor c, int negate, struct lk_buf *b);
/* One assignment statement: lhs op rhs (a chain a1 = a5 = k is two,
 * a5 = k and a1 = a5). */
struct gen_assign {
	CXCursor lhs, rhs;
	enum CX_BinaryOperatorKind op;
};

/* Reads and writes of an assignment statement into sb; *ops counts its
 * arithmetic. */
int gen_statement_accesses(struct walker *w, const struct gen_assign *a,
			   struct stmt_build *sb, long *ops);
/* The name of the size macro (an object-like macro of an integer
 * constant: N, TSTEPS) whose whole expansion c is, made a parameter;
 * NULL when c is not one. */
LK_GIVE char *gen_size_macro(struct walker *w, CXCursor c);
/* The text of statement c as pieces, printed from the AST with its
 * macros expanded but size macros (stmt-print.c), iterators of 'iters'
 * marked. */
int gen_statement_pieces(struct walker *w, const struct gen_assign *a,
			 const struct lk_strv *iters, struct lk_gen_stmt *st);
/* Collect names of scalars assigned anywhere under c. */
void gen_collect_written(struct walker *w, CXCursor c);

/* Model construction (model.c). */
int gen_model_build(struct walker *w, struct snode *root);
void gen_snode_free(struct snode *n);

/* "[N, M] -> " for the scop's parameters. */
LK_GIVE char *gen_params_prefix(const struct lk_gen_scop *scop);

/* RAW, WAR and WAW together (computed). */
isl_union_map *gen_all_deps(struct lk_gen_scop *s);
void gen_schedule_memo_free(struct gen_schedule_memo *memo);
/* Apply one step to *sched; *hint gets a vectorize step's hint. */
int gen_apply_step(struct lk_ctx *ctx, struct lk_gen_scop *s,
		   const struct lk_gen_step *st, isl_schedule **sched,
		   int *hint);

/* The loop iterators of generated code (c0, c1... or lk_c0...), named
 * so as not to clash with the statements' words. */
isl_id_list *gen_iterators(struct lk_gen_scop *s);

/*
 * Replace r->source by a standalone micro-kernel of the hottest innermost
 * loop of r->schedule (kernelify.c, doc/loopkit-gen.md) and record its
 * facts in r->param_names/values. LK_EINPUT when no loop qualifies.
 */
int gen_kernelify(struct lk_ctx *ctx, struct lk_gen_scop *s,
		  const struct lk_gen_step *st, struct lk_gen_result *r);

/* isl errors as text, then cleared ("" when none). */
LK_GIVE char *gen_isl_error(isl_ctx *isl);

/*
 * The front end's view of a compile line: C, gnu11, lkrt.h's directory,
 * then the -D/-U/-I/-std of cflags (which may be NULL), appended to args.
 * libclang's parses and the preprocessor check all see the same.
 */
void gen_frontend_args(const struct lk_strv *cflags, struct lk_strv *args);

/*
 * Run the preprocessor (cc -E) on path with the -D/-U/-I/-std of cflags,
 * under a memory limit and a timeout, before libclang parses it in our
 * own process. LK_EINPUT, naming path, when it did not finish (an endless
 * #include such as /dev/zero); 0 otherwise, also when it reported
 * ordinary errors (libclang reports them with file and line) or when
 * there is no cc.
 */
int gen_preprocess_check(struct lk_ctx *ctx, const char *path,
			 const struct lk_strv *cflags);

#endif
