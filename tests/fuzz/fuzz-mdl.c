/*
 * libFuzzer target for MDL text v1: any bytes give a description or one
 * LK_EINPUT message; a parsed description's canonical text parses again
 * and prints to itself (print(parse(print(x))) == print(x)), and its
 * JSON and canonical body render without fault.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/mdl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_buf once = LK_BUF_INIT, twice = LK_BUF_INIT;
	struct lk_buf json = LK_BUF_INIT, body = LK_BUF_INIT;
	struct lk_mdl m, again;
	struct lk_ctx ctx;

	if (size > 65536)
		return 0;
	lk_ctx_init(&ctx);
	if (lk_mdl_parse(&ctx, "fuzz", (const char *)data, size, &m)) {
		if (ctx.code != LK_EINPUT || strncmp(ctx.msg, "fuzz:", 5))
			abort();
		return 0;
	}
	lk_mdl_print(&m, &once);
	lk_mdl_json(&m, &json);
	lk_mdl_canonical_body(&m, &body);
	if (lk_mdl_parse(&ctx, "again", once.buf, once.len, &again))
		abort();
	lk_mdl_print(&again, &twice);
	if (once.len != twice.len || memcmp(once.buf, twice.buf, once.len))
		abort();
	lk_mdl_release(&again);
	lk_mdl_release(&m);
	lk_buf_release(&once);
	lk_buf_release(&twice);
	lk_buf_release(&json);
	lk_buf_release(&body);
	return 0;
}
