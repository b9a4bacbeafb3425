/* Error context and logging. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "loopkit/core.h"

void lk_ctx_init(struct lk_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->log = stderr;
}

void lk_ctx_clear(struct lk_ctx *ctx)
{
	ctx->code = 0;
	ctx->msg[0] = '\0';
}

static int set_error(struct lk_ctx *ctx, int code, const char *prefix,
		     const char *fmt, va_list ap)
{
	size_t off = 0;

	if (!ctx)
		return code;
	ctx->code = code;
	if (prefix) {
		off = strlen(prefix);
		if (off >= sizeof(ctx->msg))
			off = sizeof(ctx->msg) - 1;
		memcpy(ctx->msg, prefix, off);
	}
	vsnprintf(ctx->msg + off, sizeof(ctx->msg) - off, fmt, ap);
	return code;
}

int lk_error(struct lk_ctx *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(ctx, code, NULL, fmt, ap);
	va_end(ap);
	return code;
}

int lk_error_at(struct lk_ctx *ctx, int code, const char *file, long line,
		const char *fmt, ...)
{
	char prefix[512];
	va_list ap;

	if (line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%ld: ", file, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", file);
	va_start(ap, fmt);
	set_error(ctx, code, prefix, fmt, ap);
	va_end(ap);
	return code;
}

int lk_error_errno(struct lk_ctx *ctx, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	set_error(ctx, LK_ESYS, NULL, fmt, ap);
	va_end(ap);
	if (ctx) {
		len = strlen(ctx->msg);
		snprintf(ctx->msg + len, sizeof(ctx->msg) - len, ": %s",
			 strerror(saved));
	}
	errno = saved;
	return LK_ESYS;
}

static void vlog(struct lk_ctx *ctx, const char *level, const char *fmt,
		 va_list ap)
{
	FILE *out = ctx && ctx->log ? ctx->log : stderr;

	fprintf(out, "loopkit: %s", level);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
}

void lk_warn(struct lk_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(ctx, "warning: ", fmt, ap);
	va_end(ap);
}

void lk_info(struct lk_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx || ctx->verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(ctx, "", fmt, ap);
	va_end(ap);
}

void lk_debug(struct lk_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx || ctx->verbose < 2)
		return;
	va_start(ap, fmt);
	vlog(ctx, "debug: ", fmt, ap);
	va_end(ap);
}
