/*
 * A block's text and identity: the AT&T text every stage keys a block
 * by, its hash, its Intel text and its successors.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"

static char *block_text(const struct lk_cfg *cfg, size_t block, int intel)
{
	const struct lk_block *b = &cfg->blocks[block];
	struct lk_buf text = LK_BUF_INIT;
	size_t i;

	for (i = b->first; i < b->first + b->ninsns; i++) {
		lk_buf_adds(&text, intel ? cfg->insns[i].intel
					 : cfg->insns[i].att);
		lk_buf_addch(&text, '\n');
	}
	if (!text.buf)
		return lk_strdup("");
	return lk_buf_detach(&text);
}

char *lk_block_att(const struct lk_cfg *cfg, size_t block)
{
	return block_text(cfg, block, 0);
}

char *lk_block_intel(const struct lk_cfg *cfg, size_t block)
{
	return block_text(cfg, block, 1);
}

char *lk_block_hash(const struct lk_cfg *cfg, size_t block)
{
	char *att = lk_block_att(cfg, block);
	char hex[LK_HASH_HEX];

	lk_hash_buf(att, strlen(att), hex);
	free(att);
	return lk_strdup(hex);
}

char *lk_block_succ(const struct lk_cfg *cfg, size_t block)
{
	const struct lk_block *b = &cfg->blocks[block];
	struct lk_buf succ = LK_BUF_INIT;
	size_t i;

	for (i = 0; i < b->nsucc; i++)
		lk_buf_addf(&succ, "%s%zu", i ? " " : "", b->succ[i]);
	if (!succ.buf)
		return lk_strdup("");
	return lk_buf_detach(&succ);
}
