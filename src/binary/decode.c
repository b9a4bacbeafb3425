/*
 * The x86-64 decoder behind struct lk_decoder: Zydis 4 decodes, formats
 * (AT&T and Intel) and resolves branch targets. Zydis, unlike Debian's
 * Capstone 4, decodes the AVX-512 code gcc emits (FACTS.md, Decoders).
 */
#include <stdlib.h>
#include <string.h>

#include "zydis-int.h"

/* Hex in lower case and addresses unpadded, as objdump prints them. */
static void formatter_init(ZydisFormatter *f, ZydisFormatterStyle style)
{
	ZydisFormatterInit(f, style);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, 0);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE,
				  ZYDIS_PADDING_DISABLED);
}

static char *format(ZydisFormatterStyle style,
		    const ZydisDecodedInstruction *zi,
		    const ZydisDecodedOperand *ops, uint64_t addr)
{
	ZydisFormatter f;
	char text[256];

	formatter_init(&f, style);
	if (ZYAN_FAILED(ZydisFormatterFormatInstruction(
		    &f, zi, ops, zi->operand_count_visible, text, sizeof(text),
		    addr, ZYAN_NULL)))
		strcpy(text, "(unformattable)");
	return lk_strdup(text);
}

/* Instructions that stop or leave the function whatever their category. */
static int kind_by_mnemonic(ZydisMnemonic m, enum lk_insn_kind *kind)
{
	switch (m) {
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_INT3:
		*kind = LK_INSN_HALT;
		return 1;
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
		*kind = LK_INSN_SYSCALL;
		return 1;
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
		*kind = LK_INSN_RET;
		return 1;
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
		*kind = LK_INSN_CJUMP;
		return 1;
	default:
		return 0;
	}
}

int binary_decode(const uint8_t *code, size_t len,
		  ZydisDecodedInstruction *zi, ZydisDecodedOperand *ops)
{
	ZydisDecoder dec;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	return ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, code, len, zi, ops)) ?
		       -1 : 0;
}

enum lk_insn_kind binary_classify(const ZydisDecodedInstruction *zi,
				  int direct)
{
	enum lk_insn_kind kind;

	if (kind_by_mnemonic(zi->mnemonic, &kind))
		return kind;
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_UNCOND_BR:
		return direct ? LK_INSN_JUMP : LK_INSN_IJUMP;
	case ZYDIS_CATEGORY_COND_BR:
		return LK_INSN_CJUMP;
	case ZYDIS_CATEGORY_CALL:
		return direct ? LK_INSN_CALL : LK_INSN_ICALL;
	case ZYDIS_CATEGORY_RET:
		return LK_INSN_RET;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
		return LK_INSN_SYSCALL;
	default:
		return LK_INSN_PLAIN;
	}
}

/* A relative immediate first operand makes a branch direct. */
static int branch_target(const ZydisDecodedInstruction *zi,
			 const ZydisDecodedOperand *ops, uint64_t addr,
			 uint64_t *target)
{
	ZyanU64 abs;

	if (zi->operand_count_visible < 1 ||
	    ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    !ops[0].imm.is_relative)
		return 0;
	if (ZYAN_FAILED(ZydisCalcAbsoluteAddress(zi, &ops[0], addr, &abs)))
		return 0;
	*target = abs;
	return 1;
}

static int decode_x86_64(struct lk_ctx *ctx, const uint8_t *code, size_t len,
			 uint64_t addr, struct lk_insn *out)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	uint64_t target = 0;
	int direct;

	memset(out, 0, sizeof(*out));
	if (binary_decode(code, len, &zi, ops))
		return lk_error(ctx, LK_EINPUT,
				"0x%llx: undecodable instruction bytes",
				(unsigned long long)addr);
	direct = branch_target(&zi, ops, addr, &target);
	out->addr = addr;
	out->len = zi.length;
	memcpy(out->bytes, code, zi.length);
	out->kind = binary_classify(&zi, direct);
	/* Only jumps and calls carry a target; a relative operand on
	 * anything else (xbegin) does not change the flow we model. */
	if (direct &&
	    (out->kind == LK_INSN_JUMP || out->kind == LK_INSN_CJUMP ||
	     out->kind == LK_INSN_CALL)) {
		out->has_target = 1;
		out->target = target;
	}
	out->att = format(ZYDIS_FORMATTER_STYLE_ATT, &zi, ops, addr);
	out->intel = format(ZYDIS_FORMATTER_STYLE_INTEL, &zi, ops, addr);
	return 0;
}

static const struct lk_decoder x86_64 = {
	.arch = "x86-64",
	.decode = decode_x86_64,
};

const struct lk_decoder *lk_decoder_x86_64(void)
{
	return &x86_64;
}

void lk_insn_release(struct lk_insn *insn)
{
	if (!insn)
		return;
	free(insn->att);
	free(insn->intel);
	insn->att = insn->intel = NULL;
}
