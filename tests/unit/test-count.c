/*
 * count: the choice of blocks to measure and the derivation of the rest,
 * on CFGs built by hand (one instruction per block), and on random CFGs
 * walked from the entry: the derived counts must equal the walked ones.
 * The tracer itself is checked end to end (t0610) against callgrind.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/count.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

TestSuite(count, .init = setup);

#define MAXB 64

/* One block per entry of kinds[]; succ lists end at -1. */
static void make_cfg(struct lk_cfg *cfg, size_t n,
		     const enum lk_insn_kind *kinds, int succ[][3])
{
	size_t b, s;

	memset(cfg, 0, sizeof(*cfg));
	cfg->fn.name = "f";
	cfg->fn.addr = 0x1000;
	cfg->insns = calloc(n, sizeof(*cfg->insns));
	cfg->blocks = calloc(n, sizeof(*cfg->blocks));
	cfg->ninsns = cfg->nblocks = n;
	for (b = 0; b < n; b++) {
		struct lk_block *blk = &cfg->blocks[b];

		cfg->insns[b].addr = blk->start = 0x1000 + 4 * b;
		cfg->insns[b].kind = kinds[b];
		blk->end = blk->start + 4;
		blk->first = b;
		blk->ninsns = 1;
		blk->succ = calloc(3, sizeof(*blk->succ));
		for (s = 0; s < 3 && succ[b][s] >= 0; s++)
			blk->succ[blk->nsucc++] = (size_t)succ[b][s];
		blk->exits = kinds[b] == LK_INSN_RET ||
			     kinds[b] == LK_INSN_IJUMP;
	}
}

static void free_cfg(struct lk_cfg *cfg)
{
	size_t b;

	for (b = 0; b < cfg->nblocks; b++)
		free(cfg->blocks[b].succ);
	free(cfg->blocks);
	free(cfg->insns);
}

/* Measured counts in, all counts out; compare with truth. */
static int derive_check(const struct lk_cfg *cfg, unsigned flags,
			const uint64_t *truth)
{
	unsigned char measured[MAXB];
	uint64_t counts[MAXB];
	size_t b;
	int ret;

	lk_count_plan(cfg, flags, measured);
	for (b = 0; b < cfg->nblocks; b++)
		counts[b] = measured[b] ? truth[b] : 12345;
	ret = lk_count_derive(&ctx, cfg, flags, measured, counts);
	if (ret)
		return ret;
	for (b = 0; b < cfg->nblocks; b++)
		cr_expect_eq(counts[b], truth[b], "block %zu: %llu, not %llu",
			     b, (unsigned long long)counts[b],
			     (unsigned long long)truth[b]);
	return 0;
}

/* The shape of tests/data/count/branchy.c: an if and an inner loop in
 * an outer loop. Four blocks of seven: the inner body (a self loop
 * block of the outer loop. */
Test(count, if_in_nested_loop)
{
	enum lk_insn_kind k[] = {LK_INSN_PLAIN, LK_INSN_CJUMP, LK_INSN_JUMP,
				 LK_INSN_PLAIN, LK_INSN_CJUMP, LK_INSN_CJUMP,
				 LK_INSN_RET};
	int succ[][3] = {{1, -1}, {2, 3, -1}, {3, -1}, {4, -1},
			 {4, 5, -1}, {1, 6, -1}, {-1}};
	uint64_t truth[] = {1, 100, 50, 100, 1000, 100, 1};
	unsigned char measured[7];
	struct lk_cfg cfg;

	make_cfg(&cfg, 7, k, succ);
	cr_expect_eq(lk_count_plan(&cfg, LK_COUNT_BALANCED, measured), 4);
	cr_expect(measured[4], "the self loop cannot be derived");
	cr_expect_eq(derive_check(&cfg, LK_COUNT_BALANCED, truth), 0);
	cr_expect_eq(lk_count_plan(&cfg, 0, measured), 4);
	cr_expect_eq(derive_check(&cfg, 0, truth), 0);
	free_cfg(&cfg);
}

/* A straight chain needs one measurement; calls split it when the
 * function may be on the stack at the region's edges. */
Test(count, chain_and_calls)
{
	enum lk_insn_kind k[] = {LK_INSN_PLAIN, LK_INSN_CALL, LK_INSN_PLAIN,
				 LK_INSN_RET};
	int succ[][3] = {{1, -1}, {2, -1}, {3, -1}, {-1}};
	uint64_t truth[] = {3, 3, 3, 3}, unbalanced[] = {0, 0, 1, 1};
	unsigned char measured[4];
	struct lk_cfg cfg;

	make_cfg(&cfg, 4, k, succ);
	cr_expect_eq(lk_count_plan(&cfg, LK_COUNT_BALANCED, measured), 1);
	cr_expect_eq(derive_check(&cfg, LK_COUNT_BALANCED, truth), 0);
	/* The region began inside the call: the fall-through ran once, the
	 * blocks before it not at all. */
	cr_expect_eq(lk_count_plan(&cfg, 0, measured), 2);
	cr_expect_eq(derive_check(&cfg, 0, unbalanced), 0);
	free_cfg(&cfg);
}

/* A jump table may enter any block: nothing follows from in-edges. */
Test(count, indirect_jump)
{
	enum lk_insn_kind k[] = {LK_INSN_IJUMP, LK_INSN_JUMP, LK_INSN_PLAIN,
				 LK_INSN_RET};
	int succ[][3] = {{-1}, {3, -1}, {3, -1}, {-1}};
	uint64_t truth[] = {5, 2, 3, 5};
	struct lk_cfg cfg;

	make_cfg(&cfg, 4, k, succ);
	cr_expect_eq(derive_check(&cfg, LK_COUNT_BALANCED, truth), 0);
	free_cfg(&cfg);
}

Test(count, contradiction_and_gaps)
{
	enum lk_insn_kind k[] = {LK_INSN_PLAIN, LK_INSN_RET};
	int succ[][3] = {{1, -1}, {-1}};
	unsigned char all[] = {1, 1}, none[] = {0, 0};
	uint64_t counts[] = {5, 3};
	struct lk_cfg cfg;

	make_cfg(&cfg, 2, k, succ);
	cr_expect_eq(lk_count_derive(&ctx, &cfg, 0, all, counts),
		     LK_EINTERNAL);
	cr_expect(strstr(ctx.msg, "conservation"), "%s", ctx.msg);
	cr_expect_eq(lk_count_derive(&ctx, &cfg, 0, none, counts),
		     LK_EINTERNAL);
	cr_expect(strstr(ctx.msg, "do not follow"), "%s", ctx.msg);
	free_cfg(&cfg);
}

/* Random CFGs: walk from the entry to a ret a few times (balanced calls),
 * count, and check that the derived counts match. */
static int walk(const struct lk_cfg *cfg, uint64_t *truth, unsigned *seed)
{
	size_t b = 0, steps;

	for (steps = 0; steps < 10000; steps++) {
		const struct lk_block *blk = &cfg->blocks[b];

		truth[b]++;
		if (!blk->nsucc)
			return 1;
		b = blk->succ[rand_r(seed) % blk->nsucc];
	}
	return 0;
}

static void random_cfg(struct lk_cfg *cfg, size_t n, unsigned *seed)
{
	enum lk_insn_kind k[MAXB];
	int succ[MAXB][3];
	size_t b;

	for (b = 0; b < n; b++) {
		int r = rand_r(seed) % 6;

		succ[b][0] = succ[b][1] = succ[b][2] = -1;
		if (b == n - 1 || r == 0) {
			k[b] = LK_INSN_RET;
			continue;
		}
		k[b] = r == 1 ? LK_INSN_CALL : r == 2 ? LK_INSN_JUMP
						      : LK_INSN_CJUMP;
		succ[b][0] = k[b] == LK_INSN_JUMP ? rand_r(seed) % (int)n
						  : (int)b + 1;
		if (k[b] == LK_INSN_CJUMP) {
			succ[b][1] = rand_r(seed) % (int)n;
			if (succ[b][1] == succ[b][0])
				succ[b][1] = -1;
		}
	}
	make_cfg(cfg, n, k, succ);
}

Test(count, random_cfgs)
{
	unsigned seed = 42;
	int round, checked = 0;

	for (round = 0; round < 300; round++) {
		uint64_t truth[MAXB] = {0};
		struct lk_cfg cfg;
		int call, ok = 1;

		random_cfg(&cfg, 2 + (size_t)rand_r(&seed) % 30, &seed);
		for (call = 0; ok && call < 3; call++)
			ok = walk(&cfg, truth, &seed);
		if (ok) {
			cr_assert_eq(derive_check(&cfg, LK_COUNT_BALANCED,
						  truth), 0, "round %d: %s",
				     round, ctx.msg);
			cr_assert_eq(derive_check(&cfg, 0, truth), 0,
				     "round %d: %s", round, ctx.msg);
			checked++;
		}
		free_cfg(&cfg);
	}
	cr_expect_gt(checked, 100);
}
