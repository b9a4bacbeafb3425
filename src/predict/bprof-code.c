/*
 * bprof's view of a block's code: decode it with Zydis, refuse what
 * cannot run in the sandbox, drop the terminating control-flow
 * instruction, find the RIP-relative operands; then place and write the
 * code image (calibration chain + the block unrolled).
 */
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "bprof-int.h"

#define PAGE 4096ull
#define MIB (1ull << 20)
#define TRAILER_LEN 14	     /* jmp *0(%rip); .quad back */
#define BLOCK_CODE_MAX 16384 /* unrolled bytes; beyond, scale U down */
#define USER_TOP 0x7ffffffff000ull
#define DEFAULT_CODE_ADDR 0x100000000ull

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* Instructions the sandbox cannot run: a reason, or NULL. */
static const char *refusal(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return "enters the kernel";
	case ZYDIS_MNEMONIC_HLT:
	case ZYDIS_MNEMONIC_UD0:
	case ZYDIS_MNEMONIC_UD1:
	case ZYDIS_MNEMONIC_UD2:
		return "stops the program";
	case ZYDIS_MNEMONIC_XBEGIN:
	case ZYDIS_MNEMONIC_XEND:
	case ZYDIS_MNEMONIC_XABORT:
		return "is transactional memory (it branches)";
	case ZYDIS_MNEMONIC_UMONITOR:
	case ZYDIS_MNEMONIC_UMWAIT:
	case ZYDIS_MNEMONIC_TPAUSE:
		return "waits for an event or a deadline";
	default:
		break;
	}
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return "enters or leaves the kernel";
	case ZYDIS_CATEGORY_IO:
	case ZYDIS_CATEGORY_IOSTRINGOP:
		return "does port I/O";
	default:
		break;
	}
	if (zi->attributes & ZYDIS_ATTRIB_IS_PRIVILEGED)
		return "is privileged";
	return NULL;
}

static int is_control_flow(const ZydisDecodedInstruction *zi)
{
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_LOOP:
	case ZYDIS_MNEMONIC_LOOPE:
	case ZYDIS_MNEMONIC_LOOPNE:
	case ZYDIS_MNEMONIC_JCXZ:
	case ZYDIS_MNEMONIC_JECXZ:
	case ZYDIS_MNEMONIC_JRCXZ:
		return 1;
	default:
		break;
	}
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

static int vec_need(const ZydisDecodedInstruction *zi)
{
	switch (zi->encoding) {
	case ZYDIS_INSTRUCTION_ENCODING_EVEX:
	case ZYDIS_INSTRUCTION_ENCODING_MVEX:
		return VEC_ZMM;
	case ZYDIS_INSTRUCTION_ENCODING_VEX:
	case ZYDIS_INSTRUCTION_ENCODING_XOP:
		return VEC_YMM;
	default:
		return VEC_SSE;
	}
}

static void note_rip(const ZydisDecodedInstruction *zi,
		     const ZydisDecodedOperand *ops, uint64_t addr,
		     struct bprof_block *out, struct bprof_insn *in)
{
	unsigned i;

	for (i = 0; i < zi->operand_count; i++) {
		if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY ||
		    ops[i].mem.base != ZYDIS_REGISTER_RIP)
			continue;
		if (zi->raw.disp.size != 32)
			LK_BUG("RIP-relative operand without a disp32");
		in->rip_disp = 1;
		in->disp_off = zi->raw.disp.offset;
		in->target =
		    addr + in->off + in->len + (uint64_t)zi->raw.disp.value;
		if (!out->has_rip || in->target < out->rip_lo)
			out->rip_lo = in->target;
		if (!out->has_rip || in->target > out->rip_hi)
			out->rip_hi = in->target;
		out->has_rip = 1;
		return;
	}
}

/* 0: one more instruction; 1: the end (the terminator, dropped); -1:
 * refused, *reason set. */
static int check_one(const struct lk_pblock *b, size_t off,
		     struct bprof_block *out, char **reason)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	ZydisDecoder dec;
	struct bprof_insn *in;
	const char *why, *name;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	if (ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, b->bytes + off,
					       b->len - off, &zi, ops))) {
		*reason = lk_asprintf("undecodable bytes at +0x%zx", off);
		return -1;
	}
	name = ZydisMnemonicGetString(zi.mnemonic);
	if ((why = refusal(&zi))) {
		*reason = lk_asprintf("%s at +0x%zx %s: it cannot run in the "
				      "sandbox",
				      name, off, why);
		return -1;
	}
	if (is_control_flow(&zi)) {
		if (off + zi.length == b->len) {
			out->dropped = lk_strdup(name);
			return 1;
		}
		*reason = lk_asprintf("control flow inside the block: %s at "
				      "+0x%zx",
				      name, off);
		return -1;
	}
	in = &out->insns[out->ninsns++];
	in->off = off;
	in->len = zi.length;
	note_rip(&zi, ops, b->addr, out, in);
	if (vec_need(&zi) > out->vec)
		out->vec = vec_need(&zi);
	return 0;
}

int bprof_block_check(const struct lk_pblock *b, struct bprof_block *out,
		      char **reason)
{
	size_t off = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	*reason = NULL;
	if (!b->bytes || !b->len) {
		*reason = lk_strdup("the block has no machine code");
		return 1;
	}
	out->bytes = b->bytes;
	out->insns = lk_calloc(b->len, sizeof(*out->insns));
	while (off < b->len) {
		ret = check_one(b, off, out, reason);
		if (ret)
			break;
		off += out->insns[out->ninsns - 1].len;
	}
	out->len = off;
	if (ret >= 0 && !out->len) {
		*reason = lk_asprintf("only its terminating %s, which is "
				      "dropped: nothing is left to time",
				      out->dropped);
		bprof_block_release(out);
		return 2;
	}
	if (*reason) {
		bprof_block_release(out);
		return 1;
	}
	return 0;
}

void bprof_block_release(struct bprof_block *blk)
{
	free(blk->insns);
	free(blk->dropped);
	memset(blk, 0, sizeof(*blk));
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static void plan_unroll(const struct bprof_block *blk,
			const struct lk_bprof_opts *opts,
			struct bprof_image *img)
{
	img->unroll1 = opts->unroll1;
	img->unroll2 = opts->unroll2;
	/* The unrolled code stays within the L1 instruction cache. */
	if (blk->len * img->unroll2 > BLOCK_CODE_MAX) {
		img->unroll2 = BLOCK_CODE_MAX / blk->len;
		if (img->unroll2 < 4)
			img->unroll2 = 4;
		img->unroll1 = (unsigned)((uint64_t)img->unroll2 *
					  opts->unroll1 / opts->unroll2);
		if (img->unroll1 < 1)
			img->unroll1 = 1;
		if (img->unroll1 >= img->unroll2)
			img->unroll1 = img->unroll2 / 2;
	}
}

int bprof_image_plan(const struct bprof_block *blk,
		     const struct lk_bprof_opts *opts, uint64_t sandbox,
		     size_t sandbox_size, struct bprof_image *img,
		     char **reason)
{
	uint64_t cal = align_up(CAL_LONG * 4 + TRAILER_LEN, PAGE);
	uint64_t value_page = opts->value & ~(PAGE - 1);

	memset(img, 0, sizeof(*img));
	plan_unroll(blk, opts, img);
	img->size = cal + align_up(blk->len * img->unroll2 + TRAILER_LEN, PAGE);
	/* RIP-relative operands keep their link-time targets: the image
	 * goes just past the highest one, within reach of all. */
	img->code_addr = blk->has_rip ? align_up(blk->rip_hi + 1, MIB) + MIB
				      : DEFAULT_CODE_ADDR;
	if (overlaps(img->code_addr, img->size, value_page, PAGE))
		img->code_addr += align_up(img->size, MIB) + MIB;
	*reason = NULL;
	if (blk->has_rip &&
	    img->code_addr + img->size - blk->rip_lo >= (1ull << 31))
		*reason = lk_asprintf("RIP-relative targets 0x%llx..0x%llx "
				      "span too much to reach them all",
				      (unsigned long long)blk->rip_lo,
				      (unsigned long long)blk->rip_hi);
	else if (blk->has_rip && overlaps(blk->rip_lo & ~(PAGE - 1),
					  align_up(blk->rip_hi + 1, PAGE) -
					      (blk->rip_lo & ~(PAGE - 1)),
					  sandbox, sandbox_size))
		*reason = lk_asprintf("RIP-relative targets 0x%llx..0x%llx "
				      "fall in the sandbox's own pages",
				      (unsigned long long)blk->rip_lo,
				      (unsigned long long)blk->rip_hi);
	else if (img->code_addr + img->size > USER_TOP ||
		 overlaps(img->code_addr, img->size, sandbox, sandbox_size))
		*reason = lk_asprintf("no room for the code near its "
				      "RIP-relative targets (0x%llx)",
				      (unsigned long long)blk->rip_hi);
	else if (overlaps(value_page, PAGE, sandbox, sandbox_size))
		*reason = lk_asprintf("the register value 0x%llx falls in "
				      "the sandbox's own pages",
				      (unsigned long long)opts->value);
	if (*reason)
		return 1;
	img->blk_base = img->code_addr + cal;
	img->entries[RUN_CAL1] = img->code_addr + (CAL_LONG - CAL_SHORT) * 4;
	img->entries[RUN_CAL2] = img->code_addr;
	img->entries[RUN_BLK1] =
	    img->blk_base + (uint64_t)(img->unroll2 - img->unroll1) * blk->len;
	img->entries[RUN_BLK2] = img->blk_base;
	return 0;
}

static void write_trailer(uint8_t *p, uint64_t back)
{
	static const uint8_t jmp[6] = {0xff, 0x25, 0, 0, 0, 0};

	memcpy(p, jmp, sizeof(jmp));
	memcpy(p + sizeof(jmp), &back, sizeof(back));
}

/* Copy i of the block, its RIP-relative displacements re-aimed at the
 * targets the original had. */
static void write_copy(const struct bprof_block *blk,
		       const struct bprof_image *img, unsigned i, uint8_t *dst)
{
	uint64_t at = img->blk_base + (uint64_t)i * blk->len;
	size_t k;

	memcpy(dst, blk->bytes, blk->len);
	for (k = 0; k < blk->ninsns; k++) {
		const struct bprof_insn *in = &blk->insns[k];
		int32_t disp;

		if (!in->rip_disp)
			continue;
		disp =
		    (int32_t)(int64_t)(in->target - (at + in->off + in->len));
		memcpy(dst + in->off + in->disp_off, &disp, sizeof(disp));
	}
}

void bprof_image_write(const struct bprof_block *blk,
		       const struct bprof_image *img, uint64_t back,
		       uint8_t *dst)
{
	static const uint8_t imul[4] = {0x48, 0x0f, 0xaf, 0xc0};
	uint8_t *b = dst + (img->blk_base - img->code_addr);
	unsigned i;

	memset(dst, 0xcc, img->size); /* int3: SIGTRAP if ever reached */
	for (i = 0; i < CAL_LONG; i++)
		memcpy(dst + 4 * i, imul, sizeof(imul));
	write_trailer(dst + 4 * CAL_LONG, back);
	for (i = 0; i < img->unroll2; i++)
		write_copy(blk, img, i, b + (size_t)i * blk->len);
	write_trailer(b + (size_t)img->unroll2 * blk->len, back);
}
