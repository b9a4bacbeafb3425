/*
 * A kernel read back from the store: the function the blocks stage
 * stored for a binary, its code put together again from its blocks'
 * bytes and decoded (no ELF read, no search for the region's kernel).
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
#include "loopkit/store.h"

/* The function's code from its blocks, or NULL when a block has no code
 * (stored before schema 7) or the blocks do not tile the function. */
static uint8_t *reassemble(const struct lk_bb_function_row *f,
			   const struct lk_bb_block_row *b, size_t n)
{
	uint64_t at = f->addr;
	uint8_t *code;
	size_t i;

	if (!n || !f->size)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!b[i].code || b[i].start != at || b[i].end <= b[i].start ||
		    b[i].code_len != b[i].end - b[i].start)
			return NULL;
		at = b[i].end;
	}
	if (at != f->addr + f->size)
		return NULL;
	code = lk_malloc(f->size);
	for (i = 0; i < n; i++)
		memcpy(code + (b[i].start - f->addr), b[i].code,
		       b[i].code_len);
	return code;
}

int lk_cfg_read_stored(struct lk_ctx *ctx, struct lk_store *s,
		       const char *binary_hash, struct lk_cfg *out)
{
	struct lk_bb_function_row f;
	struct lk_bb_block_row *rows = NULL;
	struct lk_function fn = {0};
	size_t n = 0;
	int64_t id;
	int ret = lk_store_bb_function_find(ctx, s, binary_hash, NULL, &id);

	if (ret <= 0)
		return ret;
	ret = lk_store_bb_function_get(ctx, s, id, &f);
	if (ret <= 0)
		return ret;
	ret = lk_store_bb_blocks_get(ctx, s, id, &rows, &n);
	if (!ret)
		fn.code = reassemble(&f, rows, n);
	if (fn.code) {
		fn.name = f.function;
		f.function = NULL;
		fn.addr = f.addr;
		fn.size = f.size;
		ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, out);
		if (!ret)
			ret = 1;
	}
	lk_bb_block_rows_free(rows, n);
	lk_bb_function_row_release(&f);
	return ret;
}

int lk_cfg_kernel(struct lk_ctx *ctx, struct lk_store *s, const char *binary,
		  struct lk_cfg *out, int *from_store)
{
	char hash[LK_HASH_HEX];
	struct lk_function fn;
	struct lk_ctx quiet;
	int inlined = 0, ret;

	if (from_store)
		*from_store = 0;
	lk_ctx_init(&quiet);
	/* A binary that cannot be read fails below, in the ELF reader's
	 * words, as it did before the store held code. */
	if (s && !lk_binary_hash(&quiet, binary, hash)) {
		ret = lk_cfg_read_stored(ctx, s, hash, out);
		if (ret < 0)
			return ret;
		if (ret) {
			if (from_store)
				*from_store = 1;
			/* its data is the binary's (lk_elf_read) */
			out->fn.binary = lk_strdup(binary);
			return 0;
		}
	}
	ret = lk_elf_roi_function(ctx, binary, &fn, &inlined);
	if (!ret)
		ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, out);
	return ret;
}
