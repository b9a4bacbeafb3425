/*
 * The front end's view of libclang's cursors and tokens: a cursor's
 * line, children and source text (macro calls included whole), and the
 * "unsupported construct" error every walker step reports through.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gen-int.h"

int gen_unsupported(struct walker *w, CXCursor c, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (w->err)
		return LK_EINPUT;
	va_start(ap, fmt);
	msg = lk_vasprintf(fmt, ap);
	va_end(ap);
	lk_error_at(w->ctx, LK_EINPUT, w->file, gen_cursor_line(c),
		    "unsupported %s", msg);
	free(msg);
	w->err = LK_EINPUT;
	return LK_EINPUT;
}

long gen_cursor_line(CXCursor c)
{
	unsigned line = 0;

	clang_getFileLocation(clang_getCursorLocation(c), NULL, &line,
				  NULL, NULL);
	return line;
}

struct kids {
	CXCursor *out;
	size_t n, max;
};

static enum CXChildVisitResult collect_kid(CXCursor c, CXCursor parent,
					   CXClientData data)
{
	struct kids *k = data;

	(void)parent;
	if (k->n < k->max)
		k->out[k->n] = c;
	k->n++;
	return CXChildVisit_Continue;
}

size_t gen_children(CXCursor c, CXCursor *out, size_t max)
{
	struct kids k = {out, 0, max};

	clang_visitChildren(c, collect_kid, &k);
	return k.n;
}

CXCursor gen_strip(CXCursor c)
{
	CXCursor kid[2];

	while (clang_getCursorKind(c) == CXCursor_UnexposedExpr &&
	       gen_children(c, kid, 2) == 1)
		c = kid[0];
	return c;
}

void gen_offsets(CXSourceRange r, unsigned *begin, unsigned *end)
{
	clang_getFileLocation(clang_getRangeStart(r), NULL, NULL, NULL,
				  begin);
	clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, end);
}

static char *token_text(struct walker *w, CXCursor c)
{
	CXToken *toks = NULL;
	unsigned n = 0, i, prev_end = 0;
	struct lk_buf b = LK_BUF_INIT;

	clang_tokenize(w->tu, clang_getCursorExtent(c), &toks, &n);
	for (i = 0; i < n; i++) {
		CXString s = clang_getTokenSpelling(w->tu, toks[i]);
		unsigned begin, end;

		gen_offsets(clang_getTokenExtent(w->tu, toks[i]), &begin, &end);
		if (i && begin > prev_end)
			lk_buf_addch(&b, ' ');
		lk_buf_adds(&b, clang_getCString(s));
		clang_disposeString(s);
		prev_end = end;
	}
	clang_disposeTokens(w->tu, toks, n);
	return lk_buf_detach(&b);
}

/* Past the macro call at off of the main file: its name and, for a
 * function-like macro, its parenthesised arguments. */
static unsigned past_macro_call(const struct lk_gen_scop *s, unsigned off)
{
	const char *t = s->text;
	unsigned n = (unsigned)s->text_len, e = off;
	int depth = 0;

	while (e < n && (isalnum((unsigned char)t[e]) || t[e] == '_'))
		e++;
	off = e;
	while (e < n && isspace((unsigned char)t[e]))
		e++;
	if (e >= n || t[e] != '(')
		return off;
	do {
		depth += t[e] == '(';
		depth -= t[e] == ')';
		e++;
	} while (e < n && depth > 0);
	return e;
}

/*
 * c's text as written in the main file, from the expansion of its start
 * to the end of the macro call its end comes from (SCALAR_VAL(0.0) is
 * not cut after '0.0'), white space collapsed; the tokens of its extent
 * when it is not in the main file.
 */
char *gen_cursor_text(struct walker *w, CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile main_file = clang_getFile(w->tu, w->file), f1, f2, f3;
	unsigned b, e, se;
	struct lk_buf out = LK_BUF_INIT;
	int space = 0;

	clang_getExpansionLocation(clang_getRangeStart(r), &f1, NULL, NULL, &b);
	clang_getExpansionLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &e);
	clang_getSpellingLocation(clang_getRangeEnd(r), &f3, NULL, NULL, &se);
	if (!clang_File_isEqual(f1, main_file) ||
	    !clang_File_isEqual(f2, main_file) || b > e ||
	    e > w->scop->text_len)
		return token_text(w, c);
	if (!clang_File_isEqual(f3, main_file) || se != e)
		e = past_macro_call(w->scop, e);
	for (; b < e; b++) {
		char ch = w->scop->text[b];

		if (isspace((unsigned char)ch)) {
			space = 1;
			continue;
		}
		if (space && out.len)
			lk_buf_addch(&out, ' ');
		space = 0;
		lk_buf_addch(&out, ch);
	}
	return lk_buf_detach(&out);
}
