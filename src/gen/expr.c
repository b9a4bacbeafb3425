/*
 * Expressions of the scop: affine bounds, conditions and subscripts
 * turned into isl syntax, the reads and writes of each assignment, and
 * the statement's text cut into pieces around its iterators.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen-int.h"

/* libm functions a statement may call (pure, on values). */
static const char *const calls_ok[] = {
	"sqrt", "exp", "pow", "fabs", "log", "sin", "cos", "tan", "floor",
	"ceil", "fmin", "fmax", "sqrtf", "expf", "powf", "fabsf", "logf",
	"sinf", "cosf", "tanf", "floorf", "ceilf", "fminf", "fmaxf", "abs",
	NULL,
};

/* isl's own words cannot name variables in its syntax. */
static const char *const isl_words[] = {
	"and", "or", "not", "mod", "min", "max", "floor", "ceil", "exists",
	"infty", "NaN", "true", "false", "implies", "xor", "rat", "cst",
	"floord", "ceild", "domain", "range", NULL,
};

static int is_assign_op(enum CX_BinaryOperatorKind op)
{
	return op >= CX_BO_Assign && op <= CX_BO_OrAssign;
}

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

static int strv_has(const struct lk_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static char *spelling(CXCursor c)
{
	CXString sp = clang_getCursorSpelling(c);
	char *s = lk_strdup(clang_getCString(sp));

	clang_disposeString(sp);
	return s;
}

static int eval_int(CXCursor c, long long *v)
{
	CXEvalResult ev = clang_Cursor_Evaluate(c);
	int ok = ev && clang_EvalResult_getKind(ev) == CXEval_Int;

	if (ok)
		*v = clang_EvalResult_getAsLongLong(ev);
	if (ev)
		clang_EvalResult_dispose(ev);
	return ok;
}

static void add_param(struct walker *w, const char *name)
{
	if (!strv_has(&w->scop->params, name))
		lk_strv_push(&w->scop->params, name);
}

static int is_integer_type(CXType t)
{
	t = clang_getCanonicalType(t);
	return t.kind >= CXType_Char_U && t.kind <= CXType_LongLong &&
	       t.kind != CXType_Char16 && t.kind != CXType_Char32 &&
	       t.kind != CXType_WChar;
}

/* A variable used in an affine expression: an iterator or a parameter. */
static int affine_var(struct walker *w, CXCursor c, struct lk_buf *b)
{
	CXCursor ref = clang_getCursorReferenced(c);
	enum CXCursorKind k = clang_getCursorKind(ref);
	char *name = spelling(c);
	long long v;
	int ret = 0;

	if (k == CXCursor_EnumConstantDecl && eval_int(c, &v)) {
		lk_buf_addf(b, "%lld", v);
	} else if (in_list(isl_words, name)) {
		ret = gen_unsupported(w, c, "variable name '%s' in an affine "
				      "expression (an isl keyword)", name);
	} else if (strv_has(&w->iters, name)) {
		lk_buf_adds(b, name);
	} else if ((k == CXCursor_VarDecl || k == CXCursor_ParmDecl) &&
		   is_integer_type(clang_getCursorType(ref)) &&
		   !strv_has(&w->written, name)) {
		add_param(w, name);
		lk_buf_adds(b, name);
	} else {
		ret = gen_unsupported(w, c, "non-affine expression '%s' (not "
				      "a loop iterator or an integer size "
				      "parameter)", name);
	}
	free(name);
	return ret;
}

/* "12", "(-3)": an integer constant as gen_affine writes it. */
static int is_number(const char *s, long long *v)
{
	char *end;
	size_t n = strlen(s);
	int paren = n > 2 && s[0] == '(' && s[n - 1] == ')';
	char *copy = paren ? lk_strndup(s + 1, n - 2) : lk_strdup(s);
	int ok;

	errno = 0;
	*v = strtoll(copy, &end, 10);
	ok = *copy && !*end && !errno;
	free(copy);
	return ok;
}

static int affine_binary(struct walker *w, CXCursor c, struct lk_buf *b)
{
	CXCursor kid[3];
	struct lk_buf l = LK_BUF_INIT, r = LK_BUF_INIT;
	enum CX_BinaryOperatorKind op = clang_Cursor_getBinaryOpcode(c);
	long long lv = 0, rv = 0;
	int ret = 0, lc, rc;
	char *text;

	if (gen_children(c, kid, 3) != 2)
		return gen_unsupported(w, c, "expression form");
	ret = gen_affine(w, kid[0], &l);
	if (!ret)
		ret = gen_affine(w, kid[1], &r);
	if (ret)
		goto out;
	/* Constants only: a size macro is a parameter, not a number. */
	lc = is_number(lk_buf_str(&l), &lv);
	rc = is_number(lk_buf_str(&r), &rv);
	switch (op) {
	case CX_BO_Add:
	case CX_BO_Sub:
		lk_buf_addf(b, "(%s) %s (%s)", lk_buf_str(&l),
			    op == CX_BO_Add ? "+" : "-", lk_buf_str(&r));
		break;
	case CX_BO_Mul:
		if (!lc && !rc) {
			text = gen_cursor_text(w, c);
			ret = gen_unsupported(w, c, "non-affine product '%s'",
					      text);
			free(text);
		} else if (lc) {
			lk_buf_addf(b, "%lld * (%s)", lv, lk_buf_str(&r));
		} else {
			lk_buf_addf(b, "%lld * (%s)", rv, lk_buf_str(&l));
		}
		break;
	case CX_BO_Div:
	case CX_BO_Rem:
		if (!rc || rv <= 0) {
			text = gen_cursor_text(w, c);
			ret = gen_unsupported(w, c, "non-affine %s '%s' (needs "
					      "a positive constant divisor)",
					      op == CX_BO_Div ? "division"
							      : "remainder",
					      text);
			free(text);
		} else if (op == CX_BO_Div) {
			lk_buf_addf(b, "floor((%s) / %lld)", lk_buf_str(&l),
				    rv);
		} else {
			lk_buf_addf(b, "((%s) mod %lld)", lk_buf_str(&l), rv);
		}
		break;
	default:
		text = gen_cursor_text(w, c);
		ret = gen_unsupported(w, c, "operator in affine expression "
				      "'%s'", text);
		free(text);
	}
out:
	lk_buf_release(&l);
	lk_buf_release(&r);
	return ret;
}

/* The min/max of a comparison's operands, as isl writes them: "(a < b ?
 * a : b)" is min(a, b). isl's syntax has no general conditional. */
static int affine_ternary(struct walker *w, CXCursor c, struct lk_buf *b)
{
	CXCursor kid[4], cmp[3], cond;
	struct lk_buf x = LK_BUF_INIT, y = LK_BUF_INIT, t = LK_BUF_INIT,
		      f = LK_BUF_INIT;
	enum CX_BinaryOperatorKind op;
	int ret, less, same, swapped;
	char *text;

	if (gen_children(c, kid, 4) != 3)
		return gen_unsupported(w, c, "conditional expression form");
	cond = kid[0];
	while (clang_getCursorKind(cond) == CXCursor_ParenExpr ||
	       clang_getCursorKind(cond) == CXCursor_UnexposedExpr) {
		if (gen_children(cond, cmp, 3) != 1)
			break;
		cond = cmp[0];
	}
	op = clang_Cursor_getBinaryOpcode(cond);
	less = op == CX_BO_LT || op == CX_BO_LE;
	if (clang_getCursorKind(cond) != CXCursor_BinaryOperator ||
	    (!less && op != CX_BO_GT && op != CX_BO_GE) ||
	    gen_children(cond, cmp, 3) != 2)
		goto general;
	ret = gen_affine(w, cmp[0], &x);
	if (!ret)
		ret = gen_affine(w, cmp[1], &y);
	if (!ret)
		ret = gen_affine(w, kid[1], &t);
	if (!ret)
		ret = gen_affine(w, kid[2], &f);
	same = !ret && !strcmp(lk_buf_str(&x), lk_buf_str(&t)) &&
	       !strcmp(lk_buf_str(&y), lk_buf_str(&f));
	swapped = !ret && !strcmp(lk_buf_str(&x), lk_buf_str(&f)) &&
		  !strcmp(lk_buf_str(&y), lk_buf_str(&t));
	if (same || swapped)
		lk_buf_addf(b, "%s(%s, %s)", less == same ? "min" : "max",
			    lk_buf_str(&x), lk_buf_str(&y));
	lk_buf_release(&x);
	lk_buf_release(&y);
	lk_buf_release(&t);
	lk_buf_release(&f);
	if (ret || same || swapped)
		return ret;
general:
	text = gen_cursor_text(w, c);
	ret = gen_unsupported(w, c, "conditional expression '%s' in a loop "
			      "bound or subscript (only min/max forms)", text);
	free(text);
	return ret;
}

/* The macro c comes from whole, if its extent is one macro name in the
 * main file (N, or N2 defined as (N * 2)); NULL otherwise. */
static char *macro_of(struct walker *w, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXSourceLocation start = clang_getRangeStart(r);
	const char *text = w->scop->text;
	unsigned b, e;
	size_t len = 0;
	CXFile file;
	char *name;

	clang_getExpansionLocation(start, &file, NULL, NULL, &b);
	if (!clang_File_isEqual(file, clang_getFile(w->tu, w->file)))
		return NULL;
	clang_getExpansionLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
	if (b >= w->scop->text_len)
		return NULL;
	while (b + len < w->scop->text_len &&
	       (text[b + len] == '_' || isalnum((unsigned char)text[b + len])))
		len++;
	if (!len || isdigit((unsigned char)text[b]) ||
	    (e != b && e != b + len))
		return NULL;
	/* A function-like macro's call is read through its expansion. */
	for (e = b + (unsigned)len; e < w->scop->text_len &&
				    isspace((unsigned char)text[e]);
	     e++)
		;
	if (e < w->scop->text_len && text[e] == '(')
		return NULL;
	name = lk_strndup(text + b, len);
	if (!strv_has(&w->macros, name)) {
		free(name);
		return NULL;
	}
	return name;
}

static int affine_plain(struct walker *w, CXCursor c, struct lk_buf *b);

char *gen_size_macro(struct walker *w, CXCursor c)
{
	char *ident = macro_of(w, c);
	long long v;

	if (ident && ((w->expanding && !strcmp(ident, w->expanding)) ||
		      in_list(isl_words, ident) || !eval_int(c, &v))) {
		free(ident);
		ident = NULL;
	}
	if (ident)
		add_param(w, ident);
	return ident;
}

/*
 * A size macro (N, TSTEPS) becomes a parameter named after it, so the
 * generated code stays generic: the sizes differ between verifying and
 * measuring. A macro for something else (PolyBench's _PB_N for n, or
 * HALF for n / 2) is read through its expansion, whose parts all come
 * from the same macro and are not named after it.
 */
int gen_affine(struct walker *w, CXCursor c, struct lk_buf *b)
{
	char *ident = macro_of(w, c);
	const char *outer = w->expanding;
	long long v;
	int ret = 0;

	if (!ident || (outer && !strcmp(ident, outer))) {
		ret = affine_plain(w, c, b);
	} else if (eval_int(c, &v)) {
		if (in_list(isl_words, ident)) {
			ret = gen_unsupported(w, c, "macro name '%s' (an isl "
					      "keyword)", ident);
		} else {
			add_param(w, ident);
			lk_buf_adds(b, ident);
		}
	} else {
		w->expanding = ident;
		ret = affine_plain(w, c, b);
		w->expanding = outer;
	}
	free(ident);
	return ret;
}

static int affine_plain(struct walker *w, CXCursor c, struct lk_buf *b)
{
	CXCursor kid[3];
	long long v;
	int ret;
	char *text;

	switch (clang_getCursorKind(c)) {
	case CXCursor_IntegerLiteral:
		if (!eval_int(c, &v))
			return gen_unsupported(w, c, "integer literal");
		lk_buf_addf(b, "%lld", v);
		return 0;
	case CXCursor_CharacterLiteral:
		if (!eval_int(c, &v))
			return gen_unsupported(w, c, "character literal");
		lk_buf_addf(b, "%lld", v);
		return 0;
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr: {
		size_t n = gen_children(c, kid, 3);

		if (!n)
			return gen_unsupported(w, c, "expression form");
		lk_buf_addch(b, '(');
		ret = gen_affine(w, kid[n - 1], b);
		lk_buf_addch(b, ')');
		return ret;
	}
	case CXCursor_DeclRefExpr:
		return affine_var(w, c, b);
	case CXCursor_BinaryOperator:
		return affine_binary(w, c, b);
	case CXCursor_ConditionalOperator:
		return affine_ternary(w, c, b);
	case CXCursor_UnaryOperator:
		if (gen_children(c, kid, 3) != 1)
			return gen_unsupported(w, c, "expression form");
		switch (clang_getCursorUnaryOperatorKind(c)) {
		case CXUnaryOperator_Minus:
			lk_buf_adds(b, "-(");
			ret = gen_affine(w, kid[0], b);
			lk_buf_addch(b, ')');
			return ret;
		case CXUnaryOperator_Plus:
			return gen_affine(w, kid[0], b);
		default:
			break;
		}
		/* fall through */
	default:
		text = gen_cursor_text(w, c);
		ret = gen_unsupported(w, c, "non-affine expression '%s'", text);
		free(text);
		return ret;
	}
}

static const char *compare_op(enum CX_BinaryOperatorKind op, int negate)
{
	switch (op) {
	case CX_BO_LT: return negate ? ">=" : "<";
	case CX_BO_LE: return negate ? ">" : "<=";
	case CX_BO_GT: return negate ? "<=" : ">";
	case CX_BO_GE: return negate ? "<" : ">=";
	case CX_BO_EQ: return negate ? "!=" : "=";
	case CX_BO_NE: return negate ? "=" : "!=";
	default: return NULL;
	}
}

static int condition_binary(struct walker *w, CXCursor c, int negate,
			    struct lk_buf *b)
{
	enum CX_BinaryOperatorKind op = clang_Cursor_getBinaryOpcode(c);
	const char *cmp = compare_op(op, negate);
	CXCursor kid[3];
	int ret;

	if (gen_children(c, kid, 3) != 2)
		return gen_unsupported(w, c, "condition form");
	if (op == CX_BO_LAnd || op == CX_BO_LOr) {
		int and = (op == CX_BO_LAnd) != negate;

		lk_buf_addch(b, '(');
		ret = gen_condition(w, kid[0], negate, b);
		lk_buf_adds(b, and ? ") and (" : ") or (");
		if (!ret)
			ret = gen_condition(w, kid[1], negate, b);
		lk_buf_addch(b, ')');
		return ret;
	}
	if (!cmp) {
		char *text = gen_cursor_text(w, c);

		ret = gen_unsupported(w, c, "non-affine condition '%s'", text);
		free(text);
		return ret;
	}
	lk_buf_addch(b, '(');
	ret = gen_affine(w, kid[0], b);
	lk_buf_addf(b, ") %s (", cmp);
	if (!ret)
		ret = gen_affine(w, kid[1], b);
	lk_buf_addch(b, ')');
	return ret;
}

int gen_condition(struct walker *w, CXCursor c, int negate, struct lk_buf *b)
{
	CXCursor kid[3];
	char *text;
	int ret;

	switch (clang_getCursorKind(c)) {
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
		if (gen_children(c, kid, 3) != 1)
			break;
		return gen_condition(w, kid[0], negate, b);
	case CXCursor_BinaryOperator:
		return condition_binary(w, c, negate, b);
	case CXCursor_UnaryOperator:
		if (clang_getCursorUnaryOperatorKind(c) != CXUnaryOperator_LNot ||
		    gen_children(c, kid, 3) != 1)
			break;
		return gen_condition(w, kid[0], !negate, b);
	default:
		break;
	}
	text = gen_cursor_text(w, c);
	ret = gen_unsupported(w, c, "non-affine condition '%s'", text);
	free(text);
	return ret;
}

/* ---- Accesses. ---- */

/* "A[(i), (j + 1)]" for an array element or "s[]" for a scalar. */
static int access_text(struct walker *w, CXCursor c, struct lk_buf *out)
{
	CXCursor subs[16], kid[3], base = gen_strip(c);
	size_t n = 0, i;
	struct lk_ctx quiet;
	char *name, *text;
	int ret = 0;

	while (clang_getCursorKind(base) == CXCursor_ArraySubscriptExpr) {
		if (gen_children(base, kid, 3) != 2 || n == 16)
			return gen_unsupported(w, c, "array access form");
		subs[n++] = kid[1];
		base = gen_strip(kid[0]);
	}
	if (clang_getCursorKind(base) == CXCursor_ParenExpr)
		return gen_unsupported(w, c, "parenthesised array base");
	if (clang_getCursorKind(base) != CXCursor_DeclRefExpr)
		return gen_unsupported(w, c, "access to memory other than a "
				       "named array or scalar");
	name = spelling(base);
	if (strv_has(&w->iters, name) && !n)
		ret = gen_unsupported(w, c, "assignment to the loop iterator "
				      "'%s'", name);
	lk_buf_addf(out, "%s[", name);
	free(name);
	/* Subscripts: a failure is reported for the whole access. */
	lk_ctx_init(&quiet);
	for (i = n; !ret && i-- > 0;) {
		struct walker q = *w;

		q.ctx = &quiet;
		q.err = 0;
		lk_buf_adds(out, i + 1 < n ? ", (" : "(");
		if (gen_affine(&q, subs[i], out)) {
			text = gen_cursor_text(w, c);
			ret = gen_unsupported(w, c, "non-affine subscript %s",
					      text);
			free(text);
		}
		lk_buf_addch(out, ')');
	}
	lk_buf_addch(out, ']');
	return ret;
}

static int add_access(struct walker *w, CXCursor c, struct lk_strv *to)
{
	struct lk_buf b = LK_BUF_INIT;
	int ret = access_text(w, c, &b);

	if (!ret)
		lk_strv_push(to, lk_buf_str(&b));
	lk_buf_release(&b);
	return ret;
}

static int reads_of(struct walker *w, CXCursor c, struct stmt_build *sb,
		    long *ops);

static int reads_of_kids(struct walker *w, CXCursor c, struct stmt_build *sb,
			 long *ops)
{
	CXCursor kid[32];
	size_t n = gen_children(c, kid, 32), i;
	int ret = 0;

	if (n > 32)
		return gen_unsupported(w, c, "call with more than 31 "
				       "arguments");
	for (i = 0; !ret && i < n; i++)
		ret = reads_of(w, kid[i], sb, ops);
	return ret;
}

static int reads_of_ref(struct walker *w, CXCursor c, struct stmt_build *sb)
{
	CXCursor ref = clang_getCursorReferenced(c);
	enum CXCursorKind k = clang_getCursorKind(ref);
	char *name = spelling(c);
	int ret = 0;

	if (k == CXCursor_FunctionDecl || k == CXCursor_EnumConstantDecl) {
		ret = 0;
	} else if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl) {
		ret = gen_unsupported(w, c, "reference to '%s'", name);
	} else if (strv_has(&w->iters, name) ||
		   (is_integer_type(clang_getCursorType(ref)) &&
		    !strv_has(&w->written, name))) {
		/* An iterator's or a size's value: no memory read. */
		if (!strv_has(&w->iters, name))
			add_param(w, name);
	} else {
		lk_strv_pushf(&sb->reads, "%s[]", name);
	}
	free(name);
	return ret;
}

static int reads_of_call(struct walker *w, CXCursor c, struct stmt_build *sb,
			 long *ops)
{
	char *name = spelling(c);
	int ret = 0;

	if (!in_list(calls_ok, name))
		ret = gen_unsupported(w, c, "call to '%s' (allowed: sqrt, "
				      "exp, pow, fabs and other libm "
				      "functions)", name);
	free(name);
	if (ret)
		return ret;
	(*ops)++;
	return reads_of_kids(w, c, sb, ops);
}

static int reads_of(struct walker *w, CXCursor c, struct stmt_build *sb,
		    long *ops)
{
	enum CX_BinaryOperatorKind op;
	char *text;
	int ret;

	switch (clang_getCursorKind(c)) {
	case CXCursor_ArraySubscriptExpr:
		return add_access(w, c, &sb->reads);
	case CXCursor_DeclRefExpr:
		return reads_of_ref(w, c, sb);
	case CXCursor_IntegerLiteral:
	case CXCursor_FloatingLiteral:
	case CXCursor_CharacterLiteral:
	case CXCursor_TypeRef:
		return 0;
	case CXCursor_BinaryOperator:
		op = clang_Cursor_getBinaryOpcode(c);
		if (op == CX_BO_Comma || is_assign_op(op))
			break;
		(*ops) += op >= CX_BO_Mul && op <= CX_BO_Sub;
		return reads_of_kids(w, c, sb, ops);
	case CXCursor_UnaryOperator:
		switch (clang_getCursorUnaryOperatorKind(c)) {
		case CXUnaryOperator_Minus:
			(*ops)++;
			/* fall through */
		case CXUnaryOperator_Plus:
		case CXUnaryOperator_LNot:
			return reads_of_kids(w, c, sb, ops);
		default:
			break;
		}
		break;
	case CXCursor_CallExpr:
		return reads_of_call(w, c, sb, ops);
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
	case CXCursor_ConditionalOperator:
		return reads_of_kids(w, c, sb, ops);
	default:
		break;
	}
	text = gen_cursor_text(w, c);
	ret = gen_unsupported(w, c, "expression '%s' in a statement", text);
	free(text);
	return ret;
}

int gen_statement_accesses(struct walker *w, const struct gen_assign *a,
			   struct stmt_build *sb, long *ops)
{
	int ret = add_access(w, a->lhs, &sb->writes);

	if (!ret && a->op != CX_BO_Assign) {
		ret = add_access(w, a->lhs, &sb->reads);
		(*ops)++;
	}
	if (!ret)
		ret = reads_of(w, a->rhs, sb, ops);
	return ret;
}

/* ---- Scalars assigned in the region. ---- */

static enum CXChildVisitResult note_written(CXCursor c, CXCursor parent,
					    CXClientData data)
{
	struct walker *w = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	CXCursor kid[3], lhs;
	int assigns = 0;

	(void)parent;
	if (k == CXCursor_ForStmt) {
		/* The loop's own init and increment write its iterator. */
		CXCursor part[5];
		size_t n = gen_children(c, part, 5);

		if (n && n <= 5)
			gen_collect_written(w, part[n - 1]);
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_BinaryOperator ||
	    k == CXCursor_CompoundAssignOperator)
		assigns = is_assign_op(clang_Cursor_getBinaryOpcode(c));
	else if (k == CXCursor_UnaryOperator)
		assigns = clang_getCursorUnaryOperatorKind(c) <=
			  CXUnaryOperator_PreDec;
	if (assigns && gen_children(c, kid, 3) >= 1) {
		lhs = gen_strip(kid[0]);
		if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr) {
			char *name = spelling(lhs);

			if (!strv_has(&w->written, name))
				lk_strv_push(&w->written, name);
			free(name);
		}
	}
	return CXChildVisit_Recurse;
}

void gen_collect_written(struct walker *w, CXCursor c)
{
	if (note_written(c, clang_getNullCursor(), w) == CXChildVisit_Recurse)
		clang_visitChildren(c, note_written, w);
}
