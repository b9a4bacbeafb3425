/*
 * libFuzzer target: arbitrary bytes decoded as one function and split
 * into basic blocks. It must never crash, leak or hit undefined
 * behaviour; when it succeeds the blocks must tile the function and
 * every edge must name a block.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

/* run.sh builds with recoverable UBSan checks: make any report fatal. */
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

static void check_cfg(const struct lk_cfg *cfg)
{
	uint64_t at = cfg->fn.addr;
	size_t i, j, ninsns = 0;

	for (i = 0; i < cfg->nblocks; i++) {
		const struct lk_block *b = &cfg->blocks[i];

		if (b->start != at || b->end <= b->start || !b->ninsns ||
		    b->first != ninsns || lk_cfg_find(cfg, b->start) != (long)i)
			abort();
		for (j = 0; j < b->nsucc; j++)
			if (b->succ[j] >= cfg->nblocks)
				abort();
		ninsns += b->ninsns;
		at = b->end;
	}
	if (at != cfg->fn.addr + cfg->fn.size || ninsns != cfg->ninsns)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_buf out = LK_BUF_INIT;
	struct lk_function fn = {0};
	struct lk_cfg cfg;
	struct lk_ctx ctx;

	if (!size)
		return 0;
	lk_ctx_init(&ctx);
	fn.name = lk_strdup("fuzz");
	fn.addr = 0x401000;
	fn.size = size;
	fn.code = lk_malloc(size);
	memcpy(fn.code, data, size);
	if (lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg))
		return 0;
	check_cfg(&cfg);
	lk_cfg_json(&cfg, &out);
	lk_cfg_text_style(&cfg, 1, &out);
	lk_buf_release(&out);
	lk_cfg_release(&cfg);
	return 0;
}
