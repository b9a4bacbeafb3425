/*
 * libFuzzer target: the static .lkmem parser on arbitrary bytes, then
 * every rendering of what it accepted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/memprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

/* run.sh builds with recoverable UBSan checks: make any report fatal. */
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

static void render(const struct lk_mem_static *s)
{
	struct lk_buf out = LK_BUF_INIT;
	struct lk_mem_totals t;
	size_t i;

	for (i = 0; i < s->nfuncs; i++) {
		lk_mem_func_totals(&s->funcs[i], &t);
		if (t.numeric == !!t.sym_loads)
			abort();
		lk_mem_totals_release(&t);
	}
	lk_mem_static_readable(s, &out);
	lk_mem_static_json(s, &out);
	lk_buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so ASan sees any read past the length. */
	char *text = malloc(size ? size : 1);
	struct lk_mem_static s = {0};
	struct lk_ctx ctx;
	int ret;

	memcpy(text, data, size);
	lk_ctx_init(&ctx);
	ret = lk_mem_static_parse(&ctx, "fuzz", text, size, &s);
	if (ret && (ret != LK_EINPUT || strncmp(ctx.msg, "fuzz:", 5)))
		abort();
	if (!ret)
		render(&s);
	lk_mem_static_release(&s);
	free(text);
	return 0;
}
