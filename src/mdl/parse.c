/*
 * MDL text v1: the parser (doc/mdl.md has the grammar). Recursive
 * descent with one token of lookahead; every error names the file, line
 * and column and what was expected.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mdl-int.h"

struct parser {
	struct mdl_lexer lx;
	struct mdl_token tok;
	struct lk_mdl *m;
	int depth;
	int ops;              /* operators in the expression being read */
};

int mdl_error(struct mdl_lexer *lx, const struct mdl_token *t,
	      const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return lk_error(lx->ctx, LK_EINPUT, "%s:%ld:%ld: %s", lx->file,
			t->line, t->col, what);
}

static int advance(struct parser *p)
{
	return mdl_next(&p->lx, &p->tok);
}

static int unexpected(struct parser *p, const char *what)
{
	const struct mdl_token *t = &p->tok;

	if (t->kind == T_EOF)
		return mdl_error(&p->lx, t, "expected %s, found the end of "
				 "the file", what);
	return mdl_error(&p->lx, t, "expected %s, found '%.*s'", what,
			 (int)(t->len > 40 ? 40 : t->len), t->text);
}

static int expect_kw(struct parser *p, const char *kw)
{
	char what[32];

	if (mdl_token_is(&p->tok, kw))
		return advance(p);
	snprintf(what, sizeof(what), "'%s'", kw);
	return unexpected(p, what);
}

static char *tok_dup(const struct mdl_token *t)
{
	return lk_strndup(t->text, t->len);
}

static int tok_eq(const struct mdl_token *t, const char *s)
{
	return strlen(s) == t->len && !memcmp(t->text, s, t->len);
}

static long find_flow(const struct lk_mdl *m, const struct mdl_token *t)
{
	for (size_t i = 0; i < m->nflows; i++)
		if (tok_eq(t, m->flows[i].name))
			return (long)i;
	return -1;
}

static long find_scalar(const struct lk_mdl *m, const struct mdl_token *t)
{
	for (size_t i = 0; i < m->nscalars; i++)
		if (tok_eq(t, m->scalars[i].name))
			return (long)i;
	return -1;
}

/* The integer token, negated if neg: the input is not NUL-terminated. */
static int tok_int(struct parser *p, int neg, long long *out)
{
	char buf[32];

	if (p->tok.len > 19)
		return mdl_error(&p->lx, &p->tok, "integer out of range");
	snprintf(buf, sizeof(buf), "%s%.*s", neg ? "-" : "",
		 (int)p->tok.len, p->tok.text);
	errno = 0;
	*out = strtoll(buf, NULL, 10);
	if (errno)
		return mdl_error(&p->lx, &p->tok, "integer out of range");
	return 0;
}

/* ['-'] integer, into *out. */
static int parse_int(struct parser *p, long long *out)
{
	int neg = p->tok.kind == T_MINUS;
	int ret;

	if (neg && (ret = advance(p)))
		return ret;
	if (p->tok.kind != T_INT)
		return unexpected(p, "an integer");
	if ((ret = tok_int(p, neg, out)))
		return ret;
	return advance(p);
}

/* An integer or a declared scalar's name. */
static int parse_value(struct parser *p, struct lk_mdl_value *v)
{
	memset(v, 0, sizeof(*v));
	if (p->tok.kind != T_IDENT)
		return parse_int(p, &v->num);
	if (find_scalar(p->m, &p->tok) < 0)
		return mdl_error(&p->lx, &p->tok, "'%.*s' is not a declared "
				 "scalar", (int)p->tok.len, p->tok.text);
	v->name = tok_dup(&p->tok);
	return advance(p);
}

static int parse_expr(struct parser *p, struct lk_mdl_expr **out);

static int parse_factor(struct parser *p, struct lk_mdl_expr **out)
{
	int ret;

	if (p->tok.kind != T_LPAREN) {
		*out = lk_calloc(1, sizeof(**out));
		return parse_value(p, &(*out)->v);
	}
	if (++p->depth > MDL_DEPTH_MAX)
		return mdl_error(&p->lx, &p->tok, "parentheses nested more "
				 "than %d deep", MDL_DEPTH_MAX);
	if ((ret = advance(p)) || (ret = parse_expr(p, out)))
		return ret;
	p->depth--;
	if (p->tok.kind != T_RPAREN)
		return unexpected(p, "')'");
	return advance(p);
}

static enum lk_mdl_op mul_op(const struct mdl_token *t)
{
	if (t->kind == T_STAR)
		return LK_MDL_MUL;
	if (mdl_token_is(t, "mod"))
		return LK_MDL_MOD;
	if (mdl_token_is(t, "div"))
		return LK_MDL_DIV;
	return LK_MDL_VALUE;
}

static enum lk_mdl_op add_op(const struct mdl_token *t)
{
	if (t->kind == T_PLUS)
		return LK_MDL_ADD;
	return t->kind == T_MINUS ? LK_MDL_SUB : LK_MDL_VALUE;
}

/* A left-associative chain of one precedence level. */
static int parse_chain(struct parser *p, int additive,
		       struct lk_mdl_expr **out)
{
	enum lk_mdl_op op;
	int ret = additive ? parse_chain(p, 0, out) : parse_factor(p, out);

	while (!ret && (op = additive ? add_op(&p->tok) : mul_op(&p->tok))) {
		struct lk_mdl_expr *e;

		if (++p->ops > MDL_OPS_MAX)
			return mdl_error(&p->lx, &p->tok, "more than %d "
					 "operators in one expression",
					 MDL_OPS_MAX);
		e = lk_calloc(1, sizeof(*e));
		e->op = op;
		e->l = *out;
		*out = e;
		if (!(ret = advance(p)))
			ret = additive ? parse_chain(p, 0, &e->r) :
					 parse_factor(p, &e->r);
	}
	return ret;
}

static int parse_expr(struct parser *p, struct lk_mdl_expr **out)
{
	*out = NULL;
	return parse_chain(p, 1, out);
}

/* An expression of its own (trip, footprint, step). */
static int parse_top_expr(struct parser *p, struct lk_mdl_expr **out)
{
	p->ops = 0;
	return parse_expr(p, out);
}

/* A declared flow's name, its index into *flow. */
static int parse_flow_ref(struct parser *p, size_t *flow)
{
	long i;

	if (p->tok.kind != T_IDENT)
		return unexpected(p, "a flow");
	if ((i = find_flow(p->m, &p->tok)) < 0)
		return mdl_error(&p->lx, &p->tok, "'%.*s' is not a declared "
				 "flow", (int)p->tok.len, p->tok.text);
	*flow = (size_t)i;
	return advance(p);
}

/* Canonical decimal: no leading zeros but one, no trailing zeros but one. */
static char *decimal_text(int neg, const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n), *end = s + n;

	while (s + 1 < dot && *s == '0')
		s++;
	while (end > dot + 2 && end[-1] == '0')
		end--;
	return lk_asprintf("%s%.*s", neg ? "-" : "", (int)(end - s), s);
}

/* key = literal (integer, decimal, string or name). */
static int parse_attr(struct parser *p, struct lk_mdl_attr *a)
{
	int neg = 0, ret;

	a->key = tok_dup(&p->tok);
	if ((ret = advance(p)))
		return ret;
	if (p->tok.kind != T_EQ)
		return unexpected(p, "'='");
	if ((ret = advance(p)))
		return ret;
	if (p->tok.kind == T_MINUS) {
		neg = 1;
		if ((ret = advance(p)))
			return ret;
		if (p->tok.kind != T_INT && p->tok.kind != T_DEC)
			return unexpected(p, "a number");
	}
	if (p->tok.kind == T_INT) {
		long long v;

		a->kind = LK_MDL_INT;
		if ((ret = tok_int(p, neg, &v)))
			return ret;
		a->text = lk_asprintf("%lld", v);
	} else if (p->tok.kind == T_DEC) {
		a->kind = LK_MDL_DEC;
		a->text = decimal_text(neg, p->tok.text, p->tok.len);
	} else if (p->tok.kind == T_STR || p->tok.kind == T_IDENT) {
		a->kind = p->tok.kind == T_STR ? LK_MDL_STR : LK_MDL_IDENT;
		a->text = tok_dup(&p->tok);
	} else {
		return unexpected(p, "a number, a string or a name");
	}
	return advance(p);
}

static int attr_dup(struct parser *p, const struct lk_mdl_attr *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tok_eq(&p->tok, a[i].key))
			return mdl_error(&p->lx, &p->tok, "'%s' given twice",
					 a[i].key);
	return 0;
}

/* { key = literal } while the token is a name. */
static int parse_attrs(struct parser *p, struct lk_mdl_attr **a, size_t *n)
{
	size_t alloc = 0;
	int ret = 0;

	while (!ret && p->tok.kind == T_IDENT) {
		if ((ret = attr_dup(p, *a, *n)))
			break;
		LK_GROW(*a, *n + 1, alloc);
		memset(&(*a)[*n], 0, sizeof(**a));
		ret = parse_attr(p, &(*a)[(*n)++]);
	}
	return ret;
}

static int name_taken(struct parser *p)
{
	if (find_flow(p->m, &p->tok) >= 0 || find_scalar(p->m, &p->tok) >= 0)
		return mdl_error(&p->lx, &p->tok, "'%.*s' declared twice",
				 (int)p->tok.len, p->tok.text);
	return 0;
}

static int parse_flow_decl(struct parser *p)
{
	struct lk_mdl *m = p->m;
	struct lk_mdl_flow *f;
	int ret;

	if (p->tok.kind != T_IDENT)
		return unexpected(p, "the flow's name");
	if ((ret = name_taken(p)))
		return ret;
	m->flows = lk_reallocarray(m->flows, m->nflows + 1, sizeof(*f));
	f = &m->flows[m->nflows++];
	memset(f, 0, sizeof(*f));
	f->name = tok_dup(&p->tok);
	if ((ret = advance(p)))
		return ret;
	return parse_attrs(p, &f->attrs, &f->nattrs);
}

static int parse_scalar_decl(struct parser *p)
{
	struct lk_mdl *m = p->m;
	struct lk_mdl_scalar *s;
	int ret;

	if (p->tok.kind != T_IDENT)
		return unexpected(p, "the scalar's name");
	if ((ret = name_taken(p)))
		return ret;
	m->scalars = lk_reallocarray(m->scalars, m->nscalars + 1,
				     sizeof(*s));
	s = &m->scalars[m->nscalars++];
	memset(s, 0, sizeof(*s));
	s->name = tok_dup(&p->tok);
	if ((ret = advance(p)))
		return ret;
	if (p->tok.kind != T_EQ)
		return unexpected(p, "'='");
	if ((ret = advance(p)))
		return ret;
	return parse_int(p, &s->value);
}

static int parse_data(struct parser *p)
{
	int ret = expect_kw(p, "Data:");

	while (!ret) {
		int flow = mdl_token_is(&p->tok, "flow");

		if (!flow && !mdl_token_is(&p->tok, "scalar"))
			break;
		ret = advance(p);
		if (!ret)
			ret = flow ? parse_flow_decl(p) : parse_scalar_decl(p);
	}
	return ret;
}

/* { flow expr } while the token is a name. */
static int parse_io(struct parser *p, struct lk_mdl_io **io, size_t *n)
{
	size_t alloc = 0;
	int ret = 0;

	while (!ret && p->tok.kind == T_IDENT) {
		struct lk_mdl_io *x;

		LK_GROW(*io, *n + 1, alloc);
		x = &(*io)[(*n)++];
		memset(x, 0, sizeof(*x));
		ret = parse_flow_ref(p, &x->flow);
		if (!ret)
			ret = parse_top_expr(p, &x->bytes);
	}
	return ret;
}

static int parse_access(struct parser *p, struct lk_mdl_access *a)
{
	int ret = parse_flow_ref(p, &a->flow);

	if (!ret)
		ret = expect_kw(p, "Stride:");
	if (!ret)
		ret = parse_value(p, &a->stride);
	if (!ret)
		ret = expect_kw(p, "Offset:");
	if (!ret)
		ret = parse_value(p, &a->offset);
	if (!ret)
		ret = expect_kw(p, "Size:");
	if (!ret)
		ret = parse_value(p, &a->size);
	return ret;
}

static int parse_accesses(struct parser *p, struct lk_mdl_access **a,
			  size_t *n)
{
	size_t alloc = 0;
	int ret = 0;

	while (!ret && p->tok.kind == T_IDENT) {
		LK_GROW(*a, *n + 1, alloc);
		memset(&(*a)[*n], 0, sizeof(**a));
		ret = parse_access(p, &(*a)[(*n)++]);
	}
	return ret;
}

static int parse_ukernel(struct parser *p, struct lk_mdl_ukernel *u)
{
	int ret = expect_kw(p, "In:");

	if (!ret)
		ret = parse_accesses(p, &u->in, &u->nin);
	if (!ret)
		ret = expect_kw(p, "Out:");
	if (!ret)
		ret = parse_accesses(p, &u->out, &u->nout);
	if (!ret && mdl_token_is(&p->tok, "AST"))
		return mdl_error(&p->lx, &p->tok, "'AST' arithmetic is "
				 "reserved; MDL 1 counts 'Add:' and 'Mul:'");
	if (!ret)
		ret = expect_kw(p, "Add:");
	if (!ret)
		ret = parse_value(p, &u->add);
	if (!ret)
		ret = expect_kw(p, "Mul:");
	if (!ret)
		ret = parse_value(p, &u->mul);
	return ret;
}

static int is_binding(const struct mdl_token *t)
{
	return mdl_token_is(t, "fixed") || mdl_token_is(t, "strided") ||
	       mdl_token_is(t, "switch");
}

static int parse_switch(struct parser *p, struct lk_mdl_binding *b)
{
	int ret = expect_kw(p, "in");
	size_t alloc = 0;

	if (!ret && p->tok.kind != T_IDENT)
		return unexpected(p, "a flow");
	while (!ret && p->tok.kind == T_IDENT) {
		LK_GROW(b->in, b->nin + 1, alloc);
		ret = parse_flow_ref(p, &b->in[b->nin++]);
	}
	return ret;
}

static int parse_binding(struct parser *p, struct lk_mdl_binding *b)
{
	int ret;

	b->kind = mdl_token_is(&p->tok, "fixed") ? LK_MDL_FIXED :
		  mdl_token_is(&p->tok, "strided") ? LK_MDL_STRIDED :
						     LK_MDL_SWITCH;
	if ((ret = advance(p)) || (ret = parse_flow_ref(p, &b->flow)))
		return ret;
	if (b->kind == LK_MDL_STRIDED)
		return parse_top_expr(p, &b->step);
	if (b->kind == LK_MDL_SWITCH)
		return parse_switch(p, b);
	return 0;
}

static int parse_loop(struct parser *p, struct lk_mdl_loop *l);

/* Outer: bindings then loops; inner: µkernels. */
static int parse_loop_body(struct parser *p, struct lk_mdl_loop *l)
{
	size_t alloc = 0;
	int ret = 0;

	while (!ret && is_binding(&p->tok)) {
		LK_GROW(l->bindings, l->nbindings + 1, alloc);
		memset(&l->bindings[l->nbindings], 0, sizeof(*l->bindings));
		ret = parse_binding(p, &l->bindings[l->nbindings++]);
	}
	if (!ret && l->nbindings && !mdl_token_is(&p->tok, "Trip:"))
		return unexpected(p, "'Trip:' (a loop follows the bindings)");
	for (alloc = 0; !ret && mdl_token_is(&p->tok, "Trip:");) {
		LK_GROW(l->loops, l->nloops + 1, alloc);
		memset(&l->loops[l->nloops], 0, sizeof(*l->loops));
		ret = parse_loop(p, &l->loops[l->nloops++]);
	}
	for (alloc = 0; !ret && !l->nloops && mdl_token_is(&p->tok, "In:");) {
		LK_GROW(l->ukernels, l->nukernels + 1, alloc);
		memset(&l->ukernels[l->nukernels], 0, sizeof(*l->ukernels));
		ret = parse_ukernel(p, &l->ukernels[l->nukernels++]);
	}
	return ret;
}

static int parse_loop(struct parser *p, struct lk_mdl_loop *l)
{
	int ret;

	if (++p->depth > MDL_DEPTH_MAX)
		return mdl_error(&p->lx, &p->tok, "loops nested more than %d "
				 "deep", MDL_DEPTH_MAX);
	ret = expect_kw(p, "Trip:");
	if (!ret)
		ret = parse_top_expr(p, &l->trip);
	if (!ret)
		ret = expect_kw(p, "I/O:");
	if (!ret)
		ret = expect_kw(p, "In:");
	if (!ret)
		ret = parse_io(p, &l->in, &l->nin);
	if (!ret)
		ret = expect_kw(p, "Out:");
	if (!ret)
		ret = parse_io(p, &l->out, &l->nout);
	if (!ret)
		ret = expect_kw(p, "LoopBody:");
	if (!ret)
		ret = parse_loop_body(p, l);
	p->depth--;
	return ret;
}

static int parse_file(struct parser *p)
{
	int ret = advance(p);

	if (!ret)
		ret = expect_kw(p, "MDL");
	if (!ret && p->tok.kind == T_INT && tok_eq(&p->tok, "1"))
		p->m->version = 1;
	else if (!ret && p->tok.kind == T_INT)
		return mdl_error(&p->lx, &p->tok, "MDL version %.*s: this "
				 "loopkit reads version 1",
				 (int)(p->tok.len > 20 ? 20 : p->tok.len),
				 p->tok.text);
	else if (!ret)
		return unexpected(p, "the version (1)");
	if (!ret)
		ret = advance(p);
	if (!ret)
		ret = expect_kw(p, "Meta:");
	if (!ret)
		ret = parse_attrs(p, &p->m->meta, &p->m->nmeta);
	if (!ret)
		ret = parse_data(p);
	if (!ret)
		ret = expect_kw(p, "Body:");
	if (!ret)
		ret = parse_loop(p, &p->m->body);
	if (!ret && p->tok.kind != T_EOF)
		return unexpected(p, "the end of the file (the body is one "
				  "loop nest)");
	return ret;
}

int lk_mdl_parse(struct lk_ctx *ctx, const char *file, const char *text,
		 size_t len, struct lk_mdl *out)
{
	struct parser p = {.lx = {.ctx = ctx, .file = file, .text = text,
				  .len = len, .line = 1},
			   .m = out};
	int ret;

	memset(out, 0, sizeof(*out));
	p.lx.pos = p.lx.bol = lk_text_bom(text, len);
	ret = parse_file(&p);
	if (ret)
		lk_mdl_release(out);
	return ret;
}

int lk_mdl_load(struct lk_ctx *ctx, const char *path, struct lk_mdl *out)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = lk_file_read_input(ctx, path, &text, &len);
	if (!ret)
		ret = lk_mdl_parse(ctx, path, text, len, out);
	free(text);
	return ret;
}
