/*
 * The kernel function's declarations, for the standalone micro-kernel:
 * each parameter's, local's and file-scope variable's scalar (or
 * element) type, and the values
 * the first call of the function passes (main's kernel_x(NI, NJ, 1.5,
 * ...) read at the chosen dataset), by libclang.
 */
#include <stdlib.h>
#include <string.h>

#include <clang-c/Index.h>

#include "kernelify.h"
#include "loopkit/toolchain.h"

struct decl_walk {
	const struct lk_gen_scop *scop;
	struct kfy_decls *decls;
	size_t param_base, nparams;   /* the function's, in decls */
	int found_function, found_call;
};

static int token_is(CXTranslationUnit tu, CXToken t, const char *s)
{
	CXString sp = clang_getTokenSpelling(tu, t);
	int eq = !strcmp(clang_getCString(sp), s);

	clang_disposeString(sp);
	return eq;
}

static char *cx_take(CXString s)
{
	char *copy = lk_strdup(clang_getCString(s) ? clang_getCString(s)
						   : "");

	clang_disposeString(s);
	return copy;
}

static void add_var(struct decl_walk *dw, CXCursor c, int global)
{
	struct kfy_decls *d = dw->decls;
	CXType t = clang_getCanonicalType(clang_getCursorType(c));
	struct kfy_var *v;
	int array = 0;

	for (;;) {
		if (t.kind == CXType_Pointer)
			t = clang_getPointeeType(t);
		else if (t.kind == CXType_ConstantArray ||
			 t.kind == CXType_IncompleteArray ||
			 t.kind == CXType_VariableArray)
			t = clang_getArrayElementType(t);
		else
			break;
		array = 1;
		t = clang_getCanonicalType(t);
	}
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 16;
		d->vars = lk_realloc(d->vars, d->alloc * sizeof(*d->vars));
	}
	v = &d->vars[d->n++];
	memset(v, 0, sizeof(*v));
	v->name = cx_take(clang_getCursorSpelling(c));
	v->type = cx_take(clang_getTypeSpelling(clang_getUnqualifiedType(t)));
	v->array = array;
	v->global = global;
}

static enum CXChildVisitResult locals(CXCursor c, CXCursor parent,
				      CXClientData data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_VarDecl)
		add_var(data, c, 0);
	return CXChildVisit_Recurse;
}

static void read_function(struct decl_walk *dw, CXCursor fn)
{
	int i, n = clang_Cursor_getNumArguments(fn);

	dw->found_function = 1;
	dw->param_base = dw->decls->n;
	for (i = 0; i < n; i++)
		add_var(dw, clang_Cursor_getArgument(fn, (unsigned)i), 0);
	dw->nparams = (size_t)n;
	clang_visitChildren(fn, locals, dw);
}

/*
 * An argument's value: a constant expression, or a local variable
 * initialised with one (PolyBench's 'int n = N;' before the call; a
 * later assignment to it is not seen).
 */
static CXEvalResult eval_arg(CXCursor arg)
{
	CXEvalResult e = clang_Cursor_Evaluate(arg);
	CXCursor ref;

	if (e)
		return e;
	arg = gen_strip(arg);
	if (clang_getCursorKind(arg) != CXCursor_DeclRefExpr)
		return NULL;
	ref = clang_getCursorReferenced(arg);
	if (clang_getCursorKind(ref) != CXCursor_VarDecl ||
	    clang_Cursor_hasVarDeclGlobalStorage(ref) == 1)
		return NULL;
	ref = clang_Cursor_getVarDeclInitializer(ref);
	return clang_Cursor_isNull(ref) ? NULL : clang_Cursor_Evaluate(ref);
}

static void read_call(struct decl_walk *dw, CXCursor call)
{
	int i, n = clang_Cursor_getNumArguments(call);

	for (i = 0; i < n && (size_t)i < dw->nparams; i++) {
		struct kfy_var *v = &dw->decls->vars[dw->param_base + i];
		CXEvalResult e = eval_arg(
			clang_Cursor_getArgument(call, (unsigned)i));

		if (!e)
			continue;
		if (clang_EvalResult_getKind(e) == CXEval_Int) {
			v->known = 1;
			v->ival = clang_EvalResult_getAsLongLong(e);
		} else if (clang_EvalResult_getKind(e) == CXEval_Float) {
			v->known = v->is_float = 1;
			v->fval = clang_EvalResult_getAsDouble(e);
		}
		clang_EvalResult_dispose(e);
	}
	dw->found_call = 1;
}

static int named(CXCursor c, const char *name)
{
	CXString s = clang_getCursorSpelling(c);
	int same = !strcmp(clang_getCString(s), name);

	clang_disposeString(s);
	return same;
}

static int is_param(const struct lk_gen_scop *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->params.n; i++)
		if (!strcmp(s->params.v[i], name))
			return 1;
	return 0;
}

/* An integer literal, maybe parenthesised, with its suffix. */
static int literal_value(CXTranslationUnit tu, CXToken *t, unsigned n,
			 long long *v)
{
	CXString sp;
	char *end;
	int ok;

	while (n >= 3 && token_is(tu, t[0], "(") &&
	       token_is(tu, t[n - 1], ")"))
		t++, n -= 2;
	if (n != 1 || clang_getTokenKind(t[0]) != CXToken_Literal)
		return 0;
	sp = clang_getTokenSpelling(tu, t[0]);
	*v = strtoll(clang_getCString(sp), &end, 0);
	ok = end != clang_getCString(sp) && !end[strspn(end, "uUlL")];
	clang_disposeString(sp);
	return ok;
}

/*
 * A size symbol that is a macro (heat-3d's TSTEPS used in the scop):
 * its value at the dataset, when its definition is one integer
 * literal, as a known global of type long.
 */
static void read_macro(struct decl_walk *dw, CXTranslationUnit tu,
		       CXCursor c)
{
	struct kfy_decls *d = dw->decls;
	char *name = cx_take(clang_getCursorSpelling(c));
	CXToken *t = NULL;
	unsigned n = 0;
	long long value;
	struct kfy_var *v;

	if (!is_param(dw->scop, name) || clang_Cursor_isMacroFunctionLike(c)) {
		free(name);
		return;
	}
	clang_tokenize(tu, clang_getCursorExtent(c), &t, &n);
	if (n < 2 || !literal_value(tu, t + 1, n - 1, &value)) {
		clang_disposeTokens(tu, t, n);
		free(name);
		return;
	}
	clang_disposeTokens(tu, t, n);
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 16;
		d->vars = lk_realloc(d->vars, d->alloc * sizeof(*d->vars));
	}
	v = &d->vars[d->n++];
	memset(v, 0, sizeof(*v));
	v->name = name;
	v->type = lk_strdup("long");
	v->global = v->known = 1;
	v->ival = value;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent,
				     CXClientData data)
{
	struct decl_walk *dw = data;
	enum CXCursorKind k = clang_getCursorKind(c);

	if (k == CXCursor_MacroDefinition) {
		read_macro(dw, clang_Cursor_getTranslationUnit(c), c);
		return CXChildVisit_Continue;
	}

	/* Headers' declarations are not the kernel's (calls in main may
	 * come from macro expansions: only top-level cursors are checked). */
	if (clang_getCursorKind(parent) == CXCursor_TranslationUnit &&
	    !clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	if (k == CXCursor_VarDecl &&
	    clang_getCursorKind(parent) == CXCursor_TranslationUnit) {
		add_var(dw, c, 1);
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_FunctionDecl && clang_isCursorDefinition(c) &&
	    named(c, dw->scop->function) && !dw->found_function) {
		read_function(dw, c);
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_CallExpr && !dw->found_call &&
	    named(c, dw->scop->function) && dw->nparams) {
		read_call(dw, c);
		return CXChildVisit_Continue;
	}
	return CXChildVisit_Recurse;
}

int kfy_decls_read(struct lk_ctx *ctx, const struct lk_gen_scop *s,
		   const char *define, struct kfy_decls *d)
{
	struct decl_walk dw = {.scop = s, .decls = d};
	struct lk_strv args = LK_STRV_INIT;
	CXIndex index = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	enum CXErrorCode e;
	int ret = 0;

	memset(d, 0, sizeof(*d));
	gen_frontend_args(&s->cflags, &args);
	lk_strv_pushf(&args, "-D%s", define);
	e = clang_parseTranslationUnit2(index, s->file,
					(const char *const *)args.v,
					(int)args.n, NULL, 0,
					CXTranslationUnit_DetailedPreprocessingRecord,
					&tu);
	if (e != CXError_Success)
		ret = lk_error(ctx, LK_EINPUT, "kernelify: %s: libclang "
			       "cannot parse it (error %d)", s->file, (int)e);
	else
		clang_visitChildren(clang_getTranslationUnitCursor(tu), visit,
				    &dw);
	if (!ret && !dw.found_function)
		ret = lk_error(ctx, LK_EINPUT, "kernelify: %s: no definition "
			       "of %s", s->file, s->function);
	if (tu)
		clang_disposeTranslationUnit(tu);
	clang_disposeIndex(index);
	lk_strv_release(&args);
	return ret;
}

void kfy_decls_release(struct kfy_decls *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->vars[i].name);
		free(d->vars[i].type);
	}
	free(d->vars);
	memset(d, 0, sizeof(*d));
}

/* The kernel function's own declarations shadow the file's. */
const struct kfy_var *kfy_decl_find(const struct kfy_decls *d,
				    const char *name)
{
	const struct kfy_var *global = NULL;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->vars[i].name, name)) {
			if (!d->vars[i].global)
				return &d->vars[i];
			global = global ? global : &d->vars[i];
		}
	return global;
}

long kfy_type_size(const char *type)
{
	static const struct {
		const char *type;
		long size;
	} sizes[] = {{"double", 8}, {"float", 4}, {"int", 4},
		     {"unsigned int", 4}, {"long", 8}, {"unsigned long", 8},
		     {"long long", 8}, {"short", 2}, {"char", 1},
		     {"signed char", 1}, {"unsigned char", 1},
		     {"long double", 16}};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(sizes); i++)
		if (!strcmp(sizes[i].type, type))
			return sizes[i].size;
	return 8;
}
