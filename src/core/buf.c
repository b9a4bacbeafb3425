/* Growable strings and string vectors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/core.h"

void lk_buf_init(struct lk_buf *b)
{
	b->buf = NULL;
	b->len = b->alloc = 0;
}

void lk_buf_release(struct lk_buf *b)
{
	free(b->buf);
	lk_buf_init(b);
}

void lk_buf_reset(struct lk_buf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

static void reserve(struct lk_buf *b, size_t extra)
{
	LK_GROW(b->buf, b->len + extra + 1, b->alloc);
}

void lk_buf_add(struct lk_buf *b, const void *data, size_t len)
{
	reserve(b, len);
	memcpy(b->buf + b->len, data, len);
	b->len += len;
	b->buf[b->len] = '\0';
}

void lk_buf_adds(struct lk_buf *b, const char *s)
{
	lk_buf_add(b, s, strlen(s));
}

void lk_buf_addch(struct lk_buf *b, int c)
{
	char ch = (char)c;

	lk_buf_add(b, &ch, 1);
}

void lk_buf_vaddf(struct lk_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		LK_BUG("bad format");
	reserve(b, (size_t)n);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void lk_buf_addf(struct lk_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lk_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void lk_buf_add_json_str(struct lk_buf *b, const char *s)
{
	const unsigned char *p;

	lk_buf_addch(b, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': lk_buf_adds(b, "\\\""); break;
		case '\\': lk_buf_adds(b, "\\\\"); break;
		case '\n': lk_buf_adds(b, "\\n"); break;
		case '\r': lk_buf_adds(b, "\\r"); break;
		case '\t': lk_buf_adds(b, "\\t"); break;
		default:
			if (*p < 0x20)
				lk_buf_addf(b, "\\u%04x", *p);
			else
				lk_buf_addch(b, *p);
		}
	}
	lk_buf_addch(b, '"');
}

void lk_buf_add_csv_field(struct lk_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\n\r") && s[0] != ' ' && *s) {
		lk_buf_adds(b, s);
		return;
	}
	lk_buf_addch(b, '"');
	for (; *s; s++) {
		if (*s == '"')
			lk_buf_addch(b, '"');
		lk_buf_addch(b, *s);
	}
	lk_buf_addch(b, '"');
}

const char *lk_buf_str(const struct lk_buf *b)
{
	return b->buf ? b->buf : "";
}

char *lk_buf_detach(struct lk_buf *b)
{
	char *s = b->buf ? b->buf : lk_strdup("");

	lk_buf_init(b);
	return s;
}

void lk_strv_push_take(struct lk_strv *sv, char *s)
{
	LK_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void lk_strv_push(struct lk_strv *sv, const char *s)
{
	lk_strv_push_take(sv, lk_strdup(s));
}

void lk_strv_pushf(struct lk_strv *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lk_strv_push_take(sv, lk_vasprintf(fmt, ap));
	va_end(ap);
}

void lk_strv_release(struct lk_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

int lk_strv_split(struct lk_ctx *ctx, struct lk_strv *sv, const char *s)
{
	struct lk_buf word = LK_BUF_INIT;
	int in_word = 0;
	char quote = 0;

	for (; *s; s++) {
		if (quote) {
			if (*s == quote)
				quote = 0;
			else if (*s == '\\' && quote == '"' && s[1])
				lk_buf_addch(&word, *++s);
			else
				lk_buf_addch(&word, *s);
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
			in_word = 1;
		} else if (*s == '\\' && s[1]) {
			lk_buf_addch(&word, *++s);
			in_word = 1;
		} else if (*s == ' ' || *s == '\t' || *s == '\n') {
			if (in_word)
				lk_strv_push_take(sv, lk_buf_detach(&word));
			in_word = 0;
		} else {
			lk_buf_addch(&word, *s);
			in_word = 1;
		}
	}
	if (quote) {
		lk_buf_release(&word);
		return lk_error(ctx, LK_EINPUT, "unbalanced %c quote", quote);
	}
	if (in_word)
		lk_strv_push_take(sv, lk_buf_detach(&word));
	lk_buf_release(&word);
	return 0;
}

char *lk_strv_join(const struct lk_strv *sv, const char *sep)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	for (i = 0; i < sv->n; i++) {
		if (i)
			lk_buf_adds(&b, sep);
		lk_buf_adds(&b, sv->v[i]);
	}
	return lk_buf_detach(&b);
}

int lk_parse_long(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return LK_EINPUT;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end)
		return LK_EINPUT;
	*out = v;
	return 0;
}

int lk_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return LK_EINPUT;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end)
		return LK_EINPUT;
	*out = v;
	return 0;
}
