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

#endif
