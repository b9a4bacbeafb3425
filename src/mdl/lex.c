/*
 * MDL text v1: the tokens. White space separates them and '#' starts a
 * comment to the end of the line. Words are keywords (some end in ':'),
 * integers, decimals and identifiers; '(' ')' '=' '+' '-' '*' stand
 * alone; strings are double-quoted, on one line, without escapes.
 */
#include <ctype.h>
#include <string.h>

#include "mdl-int.h"

static const char *const keywords[] = {
	"MDL", "Meta:", "Data:", "Body:", "flow", "scalar", "Trip:", "I/O:",
	"In:", "Out:", "LoopBody:", "fixed", "strided", "switch", "in",
	"Stride:", "Offset:", "Size:", "Add:", "Mul:", "mod", "div", "AST",
	NULL,
};

static int word_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '/';
}

static int is_keyword(const char *s, size_t n)
{
	for (size_t i = 0; keywords[i]; i++)
		if (strlen(keywords[i]) == n && !memcmp(keywords[i], s, n))
			return 1;
	return 0;
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

static int is_decimal(const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);

	return dot && all_digits(s, (size_t)(dot - s)) &&
	       all_digits(dot + 1, n - (size_t)(dot - s) - 1);
}

static int is_ident(const char *s, size_t n)
{
	size_t i;

	if (!isalpha((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '.')
			return 0;
	return 1;
}

static enum mdl_tok classify(const char *s, size_t n)
{
	if (is_keyword(s, n))
		return T_KW;
	if (all_digits(s, n))
		return T_INT;
	if (is_decimal(s, n))
		return T_DEC;
	if (is_ident(s, n))
		return T_IDENT;
	return T_BAD;
}

static void skip_blank(struct mdl_lexer *lx)
{
	while (lx->pos < lx->len) {
		char c = lx->text[lx->pos];

		if (c == '#') {
			while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
				lx->pos++;
		} else if (c == '\n') {
			lx->line++;
			lx->bol = ++lx->pos;
		} else if (isspace((unsigned char)c)) {
			lx->pos++;
		} else {
			return;
		}
	}
}

static int lex_string(struct mdl_lexer *lx, struct mdl_token *t)
{
	size_t end = lx->pos + 1;

	while (end < lx->len && lx->text[end] != '"' &&
	       lx->text[end] != '\n' && lx->text[end] != '\0')
		end++;
	if (end >= lx->len || lx->text[end] != '"')
		return mdl_error(lx, t, "unterminated string");
	t->kind = T_STR;
	t->text = lx->text + lx->pos + 1;
	t->len = end - lx->pos - 1;
	lx->pos = end + 1;
	return 0;
}

int mdl_next(struct mdl_lexer *lx, struct mdl_token *t)
{
	char c;

	skip_blank(lx);
	memset(t, 0, sizeof(*t));
	t->line = lx->line;
	t->col = (long)(lx->pos - lx->bol) + 1;
	if (lx->pos >= lx->len) {
		t->kind = T_EOF;
		t->text = "";
		return 0;
	}
	c = lx->text[lx->pos];
	t->text = lx->text + lx->pos;
	if (strchr("()=+-*", c) && c) {
		t->kind = (enum mdl_tok)c;
		t->len = 1;
		lx->pos++;
		return 0;
	}
	if (c == '"')
		return lex_string(lx, t);
	if (!word_char((unsigned char)c)) {
		t->len = 1;
		return mdl_error(lx, t, isprint((unsigned char)c) ?
				 "unexpected character '%c'" :
				 "unexpected byte 0x%02x",
				 (unsigned char)c);
	}
	while (lx->pos < lx->len && word_char((unsigned char)lx->text[lx->pos]))
		lx->pos++;
	t->len = (size_t)(lx->text + lx->pos - t->text);
	t->kind = classify(t->text, t->len);
	if (t->kind == T_BAD)
		return mdl_error(lx, t, "'%.*s' is not a keyword, a number or "
				 "a name", (int)(t->len > 40 ? 40 : t->len),
				 t->text);
	return 0;
}

int mdl_token_is(const struct mdl_token *t, const char *kw)
{
	return t->kind == T_KW && strlen(kw) == t->len &&
	       !memcmp(t->text, kw, t->len);
}
