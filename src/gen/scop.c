/*
 * The front end: parse a C file with libclang, find its '#pragma scop'
 * region in the token stream (pragmas are not cursors), and walk the
 * loops, ifs and assignments between the two pragmas into statements
 * with their domains' constraints, accesses and text.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "gen-int.h"
#include "loopkit/toolchain.h"

/* ---- Finding the region. ---- */

struct region {
	long begin_line, end_line;
	unsigned begin_off, end_off;   /* of the two '#' tokens */
};

static int token_is(CXTranslationUnit tu, CXToken t, const char *s)
{
	CXString sp = clang_getTokenSpelling(tu, t);
	int eq = !strcmp(clang_getCString(sp), s);

	clang_disposeString(sp);
	return eq;
}

static unsigned token_line(CXTranslationUnit tu, CXToken t, unsigned *off)
{
	unsigned line;

	clang_getSpellingLocation(clang_getTokenLocation(tu, t), NULL, &line,
				  NULL, off);
	return line;
}

static int find_region(struct walker *w, CXFile file, size_t len,
		       struct region *r)
{
	CXSourceRange all = clang_getRange(
		clang_getLocationForOffset(w->tu, file, 0),
		clang_getLocationForOffset(w->tu, file, (unsigned)len));
	CXToken *t = NULL;
	unsigned n = 0, i, off;
	int open = 0, found = 0, ret = 0;

	clang_tokenize(w->tu, all, &t, &n);
	for (i = 0; !ret && i + 2 < n; i++) {
		long line;
		int scop;

		if (!token_is(w->tu, t[i], "#") ||
		    !token_is(w->tu, t[i + 1], "pragma"))
			continue;
		scop = token_is(w->tu, t[i + 2], "scop");
		if (!scop && !token_is(w->tu, t[i + 2], "endscop"))
			continue;
		line = token_line(w->tu, t[i], &off);
		if (scop && (open || found))
			ret = lk_error_at(w->ctx, LK_EINPUT, w->file, line,
					  open ? "unbalanced #pragma scop "
						 "(nested)"
					       : "unsupported second #pragma "
						 "scop region");
		else if (!scop && !open)
			ret = lk_error_at(w->ctx, LK_EINPUT, w->file, line,
					  "unbalanced #pragma endscop (no "
					  "#pragma scop before it)");
		else if (scop)
			r->begin_line = line, r->begin_off = off, open = 1;
		else
			r->end_line = line, r->end_off = off, open = 0,
			found = 1;
	}
	clang_disposeTokens(w->tu, t, n);
	if (!ret && open)
		ret = lk_error_at(w->ctx, LK_EINPUT, w->file, r->begin_line,
				  "unbalanced #pragma scop (no #pragma "
				  "endscop)");
	else if (!ret && !found)
		ret = lk_error_at(w->ctx, LK_EINPUT, w->file, 0,
				  "no #pragma scop region");
	return ret;
}

/* ---- Walking the region. ---- */

static int walk_stmt(struct walker *w, CXCursor c, struct snode *parent);

static struct snode *snode_new(int stmt)
{
	struct snode *n = lk_calloc(1, sizeof(*n));

	n->stmt = stmt;
	return n;
}

static void snode_add(struct snode *parent, struct snode *kid)
{
	LK_GROW(parent->kids, parent->nkids + 1, parent->alloc);
	parent->kids[parent->nkids++] = kid;
}

void gen_snode_free(struct snode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		gen_snode_free(n->kids[i]);
	free(n->kids);
	free(n->signs);
	lk_strv_release(&n->iters);
	free(n);
}

static int strv_has(const struct lk_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static void strv_pop(struct lk_strv *sv)
{
	free(sv->v[--sv->n]);
	sv->v[sv->n] = NULL;
}

static void strv_copy(struct lk_strv *to, const struct lk_strv *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		lk_strv_push(to, from->v[i]);
}

static int is_assign_kind(enum CX_BinaryOperatorKind k)
{
	return k == CX_BO_Assign || k == CX_BO_MulAssign ||
	       k == CX_BO_DivAssign || k == CX_BO_AddAssign ||
	       k == CX_BO_SubAssign;
}

static int add_statement(struct walker *w, CXCursor c,
			 const struct gen_assign *a, struct snode *parent)
{
	struct lk_gen_scop *s = w->scop;
	struct lk_gen_stmt *st;
	struct stmt_build *sb;
	int ret;

	s->stmts = lk_reallocarray(s->stmts, s->nstmts + 1, sizeof(*st));
	st = &s->stmts[s->nstmts];
	memset(st, 0, sizeof(*st));
	LK_GROW(w->builds, s->nstmts + 1, w->alloc);
	sb = &w->builds[s->nstmts];
	memset(sb, 0, sizeof(*sb));
	w->nbuilds = ++s->nstmts;
	st->name = lk_asprintf("S%zu", s->nstmts - 1);
	st->line = gen_cursor_line(c);
	strv_copy(&st->iters, &w->iters);
	strv_copy(&sb->conds, &w->conds);
	if ((ret = gen_statement_accesses(w, a, sb, &st->ops)))
		return ret;
	if ((ret = gen_statement_pieces(w, a, &w->iters, st)))
		return ret;
	snode_add(parent, snode_new((int)s->nstmts - 1));
	return 0;
}

/* The assignment that is e, under parentheses and implicit casts. */
static int assignment_in(CXCursor e, CXCursor *inner)
{
	CXCursor kid[2];

	while ((clang_getCursorKind(e) == CXCursor_ParenExpr ||
		clang_getCursorKind(e) == CXCursor_UnexposedExpr) &&
	       gen_children(e, kid, 2) == 1)
		e = kid[0];
	if ((clang_getCursorKind(e) != CXCursor_BinaryOperator &&
	     clang_getCursorKind(e) != CXCursor_CompoundAssignOperator) ||
	    !is_assign_kind(clang_Cursor_getBinaryOpcode(e)))
		return 0;
	*inner = e;
	return 1;
}

/*
 * A chain a1 = a5 = k is split, innermost first: a5 = k, then a1 = a5
 * (the value of an assignment is its left side's after it).
 */
static int walk_assignment(struct walker *w, CXCursor c,
			   struct snode *parent)
{
	struct gen_assign a = {.op = clang_Cursor_getBinaryOpcode(c)};
	CXCursor kid[3], inner, inner_kid[3];
	int ret;

	if (!is_assign_kind(a.op))
		return gen_unsupported(w, c, "expression statement (only "
				       "=, +=, -=, *=, /= assignments)");
	if (gen_children(c, kid, 3) != 2)
		return gen_unsupported(w, c, "assignment form");
	a.lhs = kid[0];
	a.rhs = kid[1];
	if (assignment_in(a.rhs, &inner)) {
		if (gen_children(inner, inner_kid, 3) != 2)
			return gen_unsupported(w, inner, "assignment form");
		ret = walk_assignment(w, inner, parent);
		if (ret)
			return ret;
		a.rhs = inner_kid[0];
	}
	return add_statement(w, c, &a, parent);
}

/* The iterator and lower bound of a for loop's init. */
static int loop_init(struct walker *w, CXCursor init, char **iter,
		     struct lk_buf *lb)
{
	CXCursor kid[3];
	size_t n;

	init = gen_strip(init);
	if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
		if (gen_children(init, kid, 2) != 1 ||
		    clang_getCursorKind(kid[0]) != CXCursor_VarDecl)
			return gen_unsupported(w, init, "for loop init");
		CXString sp = clang_getCursorSpelling(kid[0]);

		*iter = lk_strdup(clang_getCString(sp));
		clang_disposeString(sp);
		n = gen_children(kid[0], kid, 3);
		if (!n)
			return gen_unsupported(w, init, "for loop init "
					       "without a value");
		return gen_affine(w, kid[n - 1], lb);
	}
	if (clang_getCursorKind(init) != CXCursor_BinaryOperator ||
	    clang_Cursor_getBinaryOpcode(init) != CX_BO_Assign ||
	    gen_children(init, kid, 3) != 2 ||
	    clang_getCursorKind(gen_strip(kid[0])) != CXCursor_DeclRefExpr)
		return gen_unsupported(w, init, "for loop init (expected "
				       "i = lower bound)");
	{
		CXString sp = clang_getCursorSpelling(gen_strip(kid[0]));

		*iter = lk_strdup(clang_getCString(sp));
		clang_disposeString(sp);
	}
	return gen_affine(w, kid[1], lb);
}

/* ++, --, += c, -= c on the iterator: the step. */
static int loop_step(struct walker *w, CXCursor inc, const char *iter,
		     long *step)
{
	CXCursor kid[3];
	enum CXCursorKind k = clang_getCursorKind(inc);
	CXString sp;
	int ok;

	if (k == CXCursor_UnaryOperator) {
		enum CXUnaryOperatorKind u =
			clang_getCursorUnaryOperatorKind(inc);

		*step = (u == CXUnaryOperator_PostInc ||
			 u == CXUnaryOperator_PreInc) ? 1
		      : (u == CXUnaryOperator_PostDec ||
			 u == CXUnaryOperator_PreDec) ? -1 : 0;
	} else if (k == CXCursor_CompoundAssignOperator &&
		   gen_children(inc, kid, 3) == 2) {
		enum CX_BinaryOperatorKind b =
			clang_Cursor_getBinaryOpcode(inc);
		CXEvalResult ev = clang_Cursor_Evaluate(kid[1]);

		*step = 0;
		if (ev && clang_EvalResult_getKind(ev) == CXEval_Int)
			*step = clang_EvalResult_getAsLongLong(ev);
		if (ev)
			clang_EvalResult_dispose(ev);
		if (b == CX_BO_SubAssign)
			*step = -*step;
		else if (b != CX_BO_AddAssign)
			*step = 0;
	} else {
		*step = 0;
	}
	if (!*step || gen_children(inc, kid, 3) < 1)
		return gen_unsupported(w, inc, "for loop increment (expected "
				       "++, --, += c or -= c)");
	sp = clang_getCursorSpelling(gen_strip(kid[0]));
	ok = !strcmp(clang_getCString(sp), iter);
	clang_disposeString(sp);
	return ok ? 0 : gen_unsupported(w, inc, "for loop increment of "
					"another variable than '%s'", iter);
}

/* Push the loop's constraints; the caller pops w->conds back. */
static int loop_constraints(struct walker *w, CXCursor cond, const char *iter,
			    const char *lb, long step)
{
	struct lk_buf b = LK_BUF_INIT;
	int ret;

	lk_strv_pushf(&w->conds, "%s %s %s", iter, step > 0 ? ">=" : "<=",
		      lb);
	if (step > 1 || step < -1)
		lk_strv_pushf(&w->conds, "(%s - (%s)) mod %ld = 0", iter, lb,
			      step > 0 ? step : -step);
	ret = gen_condition(w, cond, 0, &b);
	if (!ret)
		lk_strv_push(&w->conds, lk_buf_str(&b));
	lk_buf_release(&b);
	return ret;
}

/* A loop whose body is one loop becomes one band with it. */
static void merge_band(struct snode *loop)
{
	struct snode *kid = loop->kids[0];
	size_t i, n = loop->iters.n;

	if (loop->nkids != 1 || kid->stmt >= 0 || !kid->iters.n)
		return;
	loop->signs = lk_reallocarray(loop->signs, n + kid->iters.n,
				      sizeof(int));
	for (i = 0; i < kid->iters.n; i++) {
		lk_strv_push(&loop->iters, kid->iters.v[i]);
		loop->signs[n + i] = kid->signs[i];
	}
	loop->kids[0] = NULL;
	loop->nkids = 0;
	for (i = 0; i < kid->nkids; i++)
		snode_add(loop, kid->kids[i]);
	kid->nkids = 0;
	gen_snode_free(kid);
}

static int walk_for(struct walker *w, CXCursor c, struct snode *parent)
{
	CXCursor kid[5];
	struct lk_buf lb = LK_BUF_INIT;
	char *iter = NULL;
	size_t nconds = w->conds.n;
	struct snode *loop;
	long step = 0;
	int ret;

	if (gen_children(c, kid, 5) != 4)
		return gen_unsupported(w, c, "for loop without init, "
				       "condition or increment");
	ret = loop_init(w, kid[0], &iter, &lb);
	if (!ret && strv_has(&w->iters, iter))
		ret = gen_unsupported(w, c, "loop reusing the iterator '%s' "
				      "of an outer loop", iter);
	if (!ret && strv_has(&w->written, iter))
		ret = gen_unsupported(w, c, "assignment to the loop iterator "
				      "'%s' in the region", iter);
	if (!ret)
		ret = loop_step(w, kid[2], iter, &step);
	if (!ret) {
		lk_strv_push(&w->iters, iter);
		ret = loop_constraints(w, kid[1], iter, lk_buf_str(&lb), step);
	}
	if (!ret) {
		loop = snode_new(-1);
		lk_strv_push(&loop->iters, iter);
		loop->signs = lk_malloc(sizeof(int));
		loop->signs[0] = step > 0 ? 1 : -1;
		snode_add(parent, loop);
		ret = walk_stmt(w, kid[3], loop);
		if (!ret)
			merge_band(loop);
	}
	if (w->iters.n && iter && !strcmp(w->iters.v[w->iters.n - 1], iter))
		strv_pop(&w->iters);
	while (w->conds.n > nconds)
		strv_pop(&w->conds);
	free(iter);
	lk_buf_release(&lb);
	return ret;
}

static int walk_branch(struct walker *w, CXCursor cond, int negate,
		       CXCursor body, struct snode *parent)
{
	struct lk_buf b = LK_BUF_INIT;
	int ret = gen_condition(w, cond, negate, &b);

	if (!ret) {
		lk_strv_push(&w->conds, lk_buf_str(&b));
		ret = walk_stmt(w, body, parent);
		strv_pop(&w->conds);
	}
	lk_buf_release(&b);
	return ret;
}

static int walk_if(struct walker *w, CXCursor c, struct snode *parent)
{
	CXCursor kid[4];
	size_t n = gen_children(c, kid, 4);
	int ret;

	if (n != 2 && n != 3)
		return gen_unsupported(w, c, "if statement form");
	ret = walk_branch(w, kid[0], 0, kid[1], parent);
	if (!ret && n == 3)
		ret = walk_branch(w, kid[0], 1, kid[2], parent);
	return ret;
}

static int walk_stmt(struct walker *w, CXCursor c, struct snode *parent)
{
	CXCursor kid[256];
	size_t n, i;
	int ret = 0;
	CXString sp;

	switch (clang_getCursorKind(c)) {
	case CXCursor_CompoundStmt:
		n = gen_children(c, kid, LK_ARRAY_SIZE(kid));
		if (n > LK_ARRAY_SIZE(kid))
			return gen_unsupported(w, c, "block of more than "
					       "256 statements");
		for (i = 0; !ret && i < n; i++)
			ret = walk_stmt(w, kid[i], parent);
		return ret;
	case CXCursor_NullStmt:
		return 0;
	case CXCursor_ForStmt:
		return walk_for(w, c, parent);
	case CXCursor_IfStmt:
		return walk_if(w, c, parent);
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		return walk_assignment(w, c, parent);
	case CXCursor_DeclStmt:
		return gen_unsupported(w, c, "declaration inside the scop");
	default:
		sp = clang_getCursorKindSpelling(clang_getCursorKind(c));
		gen_unsupported(w, c, "statement (%s)", clang_getCString(sp));
		clang_disposeString(sp);
		return LK_EINPUT;
	}
}

/* ---- The function and its region. ---- */

struct fn_search {
	unsigned off;
	CXCursor fn;
	int found;
};

static enum CXChildVisitResult find_fn(CXCursor c, CXCursor parent,
				       CXClientData data)
{
	struct fn_search *fs = data;
	unsigned b, e;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl ||
	    !clang_Location_isFromMainFile(clang_getCursorLocation(c)) ||
	    !clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	gen_offsets(clang_getCursorExtent(c), &b, &e);
	if (b <= fs->off && fs->off < e) {
		fs->fn = c;
		fs->found = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult find_macro(CXCursor c, CXCursor parent,
					  CXClientData data)
{
	struct walker *w = data;
	CXString sp;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_MacroDefinition)
		return CXChildVisit_Continue;
	sp = clang_getCursorSpelling(c);
	if (!strv_has(&w->macros, clang_getCString(sp)))
		lk_strv_push(&w->macros, clang_getCString(sp));
	clang_disposeString(sp);
	return CXChildVisit_Continue;
}

static size_t line_start(const char *text, size_t off)
{
	while (off && text[off - 1] != '\n')
		off--;
	return off;
}

static size_t next_line(const char *text, size_t len, size_t off)
{
	while (off < len && text[off] != '\n')
		off++;
	return off < len ? off + 1 : off;
}

static int walk_region(struct walker *w, const struct region *r,
		       struct snode *root)
{
	struct fn_search fs = {r->begin_off, clang_getNullCursor(), 0};
	struct lk_gen_scop *s = w->scop;
	CXCursor kid[256], body = clang_getNullCursor();
	size_t n, i;
	int ret = 0, first = 1;

	clang_visitChildren(clang_getTranslationUnitCursor(w->tu), find_fn,
			    &fs);
	if (!fs.found)
		return lk_error_at(w->ctx, LK_EINPUT, w->file, r->begin_line,
				   "unsupported #pragma scop outside a "
				   "function body");
	{
		CXString sp = clang_getCursorSpelling(fs.fn);

		s->function = lk_strdup(clang_getCString(sp));
		clang_disposeString(sp);
	}
	n = gen_children(fs.fn, kid, LK_ARRAY_SIZE(kid));
	for (i = 0; i < n && i < LK_ARRAY_SIZE(kid); i++)
		if (clang_getCursorKind(kid[i]) == CXCursor_CompoundStmt)
			body = kid[i];
	n = gen_children(body, kid, LK_ARRAY_SIZE(kid));
	if (n > LK_ARRAY_SIZE(kid))
		return lk_error_at(w->ctx, LK_EINPUT, w->file, r->begin_line,
				   "unsupported function of more than 256 "
				   "statements");
	for (i = 0; i < n; i++) {
		unsigned b, e;

		gen_offsets(clang_getCursorExtent(kid[i]), &b, &e);
		if (e <= r->begin_off || b >= r->end_off)
			continue;
		if (b < r->begin_off || e > r->end_off)
			return lk_error_at(w->ctx, LK_EINPUT, w->file,
					   gen_cursor_line(kid[i]),
					   "unbalanced #pragma scop (the "
					   "pragmas are not in the same "
					   "block)");
		if (first) {
			size_t ls = line_start(s->text, b);

			s->indent = lk_strndup(s->text + ls, b - ls);
			first = 0;
		}
		gen_collect_written(w, kid[i]);
	}
	for (i = 0; !ret && i < n; i++) {
		unsigned b, e;

		gen_offsets(clang_getCursorExtent(kid[i]), &b, &e);
		if (b > r->begin_off && e < r->end_off)
			ret = walk_stmt(w, kid[i], root);
	}
	if (!ret && !s->nstmts)
		ret = lk_error_at(w->ctx, LK_EINPUT, w->file, r->begin_line,
				  "the scop region has no statement");
	return ret;
}

static int first_error(struct walker *w)
{
	unsigned i, n = clang_getNumDiagnostics(w->tu);
	int ret = 0;

	for (i = 0; !ret && i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(w->tu, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString msg = clang_getDiagnosticSpelling(d);
			CXFile f;
			unsigned line;
			CXString fname;

			clang_getSpellingLocation(clang_getDiagnosticLocation(d),
						  &f, &line, NULL, NULL);
			fname = clang_getFileName(f);
			ret = lk_error_at(w->ctx, LK_EINPUT,
					  clang_getCString(fname) ?
					  clang_getCString(fname) : w->file,
					  line, "%s", clang_getCString(msg));
			clang_disposeString(fname);
			clang_disposeString(msg);
		}
		clang_disposeDiagnostic(d);
	}
	return ret;
}

static void walker_release(struct walker *w)
{
	size_t i;

	for (i = 0; i < w->nbuilds; i++) {
		lk_strv_release(&w->builds[i].conds);
		lk_strv_release(&w->builds[i].reads);
		lk_strv_release(&w->builds[i].writes);
	}
	free(w->builds);
	lk_strv_release(&w->macros);
	lk_strv_release(&w->iters);
	lk_strv_release(&w->conds);
	lk_strv_release(&w->written);
}

static int parse_tu(struct walker *w, CXIndex index, const char *path,
		    const struct lk_strv *cflags)
{
	struct lk_strv args = LK_STRV_INIT;
	enum CXErrorCode e;

	gen_frontend_args(cflags, &args);
	e = clang_parseTranslationUnit2(
		index, path, (const char *const *)args.v, (int)args.n, NULL, 0,
		CXTranslationUnit_DetailedPreprocessingRecord, &w->tu);
	lk_strv_release(&args);
	if (e != CXError_Success)
		return lk_error(w->ctx, LK_EINPUT, "%s: libclang cannot parse "
				"it (error %d)", path, (int)e);
	return first_error(w);
}

static int read_scop(struct walker *w, const char *path)
{
	struct lk_gen_scop *s = w->scop;
	CXFile file = clang_getFile(w->tu, path);
	struct region r = {0};
	struct snode *root = snode_new(-1);
	int ret;

	clang_visitChildren(clang_getTranslationUnitCursor(w->tu), find_macro,
			    w);
	ret = find_region(w, file, s->text_len, &r);
	if (!ret) {
		s->begin_line = r.begin_line;
		s->end_line = r.end_line;
		s->body_begin = next_line(s->text, s->text_len, r.begin_off);
		s->body_end = line_start(s->text, r.end_off);
		ret = walk_region(w, &r, root);
	}
	if (!ret)
		ret = gen_model_build(w, root);
	gen_snode_free(root);
	return ret;
}

int lk_gen_scop_parse(struct lk_ctx *ctx, const char *path,
		      const struct lk_strv *cflags, struct lk_gen_scop **out)
{
	struct lk_gen_scop *s = lk_calloc(1, sizeof(*s));
	struct walker w = {.ctx = ctx, .file = path, .scop = s};
	CXIndex index = NULL;
	size_t i;
	int ret;

	*out = NULL;
	s->file = lk_strdup(path);
	for (i = 0; cflags && i < cflags->n; i++)
		lk_strv_push(&s->cflags, cflags->v[i]);
	ret = lk_file_read(ctx, path, &s->text, &s->text_len);
	if (ret)
		goto out;
	ret = gen_preprocess_check(ctx, path, cflags);
	if (ret)
		goto out;
	index = clang_createIndex(0, 0);
	ret = parse_tu(&w, index, path, cflags);
	if (!ret)
		ret = read_scop(&w, path);
out:
	if (w.tu)
		clang_disposeTranslationUnit(w.tu);
	if (index)
		clang_disposeIndex(index);
	walker_release(&w);
	if (ret)
		lk_gen_scop_free(s);
	else
		*out = s;
	return ret;
}
