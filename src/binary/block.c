/*
 * A block's text and identity, and the instruction-set questions the
 * later stages ask about it (valgrind cannot run AVX-512, crawls on FMA).
 */
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

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

static int decode(const struct lk_insn *insn, ZydisDecodedInstruction *zi)
{
	ZydisDecoder dec;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
		&dec, NULL, insn->bytes, insn->len, zi));
}

int lk_insn_evex(const struct lk_insn *insn)
{
	ZydisDecodedInstruction zi;

	return decode(insn, &zi) &&
	       zi.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;
}

int lk_insn_fma(const struct lk_insn *insn)
{
	ZydisDecodedInstruction zi;

	return decode(insn, &zi) && (zi.meta.isa_set == ZYDIS_ISA_SET_FMA ||
				     zi.meta.isa_set == ZYDIS_ISA_SET_FMA4);
}
