/* mdl's private interfaces: the MDL text lexer and parser state. */
#ifndef LOOPKIT_MDL_PRIVATE_H
#define LOOPKIT_MDL_PRIVATE_H

#include "loopkit/mdl.h"

#define MDL_DEPTH_MAX 64     /* nested loops, nested parentheses */
#define MDL_OPS_MAX 256      /* operators in one expression */

enum mdl_tok {
	T_EOF = 0, T_BAD = 1, T_KW, T_INT, T_DEC, T_IDENT, T_STR,
	T_LPAREN = '(', T_RPAREN = ')', T_EQ = '=', T_PLUS = '+',
	T_MINUS = '-', T_STAR = '*',
};

struct mdl_token {
	enum mdl_tok kind;
	const char *text;    /* into the input; a string without quotes */
	size_t len;
	long line, col;
};

struct mdl_lexer {
	struct lk_ctx *ctx;
	const char *file;
	const char *text;
	size_t len, pos, bol;
	long line;
};

/* The next token into *t; LK_EINPUT "file:line:col: ..." on a bad one. */
int mdl_next(struct mdl_lexer *lx, struct mdl_token *t);
/* Is t the keyword kw ("Trip:", "flow", ...)? */
int mdl_token_is(const struct mdl_token *t, const char *kw);
/* LK_EINPUT "file:line:col: <fmt>" at token t. */
int mdl_error(struct mdl_lexer *lx, const struct mdl_token *t,
	      const char *fmt, ...) LK_PRINTF(3, 4);

struct lk_insn_ops;
/* Is in "r <- r + c" (add/sub imm, inc, dec, lea c(r)) on a GPR? Then
 * *reg is r and *c the step (extract.c; replay uses it too). */
int mdl_induction_def(const struct lk_insn_ops *in, unsigned *reg,
		      long long *c);

/* Expressions and values (expr.c). */
void mdl_expr_free(struct lk_mdl_expr *e);
void mdl_value_release(struct lk_mdl_value *v);

/* The C benchmark of the latency of op on machine m (latency.c). */
int mdl_latency_source(const struct lk_mdl_machine *m,
		       enum lk_mdl_latency op, struct lk_buf *out);
/* Record the generated file path (content src_hash) as a variant of
 * campaign, built by gcc -O2, keyed by its content (db.c). */
struct lk_param;
int mdl_record_variant(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const char *path, const char *src_hash,
		       const struct lk_param *params, size_t nparams,
		       int64_t *variant_id);

/* ---- The walk over a level's working set (walk.c), shared by
 * concretisation and replay. ---- */

/* One access of a stream in one iteration: bytes from its pointer. */
struct mdl_span {
	long long off, size;
};

/* What a stream touches per iteration, and how its calls cycle. */
struct mdl_touch {
	long long touched;   /* bytes of the lines it touches per iteration */
	long lanes;          /* bases, lane_step apart, its calls cycle
				through (1: walk straight on) */
	long long lane_step; /* bytes between lanes (a multiple of 64) */
};

/*
 * The touch of a stream advancing stride bytes per iteration with the
 * n accesses acc (offsets from its pointer). Under a line (64 bytes)
 * of stride, or when its accesses cover every line of the stride, it
 * touches every byte it spans: touched = |stride|, one lane. Otherwise
 * the accesses' offsets modulo the stride form clusters (an access less
 * than a line past a cluster joins it); touched = 64 x the lines the
 * clusters cover from a line-aligned base, and the lanes are the most
 * shifts of the base, by the most lines a cluster covers at any
 * alignment of the base to its accesses' granularity, under which no
 * lane of a cluster reaches a line of another lane or cluster.
 */
void mdl_stream_touch(long long stride, const struct mdl_span *acc,
		      size_t n, struct mdl_touch *out);

/*
 * Iterations per call for a sweep of `sweep` iterations: at most
 * per_call, and few enough that `chunks` = sweep / trips reaches
 * `lanes` (the most of any stream), so that a far stream's array is no
 * larger than the lines it holds and its pages as many as a dense
 * working set's; but never fewer than t_min (or the sweep) for that: a
 * call too short would be measured as its overhead.
 */
long mdl_walk_trips(long sweep, long per_call, long t_min, long lanes);

/*
 * A stream of `lanes` lanes over `chunks` calls a sweep: call c takes
 * block c % blocks (the base advanced by the block's iterations) of
 * lane c / blocks. blocks = ceil(chunks / lanes) and *used = ceil(chunks
 * / blocks) <= lanes, so blocks x used >= chunks and every call has its
 * own (block, lane).
 */
void mdl_walk_cycle(long chunks, long lanes, long *blocks, long *used);

/* The C function lk_mdl_lane(i, n), the position of the i-th lane
 * visited of n: even lanes first, then the odd ones. */
extern const char mdl_walk_lane_c[];

/* c's states from n run clocks v, ascending (c->build untouched; mdl.h,
 * struct lk_mdl_clock). With two or more, a figure counts each run at
 * its own clock (db.c). */
void mdl_clock_states(const double *v, size_t n, struct lk_mdl_clock *c);

#endif
