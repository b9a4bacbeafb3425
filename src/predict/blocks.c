/*
 * The blocks to predict, gathered from the store (the blocks stage's
 * kernels with their code) or from binaries, and deduplicated by the
 * hash of their AT&T text (the key predictions are stored under).
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
#include "predict-int.h"

void lk_block_set_release(struct lk_block_set *bs)
{
	size_t i;

	for (i = 0; i < bs->n; i++)
		free(bs->bytes[i]);
	free(bs->bytes);
	free(bs->blocks);
	lk_strv_release(&bs->owned);
	memset(bs, 0, sizeof(*bs));
}

/* The index of the block of that hash, bs->n when there is none. */
static size_t find_hash(const struct lk_block_set *bs, const char *hash)
{
	size_t i;

	for (i = 0; i < bs->n; i++)
		if (!strcmp(bs->blocks[i].hash, hash))
			break;
	return i;
}

/* The block's instructions, one line each, in one syntax. */
static char *block_text(const struct lk_cfg *cfg, const struct lk_block *b,
			int intel)
{
	struct lk_buf t = LK_BUF_INIT;
	size_t i;

	for (i = b->first; i < b->first + b->ninsns; i++)
		lk_buf_addf(&t, "%s\n", intel ? cfg->insns[i].intel
					      : cfg->insns[i].att);
	return lk_buf_detach(&t);
}

static const char *own(struct lk_block_set *bs, char *s)
{
	lk_strv_push_take(&bs->owned, s);
	return s;
}

static size_t add_block(struct lk_block_set *bs, const struct lk_cfg *cfg,
			const struct lk_block *b, size_t *added)
{
	char hash[LK_HASH_HEX];
	char *att = block_text(cfg, b, 0);
	struct lk_pblock *p;
	size_t off = (size_t)(b->start - cfg->fn.addr), at;

	lk_hash_buf(att, strlen(att), hash);
	if ((at = find_hash(bs, hash)) < bs->n) {
		free(att);
		return at;
	}
	LK_GROW(bs->blocks, bs->n + 1, bs->alloc);
	bs->bytes = lk_reallocarray(bs->bytes, bs->alloc, sizeof(*bs->bytes));
	p = &bs->blocks[bs->n];
	memset(p, 0, sizeof(*p));
	p->hash = own(bs, lk_strdup(hash));
	p->att = own(bs, att);
	p->intel = own(bs, block_text(cfg, b, 1));
	p->len = (size_t)(b->end - b->start);
	bs->bytes[bs->n] = lk_malloc(p->len ? p->len : 1);
	memcpy(bs->bytes[bs->n], cfg->fn.code + off, p->len);
	p->bytes = bs->bytes[bs->n];
	p->ninsns = b->ninsns;
	p->addr = b->start;
	if (added)
		(*added)++;
	return bs->n++;
}

size_t lk_block_set_add_block(struct lk_block_set *bs,
			      const struct lk_cfg *cfg, size_t block)
{
	return add_block(bs, cfg, &cfg->blocks[block], NULL);
}

static void add_cfg(struct lk_block_set *bs, const struct lk_cfg *cfg,
		    size_t *added)
{
	for (size_t i = 0; i < cfg->nblocks; i++)
		add_block(bs, cfg, &cfg->blocks[i], added);
}

int lk_block_set_add_binary(struct lk_ctx *ctx, struct lk_block_set *bs,
			    const char *binary, const char *function,
			    size_t *added)
{
	struct lk_function fn;
	struct lk_cfg cfg;
	int inlined = 0, ret;

	if (added)
		*added = 0;
	ret = function ? lk_elf_function(ctx, binary, function, &fn)
		       : lk_elf_roi_function(ctx, binary, &fn, &inlined);
	if (ret)
		return ret;
	ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &cfg);
	if (ret)
		return ret;
	add_cfg(bs, &cfg, added);
	lk_cfg_release(&cfg);
	return 0;
}

int lk_block_set_add_kernel(struct lk_ctx *ctx, struct lk_block_set *bs,
			    struct lk_store *s, const char *binary,
			    size_t *added)
{
	struct lk_cfg cfg;
	int ret;

	if (added)
		*added = 0;
	ret = lk_cfg_kernel(ctx, s, binary, &cfg, NULL);
	if (ret)
		return ret;
	add_cfg(bs, &cfg, added);
	lk_cfg_release(&cfg);
	return 0;
}
