/*
 * An instruction's operands with their actions (implicit ones too),
 * registers by their largest enclosing register, memory operands split
 * into base, index, scale and displacement, element types, and the
 * class of operation its mnemonic names: the operand-level model MDL's
 * extraction reads (doc/loopkit-mdl.md). Zydis stays behind this file.
 */
#include <string.h>

#include "zydis-int.h"

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int ends(const char *s, const char *p)
{
	size_t n = strlen(s), k = strlen(p);

	return n >= k && !strcmp(s + n - k, p);
}

static int starts_any(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (starts(s, *list))
			return 1;
	return 0;
}

/* The classes that are recognised by a prefix, tested in order. */
static const struct {
	enum lk_op_class op;
	const char *prefixes[16];
} by_prefix[] = {
	{LK_OPC_BRANCH, {"j", "call", "ret", "loop", NULL}},
	{LK_OPC_NOP, {"nop", "endbr", "prefetch", "pause", NULL}},
	{LK_OPC_LEA, {"lea", NULL}},
	{LK_OPC_FMA, {"fmadd", "fmsub", "fnmadd", "fnmsub", NULL}},
	{LK_OPC_COMPARE, {"cmp", "test", "ucomi", "comi", "pcmp", "ptest",
			  "fpclass", NULL}},
	{LK_OPC_CONVERT, {"cvt", "movzx", "movsx", "cdqe", "cqo", "cdq",
			  "pmovzx", "pmovsx", NULL}},
	{LK_OPC_BROADCAST, {"broadcast", "pbroadcast", "movddup",
			    "movsldup", "movshdup", NULL}},
	{LK_OPC_SHUFFLE, {"movhlps", "movlhps", "movmsk", NULL}},
	{LK_OPC_MOVE, {"mov", "lddqu", NULL}},
	{LK_OPC_HADD, {"hadd", "hsub", "phadd", "phsub", NULL}},
	{LK_OPC_ADD, {"add", "padd", "adc", NULL}},
	{LK_OPC_SUB, {"sub", "psub", "sbb", NULL}},
	{LK_OPC_MUL, {"mul", "pmul", "imul", NULL}},
	{LK_OPC_DIV, {"div", "idiv", "rcp", NULL}},
	{LK_OPC_SQRT, {"sqrt", "rsqrt", NULL}},
	{LK_OPC_MINMAX, {"min", "max", "pmin", "pmax", NULL}},
	{LK_OPC_LOGIC, {"and", "or", "xor", "pand", "por", "pxor", "not",
			"pternlog", NULL}},
	{LK_OPC_SHUFFLE, {"shuf", "unpck", "punpck", "perm", "blend",
			  "pblend", "extract", "insert", "palign", "pshuf",
			  "pslldq", "psrldq", NULL}},
	{LK_OPC_SHUFFLE, {"compress", "expand", "pextr", "pinsr", "align",
			  NULL}},
	{LK_OPC_INC, {"inc", NULL}},
	{LK_OPC_DEC, {"dec", NULL}},
	{LK_OPC_NEG, {"neg", NULL}},
};

static enum lk_op_class op_class(const char *m)
{
	size_t i;

	/* AVX forms: vaddpd is addpd; vpbroadcastq is pbroadcastq. */
	if (m[0] == 'v' && !starts(m, "verr") && !starts(m, "verw"))
		m++;
	for (i = 0; i < sizeof(by_prefix) / sizeof(by_prefix[0]); i++)
		if (starts_any(m, by_prefix[i].prefixes))
			return by_prefix[i].op;
	if (strstr(m, "broadcast"))
		return LK_OPC_BROADCAST;
	return LK_OPC_OTHER;
}

/* An ss/sd/sh floating-point form; packed-integer mnemonics (p..., vp...)
 * that end so (pminsd, vpmaxsd, vpabsd, vpdpbusd) are not scalar. */
static int scalar_form(const char *m, enum lk_op_class op)
{
	if (op == LK_OPC_COMPARE || op == LK_OPC_BRANCH)
		return 0;
	if (starts(m, "p") || starts(m, "vp"))
		return 0;
	return ends(m, "ss") || ends(m, "sd") || ends(m, "sh");
}

static unsigned canonical(ZydisRegister r)
{
	ZydisRegisterClass c = ZydisRegisterGetClass(r);

	switch (c) {
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
	case ZYDIS_REGCLASS_XMM:
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM:
		return (unsigned)ZydisRegisterGetLargestEnclosing(
			ZYDIS_MACHINE_MODE_LONG_64, r);
	default:
		return (unsigned)r;
	}
}

enum lk_reg_class lk_reg_class_of(unsigned reg)
{
	switch (ZydisRegisterGetClass((ZydisRegister)reg)) {
	case ZYDIS_REGCLASS_INVALID:
		return LK_REG_NONE;
	case ZYDIS_REGCLASS_GPR8:
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		return LK_REG_GPR;
	case ZYDIS_REGCLASS_XMM:
	case ZYDIS_REGCLASS_YMM:
	case ZYDIS_REGCLASS_ZMM:
		return LK_REG_VEC;
	case ZYDIS_REGCLASS_MASK:
		return LK_REG_MASK;
	case ZYDIS_REGCLASS_FLAGS:
		return LK_REG_FLAGS;
	case ZYDIS_REGCLASS_IP:
		return LK_REG_IP;
	default:
		return LK_REG_OTHER;
	}
}

const char *lk_reg_name(unsigned reg)
{
	const char *s;

	if (!reg)
		return "";
	s = ZydisRegisterGetString((ZydisRegister)reg);
	return s ? s : "";
}

static int is_fp(ZydisElementType t)
{
	return t == ZYDIS_ELEMENT_TYPE_FLOAT16 ||
	       t == ZYDIS_ELEMENT_TYPE_FLOAT32 ||
	       t == ZYDIS_ELEMENT_TYPE_FLOAT64 ||
	       t == ZYDIS_ELEMENT_TYPE_FLOAT80;
}

static void operand(const ZydisDecodedInstruction *zi,
		    const ZydisDecodedOperand *z, struct lk_operand *o)
{
	memset(o, 0, sizeof(*o));
	/* A conditional write (cmov's destination) keeps the old value
	 * when it does not happen: the old value is read. */
	o->read = !!(z->actions & (ZYDIS_OPERAND_ACTION_MASK_READ |
				   ZYDIS_OPERAND_ACTION_CONDWRITE));
	o->write = !!(z->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
	o->implicit = z->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
	o->bytes = z->size / 8;
	o->elem_bytes = z->element_size / 8 ? z->element_size / 8 : o->bytes;
	o->fp = is_fp(z->element_type);
	switch (z->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER:
		o->kind = LK_OPND_REG;
		o->reg = canonical(z->reg.value);
		o->rclass = lk_reg_class_of(o->reg);
		o->writemask = o->rclass == LK_REG_MASK &&
			       zi->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX &&
			       zi->avx.mask.mode != ZYDIS_MASK_MODE_DISABLED &&
			       z->reg.value == zi->avx.mask.reg &&
			       !(z->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
		break;
	case ZYDIS_OPERAND_TYPE_MEMORY:
		o->kind = LK_OPND_MEM;
		o->base = canonical(z->mem.base);
		o->index = canonical(z->mem.index);
		o->scale = z->mem.scale;
		o->disp = z->mem.disp.value;
		o->agen = z->mem.type == ZYDIS_MEMOP_TYPE_AGEN;
		o->vsib = z->mem.type == ZYDIS_MEMOP_TYPE_VSIB;
		break;
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		o->kind = LK_OPND_IMM;
		o->read = 1;
		o->imm = z->imm.is_signed ? z->imm.value.s :
					    (int64_t)z->imm.value.u;
		break;
	default:
		o->kind = 0;
		break;
	}
}

/* An EVEX instruction without masking still names k0 as its writemask:
 * no operand at all (a real mask, k1-k7, stays a read operand). */
static int no_writemask(const ZydisDecodedInstruction *zi,
			const ZydisDecodedOperand *z)
{
	return z->type == ZYDIS_OPERAND_TYPE_REGISTER &&
	       z->reg.value == ZYDIS_REGISTER_K0 &&
	       zi->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX &&
	       zi->avx.mask.mode == ZYDIS_MASK_MODE_DISABLED &&
	       !(z->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE);
}

int lk_insn_operands(const uint8_t *code, size_t len, struct lk_insn_ops *out)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	unsigned i;

	memset(out, 0, sizeof(*out));
	if (binary_decode(code, len, &zi, ops))
		return LK_EINPUT;
	out->mnemonic = ZydisMnemonicGetString(zi.mnemonic);
	out->op = op_class(out->mnemonic);
	out->scalar = scalar_form(out->mnemonic, out->op);
	for (i = 0; i < zi.operand_count && out->nops < LK_MAX_OPERANDS; i++) {
		if (no_writemask(&zi, &ops[i]))
			continue;
		operand(&zi, &ops[i], &out->ops[out->nops]);
		if (out->ops[out->nops].kind)
			out->nops++;
	}
	return 0;
}
