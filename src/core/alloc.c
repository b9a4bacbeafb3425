/* Allocation wrappers: out-of-memory is the one place the library exits. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/core.h"

static LK_NORETURN void oom(size_t size)
{
	fprintf(stderr, "loopkit: fatal: out of memory (%zu bytes)\n", size);
	abort();
}

void *lk_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *lk_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *lk_realloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		oom(size);
	return q;
}

void *lk_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	return lk_realloc(p, n * size);
}

char *lk_strdup(const char *s)
{
	return lk_strndup(s, strlen(s));
}

char *lk_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = lk_malloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *lk_vasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		oom(strlen(fmt));
	return p;
}

char *lk_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = lk_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void lk_bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "loopkit: BUG: %s:%d: %s\n", file, line, what);
	abort();
}
