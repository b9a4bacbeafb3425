/*
 * libFuzzer target: the text and binary trace readers on arbitrary
 * bytes, and the call tree and profile of whatever they accept. Nothing
 * may crash, leak or hit undefined behaviour; errors must be LK_EINPUT
 * and name the input.
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

/* Whatever was read must be consistent: sorted ids, names in range,
 * and a tree whose self times add up. */
static void check_trace(struct lk_ctx *ctx, const struct lk_trace *t)
{
	struct lk_call_node *nodes;
	struct lk_func_profile *prof;
	struct lk_buf out = LK_BUF_INIT;
	size_t i, n;

	for (i = 0; i < t->ncalls; i++)
		if (t->calls[i].func >= t->names.n ||
		    (i && t->calls[i].id <= t->calls[i - 1].id))
			abort();
	if (lk_calltree_build(ctx, t, &nodes)) {
		if (ctx->code != LK_EINPUT)
			abort();
		return;
	}
	for (i = 0; i < t->ncalls; i++)
		if (nodes[i].self > nodes[i].inclusive)
			abort();
	if (lk_profile_build(ctx, t, nodes, &prof, &n))
		abort();
	lk_profile_flat(prof, n, &out);
	lk_profile_json(prof, n, &out);
	lk_calltree_print(t, nodes, 50, &out);
	lk_trace_text(t, &out);
	lk_buf_release(&out);
	free(prof);
	free(nodes);
}

static void check_error(const struct lk_ctx *ctx, int ret)
{
	if (ret && (ret != LK_EINPUT || strncmp(ctx->msg, "fuzz:", 5)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so ASan sees any read past the length. */
	char *bytes = malloc(size ? size : 1);
	struct lk_buf warnings = LK_BUF_INIT;
	struct lk_trace t;
	struct lk_ctx ctx;
	int ret;

	memcpy(bytes, data, size);
	lk_ctx_init(&ctx);
	ret = lk_trace_parse_text(&ctx, "fuzz", bytes, size, size & 1, &t,
				  &warnings);
	check_error(&ctx, ret);
	if (!ret)
		check_trace(&ctx, &t);
	lk_trace_release(&t);
	lk_ctx_clear(&ctx);
	ret = lk_trace_read_binary(&ctx, "fuzz", bytes, size, &t);
	check_error(&ctx, ret);
	if (!ret)
		check_trace(&ctx, &t);
	lk_trace_release(&t);
	lk_buf_release(&warnings);
	free(bytes);
	return 0;
}
