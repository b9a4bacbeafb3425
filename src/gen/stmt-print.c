/*
 * A statement's text, printed from the AST: what the compiler sees, with
 * every macro expanded (PolyBench's SCALAR_VAL, _PB_N, a macro naming
 * another), so that the text is whole and means the same wherever it is
 * put, in the generated file or in a standalone micro-kernel. Only a
 * macro that is a size symbol (an object-like macro of an integer
 * constant, N or TSTEPS) keeps its name: the sizes differ between
 * verifying and measuring. The iterators become pieces of their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen-int.h"

struct printer {
	struct walker *w;
	const struct lk_strv *iters;
	struct lk_gen_stmt *st;
};

static void add_text(struct lk_gen_stmt *st, const char *s)
{
	struct lk_gen_piece *last = st->npieces ? &st->pieces[st->npieces - 1]
						: NULL;

	if (last && last->text) {
		char *joined = lk_asprintf("%s%s", last->text, s);

		free(last->text);
		last->text = joined;
		return;
	}
	st->pieces = lk_reallocarray(st->pieces, st->npieces + 1,
				     sizeof(*st->pieces));
	st->pieces[st->npieces++] = (struct lk_gen_piece){lk_strdup(s), -1};
}

static void add_iter(struct lk_gen_stmt *st, int iter)
{
	st->pieces = lk_reallocarray(st->pieces, st->npieces + 1,
				     sizeof(*st->pieces));
	st->pieces[st->npieces++] = (struct lk_gen_piece){NULL, iter};
}

/* The last character printed so far ('\0' at the start). */
static char last_char(const struct lk_gen_stmt *st)
{
	const struct lk_gen_piece *p;

	if (!st->npieces)
		return '\0';
	p = &st->pieces[st->npieces - 1];
	if (!p->text)
		return ')';
	return *p->text ? p->text[strlen(p->text) - 1] : '\0';
}

static int print_expr(struct printer *p, CXCursor c);

/* A literal's value, with the suffix of its type: 1.0f, 3UL. */
static const char *value_text(CXEvalResult ev, enum CXTypeKind k, char *buf,
			      size_t size)
{
	const char *suffix;

	if (clang_EvalResult_getKind(ev) == CXEval_Float) {
		snprintf(buf, size, "%.17g", clang_EvalResult_getAsDouble(ev));
		if (!strpbrk(buf, ".eEni"))
			strcat(buf, ".0");
		strcat(buf, k == CXType_Float ? "f"
			    : k == CXType_LongDouble ? "L" : "");
		return buf;
	}
	suffix = k == CXType_UInt ? "U" : k == CXType_Long ? "L"
	       : k == CXType_ULong ? "UL" : k == CXType_LongLong ? "LL"
	       : k == CXType_ULongLong ? "ULL" : "";
	if (k == CXType_UInt || k == CXType_ULong || k == CXType_ULongLong)
		snprintf(buf, size, "%llu%s",
			 clang_EvalResult_getAsUnsigned(ev), suffix);
	else
		snprintf(buf, size, "%lld%s",
			 clang_EvalResult_getAsLongLong(ev), suffix);
	return buf;
}

/* A literal's own token where it is spelled in a file; a pasted one
 * (SCALAR_VAL(x) as x##f) by its value and type. */
static void print_literal(struct printer *p, CXCursor c)
{
	CXTranslationUnit tu = p->w->tu;
	CXFile file;
	unsigned off, ntok = 0;
	CXToken *tok = NULL;
	CXEvalResult ev;
	char buf[64];

	clang_getSpellingLocation(clang_getCursorLocation(c), &file, NULL,
				  NULL, &off);
	if (file)
		clang_tokenize(tu, clang_getRange(
				   clang_getLocationForOffset(tu, file, off),
				   clang_getLocationForOffset(tu, file,
							      off + 1)),
			       &tok, &ntok);
	if (ntok) {
		CXString s = clang_getTokenSpelling(tu, tok[0]);

		add_text(p->st, clang_getCString(s));
		clang_disposeString(s);
	}
	if (tok)
		clang_disposeTokens(tu, tok, ntok);
	if (ntok)
		return;
	ev = clang_Cursor_Evaluate(c);
	if (ev)
		add_text(p->st, value_text(ev, clang_getCanonicalType(
						       clang_getCursorType(c)).kind,
					   buf, sizeof(buf)));
	if (ev)
		clang_EvalResult_dispose(ev);
}

static char *spelling(CXCursor c)
{
	CXString sp = clang_getCursorSpelling(c);
	char *s = lk_strdup(clang_getCString(sp));

	clang_disposeString(sp);
	return s;
}

static int iter_index(const struct lk_strv *iters, const char *s)
{
	size_t i;

	for (i = 0; i < iters->n; i++)
		if (!strcmp(iters->v[i], s))
			return (int)i;
	return -1;
}

static void print_ref(struct printer *p, CXCursor c)
{
	CXCursor ref = clang_getCursorReferenced(c);
	char *name = spelling(c);
	int it = iter_index(p->iters, name);

	if (clang_getCursorKind(ref) == CXCursor_EnumConstantDecl) {
		char *v = lk_asprintf("%lld",
				      clang_getEnumConstantDeclValue(ref));

		add_text(p->st, v);
		free(v);
	} else if (it >= 0) {
		add_iter(p->st, it);
	} else {
		add_text(p->st, name);
	}
	free(name);
}

static int print_kids(struct printer *p, CXCursor c, const char *open,
		      const char *sep, const char *close, size_t first)
{
	CXCursor kid[32];
	size_t n = gen_children(c, kid, 32), i;
	int ret = 0;

	if (n > 32)
		return gen_unsupported(p->w, c, "expression with more than 32 "
				       "operands");
	add_text(p->st, open);
	for (i = first; !ret && i < n; i++) {
		if (i > first)
			add_text(p->st, sep);
		ret = print_expr(p, kid[i]);
	}
	add_text(p->st, close);
	return ret;
}

static int print_binary(struct printer *p, CXCursor c)
{
	CXCursor kid[3];
	CXString op;
	int ret;

	if (gen_children(c, kid, 3) != 2)
		return gen_unsupported(p->w, c, "expression form");
	ret = print_expr(p, kid[0]);
	op = clang_getBinaryOperatorKindSpelling(
		(enum CXBinaryOperatorKind)clang_getCursorBinaryOperatorKind(c));
	add_text(p->st, " ");
	add_text(p->st, clang_getCString(op));
	add_text(p->st, " ");
	clang_disposeString(op);
	return ret ? ret : print_expr(p, kid[1]);
}

static int print_unary(struct printer *p, CXCursor c)
{
	CXCursor kid[2];
	enum CXUnaryOperatorKind k = clang_getCursorUnaryOperatorKind(c);
	CXString op;
	const char *s;

	/* Prefix operators only: the statements' reads have no others. */
	if (gen_children(c, kid, 2) != 1 || k == CXUnaryOperator_PostInc ||
	    k == CXUnaryOperator_PostDec)
		return gen_unsupported(p->w, c, "expression form");
	op = clang_getUnaryOperatorKindSpelling(k);
	s = clang_getCString(op);
	/* "- -x" is not "--x". */
	if (*s && last_char(p->st) == *s)
		add_text(p->st, " ");
	add_text(p->st, s);
	clang_disposeString(op);
	return print_expr(p, kid[0]);
}

static int print_cast(struct printer *p, CXCursor c)
{
	CXCursor kid[3];
	size_t n = gen_children(c, kid, 3);
	CXString type;

	if (!n || n > 2)
		return gen_unsupported(p->w, c, "cast form");
	/* The canonical type: a typedef's name may not exist elsewhere. */
	type = clang_getTypeSpelling(
		clang_getCanonicalType(clang_getCursorType(c)));
	add_text(p->st, "(");
	add_text(p->st, clang_getCString(type));
	add_text(p->st, ")");
	clang_disposeString(type);
	return print_expr(p, kid[n - 1]);
}

static int print_call(struct printer *p, CXCursor c)
{
	CXCursor fn = clang_getCursorReferenced(c);
	char *name;

	if (clang_getCursorKind(fn) != CXCursor_FunctionDecl)
		return gen_unsupported(p->w, c, "call through an expression");
	name = spelling(fn);
	add_text(p->st, name);
	free(name);
	return print_kids(p, c, "(", ", ", ")", 1);
}

static int print_conditional(struct printer *p, CXCursor c)
{
	CXCursor kid[4];
	int ret;

	if (gen_children(c, kid, 4) != 3)
		return gen_unsupported(p->w, c, "conditional expression form");
	ret = print_expr(p, kid[0]);
	add_text(p->st, " ? ");
	if (!ret)
		ret = print_expr(p, kid[1]);
	add_text(p->st, " : ");
	return ret ? ret : print_expr(p, kid[2]);
}

static int print_expr(struct printer *p, CXCursor c)
{
	char *macro = gen_size_macro(p->w, c);
	CXCursor kid[2];
	int ret = 0;

	if (macro) {
		add_text(p->st, macro);
		free(macro);
		return 0;
	}
	switch (clang_getCursorKind(c)) {
	case CXCursor_IntegerLiteral:
	case CXCursor_FloatingLiteral:
	case CXCursor_CharacterLiteral:
		print_literal(p, c);
		return 0;
	case CXCursor_DeclRefExpr:
		print_ref(p, c);
		return 0;
	case CXCursor_ArraySubscriptExpr:
		if (gen_children(c, kid, 2) != 2)
			return gen_unsupported(p->w, c, "array access form");
		ret = print_expr(p, kid[0]);
		add_text(p->st, "[");
		if (!ret)
			ret = print_expr(p, kid[1]);
		add_text(p->st, "]");
		return ret;
	case CXCursor_ParenExpr:
		return print_kids(p, c, "(", "", ")", 0);
	case CXCursor_UnexposedExpr:
		if (gen_children(c, kid, 2) != 1)
			break;
		return print_expr(p, kid[0]);
	case CXCursor_CStyleCastExpr:
		return print_cast(p, c);
	case CXCursor_CallExpr:
		return print_call(p, c);
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		return print_binary(p, c);
	case CXCursor_UnaryOperator:
		return print_unary(p, c);
	case CXCursor_ConditionalOperator:
		return print_conditional(p, c);
	default:
		break;
	}
	{
		char *text = gen_cursor_text(p->w, c);

		ret = gen_unsupported(p->w, c, "expression '%s' in a "
				      "statement", text);
		free(text);
	}
	return ret;
}

int gen_statement_pieces(struct walker *w, const struct gen_assign *a,
			 const struct lk_strv *iters, struct lk_gen_stmt *st)
{
	struct printer p = {w, iters, st};
	CXString op = clang_getBinaryOperatorKindSpelling(
		(enum CXBinaryOperatorKind)a->op);
	int ret = print_expr(&p, a->lhs);

	add_text(st, " ");
	add_text(st, clang_getCString(op));
	add_text(st, " ");
	clang_disposeString(op);
	if (!ret)
		ret = print_expr(&p, a->rhs);
	add_text(st, ";");
	return ret;
}
