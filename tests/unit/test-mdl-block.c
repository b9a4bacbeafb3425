/*
 * mdl on one basic block (src/mdl/block.c), what the predict tool 'mdl'
 * runs: the block's ISA class from its instructions (moves, zeroing and
 * scalar forms do not widen it), a single-block loop extracted on its
 * own bytes while any other block is refused with the reason, and the
 * prediction per block iteration (per canonical iteration x unroll)
 * from a database row, or the reason when the class has no database.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/mdl.h"

TestSuite(mdl_block);

#define ADDR 0x401000

/* movsd (%rsi,%rax,8),%xmm0; mulsd %xmm2,%xmm0; addsd (%rdx,%rax,8),%xmm0;
 * movsd %xmm0,(%rdi,%rax,8); add $1,%rax; cmp %rcx,%rax; jne (start) */
static const uint8_t triad[] = {
	0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x59, 0xc2, 0xf2, 0x0f,
	0x58, 0x04, 0xc2, 0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0x83, 0xc0,
	0x01, 0x48, 0x39, 0xc8, 0x75, 0xe4,
};

/* movsd (%rsi),%xmm0; mulsd %xmm2,%xmm0; addsd (%rdx),%xmm0; movsd
 * %xmm0,(%rdi); movsd 8(%rsi),%xmm1; mulsd %xmm2,%xmm1; addsd
 * 8(%rdx),%xmm1; movsd %xmm1,8(%rdi); add $16 to %rsi, %rdx, %rdi; cmp
 * %rcx,%rdi; jne (start): unroll 2 */
static const uint8_t triad_x2[] = {
	0xf2, 0x0f, 0x10, 0x06, 0xf2, 0x0f, 0x59, 0xc2, 0xf2, 0x0f, 0x58,
	0x02, 0xf2, 0x0f, 0x11, 0x07, 0xf2, 0x0f, 0x10, 0x4e, 0x08, 0xf2,
	0x0f, 0x59, 0xca, 0xf2, 0x0f, 0x58, 0x4a, 0x08, 0xf2, 0x0f, 0x11,
	0x4f, 0x08, 0x48, 0x83, 0xc6, 0x10, 0x48, 0x83, 0xc2, 0x10, 0x48,
	0x83, 0xc7, 0x10, 0x48, 0x39, 0xcf, 0x75, 0xcc,
};

/* movupd (%rsi),%xmm0; mulpd %xmm2,%xmm0; addpd (%rdx),%xmm0; movupd
 * %xmm0,(%rdi); add $16 x3; cmp %rcx,%rdi; jne (start) */
static const uint8_t triad_sse[] = {
	0x66, 0x0f, 0x10, 0x06, 0x66, 0x0f, 0x59, 0xc2, 0x66, 0x0f, 0x58,
	0x02, 0x66, 0x0f, 0x11, 0x07, 0x48, 0x83, 0xc6, 0x10, 0x48, 0x83,
	0xc2, 0x10, 0x48, 0x83, 0xc7, 0x10, 0x48, 0x39, 0xcf, 0x75, 0xdf,
};

/* vmovupd (%rsi,%rax),%ymm0; vaddpd (%rdx,%rax),%ymm0,%ymm0; vmovupd
 * %ymm0,(%rdi,%rax); add $32,%rax; cmp %rcx,%rax; jne (start) */
static const uint8_t sum_ymm[] = {
	0xc5, 0xfd, 0x10, 0x04, 0x06, 0xc5, 0xfd, 0x58, 0x04, 0x02, 0xc5,
	0xfd, 0x11, 0x04, 0x07, 0x48, 0x83, 0xc0, 0x20, 0x48, 0x39, 0xc8,
	0x75, 0xe8,
};

/* vmovupd (%rsi,%rax),%zmm0; vfmadd213pd (%rdx,%rax),%zmm2,%zmm0;
 * vmovupd %zmm0,(%rdi,%rax); add $64,%rax; cmp %rcx,%rax; jne (start) */
static const uint8_t triad_zmm[] = {
	0x62, 0xf1, 0xfd, 0x48, 0x10, 0x04, 0x06, 0x62, 0xf2, 0xed, 0x48,
	0xa8, 0x04, 0x02, 0x62, 0xf1, 0xfd, 0x48, 0x11, 0x04, 0x07, 0x48,
	0x83, 0xc0, 0x40, 0x48, 0x39, 0xc8, 0x75, 0xe2,
};

/* pxor %xmm1,%xmm1; movsd (%rsi,%rax,8),%xmm0; movapd %xmm0,%xmm2;
 * addsd %xmm2,%xmm1; movsd %xmm1,(%rdi,%rax,8); add $1,%rax; cmp
 * %rcx,%rax; jne (start): scalar code as gcc writes it */
static const uint8_t scalar_copies[] = {
	0x66, 0x0f, 0xef, 0xc9, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0x66, 0x0f,
	0x28, 0xd0, 0xf2, 0x0f, 0x58, 0xca, 0xf2, 0x0f, 0x11, 0x0c, 0xc7,
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x39, 0xc8, 0x75, 0xe1,
};

/* add $1,%rax; cmp %rcx,%rax; jne (start): a loop with no µkernel */
static const uint8_t count_only[] = {
	0x48, 0x83, 0xc0, 0x01, 0x48, 0x39, 0xc8, 0x75, 0xf7,
};

/* mov (%rsi,%rax,8),%rax ... an indirect access:
 * mov (%rsi),%rax; movsd (%rdx,%rax,8),%xmm0; movsd %xmm0,(%rdi);
 * add $8,%rsi; add $8,%rdi; cmp %rcx,%rdi; jne (start) */
static const uint8_t indirect[] = {
	0x48, 0x8b, 0x06, 0xf2, 0x0f, 0x10, 0x04, 0xc2, 0xf2, 0x0f, 0x11,
	0x07, 0x48, 0x83, 0xc6, 0x08, 0x48, 0x83, 0xc7, 0x08, 0x48, 0x39,
	0xcf, 0x75, 0xe7,
};

static const char *class_of(const uint8_t *code, size_t len)
{
	return lk_mdl_block_class(code, len)->name;
}

Test(mdl_block, class_from_the_widest_packed_access_or_arithmetic)
{
	cr_assert_str_eq(class_of(triad, sizeof(triad)), "scalar");
	cr_assert_str_eq(class_of(scalar_copies, sizeof(scalar_copies)),
			 "scalar");
	cr_assert_str_eq(class_of(count_only, sizeof(count_only)), "scalar");
	cr_assert_str_eq(class_of(triad_sse, sizeof(triad_sse)), "sse");
	cr_assert_str_eq(class_of(sum_ymm, sizeof(sum_ymm)), "avx2");
	cr_assert_str_eq(class_of(triad_zmm, sizeof(triad_zmm)), "avx512");
	/* Undecodable bytes count for nothing. */
	cr_assert_str_eq(class_of((const uint8_t *)"\x06", 1), "scalar");
}

static void extract(const uint8_t *code, size_t len, uint64_t addr,
		    struct lk_mdl_extraction *x)
{
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_block_extract(&ctx, code, len, addr, x), 0, "%s",
		     ctx.msg);
}

static const char not_a_loop[] =
	"not a single-block loop: MDL predicts innermost loop bodies";

Test(mdl_block, a_single_block_loop_is_extracted_on_its_own)
{
	struct lk_mdl_extraction x;

	extract(triad, sizeof(triad), ADDR, &x);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_assert_eq(x.loop, ADDR);
	cr_assert_eq(x.unroll, 1);
	lk_mdl_extraction_release(&x);
	extract(triad_x2, sizeof(triad_x2), ADDR, &x);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_assert_eq(x.unroll, 2);
	lk_mdl_extraction_release(&x);
	extract(indirect, sizeof(indirect), ADDR, &x);
	cr_assert(x.refused);
	cr_assert(!strncmp(x.reason, "indirect access", 15), "%s", x.reason);
	lk_mdl_extraction_release(&x);
}

Test(mdl_block, other_blocks_are_refused_with_the_reason)
{
	struct lk_mdl_extraction x;
	struct lk_ctx ctx;

	/* Without its jump; the jump going elsewhere (the block placed
	 * one byte further); a jump into its middle splits it. */
	extract(triad, sizeof(triad) - 2, ADDR, &x);
	cr_assert(x.refused);
	cr_assert_str_eq(x.reason, not_a_loop);
	lk_mdl_extraction_release(&x);
	extract(triad + 1, sizeof(triad) - 1, ADDR + 1, &x);
	cr_assert(x.refused);
	lk_mdl_extraction_release(&x);
	extract(count_only + 4, sizeof(count_only) - 4, ADDR + 4, &x);
	cr_assert(x.refused);
	cr_assert_str_eq(x.reason, not_a_loop);
	lk_mdl_extraction_release(&x);
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_block_extract(&ctx, (const uint8_t *)"\x06", 1,
					  ADDR, &x), LK_EINPUT);
	cr_assert_neq(ctx.msg[0], 0);
}

/* A scalar database of two seeds at L1: one load stream; load, load,
 * store with an add and a mul (the triad itself). */
static struct lk_mdl_seed_row seeds[] = {
	{"L1S0", "multi-stream", "", {1, 0, 1, 0, 0}},
	{"T", "triad", "", {2.0 / 3, 1.0 / 3, 3, 1, 1}},
};
static struct lk_mdl_perf_row perf[] = {
	{"L1S0", "L1", 1, 0.5, "cycles/iter", "tsc-calibrated", 8, 1, 0, 0, 1,
	 ""},
	{"T", "L1", 1, 1.25, "cycles/iter", "tsc-calibrated", 8, 1, 0, 0, 1,
	 ""},
};

static void scalar_dbs(struct lk_mdl_dbs *d)
{
	memset(d, 0, sizeof(*d));
	d->dir = "store";
	d->has[LK_MDL_ISA_SCALAR] = 1;
	d->db[LK_MDL_ISA_SCALAR] = (struct lk_mdl_db_row){
		1, "0123456789abcdef", "m", "scalar", "L1", "", 0, 0, 0,
		seeds, 2, perf, 2};
}

static void predict(const struct lk_mdl_dbs *d, const uint8_t *code,
		    size_t len, enum lk_mdl_level level,
		    struct lk_mdl_block_prediction *p)
{
	struct lk_mdl_predict_opts o = {LK_MDL_COMBINE_JOINT, {8, 1, NULL}};
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_block_predict(&ctx, d, code, len, ADDR, level, &o,
					  p), 0, "%s", ctx.msg);
}

Test(mdl_block, predicts_per_block_iteration)
{
	struct lk_mdl_block_prediction p;
	struct lk_mdl_dbs d;

	scalar_dbs(&d);
	predict(&d, triad, sizeof(triad), LK_MDL_L1, &p);
	cr_assert(p.ok, "%s", p.reason);
	cr_assert_str_eq(p.isa, "scalar");
	cr_assert_float_eq(p.value, 1.25, 1e-12, "%.17g", p.value);
	cr_assert(strstr(p.trace, "seed T scale 1"), "%s", p.trace);
	cr_assert(strstr(p.mdl, "MDL 1\n"), "%s", p.mdl);
	lk_mdl_block_prediction_release(&p);
	/* Two canonical iterations per execution of the block. */
	predict(&d, triad_x2, sizeof(triad_x2), LK_MDL_L1, &p);
	cr_assert(p.ok, "%s", p.reason);
	cr_assert_eq(p.unroll, 2);
	cr_assert_float_eq(p.canonical, 1.25, 1e-12);
	cr_assert_float_eq(p.value, 2.5, 1e-12, "%.17g", p.value);
	lk_mdl_block_prediction_release(&p);
}

Test(mdl_block, unsupported_blocks_say_why)
{
	struct lk_mdl_block_prediction p;
	struct lk_mdl_dbs d;

	scalar_dbs(&d);
	predict(&d, triad, sizeof(triad) - 2, LK_MDL_L1, &p);
	cr_assert_not(p.ok);
	cr_assert_str_eq(p.reason, not_a_loop);
	cr_assert_null(p.mdl);
	lk_mdl_block_prediction_release(&p);
	predict(&d, triad_sse, sizeof(triad_sse), LK_MDL_L1, &p);
	cr_assert_not(p.ok);
	cr_assert_str_eq(p.reason, "no MDL database for sse in store: build "
			 "it with 'loopkit mdl db build --isa sse -o store'");
	cr_assert_not_null(p.mdl);
	lk_mdl_block_prediction_release(&p);
	predict(&d, triad, sizeof(triad), LK_MDL_RAM, &p);
	cr_assert_not(p.ok);
	cr_assert(strstr(p.reason, "has no seed measured at RAM"), "%s",
		  p.reason);
	lk_mdl_block_prediction_release(&p);
	predict(&d, count_only, sizeof(count_only), LK_MDL_L1, &p);
	cr_assert_not(p.ok);
	cr_assert(*p.reason);
	lk_mdl_block_prediction_release(&p);
}

Test(mdl_block, databases_levels_and_text)
{
	struct lk_mdl_dbs d;
	char *text;

	memset(&d, 0, sizeof(d));
	cr_assert_eq(lk_mdl_dbs_levels(&d), 0);
	text = lk_mdl_dbs_text(&d);
	cr_assert_str_eq(text, "");
	free(text);
	scalar_dbs(&d);
	d.has[LK_MDL_ISA_AVX2] = 1;
	d.db[LK_MDL_ISA_AVX2] = d.db[LK_MDL_ISA_SCALAR];
	d.db[LK_MDL_ISA_AVX2].hash = "fedcba9876543210";
	d.db[LK_MDL_ISA_AVX2].levels = "L1,RAM";
	cr_assert_eq(lk_mdl_dbs_levels(&d),
		     (1u << LK_MDL_L1) | (1u << LK_MDL_RAM));
	text = lk_mdl_dbs_text(&d);
	cr_assert_str_eq(text, "scalar:0123456789ab,avx2:fedcba987654");
	free(text);
}
