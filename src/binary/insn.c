/*
 * What one instruction is, beyond the kind that ends a block: how it is
 * encoded, whether it transfers control, whether a sandbox may run it,
 * its RIP-relative operand. bprof (which runs blocks) and the L1 filter
 * (which asks about AVX-512 and FMA) read instructions through this.
 */
#include <string.h>

#include "zydis-int.h"

/* By mnemonic first: these stop or leave whatever their category. */
static enum lk_insn_system system_by_mnemonic(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return LK_SYSTEM_ENTERS_KERNEL;
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		return LK_SYSTEM_STOPS;
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XEND:
	case ZYDIS_MNEMONIC_XABORT:
		return LK_SYSTEM_TRANSACTIONAL;
	case ZYDIS_MNEMONIC_UMONITOR:
	case ZYDIS_MNEMONIC_UMWAIT:
	case ZYDIS_MNEMONIC_TPAUSE:
		return LK_SYSTEM_WAITS;
	default:
		return LK_SYSTEM_NONE;
	}
}

static enum lk_insn_system system_of(const ZydisDecodedInstruction *zi)
{
	enum lk_insn_system sys = system_by_mnemonic(zi->mnemonic);

	if (sys != LK_SYSTEM_NONE)
		return sys;
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return LK_SYSTEM_KERNEL;
	case ZYDIS_CATEGORY_IO:
	case ZYDIS_CATEGORY_IOSTRINGOP:
		return LK_SYSTEM_PORT_IO;
	default:
		break;
	}
	if (zi->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED)
		return LK_SYSTEM_PRIVILEGED;
	return LK_SYSTEM_NONE;
}

/* Jumps (the loop and jcxz family included), calls, returns. */
static int transfers_control(const ZydisDecodedInstruction *zi)
{
	if (binary_classify(zi, 1) == LK_INSN_CJUMP)
		return 1;
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return 1;
	default:
		return 0;
	}
}

static enum lk_insn_encoding encoding_of(const ZydisDecodedInstruction *zi)
{
	switch (zi->encoding) {
	case ZYDIS_INSTRUCTION_ENCODING_EVEX:
		return LK_ENCODING_EVEX;
	case ZYDIS_INSTRUCTION_ENCODING_MVEX:
		return LK_ENCODING_MVEX;
	case ZYDIS_INSTRUCTION_ENCODING_VEX:
		return LK_ENCODING_VEX;
	case ZYDIS_INSTRUCTION_ENCODING_XOP:
		return LK_ENCODING_XOP;
	default:
		return LK_ENCODING_LEGACY;
	}
}

/* The first memory operand based on RIP, if any: its disp32. */
static void rip_operand(const ZydisDecodedInstruction *zi,
			const ZydisDecodedOperand *ops,
			struct lk_insn_facts *out)
{
	for (unsigned i = 0; i < zi->operand_count; i++) {
		if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    ops[i].mem.base != ZYDIS_REGISTER_RIP)
			continue;
		if (zi->raw.disp.size != 32)
			LK_BUG("RIP-relative operand without a disp32");
		out->rip_relative = 1;
		out->disp_offset = zi->raw.disp.offset;
		out->disp = zi->raw.disp.value;
		return;
	}
}

int lk_insn_facts(const uint8_t *code, size_t len, struct lk_insn_facts *out)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;

	memset(out, 0, sizeof(*out));
	if (binary_decode(code, len, &zi, ops))
		return LK_EINPUT;
	out->mnemonic = ZydisMnemonicGetString(zi.mnemonic);
	out->len = zi.length;
	out->transfers_control = transfers_control(&zi);
	out->system = system_of(&zi);
	out->encoding = encoding_of(&zi);
	out->fma = zi.meta.isa_set == ZYDIS_ISA_SET_FMA ||
		   zi.meta.isa_set == ZYDIS_ISA_SET_FMA4;
	out->isa_set = ZydisISASetGetString(zi.meta.isa_set);
	rip_operand(&zi, ops, out);
	return 0;
}

int lk_insn_evex(const struct lk_insn *insn)
{
	struct lk_insn_facts f;

	return !lk_insn_facts(insn->bytes, insn->len, &f) &&
	       f.encoding == LK_ENCODING_EVEX;
}

int lk_insn_fma(const struct lk_insn *insn)
{
	struct lk_insn_facts f;

	return !lk_insn_facts(insn->bytes, insn->len, &f) && f.fma;
}
