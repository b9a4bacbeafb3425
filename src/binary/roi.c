/*
 * The measured kernel of a benchmark: the function LK_MEASURE calls
 * between lk_roi_begin() and lk_roi_end() (rt/lkrt.h). The markers are
 * reached by direct calls: to themselves when the runtime is linked
 * statically (liblkrt.a), to their PLT entries when it is shared.
 */
#include <stdlib.h>
#include <string.h>

#include "elf-image.h"

struct roi {
	const struct elf_image *img;
	uint64_t begin, end;   /* the markers' addresses */
};

/* A quick byte scan before decoding: any e8 rel32 landing on target?
 * Most functions of a binary never call the marker. */
static int may_call(const uint8_t *code, uint64_t addr, uint64_t size,
		    uint64_t target)
{
	uint64_t i;

	for (i = 0; i + 5 <= size; i++) {
		int32_t rel;

		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, code + i + 1, 4);
		if (addr + i + 5 + (uint64_t)(int64_t)rel == target)
			return 1;
	}
	return 0;
}

static int calls(const struct lk_insn *insn, uint64_t target)
{
	return insn->kind == LK_INSN_CALL && insn->target == target;
}

/* A direct call to a named function outside the runtime (lk_, lk__). */
static const struct elf_sym *kernel_call(const struct roi *roi,
					 const struct lk_insn *insn)
{
	const struct elf_sym *s;

	if (insn->kind != LK_INSN_CALL)
		return NULL;
	s = elf_image_at(roi->img, insn->target);
	return s && strncmp(s->name, "lk_", 3) ? s : NULL;
}

/* In address order, from the call to lk_roi_begin to one to lk_roi_end. */
static const struct elf_sym *between(const struct roi *roi,
				     const struct lk_cfg *cfg, size_t from)
{
	size_t i;

	for (i = from; i < cfg->ninsns && !calls(&cfg->insns[i], roi->end);
	     i++) {
		const struct elf_sym *s = kernel_call(roi, &cfg->insns[i]);

		if (s)
			return s;
	}
	return NULL;
}

/* The compiler may lay the measured loop out elsewhere: walk the CFG
 * breadth first from the block after the lk_roi_begin call, not past
 * blocks that call lk_roi_end, and take the nearest kernel call. */
static const struct elf_sym *reachable(const struct roi *roi,
				       const struct lk_cfg *cfg, size_t from)
{
	const struct elf_sym *found = NULL;
	size_t *queue, head = 0, tail = 0, i;
	unsigned char *seen;
	long b0 = from < cfg->ninsns ? lk_cfg_find(cfg, cfg->insns[from].addr)
				     : -1;

	if (b0 < 0)
		return NULL;
	queue = lk_calloc(cfg->nblocks, sizeof(*queue));
	seen = lk_calloc(cfg->nblocks, 1);
	queue[tail++] = (size_t)b0;
	seen[b0] = 1;
	while (head < tail && !found) {
		const struct lk_block *b = &cfg->blocks[queue[head++]];
		int stop = 0;

		for (i = 0; i < b->ninsns && !found; i++) {
			const struct lk_insn *insn = &cfg->insns[b->first + i];

			stop |= calls(insn, roi->end);
			found = kernel_call(roi, insn);
		}
		for (i = 0; i < b->nsucc && !stop; i++)
			if (!seen[b->succ[i]]) {
				seen[b->succ[i]] = 1;
				queue[tail++] = b->succ[i];
			}
	}
	free(queue);
	free(seen);
	return found;
}

/* The kernel called by the first region of cfg, or NULL (inlined). */
static const struct elf_sym *find_kernel(const struct roi *roi,
					 const struct lk_cfg *cfg)
{
	const struct elf_sym *s;
	size_t i;

	for (i = 0; i < cfg->ninsns; i++)
		if (calls(&cfg->insns[i], roi->begin))
			break;
	s = between(roi, cfg, i + 1);
	return s ? s : reachable(roi, cfg, i + 1);
}

/* Decode sym if it calls lk_roi_begin: 1 with *cfg built, else 0. */
static int holder_cfg(const struct roi *roi, const struct elf_sym *sym,
		      struct lk_cfg *cfg)
{
	struct lk_function fn;
	struct lk_ctx quiet;
	const uint8_t *code;
	size_t i;

	lk_ctx_init(&quiet);
	if (elf_image_bytes(&quiet, roi->img, sym, &code) ||
	    !may_call(code, sym->addr, sym->size, roi->begin) ||
	    elf_image_function(&quiet, roi->img, sym, &fn) ||
	    lk_cfg_build(&quiet, lk_decoder_x86_64(), &fn, cfg))
		return 0;
	for (i = 0; i < cfg->ninsns; i++)
		if (calls(&cfg->insns[i], roi->begin))
			return 1;
	lk_cfg_release(cfg);
	return 0;
}

/* Where calls to the marker go: the function itself when the runtime is
 * linked statically, its PLT entry when it is a shared object. */
static uint64_t marker(const struct elf_image *img, const char *name)
{
	const struct elf_sym *s = elf_image_find(img, name);

	return s ? s->addr : elf_image_plt(img, name);
}

static int roi_markers(struct lk_ctx *ctx, struct roi *roi)
{
	roi->begin = marker(roi->img, "lk_roi_begin");
	roi->end = marker(roi->img, "lk_roi_end");
	if (!roi->begin || !roi->end)
		return lk_error(ctx, LK_ENOTFOUND,
				"%s: no lk_roi_begin/lk_roi_end in the symbol "
				"table (not an LK_MEASURE benchmark?); name "
				"the function with --function",
				roi->img->path);
	return 0;
}

/* Give out the kernel, or the holder itself when the kernel was inlined. */
static int pick(struct lk_ctx *ctx, const struct roi *roi,
		struct lk_cfg *holder, struct lk_function *out, int *inlined)
{
	const struct elf_sym *kernel = find_kernel(roi, holder);

	*inlined = !kernel;
	if (kernel)
		return elf_image_function(ctx, roi->img, kernel, out);
	*out = holder->fn;
	memset(&holder->fn, 0, sizeof(holder->fn));
	return 0;
}

int lk_elf_roi_function(struct lk_ctx *ctx, const char *binary,
			struct lk_function *out, int *inlined)
{
	struct elf_image img;
	struct roi roi = {&img, 0, 0};
	struct lk_cfg holder;
	size_t i;
	int ret = elf_image_open(ctx, binary, &img);

	if (ret)
		return ret;
	ret = roi_markers(ctx, &roi);
	if (ret)
		goto out;
	/* The first function (by address) that calls the marker; aliases
	 * share an address, so each address is looked at once. */
	for (i = 0; i < img.nsyms; i++)
		if ((!i || img.syms[i].addr != img.syms[i - 1].addr) &&
		    holder_cfg(&roi, &img.syms[i], &holder))
			break;
	if (i == img.nsyms) {
		ret = lk_error(ctx, LK_ENOTFOUND,
			       "%s: no function calls lk_roi_begin; name the "
			       "function with --function",
			       binary);
		goto out;
	}
	ret = pick(ctx, &roi, &holder, out, inlined);
	lk_cfg_release(&holder);
out:
	elf_image_close(&img);
	return ret;
}

/*
 * Where the binary's calls to the markers go: the function itself with
 * the runtime linked in, its PLT entry with the runtime shared (the
 * entry is in the binary, so the same load bias applies).
 */
int lk_elf_roi_markers(struct lk_ctx *ctx, const char *binary,
		       uint64_t *begin, uint64_t *end)
{
	static const char *const names[] = {"lk_roi_begin", "lk_roi_end"};
	uint64_t *addr[] = {begin, end};
	struct elf_image img;
	size_t i;
	int ret = elf_image_open(ctx, binary, &img);

	if (ret)
		return ret; /* the image is already released */
	for (i = 0; !ret && i < LK_ARRAY_SIZE(names); i++) {
		const struct elf_sym *sym = elf_image_find(&img, names[i]);

		*addr[i] = sym && sym->addr ? sym->addr
					    : elf_image_plt(&img, names[i]);
		if (!*addr[i])
			ret = lk_error(ctx, LK_ENOTFOUND, "%s: no %s (not an "
				       "LK_MEASURE benchmark?)", binary,
				       names[i]);
	}
	elf_image_close(&img);
	return ret;
}
