/*
 * Basic blocks and CFG edges of one function. Leaders are the function's
 * start, every direct jump target inside it that is an instruction start,
 * and the instruction after any that ends a block (every kind but plain).
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"

static int decode_all(struct lk_ctx *ctx, const struct lk_decoder *dec,
		      struct lk_cfg *cfg)
{
	const struct lk_function *fn = &cfg->fn;
	size_t off = 0, alloc = 0;

	while (off < fn->size) {
		struct lk_insn insn;
		int ret = dec->decode(ctx, fn->code + off, fn->size - off,
				      fn->addr + off, &insn);

		if (ret)
			return lk_error(ctx, ret, "%s+0x%zx: %s", fn->name, off,
					"undecodable instruction bytes");
		LK_GROW(cfg->insns, cfg->ninsns + 1, alloc);
		cfg->insns[cfg->ninsns++] = insn;
		off += insn.len;
	}
	return 0;
}

/* Index of the instruction starting at addr, or -1. */
static long insn_at(const struct lk_cfg *cfg, uint64_t addr)
{
	size_t lo = 0, hi = cfg->ninsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cfg->insns[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cfg->ninsns && cfg->insns[lo].addr == addr ? (long)lo : -1;
}

static int jumps(const struct lk_insn *insn)
{
	return insn->has_target &&
	       (insn->kind == LK_INSN_JUMP || insn->kind == LK_INSN_CJUMP);
}

static unsigned char *find_leaders(const struct lk_cfg *cfg)
{
	unsigned char *leader = lk_calloc(cfg->ninsns + 1, 1);
	size_t i;

	leader[0] = 1;
	for (i = 0; i < cfg->ninsns; i++) {
		const struct lk_insn *insn = &cfg->insns[i];
		long t;

		if (insn->kind != LK_INSN_PLAIN)
			leader[i + 1] = 1;
		if (jumps(insn) && (t = insn_at(cfg, insn->target)) >= 0)
			leader[t] = 1;
	}
	return leader;
}

static void split(struct lk_cfg *cfg, const unsigned char *leader)
{
	size_t i, alloc = 0;

	for (i = 0; i < cfg->ninsns; i++) {
		struct lk_block *b;

		if (leader[i]) {
			LK_GROW(cfg->blocks, cfg->nblocks + 1, alloc);
			b = &cfg->blocks[cfg->nblocks++];
			memset(b, 0, sizeof(*b));
			b->start = cfg->insns[i].addr;
			b->first = i;
		}
		b = &cfg->blocks[cfg->nblocks - 1];
		b->ninsns++;
		b->end = cfg->insns[i].addr + cfg->insns[i].len;
	}
}

static void add_succ(struct lk_block *b, size_t to)
{
	size_t i;

	for (i = 0; i < b->nsucc; i++)
		if (b->succ[i] == to)
			return;
	b->succ = lk_reallocarray(b->succ, b->nsucc + 1, sizeof(*b->succ));
	b->succ[b->nsucc++] = to;
}

/* An edge to the block starting at addr; none there: control leaves. */
static void edge_to(const struct lk_cfg *cfg, struct lk_block *b,
		    uint64_t addr)
{
	long to = lk_cfg_find(cfg, addr);

	if (to >= 0 && cfg->blocks[to].start == addr)
		add_succ(b, (size_t)to);
	else
		b->exits = 1;
}

static void link_block(const struct lk_cfg *cfg, struct lk_block *b)
{
	const struct lk_insn *last = &cfg->insns[b->first + b->ninsns - 1];

	switch (last->kind) {
	case LK_INSN_JUMP:
		edge_to(cfg, b, last->target);
		break;
	case LK_INSN_CJUMP:
		if (last->has_target)
			edge_to(cfg, b, last->target);
		else
			b->exits = 1;
		edge_to(cfg, b, b->end);
		break;
	case LK_INSN_IJUMP:
	case LK_INSN_RET:
		b->exits = 1;
		break;
	case LK_INSN_HALT:
		break;
	default: /* plain, calls, syscalls: fall through */
		edge_to(cfg, b, b->end);
		break;
	}
}

int lk_cfg_build(struct lk_ctx *ctx, const struct lk_decoder *dec,
		 struct lk_function *fn, struct lk_cfg *out)
{
	unsigned char *leader;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fn = *fn;
	memset(fn, 0, sizeof(*fn));
	ret = decode_all(ctx, dec, out);
	if (ret) {
		lk_cfg_release(out);
		return ret;
	}
	leader = find_leaders(out);
	split(out, leader);
	free(leader);
	for (i = 0; i < out->nblocks; i++)
		link_block(out, &out->blocks[i]);
	return 0;
}

void lk_cfg_release(struct lk_cfg *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->ninsns; i++)
		lk_insn_release(&cfg->insns[i]);
	for (i = 0; i < cfg->nblocks; i++)
		free(cfg->blocks[i].succ);
	free(cfg->insns);
	free(cfg->blocks);
	lk_function_release(&cfg->fn);
	memset(cfg, 0, sizeof(*cfg));
}

long lk_cfg_find(const struct lk_cfg *cfg, uint64_t addr)
{
	size_t lo = 0, hi = cfg->nblocks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cfg->blocks[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cfg->nblocks && cfg->blocks[lo].start <= addr ? (long)lo
								   : -1;
}

static void json_strings(struct lk_buf *out, const struct lk_cfg *cfg,
			 const struct lk_block *b, int intel)
{
	size_t i;

	lk_buf_addch(out, '[');
	for (i = 0; i < b->ninsns; i++) {
		const struct lk_insn *insn = &cfg->insns[b->first + i];

		if (i)
			lk_buf_adds(out, ", ");
		lk_buf_add_json_str(out, intel ? insn->intel : insn->att);
	}
	lk_buf_addch(out, ']');
}

static void json_block(struct lk_buf *out, const struct lk_cfg *cfg,
		       const struct lk_block *b)
{
	size_t i;

	lk_buf_addf(out, "{\"start\": \"0x%llx\", \"end\": \"0x%llx\", ",
		    (unsigned long long)b->start, (unsigned long long)b->end);
	lk_buf_adds(out, "\"addresses\": [");
	for (i = 0; i < b->ninsns; i++)
		lk_buf_addf(out, "%s\"0x%llx\"", i ? ", " : "",
			    (unsigned long long)cfg->insns[b->first + i].addr);
	lk_buf_adds(out, "], \"instructions\": ");
	json_strings(out, cfg, b, 0);
	lk_buf_adds(out, ", \"intel\": ");
	json_strings(out, cfg, b, 1);
	lk_buf_adds(out, ", \"successors\": [");
	for (i = 0; i < b->nsucc; i++)
		lk_buf_addf(out, "%s\"0x%llx\"", i ? ", " : "",
			    (unsigned long long)cfg->blocks[b->succ[i]].start);
	lk_buf_addf(out, "], \"exits\": %s}", b->exits ? "true" : "false");
}

void lk_cfg_json(const struct lk_cfg *cfg, struct lk_buf *out)
{
	size_t i;

	lk_buf_addch(out, '[');
	for (i = 0; i < cfg->nblocks; i++) {
		lk_buf_adds(out, i ? ",\n " : "");
		json_block(out, cfg, &cfg->blocks[i]);
	}
	lk_buf_adds(out, "]\n");
}

static void text_header(struct lk_buf *out, const struct lk_cfg *cfg,
			size_t n)
{
	const struct lk_block *b = &cfg->blocks[n];
	size_t i;

	lk_buf_addf(out, "block %zu [0x%llx, 0x%llx)", n,
		    (unsigned long long)b->start, (unsigned long long)b->end);
	for (i = 0; i < b->nsucc; i++)
		lk_buf_addf(out, "%s%zu", i ? ", " : " -> ", b->succ[i]);
	if (b->exits)
		lk_buf_adds(out, b->nsucc ? ", exit" : " -> exit");
	lk_buf_addch(out, '\n');
}

void lk_cfg_text_style(const struct lk_cfg *cfg, int intel,
		       struct lk_buf *out)
{
	size_t n, i;

	for (n = 0; n < cfg->nblocks; n++) {
		const struct lk_block *b = &cfg->blocks[n];

		text_header(out, cfg, n);
		for (i = 0; i < b->ninsns; i++) {
			const struct lk_insn *insn = &cfg->insns[b->first + i];

			lk_buf_addf(out, "  %llx:  %s\n",
				    (unsigned long long)insn->addr,
				    intel ? insn->intel : insn->att);
		}
	}
}

void lk_cfg_text(const struct lk_cfg *cfg, struct lk_buf *out)
{
	lk_cfg_text_style(cfg, 0, out);
}
