/*
 * Derived columns: a recursive-descent parser for + - * / ( ), numbers,
 * column names and a fixed set of functions, to a tree that is walked per
 * row. Nothing in the text is ever run as code.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

#define MAX_DEPTH 64
#define MAX_ARGS 64
#define MAX_NODES 1024

enum kind { NUM, COL, NEG, ADD, SUB, MUL, DIV, FUNC };

static const char *const funcs[] = {
	"min", "max", "abs", "floor", "ceil", "log", "log2", "exp", "sqrt",
	"distinct", NULL,
};
/* Arguments each function takes; -1: one or more. */
static const int func_args[] = {-1, -1, 1, 1, 1, 1, 1, 1, 1, -1};

struct lk_expr {
	enum kind kind;
	double num;
	int col, func;
	struct lk_expr **args;
	size_t nargs;
};

struct parser {
	struct lk_ctx *ctx;
	const char *what, *text, *p;
	const struct lk_table *t;
	int depth, nodes;
};

static int fail(struct parser *ps, const char *at, const char *msg,
		const char *name)
{
	return lk_error(ps->ctx, LK_EINPUT, "%s: column %ld: %s%s%s%s",
			ps->what, (long)(at - ps->text) + 1, msg,
			name ? " '" : "", name ? name : "", name ? "'" : "");
}

static void skip(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static struct lk_expr *node(enum kind k)
{
	struct lk_expr *e = lk_calloc(1, sizeof(*e));

	e->kind = k;
	return e;
}

static void add_arg(struct lk_expr *e, struct lk_expr *a)
{
	e->args = lk_reallocarray(e->args, e->nargs + 1, sizeof(*e->args));
	e->args[e->nargs++] = a;
}

static int parse_sum(struct parser *ps, struct lk_expr **out);

static int parse_number(struct parser *ps, struct lk_expr **out)
{
	const char *start = ps->p;
	char *end;
	double v = strtod(ps->p, &end);

	if (end == start || !isfinite(v))
		return fail(ps, start, "bad number", NULL);
	ps->p = end;
	*out = node(NUM);
	(*out)->num = v;
	return 0;
}

static int parse_call(struct parser *ps, const char *at, char *name,
		      struct lk_expr **out)
{
	int f, ret = 0;

	for (f = 0; funcs[f] && strcmp(funcs[f], name); f++)
		;
	if (!funcs[f])
		return fail(ps, at, "unknown function", name);
	*out = node(FUNC);
	(*out)->func = f;
	ps->p++;
	do {
		struct lk_expr *a = NULL;

		skip(ps);
		if ((*out)->nargs >= MAX_ARGS)
			return fail(ps, ps->p, "too many arguments", NULL);
		ret = parse_sum(ps, &a);
		if (a)
			add_arg(*out, a);
		skip(ps);
	} while (!ret && *ps->p == ',' && ps->p++);
	if (!ret && *ps->p != ')')
		return fail(ps, ps->p, "expected ',' or ')'", NULL);
	if (ret)
		return ret;
	ps->p++;
	if (func_args[f] > 0 && (*out)->nargs != (size_t)func_args[f])
		return fail(ps, at, "takes one argument:", name);
	return 0;
}

static int parse_name(struct parser *ps, struct lk_expr **out)
{
	const char *at = ps->p;
	char *name;
	int col, ret;

	while (isalnum((unsigned char)*ps->p) || *ps->p == '_' ||
	       *ps->p == '.')
		ps->p++;
	name = lk_strndup(at, (size_t)(ps->p - at));
	skip(ps);
	if (*ps->p == '(') {
		ret = parse_call(ps, at, name, out);
	} else if ((col = lk_table_find(ps->t, name)) < 0) {
		ret = fail(ps, at, "unknown column", name);
	} else {
		*out = node(COL);
		(*out)->col = col;
		ret = 0;
	}
	free(name);
	return ret;
}

static int parse_atom(struct parser *ps, struct lk_expr **out)
{
	char c;
	int ret;

	skip(ps);
	c = *ps->p;
	if (++ps->depth > MAX_DEPTH || ++ps->nodes > MAX_NODES)
		return fail(ps, ps->p, "too long or nested too deeply", NULL);
	if (c == '-' || c == '+') {
		ps->p++;
		ret = parse_atom(ps, out);
		if (c == '-' && *out) {
			struct lk_expr *n = node(NEG);

			add_arg(n, *out);
			*out = n;
		}
	} else if (c == '(') {
		ps->p++;
		ret = parse_sum(ps, out);
		skip(ps);
		if (!ret && *ps->p != ')')
			ret = fail(ps, ps->p, "expected ')'", NULL);
		ps->p += !ret;
	} else if (isdigit((unsigned char)c) || c == '.') {
		ret = parse_number(ps, out);
	} else if (isalpha((unsigned char)c) || c == '_') {
		ret = parse_name(ps, out);
	} else {
		ret = fail(ps, ps->p, c ? "unexpected character" :
			   "unexpected end", NULL);
	}
	ps->depth--;
	return ret;
}

/* Left-associative binary operators of one precedence level. */
static int parse_level(struct parser *ps, struct lk_expr **out, int products)
{
	int ret = products ? parse_atom(ps, out) : parse_level(ps, out, 1);

	for (;;) {
		struct lk_expr *rhs = NULL, *n;
		char c;

		skip(ps);
		c = *ps->p;
		if (ret || !(products ? (c == '*' || c == '/')
				      : (c == '+' || c == '-')))
			return ret;
		ps->p++;
		ret = products ? parse_atom(ps, &rhs) : parse_level(ps, &rhs, 1);
		n = node(c == '*' ? MUL : c == '/' ? DIV : c == '+' ? ADD : SUB);
		add_arg(n, *out);
		if (rhs)
			add_arg(n, rhs);
		*out = n;
	}
}

static int parse_sum(struct parser *ps, struct lk_expr **out)
{
	return parse_level(ps, out, 0);
}

int lk_expr_parse(struct lk_ctx *ctx, const char *what, const char *text,
		  const struct lk_table *t, struct lk_expr **out)
{
	struct parser ps = {ctx, what, text, text, t, 0, 0};
	int ret;

	*out = NULL;
	ret = parse_sum(&ps, out);

	skip(&ps);
	if (!ret && *ps.p)
		ret = fail(&ps, ps.p, "unexpected character", NULL);
	if (ret) {
		lk_expr_free(*out);
		*out = NULL;
	}
	return ret;
}

static double distinct(const double *v, size_t n)
{
	size_t i, j, count = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && v[j] != v[i]; j++)
			;
		count += j == i;
	}
	return (double)count;
}

static double call(int f, const double *a, size_t n)
{
	double r = a[0];
	size_t i;

	switch (f) {
	case 0: for (i = 1; i < n; i++) r = fmin(r, a[i]); return r;
	case 1: for (i = 1; i < n; i++) r = fmax(r, a[i]); return r;
	case 2: return fabs(r);
	case 3: return floor(r);
	case 4: return ceil(r);
	case 5: return r > 0 ? log(r) : NAN;
	case 6: return r > 0 ? log2(r) : NAN;
	case 7: return exp(r);
	case 8: return r >= 0 ? sqrt(r) : NAN;
	default: return distinct(a, n);
	}
}

double lk_expr_eval(const struct lk_expr *e, const struct lk_table *t,
		    size_t row)
{
	double a[MAX_ARGS];
	size_t i;

	for (i = 0; i < e->nargs; i++) {
		a[i] = lk_expr_eval(e->args[i], t, row);
		if (isnan(a[i]))
			return NAN;
	}
	switch (e->kind) {
	case NUM: return e->num;
	case COL: return t->cols[e->col].v[row];
	case NEG: return -a[0];
	case ADD: return a[0] + a[1];
	case SUB: return a[0] - a[1];
	case MUL: return a[0] * a[1];
	case DIV: return a[1] != 0 ? a[0] / a[1] : NAN;
	default: return call(e->func, a, e->nargs);
	}
}

void lk_expr_free(struct lk_expr *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nargs; i++)
		lk_expr_free(e->args[i]);
	free(e->args);
	free(e);
}

int lk_table_derive(struct lk_ctx *ctx, struct lk_table *t,
		    const char *definition)
{
	const char *eq = strchr(definition, '=');
	struct lk_expr *e = NULL;
	char *name, *what;
	double *v;
	size_t i;
	int ret;

	if (!eq || eq == definition)
		return lk_error(ctx, LK_EINPUT, "--derive '%s': expected "
				"NAME=EXPRESSION", definition);
	name = lk_strndup(definition, (size_t)(eq - definition));
	what = lk_asprintf("--derive %s", name);
	ret = lk_table_find(t, name) >= 0
		? lk_error(ctx, LK_EINPUT, "%s: column exists already", what)
		: lk_expr_parse(ctx, what, eq + 1, t, &e);
	if (!ret) {
		v = lk_calloc(t->nrows + 1, sizeof(*v));
		for (i = 0; i < t->nrows; i++)
			v[i] = lk_expr_eval(e, t, i);
		lk_table_add(t, name, v);
	}
	lk_expr_free(e);
	free(what);
	free(name);
	return ret;
}
