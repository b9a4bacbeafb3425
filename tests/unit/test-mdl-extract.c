/*
 * mdl extract, rule by rule (doc/loopkit-mdl.md, "extract"): tiny loops
 * given as bytes (their assembly in the comment above each; each is
 * "xor %r11d,%r11d; 1: BODY; jne 1b; ret"), extracted through the CFG,
 * and the operand model they rest on (lk_insn_operands).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
#include "loopkit/mdl.h"

TestSuite(mdl_extract);

/* movsd (%rsi,%rax,8),%xmm0; mulsd %xmm2,%xmm0; addsd (%rdx,%rax,8),%xmm0; movsd %xmm0,(%rdi,%rax,8); add $1,%rax; cmp %rcx,%rax */
static const uint8_t triad[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x59, 0xc2,
	0xf2, 0x0f, 0x58, 0x04, 0xc2, 0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0x83,
	0xc0, 0x01, 0x48, 0x39, 0xc8, 0x75, 0xe4, 0xc3,
};

/* movsd (%r8,%r10,8),%xmm5; mulsd %xmm3,%xmm5; addsd (%r9,%r10,8),%xmm5; movsd %xmm5,(%rbx,%r10,8); inc %r10; cmp %rcx,%r10 */
static const uint8_t triad_renamed[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x43, 0x0f, 0x10, 0x2c, 0xd0, 0xf2, 0x0f, 0x59,
	0xeb, 0xf2, 0x43, 0x0f, 0x58, 0x2c, 0xd1, 0xf2, 0x42, 0x0f, 0x11, 0x2c,
	0xd3, 0x49, 0xff, 0xc2, 0x49, 0x39, 0xca, 0x75, 0xe2, 0xc3,
};

/* movsd (%rsi),%xmm0; mulsd %xmm2,%xmm0; addsd (%rdx),%xmm0; movsd %xmm0,(%rdi); movsd 8(%rsi),%xmm1; mulsd %xmm2,%xmm1; addsd 8(%rdx),%xmm1; movsd %xmm1,8(%rdi); add $16,%rsi; add $16,%rdx; add $16,%rdi; cmp %rcx,%rdi */
static const uint8_t triad_x2[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x06, 0xf2, 0x0f, 0x59, 0xc2, 0xf2,
	0x0f, 0x58, 0x02, 0xf2, 0x0f, 0x11, 0x07, 0xf2, 0x0f, 0x10, 0x4e, 0x08,
	0xf2, 0x0f, 0x59, 0xca, 0xf2, 0x0f, 0x58, 0x4a, 0x08, 0xf2, 0x0f, 0x11,
	0x4f, 0x08, 0x48, 0x83, 0xc6, 0x10, 0x48, 0x83, 0xc2, 0x10, 0x48, 0x83,
	0xc7, 0x10, 0x48, 0x39, 0xcf, 0x75, 0xcc, 0xc3,
};

/* movupd (%rsi),%xmm0; mulpd %xmm2,%xmm0; addpd (%rdx),%xmm0; movupd %xmm0,(%rdi); add $16,%rsi; add $16,%rdx; add $16,%rdi; cmp %rcx,%rdi */
static const uint8_t triad_sse[] = {
	0x45, 0x31, 0xdb, 0x66, 0x0f, 0x10, 0x06, 0x66, 0x0f, 0x59, 0xc2, 0x66,
	0x0f, 0x58, 0x02, 0x66, 0x0f, 0x11, 0x07, 0x48, 0x83, 0xc6, 0x10, 0x48,
	0x83, 0xc2, 0x10, 0x48, 0x83, 0xc7, 0x10, 0x48, 0x39, 0xcf, 0x75, 0xdf,
	0xc3,
};

/* vmovupd (%rsi,%rax),%zmm0; vfmadd213pd (%rdx,%rax),%zmm2,%zmm0; vmovupd %zmm0,(%rdi,%rax); add $64,%rax; cmp %rcx,%rax */
static const uint8_t triad_zmm[] = {
	0x45, 0x31, 0xdb, 0x62, 0xf1, 0xfd, 0x48, 0x10, 0x04, 0x06, 0x62, 0xf2,
	0xed, 0x48, 0xa8, 0x04, 0x02, 0x62, 0xf1, 0xfd, 0x48, 0x11, 0x04, 0x07,
	0x48, 0x83, 0xc0, 0x40, 0x48, 0x39, 0xc8, 0x75, 0xe2, 0xc3,
};

/* vmovdqu32 (%rsi,%rax),%zmm0; vpminsd (%rdx,%rax),%zmm0,%zmm0; vmovdqu32 %zmm0,(%rdi,%rax); add $64,%rax; cmp %rcx,%rax */
static const uint8_t min_zmm[] = {
	0x45, 0x31, 0xdb, 0x62, 0xf1, 0x7e, 0x48, 0x6f, 0x04, 0x06, 0x62, 0xf2,
	0x7d, 0x48, 0x39, 0x04, 0x02, 0x62, 0xf1, 0x7e, 0x48, 0x7f, 0x04, 0x07,
	0x48, 0x83, 0xc0, 0x40, 0x48, 0x39, 0xc8, 0x75, 0xe2, 0xc3,
};

/* movsd (%rsi),%xmm0; movsd %xmm0,(%rdi); add $8,%rsi; add $8,%rsi; sub $-16,%rdi; cmp %rcx,%rdi */
static const uint8_t two_updates[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x06, 0xf2, 0x0f, 0x11, 0x07, 0x48,
	0x83, 0xc6, 0x08, 0x48, 0x83, 0xc6, 0x08, 0x48, 0x83, 0xef, 0xf0, 0x48,
	0x39, 0xcf, 0x75, 0xe7, 0xc3,
};

/* movsd (%rsi),%xmm0; movsd %xmm0,(%rdi); lea 8(%rsi),%rsi; lea -8(%rdi),%rdi; cmp %rcx,%rdi */
static const uint8_t lea_step[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x06, 0xf2, 0x0f, 0x11, 0x07, 0x48,
	0x8d, 0x76, 0x08, 0x48, 0x8d, 0x7f, 0xf8, 0x48, 0x39, 0xcf, 0x75, 0xeb,
	0xc3,
};

/* movsd (%rsi,%rax,8),%xmm0; movsd %xmm0,-8(%rsp); movsd -8(%rsp),%xmm1; movsd %xmm1,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t spill[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x11, 0x44,
	0x24, 0xf8, 0xf2, 0x0f, 0x10, 0x4c, 0x24, 0xf8, 0xf2, 0x0f, 0x11, 0x0c,
	0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8, 0x75, 0xe2, 0xc3,
};

/* vmovsd (%rsi,%rax,8),%xmm0; vfmadd231sd (%rdx,%rax,8),%xmm2,%xmm0; vmovsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t fma_mem[] = {
	0x45, 0x31, 0xdb, 0xc5, 0xfb, 0x10, 0x04, 0xc6, 0xc4, 0xe2, 0xe9, 0xb9,
	0x04, 0xc2, 0xc5, 0xfb, 0x11, 0x04, 0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39,
	0xc8, 0x75, 0xe8, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm0; addsd (%rdi,%rax,8),%xmm0; movsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t rmw[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x58, 0x04,
	0xc7, 0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8,
	0x75, 0xe9, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm0; addsd (%rdx,%rax,8),%xmm0; movsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t two_bases[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x58, 0x04,
	0xc2, 0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8,
	0x75, 0xe9, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm0; addsd 0x10000(%rsi,%rax,8),%xmm0; movsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t far_disp[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x58, 0x84,
	0xc6, 0x00, 0x00, 0x01, 0x00, 0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0xff,
	0xc0, 0x48, 0x39, 0xc8, 0x75, 0xe5, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm0; addsd %xmm0,%xmm0; movsd %xmm0,(%rdi,%rax,8); movsd (%rdx,%rax,8),%xmm1; mulsd %xmm1,%xmm1; movsd %xmm1,(%r8,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t two_comps[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x58, 0xc0,
	0xf2, 0x0f, 0x11, 0x04, 0xc7, 0xf2, 0x0f, 0x10, 0x0c, 0xc2, 0xf2, 0x0f,
	0x59, 0xc9, 0xf2, 0x41, 0x0f, 0x11, 0x0c, 0xc0, 0x48, 0xff, 0xc0, 0x48,
	0x39, 0xc8, 0x75, 0xdb, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm0; addsd 8(%rsi,%rax,8),%xmm0; addsd 16(%rsi,%rax,8),%xmm0; movsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t stencil[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x04, 0xc6, 0xf2, 0x0f, 0x58, 0x44,
	0xc6, 0x08, 0xf2, 0x0f, 0x58, 0x44, 0xc6, 0x10, 0xf2, 0x0f, 0x11, 0x04,
	0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8, 0x75, 0xe2, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm1; mulsd (%rdx,%rax,8),%xmm1; addsd %xmm1,%xmm0; inc %rax; cmp %rcx,%rax */
static const uint8_t dot1[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x0c, 0xc6, 0xf2, 0x0f, 0x59, 0x0c,
	0xc2, 0xf2, 0x0f, 0x58, 0xc1, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8, 0x75,
	0xea, 0xc3,
};

/* movsd (%rsi,%rax,8),%xmm1; mulsd (%rdx,%rax,8),%xmm1; addsd %xmm1,%xmm0; movsd 8(%rsi,%rax,8),%xmm1; mulsd 8(%rdx,%rax,8),%xmm1; addsd %xmm1,%xmm0; add $2,%rax; cmp %rcx,%rax */
static const uint8_t dot_chain[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x0c, 0xc6, 0xf2, 0x0f, 0x59, 0x0c,
	0xc2, 0xf2, 0x0f, 0x58, 0xc1, 0xf2, 0x0f, 0x10, 0x4c, 0xc6, 0x08, 0xf2,
	0x0f, 0x59, 0x4c, 0xc2, 0x08, 0xf2, 0x0f, 0x58, 0xc1, 0x48, 0x83, 0xc0,
	0x02, 0x48, 0x39, 0xc8, 0x75, 0xd9, 0xc3,
};

/* movupd (%rsi,%rax,8),%xmm1; mulpd (%rdx,%rax,8),%xmm1; addsd %xmm1,%xmm0; unpckhpd %xmm1,%xmm1; addsd %xmm1,%xmm0; add $2,%rax; cmp %rcx,%rax */
static const uint8_t dot_hsum[] = {
	0x45, 0x31, 0xdb, 0x66, 0x0f, 0x10, 0x0c, 0xc6, 0x66, 0x0f, 0x59, 0x0c,
	0xc2, 0xf2, 0x0f, 0x58, 0xc1, 0x66, 0x0f, 0x15, 0xc9, 0xf2, 0x0f, 0x58,
	0xc1, 0x48, 0x83, 0xc0, 0x02, 0x48, 0x39, 0xc8, 0x75, 0xe1, 0xc3,
};

/* movapd %xmm1,%xmm3; addsd %xmm1,%xmm2; movsd 16(%rsi,%rax,8),%xmm1; addsd %xmm1,%xmm2; movsd %xmm2,8(%rdi,%rax,8); inc %rax; movapd %xmm3,%xmm2; cmp %rcx,%rax */
static const uint8_t rotation[] = {
	0x45, 0x31, 0xdb, 0x66, 0x0f, 0x28, 0xd9, 0xf2, 0x0f, 0x58, 0xd1, 0xf2,
	0x0f, 0x10, 0x4c, 0xc6, 0x10, 0xf2, 0x0f, 0x58, 0xd1, 0xf2, 0x0f, 0x11,
	0x54, 0xc7, 0x08, 0x48, 0xff, 0xc0, 0x66, 0x0f, 0x28, 0xd3, 0x48, 0x39,
	0xc8, 0x75, 0xdc, 0xc3,
};

/* mov (%rsi,%rax,8),%rdx; movsd (%rdx),%xmm0; movsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t indirect[] = {
	0x45, 0x31, 0xdb, 0x48, 0x8b, 0x14, 0xc6, 0xf2, 0x0f, 0x10, 0x02, 0xf2,
	0x0f, 0x11, 0x04, 0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8, 0x75, 0xeb,
	0xc3,
};

/* lea (%rsi,%rax,8),%rdx; movsd 8(%rdx),%xmm0; movsd %xmm0,(%rdi,%rax,8); inc %rax; cmp %rcx,%rax */
static const uint8_t lea_addr[] = {
	0x45, 0x31, 0xdb, 0x48, 0x8d, 0x14, 0xc6, 0xf2, 0x0f, 0x10, 0x42, 0x08,
	0xf2, 0x0f, 0x11, 0x04, 0xc7, 0x48, 0xff, 0xc0, 0x48, 0x39, 0xc8, 0x75,
	0xea, 0xc3,
};


/* movsd (%rsi),%xmm1; mulsd (%rdx),%xmm1; addsd %xmm1,%xmm0; add $8,%rsi; add $320,%rdx; cmp %rcx,%rsi */
static const uint8_t dot_rows[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x0e, 0xf2, 0x0f, 0x59, 0x0a, 0xf2,
	0x0f, 0x58, 0xc1, 0x48, 0x83, 0xc6, 0x08, 0x48, 0x81, 0xc2, 0x40, 0x01,
	0x00, 0x00, 0x48, 0x39, 0xce, 0x75, 0xe4, 0xc3,
};

/* movsd (%rdx),%xmm1; mulsd (%rsi),%xmm1; addsd %xmm1,%xmm0; add $8,%rdx; add $320,%rsi; cmp %rcx,%rdx */
static const uint8_t dot_rows_swapped[] = {
	0x45, 0x31, 0xdb, 0xf2, 0x0f, 0x10, 0x0a, 0xf2, 0x0f, 0x59, 0x0e, 0xf2,
	0x0f, 0x58, 0xc1, 0x48, 0x83, 0xc2, 0x08, 0x48, 0x81, 0xc6, 0x40, 0x01,
	0x00, 0x00, 0x48, 0x39, 0xca, 0x75, 0xe4, 0xc3,
};

/* Extract the one innermost loop of code; the canonical body into
 * *canon (the caller's). */
static void extract(const uint8_t *code, size_t len,
		    struct lk_mdl_extraction *x, char **canon)
{
	struct lk_function fn;
	struct lk_cfg cfg;
	struct lk_ctx ctx;
	struct lk_buf b = LK_BUF_INIT;
	size_t *heads, n;

	lk_ctx_init(&ctx);
	memset(&fn, 0, sizeof(fn));
	fn.name = strdup("t");
	fn.addr = 0x1000;
	fn.size = len;
	fn.code = malloc(len);
	memcpy(fn.code, code, len);
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0);
	lk_mdl_loops(&cfg, &heads, NULL, &n);
	cr_assert_eq(n, 1, "%zu loops", n);
	cr_assert_eq(lk_mdl_extract(&ctx, &cfg, heads[0], x), 0);
	if (!x->refused)
		lk_mdl_canonical_body(&x->mdl, &b);
	*canon = strdup(lk_buf_str(&b));
	lk_buf_release(&b);
	free(heads);
	lk_cfg_release(&cfg);
}

#define EXTRACT(code, x, canon) extract(code, sizeof(code), x, canon)

/* A row scale inside a loop over rows (tests/data/mdl/asm/nested.s):
 * xor %r8,%r8; [0x3] xor %rax,%rax; [0x6] movsd (%rdi,%rax,8),%xmm0;
 * mulsd %xmm1,%xmm0; movsd %xmm0,(%rsi,%rax,8); inc %rax; cmp %rcx,%rax;
 * jl 0x6; add $800,%rdi; add $800,%rsi; inc %r8; cmp %r9,%r8; jl 0x3 */
static const uint8_t nested[] = {
	0x4d, 0x31, 0xc0, 0x48, 0x31, 0xc0, 0xf2, 0x0f, 0x10, 0x04, 0xc7,
	0xf2, 0x0f, 0x59, 0xc1, 0xf2, 0x0f, 0x11, 0x04, 0xc6, 0x48, 0xff,
	0xc0, 0x48, 0x39, 0xc8, 0x7c, 0xea, 0x48, 0x81, 0xc7, 0x20, 0x03,
	0x00, 0x00, 0x48, 0x81, 0xc6, 0x20, 0x03, 0x00, 0x00, 0x49, 0xff,
	0xc0, 0x4d, 0x39, 0xc8, 0x7c, 0xd1, 0xc3,
};

/* The innermost loop of a nest is found from its back edge alone: the
 * edge that enters it from the outer loop is not in its body (it was,
 * and the walk climbed into the outer loop: no loop was innermost). */
Test(mdl_extract, innermost_of_a_nest)
{
	struct lk_mdl_pick pick;
	struct lk_function fn = {0};
	struct lk_cfg cfg;
	struct lk_ctx ctx;
	size_t *heads, n;

	lk_ctx_init(&ctx);
	fn.name = strdup("nested");
	fn.addr = 0x1000;
	fn.size = sizeof(nested);
	fn.code = malloc(sizeof(nested));
	memcpy(fn.code, nested, sizeof(nested));
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0);
	lk_mdl_loops(&cfg, &heads, NULL, &n);
	cr_assert_eq(n, 1, "%zu innermost loops", n);
	cr_expect_eq(cfg.blocks[heads[0]].start, 0x1006, "head at %#lx",
		     (unsigned long)cfg.blocks[heads[0]].start);
	/* Its depth, and the pick: the one loop, also by address. */
	cr_assert_eq(lk_mdl_pick_loop(&ctx, &cfg, 0, NULL, &pick), 0);
	cr_expect_eq(pick.x.depth, 2, "depth %d", pick.x.depth);
	cr_expect_eq(pick.nloops, 1);
	cr_expect_eq(pick.head, heads[0]);
	cr_expect(!pick.x.refused, "%s", pick.x.reason);
	lk_mdl_pick_release(&pick);
	cr_assert_eq(lk_mdl_pick_loop(&ctx, &cfg, 0x1006, NULL, &pick), 0);
	cr_expect_eq(pick.head, heads[0]);
	lk_mdl_pick_release(&pick);
	cr_expect_eq(lk_mdl_pick_loop(&ctx, &cfg, 0x1000, "b", &pick),
		     LK_ENOTFOUND);
	cr_expect(strstr(ctx.msg, "nested: no innermost loop at 0x1000 in b "
			 "(innermost loops start at: 0x1006)"), "%s", ctx.msg);
	free(heads);
	lk_cfg_release(&cfg);
}

static const char triad_body[] =
	"Trip: n\n"
	"I/O: In: s0 n*8 s1 n*8 Out: s2 n*8\n"
	"LoopBody:\n"
	"  In:  s0 Stride: 8 Offset: 0 Size: 8\n"
	"       s1 Stride: 8 Offset: 0 Size: 8\n"
	"  Out: s2 Stride: 8 Offset: 0 Size: 8\n"
	"  Add: 1 Mul: 1\n";

static void check_triad(const uint8_t *code, size_t len, long unroll,
			long lanes)
{
	struct lk_mdl_extraction x;
	char *c;

	extract(code, len, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_str_eq(c, triad_body);
	cr_expect_eq(x.unroll, unroll, "unroll %ld", x.unroll);
	cr_expect_eq(x.lanes, lanes, "lanes %ld", x.lanes);
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rules 2 and 13-14: one triad, scalar, renamed, unrolled by hand, SSE
 * and AVX-512 (lanes x copies), has one canonical body. */
Test(mdl_extract, triad_forms_share_one_body)
{
	check_triad(triad, sizeof(triad), 1, 1);
	check_triad(triad_renamed, sizeof(triad_renamed), 1, 1);
	check_triad(triad_x2, sizeof(triad_x2), 2, 1);
	check_triad(triad_sse, sizeof(triad_sse), 2, 2);
	check_triad(triad_zmm, sizeof(triad_zmm), 8, 8);
	check_triad(fma_mem, sizeof(fma_mem), 1, 1);
}

/* Rules 7 and 13: vpminsd is a packed (16-lane) min of dwords, not a
 * scalar sd form: an AVX-512 min loop is 16 lanes x 1 copy, re-rolled
 * into one element-wise body (floyd-warshall at -O3 -march=x86-64-v4). */
Test(mdl_extract, packed_int_sd_mnemonic_has_all_lanes)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(min_zmm, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.lanes, 16, "lanes %ld", x.lanes);
	cr_expect_eq(x.unroll, 16, "unroll %ld", x.unroll);
	cr_expect_str_eq(c,
		"Trip: n\n"
		"I/O: In: s0 n*4 s1 n*4 Out: s2 n*4\n"
		"LoopBody:\n"
		"  In:  s0 Stride: 4 Offset: 0 Size: 4\n"
		"       s1 Stride: 4 Offset: 0 Size: 4\n"
		"  Out: s2 Stride: 4 Offset: 0 Size: 4\n"
		"  Add: 0 Mul: 0\n");
	free(c);
	lk_mdl_extraction_release(&x);
}

static long long flow_stride(const struct lk_mdl *m, size_t f)
{
	size_t u, k;

	for (u = 0; u < m->body.nukernels; u++) {
		for (k = 0; k < m->body.ukernels[u].nin; k++)
			if (m->body.ukernels[u].in[k].flow == f)
				return m->body.ukernels[u].in[k].stride.num;
		for (k = 0; k < m->body.ukernels[u].nout; k++)
			if (m->body.ukernels[u].out[k].flow == f)
				return m->body.ukernels[u].out[k].stride.num;
	}
	return 0;
}

/* Rule 2: an induction's step is the sum of its updates (add, sub of a
 * negative immediate, lea c(r), r), with its sign. */
Test(mdl_extract, induction_steps)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(two_updates, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.mdl.nflows, 2);
	cr_expect_eq(flow_stride(&x.mdl, 0), 16);
	cr_expect_eq(flow_stride(&x.mdl, 1), 16);
	free(c);
	lk_mdl_extraction_release(&x);
	EXTRACT(lea_step, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect(strstr(c, "Stride: -8"), "%s", c);
	cr_expect(strstr(c, "Stride: 8 "), "%s", c);
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rule 4: a spill and its fill are forwarded, counted, and no stream. */
Test(mdl_extract, spill_fill_removed)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(spill, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.spill_fill, 2);
	cr_expect_eq(x.mdl.nflows, 2);
	cr_expect_eq(x.mdl.body.nukernels, 1);
	cr_expect_eq(x.mdl.body.ukernels[0].nin, 1);
	cr_expect_eq(x.mdl.body.ukernels[0].nout, 1);
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rule 5: addsd m, x is a load and an add; a read-modify-write of one
 * array is one stream read and written. */
Test(mdl_extract, fission)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(rmw, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_str_eq(c, "Trip: n\n"
			    "I/O: In: s0 n*8 s1 n*8 Out: s1 n*8\n"
			    "LoopBody:\n"
			    "  In:  s0 Stride: 8 Offset: 0 Size: 8\n"
			    "       s1 Stride: 8 Offset: 0 Size: 8\n"
			    "  Out: s1 Stride: 8 Offset: 0 Size: 8\n"
			    "  Add: 1 Mul: 0\n");
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rule 6: two bases are two streams; one base with displacements far
 * apart is split (meta split). */
Test(mdl_extract, streams_keyed_by_base)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(two_bases, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.mdl.nflows, 3);
	cr_expect_eq(x.split, 0);
	free(c);
	lk_mdl_extraction_release(&x);
	EXTRACT(far_disp, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.mdl.nflows, 3);
	cr_expect_eq(x.split, 1);
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rule 7: a 2-lane SSE loop is two element µkernels re-rolled into one
 * with Δ = 8 (checked in triad_forms_share_one_body); a horizontal sum
 * by unpckhpd moves lane 1 to lane 0 without joining the lanes. */
Test(mdl_extract, lanes_and_known_shuffles)
{
	struct lk_mdl_extraction x, y;
	char *c, *d;

	EXTRACT(dot_hsum, &x, &c);
	EXTRACT(dot1, &y, &d);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_str_eq(c, d);
	cr_expect_eq(x.unroll, 2);
	cr_expect_eq(x.other_ops, 0);
	free(c);
	free(d);
	lk_mdl_extraction_release(&x);
	lk_mdl_extraction_release(&y);
}

/* Rules 9-10: two independent computations are two µkernels. */
Test(mdl_extract, components)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(two_comps, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.mdl.body.nukernels, 2);
	cr_expect_eq(x.mdl.nflows, 4);
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rule 9: an in-order reduction (two adds into one accumulator in one
 * iteration) is two carried µkernels, which re-roll. */
Test(mdl_extract, reduction_chain_is_carried)
{
	struct lk_mdl_extraction x, y;
	char *c, *d;

	EXTRACT(dot_chain, &x, &c);
	EXTRACT(dot1, &y, &d);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_str_eq(c, d);
	cr_expect_eq(x.unroll, 2);
	cr_expect_eq(y.unroll, 1);
	cr_expect_eq(x.carried, 1);
	free(c);
	free(d);
	lk_mdl_extraction_release(&x);
	lk_mdl_extraction_release(&y);
}

/* Rule 12: three overlapping loads of one stream are one access. */
Test(mdl_extract, coalescing)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(stencil, &x, &c);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_eq(x.mdl.body.nukernels, 1);
	cr_expect_eq(x.mdl.body.ukernels[0].nin, 1);
	cr_expect_eq(x.mdl.body.ukernels[0].in[0].size.num, 24);
	cr_expect_eq(x.mdl.body.ukernels[0].in[0].offset.num, 0);
	free(c);
	lk_mdl_extraction_release(&x);
}

/* Rule 8 (stretch): a value rotated through registers (clang's
 * jacobi-1d) is a load at o - k * stride: the same body as the stencil
 * loading all three points, nothing left carried in the graph. */
Test(mdl_extract, register_rotation_rematerialised)
{
	struct lk_mdl_extraction x, y;
	char *c, *d;

	EXTRACT(rotation, &x, &c);
	EXTRACT(stencil, &y, &d);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_str_eq(c, d);
	free(c);
	free(d);
	lk_mdl_extraction_release(&x);
	lk_mdl_extraction_release(&y);
}

/* Rule 14: streams and µkernels are ordered by structure, not by
 * register names or instruction order. */
Test(mdl_extract, canonical_naming)
{
	struct lk_mdl_extraction x, y;
	char *c, *d;

	EXTRACT(triad, &x, &c);
	EXTRACT(triad_renamed, &y, &d);
	cr_expect_str_eq(c, d);
	cr_expect_str_eq(x.mdl.flows[0].name, "s0");
	free(c);
	free(d);
	lk_mdl_extraction_release(&x);
	lk_mdl_extraction_release(&y);
}

/* Rule 14: two streams of one µkernel that differ only by their Δ are
 * ordered by it, whichever registers hold them. */
Test(mdl_extract, streams_ordered_by_delta)
{
	struct lk_mdl_extraction x, y;
	char *c, *d;

	EXTRACT(dot_rows, &x, &c);
	EXTRACT(dot_rows_swapped, &y, &d);
	cr_assert_not(x.refused, "%s", x.reason);
	cr_expect_str_eq(c, d);
	free(c);
	free(d);
	lk_mdl_extraction_release(&x);
	lk_mdl_extraction_release(&y);
}

/* Rule 2: refusals carry their reason. */
Test(mdl_extract, refusals)
{
	struct lk_mdl_extraction x;
	char *c;

	EXTRACT(indirect, &x, &c);
	cr_expect(x.refused);
	cr_expect_str_eq(x.reason, "indirect access (%rdx is loaded in the loop)");
	free(c);
	lk_mdl_extraction_release(&x);
	/* an address register computed by lea is not substituted yet */
	EXTRACT(lea_addr, &x, &c);
	cr_expect(x.refused);
	cr_expect_str_eq(x.reason, "address not affine in the induction "
				   "registers (%rdx)");
	free(c);
	lk_mdl_extraction_release(&x);
}

/* ---- The operand model. ---- */

static void ops_of(const uint8_t *code, size_t len, struct lk_insn_ops *o)
{
	cr_assert_eq(lk_insn_operands(code, len, o), 0);
}

#define OPS(bytes, o) ops_of(bytes, sizeof(bytes), o)

Test(mdl_extract, operands_memory_and_actions)
{
	/* addpd -0x8(%rax,%rcx,8), %xmm1 */
	static const uint8_t addpd[] = {0x66, 0x0f, 0x58, 0x4c, 0xc8, 0xf8};
	struct lk_insn_ops o;

	OPS(addpd, &o);
	cr_expect_str_eq(o.mnemonic, "addpd");
	cr_expect_eq(o.op, LK_OPC_ADD);
	cr_expect_not(o.scalar);
	cr_assert_eq(o.nops, 2);
	cr_expect_eq(o.ops[0].kind, LK_OPND_REG);
	cr_expect(o.ops[0].read && o.ops[0].write);
	cr_expect_str_eq(lk_reg_name(o.ops[0].reg), "zmm1");
	cr_expect_eq(o.ops[0].rclass, LK_REG_VEC);
	cr_expect_eq(o.ops[1].kind, LK_OPND_MEM);
	cr_expect(o.ops[1].read && !o.ops[1].write);
	cr_expect_str_eq(lk_reg_name(o.ops[1].base), "rax");
	cr_expect_str_eq(lk_reg_name(o.ops[1].index), "rcx");
	cr_expect_eq(o.ops[1].scale, 8);
	cr_expect_eq(o.ops[1].disp, -8);
	cr_expect_eq(o.ops[1].bytes, 16);
	cr_expect_eq(o.ops[1].elem_bytes, 8);
	cr_expect(o.ops[1].fp);
}

Test(mdl_extract, operands_elements_and_classes)
{
	/* vaddps %ymm2, %ymm1, %ymm0 */
	static const uint8_t vaddps[] = {0xc5, 0xf4, 0x58, 0xc2};
	/* addsd %xmm1, %xmm0 */
	static const uint8_t addsd[] = {0xf2, 0x0f, 0x58, 0xc1};
	/* lea 0x8(%rax,%rcx,8), %rdx */
	static const uint8_t lea[] = {0x48, 0x8d, 0x54, 0xc8, 0x08};
	/* valignq $3, %ymm1, %ymm1, %ymm2 */
	static const uint8_t valignq[] = {0x62, 0xf3, 0xf5, 0x28, 0x03, 0xd1,
					  0x03};
	struct lk_insn_ops o;

	OPS(vaddps, &o);
	cr_expect_eq(o.op, LK_OPC_ADD);
	cr_assert_eq(o.nops, 3);
	cr_expect(o.ops[0].write && !o.ops[0].read);
	cr_expect_eq(o.ops[0].bytes, 32);
	cr_expect_eq(o.ops[0].elem_bytes, 4);
	OPS(addsd, &o);
	cr_expect(o.scalar);
	cr_expect_eq(o.ops[0].elem_bytes, 8);
	OPS(lea, &o);
	cr_expect_eq(o.op, LK_OPC_LEA);
	cr_assert_eq(o.nops, 2);
	cr_expect(o.ops[1].agen);
	cr_expect_eq(o.ops[1].disp, 8);
	OPS(valignq, &o);
	cr_expect_eq(o.op, LK_OPC_SHUFFLE);
}

/* An unmasked EVEX instruction has no k0 operand; a real writemask is a
 * read mask operand. */
Test(mdl_extract, operands_evex_masks)
{
	/* vmovapd (%rdx), %zmm0 */
	static const uint8_t load[] = {0x62, 0xf1, 0xfd, 0x48, 0x28, 0x02};
	/* vaddpd %zmm0, %zmm1, %zmm2{%k1} */
	static const uint8_t masked[] = {0x62, 0xf1, 0xf5, 0x49, 0x58, 0xd0};
	struct lk_insn_ops o;
	size_t k;

	OPS(load, &o);
	cr_assert_eq(o.nops, 2);
	cr_expect_eq(o.ops[0].kind, LK_OPND_REG);
	cr_expect_eq(o.ops[1].kind, LK_OPND_MEM);
	cr_expect_eq(o.ops[1].bytes, 64);
	OPS(masked, &o);
	for (k = 0; k < o.nops; k++)
		if (o.ops[k].kind == LK_OPND_REG && o.ops[k].rclass == LK_REG_MASK)
			break;
	cr_assert_lt(k, o.nops);
	cr_expect_str_eq(lk_reg_name(o.ops[k].reg), "k1");
	cr_expect(o.ops[k].read && o.ops[k].writemask);
}

/* A writemask is marked as one (extraction leaves it out of the data
 * flow); a mask a compare writes, or one kandw reads, is data. */
static int mask_operands(const struct lk_insn_ops *o, int *wm, int *data)
{
	size_t k;

	*wm = *data = 0;
	for (k = 0; k < o->nops; k++)
		if (o->ops[k].kind == LK_OPND_REG &&
		    o->ops[k].rclass == LK_REG_MASK)
			++*(o->ops[k].writemask ? wm : data);
	return *wm + *data;
}

Test(mdl_extract, operands_writemask_is_not_data)
{
	/* vmovupd (%rsi,%rax,8), %zmm1{%k1}{z} */
	static const uint8_t zload[] = {0x62, 0xf1, 0xfd, 0xc9, 0x10, 0x0c,
					0xc6};
	/* vcmpltpd %zmm1, %zmm2, %k2{%k3} */
	static const uint8_t cmp[] = {0x62, 0xf1, 0xed, 0x4b, 0xc2, 0xd1, 0x01};
	/* kandw %k1, %k2, %k3 */
	static const uint8_t kand[] = {0xc5, 0xec, 0x41, 0xd9};
	struct lk_insn_ops o;
	int wm, data;

	OPS(zload, &o);
	cr_expect_eq(mask_operands(&o, &wm, &data), 1);
	cr_expect_eq(wm, 1);
	OPS(cmp, &o);
	cr_expect_eq(mask_operands(&o, &wm, &data), 2);
	cr_expect_eq(wm, 1, "k3 masks the compare");
	cr_expect_eq(data, 1, "k2 is its result");
	OPS(kand, &o);
	cr_expect_eq(mask_operands(&o, &wm, &data), 3);
	cr_expect_eq(wm, 0, "VEX: no writemask");
}
