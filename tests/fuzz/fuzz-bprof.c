/*
 * libFuzzer target: bprof's check and code image on arbitrary bytes (the
 * first 8 are the block's link address, the rest its machine code). It
 * must never crash, leak or hit undefined behaviour. An accepted block's
 * instructions must tile what is kept; its image must fit; and in the
 * first and last copy every RIP-relative operand must still designate the
 * target it had at the link address. bprof-code.c is compiled in here
 * (run.sh links the core and binary sources only).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/predict/bprof-code.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

/* Re-decode copy i's RIP-relative instructions where the image puts
 * them: each must reach its original target. */
static void check_copy(const struct bprof_block *blk,
		       const struct bprof_image *img, const uint8_t *image,
		       unsigned i)
{
	uint64_t at = img->blk_base + (uint64_t)i * blk->len;
	const uint8_t *code = image + (at - img->code_addr);
	struct lk_insn_facts f;
	size_t k;

	for (k = 0; k < blk->ninsns; k++) {
		const struct bprof_insn *in = &blk->insns[k];
		uint64_t end = at + in->off + in->len;

		if (!in->rip_disp)
			continue;
		if (lk_insn_facts(code + in->off, in->len, &f) ||
		    !f.rip_relative || end + (uint64_t)f.disp != in->target)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_pblock b = {.hash = "f", .att = "", .intel = ""};
	struct lk_bprof_opts opts;
	struct bprof_block blk;
	struct bprof_image img;
	uint8_t *image;
	char *reason;
	size_t k, off = 0;

	if (size < 8)
		return 0;
	memcpy(&b.addr, data, 8);
	b.bytes = data + 8;
	b.len = size - 8;
	/* bprof.c's defaults (it is not linked here) */
	memset(&opts, 0, sizeof(opts));
	opts.unroll1 = 100;
	opts.unroll2 = 200;
	opts.value = 0x12345600;
	if (bprof_block_check(&b, &blk, &reason)) {
		if (!reason || !*reason)
			abort();
		free(reason);
		return 0;
	}
	for (k = 0; k < blk.ninsns; k++) {
		if (blk.insns[k].off != off)
			abort();
		off += blk.insns[k].len;
	}
	if (off != blk.len || !blk.len || blk.len > b.len)
		abort();
	if (bprof_image_plan(&blk, &opts, 0x7f0000000000ull, 0x40000, &img,
			     &reason)) {
		free(reason);
		bprof_block_release(&blk);
		return 0;
	}
	if (img.unroll1 >= img.unroll2 ||
	    img.blk_base + (uint64_t)img.unroll2 * blk.len + 14 >
		img.code_addr + img.size)
		abort();
	image = malloc(img.size);
	bprof_image_write(&blk, &img, 0x7f0000000000ull, image);
	check_copy(&blk, &img, image, 0);
	check_copy(&blk, &img, image, img.unroll2 - 1);
	free(image);
	bprof_block_release(&blk);
	return 0;
}
