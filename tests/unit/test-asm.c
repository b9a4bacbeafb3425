/*
 * asm: the asm: section (registers, checks, selections and their
 * implicit axes, chains) and the C file of a variant (src/gen/asm.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"
#include "loopkit/gen.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

TestSuite(asm, .init = setup);

static struct lk_sweep *parse(const char *yaml)
{
	struct lk_sweep *s = NULL;
	int ret = lk_sweep_parse(&ctx, "t.yaml", yaml, strlen(yaml), &s);

	cr_assert_eq(ret, 0, "%s", ctx.msg);
	return s;
}

static size_t count(const char *yaml)
{
	struct lk_sweep *s = parse(yaml);
	struct lk_variant *v;
	size_t n;

	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	lk_variants_free(v, n);
	lk_sweep_free(s);
	return n;
}

static void body_of(const char *yaml, size_t variant, struct lk_strv *body)
{
	struct lk_sweep *s = parse(yaml);
	struct lk_variant *v;
	size_t n;

	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	cr_assert_lt(variant, n);
	cr_assert_eq(lk_asm_variant_body(&ctx, s, &v[variant], NULL, body),
		     0, "%s", ctx.msg);
	lk_variants_free(v, n);
	lk_sweep_free(s);
}

Test(asm, selections_count_as_marta)
{
	cr_expect_eq(count("asm:\n  select: subsets\n  bodies:\n"
			   "    a: [x, y, z]\n"), 15);
	cr_expect_eq(count("asm:\n  select: permutations\n  bodies:\n"
			   "    a: [x, y, z]\n"), 6);
	cr_expect_eq(count("asm:\n  select: prefix\n  bodies:\n"
			   "    a: [a, b, c, d, e, f, g, h, i, j]\n"), 10);
	cr_expect_eq(count("asm:\n  bodies:\n    a: [x]\n    b: [y]\n"), 2);
	/* A prefix is never longer than its own version. */
	cr_expect_eq(count("asm:\n  select: prefix\n  bodies:\n"
			   "    a: [x, y, z]\n    b: [u, v]\n"), 5);
	cr_expect_eq(count("asm:\n  select: permutations\n  bodies:\n"
			   "    a: [x, y, z]\n    b: [u, v]\n"), 8);
}

Test(asm, implicit_axes_filter_and_order)
{
	struct lk_strv body = LK_STRV_INIT;

	cr_expect_eq(count("asm:\n  select: prefix\n  bodies:\n"
			   "    a: [x, y, z, w]\nonly:\n"
			   "  - {asm.n: {ge: 3}}\n"), 2);
	cr_expect_eq(count("asm:\n  chains: 1..4\n  bodies:\n"
			   "    a: [\"add $1, {r}\"]\nexclude:\n"
			   "  - {asm.chains: 2}\n"), 3);
	/* permutations of 3, lexicographic: 0-1-2 0-2-1 1-0-2 1-2-0 2-0-1 */
	body_of("asm:\n  select: permutations\n  bodies:\n"
		"    a: [x, y, z]\n", 4, &body);
	cr_assert_eq(body.n, 3);
	cr_expect_str_eq(body.v[0], "z");
	cr_expect_str_eq(body.v[1], "x");
	cr_expect_str_eq(body.v[2], "y");
	lk_strv_release(&body);
}

Test(asm, chains_rotate_registers)
{
	struct lk_strv body = LK_STRV_INIT;

	body_of("asm:\n  chains: [3]\n  bodies:\n"
		"    a: [\"add $1, {r}\"]\n", 0, &body);
	cr_assert_eq(body.n, 3);
	cr_expect_str_eq(body.v[0], "add $1, %rax");
	cr_expect_str_eq(body.v[1], "add $1, %rcx");
	cr_expect_str_eq(body.v[2], "add $1, %rdx");
	lk_strv_release(&body);
	/* After ymm, {r} is a number; the named registers are not used. */
	body_of("asm:\n  chains: [2]\n  bodies:\n"
		"    a: [\"vfmadd231pd %ymm0, %ymm1, %ymm{r}\"]\n", 0, &body);
	cr_expect_str_eq(body.v[0], "vfmadd231pd %ymm0, %ymm1, %ymm2");
	cr_expect_str_eq(body.v[1], "vfmadd231pd %ymm0, %ymm1, %ymm3");
	lk_strv_release(&body);
	body_of("asm:\n  chains: [2]\n  regs: [xmm7-xmm9]\n  bodies:\n"
		"    a: [\"vaddps {r}, {r}, %zmm1, {r}\"]\n", 0, &body);
	cr_expect_str_eq(body.v[1], "vaddps %zmm8, %zmm8, %zmm1, %zmm8");
	lk_strv_release(&body);
	body_of("asm:\n  syntax: intel\n  chains: [2]\n  bodies:\n"
		"    a: [\"imul {r}, {r}\"]\n", 0, &body);
	cr_expect_str_eq(body.v[1], "imul rcx, rcx");
	lk_strv_release(&body);
}

static void expect_error(const char *yaml, const char *where,
			 const char *what)
{
	struct lk_sweep *s = NULL;

	lk_ctx_clear(&ctx);
	cr_assert_eq(lk_sweep_parse(&ctx, "t.yaml", yaml, strlen(yaml), &s),
		     LK_EINPUT);
	cr_expect_null(s);
	cr_expect(strstr(ctx.msg, where) == ctx.msg, "%s", ctx.msg);
	cr_expect(strstr(ctx.msg, what) != NULL, "%s", ctx.msg);
}

Test(asm, refusals_name_file_and_line)
{
	expect_error("asm:\n  bodies:\n    a: [\"add $1, %rax\",\n"
		     "        \"add $8, %rsp\"]\n", "t.yaml:4:", "%rsp");
	expect_error("asm:\n  bodies:\n    a: [\"push %rbp\"]\n", "t.yaml:3:",
		     "%rbp");
	expect_error("asm:\n  bodies:\n    a: [\"mov %rax, %r14\"]\n",
		     "t.yaml:3:", "%r14");
	expect_error("asm:\n  chains: 2\n  bodies:\n"
		     "    a: [\"vmulpd %ymm1, %ymm2, %ymm{r}\"]\n", "t.yaml:4:",
		     "does not read {r}");
	expect_error("asm:\n  chains: 2\n  bodies:\n"
		     "    a: [\"add {r}, %rbx\"]\n", "t.yaml:4:",
		     "does not write {r}");
	expect_error("asm:\n  bodies:\n    a: [\"add $1, {r}\"]\n", "t.yaml:3:",
		     "needs chains");
	expect_error("asm:\n  chains: 1..9\n  regs: [rax-rdx]\n  bodies:\n"
		     "    a: [\"add $1, {r}\"]\n", "t.yaml:", "range");
	expect_error("asm:\n  chains: 4\n  regs: [r8-r10]\n  bodies:\n"
		     "    a: [\"add $1, {r}\"]\n", "t.yaml:5:",
		     "needs 4 registers");
	expect_error("asm:\n  select: subsets\n  bodies:\n"
		     "    a: [a, b, c, d, e, f, g, h, i, j]\n", "t.yaml:",
		     "1,000,000");
	expect_error("sources: []\nasm:\n  bodies:\n    a: [x]\n", "t.yaml:1:",
		     "asm");
	expect_error("asm:\n  select: some\n  bodies:\n    a: [x]\n",
		     "t.yaml:2:", "some");
	/* An empty asm: is no empty sweep. */
	expect_error("name: x\nasm:\n", "t.yaml:2:", "asm: empty");
	expect_error("name: x\nasm: ~\n", "t.yaml:2:", "asm: empty");
	expect_error("asm:\n  difference: maybe\n  bodies:\n    a: [x]\n",
		     "t.yaml:2:", "asm.difference");
}

Test(asm, rotation_never_shares_a_named_register)
{
	struct lk_sweep *s;

	/* xmm10 and xmm11 are the FMA's sources: {r} of chains 11, 12. */
	expect_error("asm:\n  chains: 1..12\n  regs: [xmm0-xmm11]\n"
		     "  bodies:\n    a: [\"vfmadd213pd %ymm11, %ymm10, "
		     "%ymm{r}\"]\n", "t.yaml:5:", "xmm10 (in some width)");
	/* Only the registers the chains use count. */
	s = parse("asm:\n  chains: 1..10\n  regs: [xmm0-xmm11]\n"
		  "  bodies:\n    a: [\"vfmadd213pd %ymm11, %ymm10, "
		  "%ymm{r}\"]\n");
	cr_expect_eq(s->asm_body.nchains, 10);
	lk_sweep_free(s);
	/* By default the named ones are skipped. */
	cr_expect_eq(count("asm:\n  chains: 14\n  bodies:\n    a: "
			   "[\"vfmadd213pd %ymm11, %ymm10, %ymm{r}\"]\n"),
		     1);
}

Test(asm, registers_are_canonical)
{
	struct lk_strv regs = LK_STRV_INIT;
	int width = 0;

	lk_asm_scan_regs("vaddps %zmm20, %ymm3, %zmm3{%k1}; add %eax, %r8d; "
			 "mov (%rip), %al", 0, &regs, &width);
	cr_assert_eq(regs.n, 5);
	cr_expect_str_eq(regs.v[0], "xmm20");
	cr_expect_str_eq(regs.v[1], "xmm3");
	cr_expect_str_eq(regs.v[2], "k1");
	cr_expect_str_eq(regs.v[3], "rax");
	cr_expect_str_eq(regs.v[4], "r8");
	cr_expect_eq(width, 512);
	lk_strv_release(&regs);
	lk_asm_scan_regs("add rax, qword ptr [r9 + 8]", 1, &regs, NULL);
	cr_assert_eq(regs.n, 2);
	cr_expect_str_eq(regs.v[1], "r9");
	lk_strv_release(&regs);
	cr_expect_eq(lk_asm_regs_parse(&ctx, "xmm0-xmm2, %r8", NULL, &regs), 0);
	cr_expect_eq(regs.n, 4);
	lk_strv_release(&regs);
	cr_expect_eq(lk_asm_regs_parse(&ctx, "xmm3-ymm5", NULL, &regs),
		     LK_EINPUT);
	cr_expect_eq(lk_asm_regs_parse(&ctx, "esp", NULL, &regs), LK_EINPUT);
	lk_strv_release(&regs);
}

Test(asm, generated_file_clobbers_what_the_body_names)
{
	struct lk_sweep *s = parse("asm:\n  unroll: 7\n  bodies:\n"
				   "    a: [\"vfmadd231pd %ymm11, %ymm10, "
				   "%ymm2\", \"imul (%r14), %rbx; add $1, "
				   "%r9d\"]\n");
	struct lk_buf c = LK_BUF_INIT;
	const char *t;
	long insns = 0;

	cr_assert_eq(lk_asm_source(&ctx, &s->asm_body, &s->asm_body.versions[0],
				   &s->asm_body.versions[0].body, "a", &c,
				   &insns), 0, "%s", ctx.msg);
	t = lk_buf_str(&c);
	cr_expect_eq(insns, 3);
	cr_expect(strstr(t, "#include <lkrt.h>"));
	cr_expect(strstr(t, ".rept 7"));
	cr_expect(strstr(t, "\"xmm11\", \"xmm10\", \"xmm2\", \"rbx\", \"r9\", "
			    "\"memory\", \"cc\""), "%s", t);
	cr_expect(strstr(t, "vfmadd231pd %%ymm11, %%ymm10, %%ymm2"), "%s", t);
	cr_expect(strstr(t, "vandps %[lkz], %%xmm2, %%xmm2"), "%s", t);
	cr_expect(strstr(t, "andl $0, %%r9d"), "%s", t);
	cr_expect(strstr(t, ": \"+r\"(r14)"), "%s", t);
	cr_expect(!strstr(t, "\"r14\", "), "%s", t);
	lk_buf_release(&c);
	lk_sweep_free(s);
}

Test(asm, generated_file_declares_work_and_measures_2u)
{
	struct lk_sweep *s = parse("asm:\n  unroll: 25\n  difference: true\n"
				   "  bodies:\n    a: [\"vpaddd %xmm1, %xmm1, "
				   "%xmm1\", \"vaddpd %ymm2, %ymm2, %ymm2\"]\n");
	struct lk_buf c = LK_BUF_INIT;
	const char *t;
	long insns = 0;

	cr_assert_eq(s->asm_body.difference, 1);
	cr_assert_eq(lk_asm_source(&ctx, &s->asm_body, &s->asm_body.versions[0],
				   &s->asm_body.versions[0].body, "a", &c,
				   &insns), 0, "%s", ctx.msg);
	t = lk_buf_str(&c);
	cr_expect_eq(insns, 2);
	/* Each register zeroed in its domain: no bypass in the chain. */
	cr_expect(strstr(t, "vpand %[lkz], %%xmm1, %%xmm1"), "%s", t);
	cr_expect(strstr(t, "vandps %[lkz], %%xmm2, %%xmm2"), "%s", t);
	cr_expect(strstr(t, ".rept 25\\n"), "%s", t);
	cr_expect(strstr(t, ".rept 50\\n"), "%s", t);
	cr_expect(strstr(t, "lk_work(\"instructions\", 50.0);\n"
			    "\tLK_MEASURE(asm_kernel(mem));"), "%s", t);
	cr_expect(strstr(t, "lk_work(\"instructions\", 100.0);\n"
			    "\tLK_MEASURE_NAMED(\"kernel-2u\", "
			    "asm_kernel_2u(mem));"), "%s", t);
	lk_buf_release(&c);
	lk_sweep_free(s);
}
