/*
 * The generator's polyhedral model (private to src/gen and its unit
 * tests): a scop's statements with their isl domains and accesses, its
 * dependences, and a transformed scop's schedule and AST. The public
 * header, include/loopkit/gen.h, holds no isl type.
 */
#ifndef LOOPKIT_GEN_POLY_H
#define LOOPKIT_GEN_POLY_H

#include <isl/ast.h>
#include <isl/ctx.h>
#include <isl/schedule.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "loopkit/gen.h"

/*
 * A piece of a statement's text: source text, or a reference to the
 * statement's iterator number 'iter' (outermost first) that code
 * generation replaces by its value in the new loops.
 */
struct lk_gen_piece {
	char *text;           /* NULL for an iterator reference */
	int iter;
};

/* One statement of the scop: an assignment, with its polyhedral model. */
struct lk_gen_stmt {
	char *name;           /* S0, S1, ...: the isl tuple name */
	long line;
	struct lk_strv iters; /* enclosing loop iterators, outermost first */
	struct lk_gen_piece *pieces;  /* the text, ';' included */
	size_t npieces;
	isl_set *domain;      /* [params] -> { S[iters] : ... } */
	isl_union_map *reads, *writes; /* { S[iters] -> A[subscripts] };
					* scalars are 0-d arrays s[] */
	long ops;             /* arithmetic operations in the statement */
};

/*
 * A scop: the region of one function between '#pragma scop' and
 * '#pragma endscop', modelled. It owns its isl_ctx; everything isl
 * in it and derived from it lives in that context.
 */
struct lk_gen_scop {
	isl_ctx *isl;
	char *file;           /* as given */
	char *text;           /* the file's content */
	size_t text_len;
	char *function;       /* the function holding the region */
	struct lk_strv cflags;        /* the words it was parsed with */
	long begin_line, end_line;    /* of the two pragmas */
	size_t body_begin, body_end;  /* byte range replaced: after the
				       * scop line, to the endscop line */
	char *indent;         /* of the first statement */
	struct lk_strv params;        /* size symbols: int parameters and
				       * integer macros, by name */
	struct lk_strv size_values;   /* "NAME=VALUE" the user gave (gen
				       * --param): kernelify's sizes before
				       * what a call passes */
	struct lk_gen_stmt *stmts;
	size_t nstmts;
	isl_set *context;     /* the parameters' universe */
	isl_union_set *domain;
	isl_union_map *reads, *writes;
	isl_schedule *schedule;       /* the original order */
	/* Dependences (lk_gen_scop_deps), NULL until computed. */
	isl_union_map *raw, *war, *waw;
	/* isl's scheduler's results by option set (private to gen/):
	 * chains of one scop that start alike share them. */
	struct gen_schedule_memo *memo;
};

/* Compute scop->raw, ->war, ->waw (isl_union_access_info_compute_flow
 * against the original schedule). Idempotent. */
int lk_gen_scop_deps(struct lk_ctx *ctx, struct lk_gen_scop *scop);

/* A transformed scop: the schedule and what the printer needs. */
struct lk_gen_result {
	isl_schedule *schedule;   /* the transformed schedule tree, with
				   * AST loop types (unroll) on its bands */
	isl_ast_node *ast;        /* generated from it; user nodes are
				   * calls S(i0, i1, ...) of the statements
				   * with the original iterators' values */
	int vector_hint;          /* 0 none, 1 ivdep, 2 omp simd */
	long parallel_loops;      /* innermost loops marked parallel */
	char *code;               /* the new region, as printed */
	char *source;             /* the whole file with it in place; after
				   * a kernelify step the standalone
				   * micro-kernel file instead */
	int kernelified;          /* the chain ended with kernelify */
	char *transformed;        /* then: the whole file it was cut
				   * from, which computes what the
				   * original does (NULL otherwise) */
	struct lk_strv param_names, param_values; /* kernelify's facts
				   * (working_set_bytes, kernel.loop...) */
};

/*
 * Is 'schedule' legal for scop's dependences? 0 yes; LK_EINPUT with the
 * first violated dependence in the message (prefixed by 'what').
 */
int lk_gen_check_legal(struct lk_ctx *ctx, struct lk_gen_scop *scop,
		       isl_schedule *schedule, const char *what);

#endif
