/*
 * bprof's view of a block's code: decode it (lk_insn_facts, the binary
 * module's decoder), refuse what cannot run in the sandbox, drop the
 * terminating control-flow instruction, find the RIP-relative operands;
 * then place and write the code image (calibration chain + the block
 * unrolled).
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
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
static const char *refusal(const struct lk_insn_facts *f)
{
	switch (f->system) {
	case LK_SYSTEM_ENTERS_KERNEL:
		return "enters the kernel";
	case LK_SYSTEM_STOPS:
		return "stops the program";
	case LK_SYSTEM_TRANSACTIONAL:
		return "is transactional memory (it branches)";
	case LK_SYSTEM_WAITS:
		return "waits for an event or a deadline";
	case LK_SYSTEM_KERNEL:
		return "enters or leaves the kernel";
	case LK_SYSTEM_PORT_IO:
		return "does port I/O";
	case LK_SYSTEM_PRIVILEGED:
		return "is privileged";
	default:
		return NULL;
	}
}

static int vec_need(const struct lk_insn_facts *f)
{
	switch (f->encoding) {
	case LK_ENCODING_EVEX:
	case LK_ENCODING_MVEX:
		return VEC_ZMM;
	case LK_ENCODING_VEX:
	case LK_ENCODING_XOP:
		return VEC_YMM;
	default:
		return VEC_SSE;
	}
}

static void note_rip(const struct lk_insn_facts *f, uint64_t addr,
		     struct bprof_block *out, struct bprof_insn *in)
{
	if (!f->rip_relative)
		return;
	in->rip_disp = 1;
	in->disp_off = (uint8_t)f->disp_offset;
	in->target = addr + in->off + in->len + (uint64_t)f->disp;
	if (!out->has_rip || in->target < out->rip_lo)
		out->rip_lo = in->target;
	if (!out->has_rip || in->target > out->rip_hi)
		out->rip_hi = in->target;
	out->has_rip = 1;
}

/* 0: one more instruction; 1: the end (the terminator, dropped); -1:
 * refused, *reason set. */
static int check_one(const struct lk_pblock *b, size_t off,
		     struct bprof_block *out, char **reason)
{
	struct lk_insn_facts f;
	struct bprof_insn *in;
	const char *why;

	if (lk_insn_facts(b->bytes + off, b->len - off, &f)) {
		*reason = lk_asprintf("undecodable bytes at +0x%zx", off);
		return -1;
	}
	if ((why = refusal(&f))) {
		*reason = lk_asprintf("%s at +0x%zx %s: it cannot run in the "
				      "sandbox",
				      f.mnemonic, off, why);
		return -1;
	}
	if (f.transfers_control) {
		if (off + f.len == b->len) {
			out->dropped = lk_strdup(f.mnemonic);
			return 1;
		}
		*reason = lk_asprintf("control flow inside the block: %s at "
				      "+0x%zx",
				      f.mnemonic, off);
		return -1;
	}
	in = &out->insns[out->ninsns++];
	in->off = off;
	in->len = (uint8_t)f.len;
	note_rip(&f, b->addr, out, in);
	if (vec_need(&f) > out->vec)
		out->vec = vec_need(&f);
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
