/*
 * mdl concretisation: Algorithms 1-3 keep their stated properties on
 * every small input (totals preserved, bundles shaped load/arithmetic/
 * store, registers in range, nothing read before it is written but the
 * initialised accumulators), the Gauss case comes out as the public
 * output has it, and the C text names the machine's instructions.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/env.h"
#include "loopkit/mdl.h"
#include "../../src/mdl/concretize.h"

TestSuite(mdl_concretize);

Test(mdl_concretize, arith_order_preserves_totals)
{
	enum mdl_kind kinds[41];
	long a, m, i;
	int first;

	for (first = 0; first < 2; first++)
		for (a = 0; a <= 20; a++)
			for (m = 0; m <= 20; m++) {
				long na = 0, nm = 0;

				memset(kinds, 0xff, sizeof(kinds));
				mdl_arith_order(a, m, first, kinds);
				for (i = 0; i < a + m; i++) {
					na += kinds[i] == MDL_ADD;
					nm += kinds[i] == MDL_MUL;
				}
				cr_assert_eq(na, a, "add %ld mul %ld", a, m);
				cr_assert_eq(nm, m, "add %ld mul %ld", a, m);
				cr_assert_eq((int)kinds[a + m], -1,
					     "wrote past the end");
				if (a && m)
					cr_assert_eq(kinds[0], first ? MDL_ADD
								     : MDL_MUL);
			}
}

Test(mdl_concretize, arith_order_gauss)
{
	enum mdl_kind kinds[25];
	int i;

	/* MicroPerf's Gauss filter: 16 add, 9 mul, First_add. */
	mdl_arith_order(16, 9, 1, kinds);
	for (i = 0; i < 18; i++)
		cr_assert_eq(kinds[i], i % 2 ? MDL_MUL : MDL_ADD, "at %d", i);
	for (i = 18; i < 25; i++)
		cr_assert_eq(kinds[i], MDL_ADD, "at %d", i);
	/* The printed version's ratio 3 would drive a counter negative. */
	mdl_arith_order(10, 4, 0, kinds);
	cr_assert_eq(kinds[0], MDL_MUL);
	cr_assert_eq(kinds[1], MDL_ADD);
	cr_assert_eq(kinds[2], MDL_ADD);
	cr_assert_eq(kinds[3], MDL_MUL);
}

Test(mdl_concretize, bundle_count)
{
	cr_assert_eq(mdl_bundle_count(0, 0, 0, 3), 1);
	cr_assert_eq(mdl_bundle_count(4, 0, 0, 3), 3, "load-only");
	cr_assert_eq(mdl_bundle_count(4, 0, 2, 3), 2);
	cr_assert_eq(mdl_bundle_count(0, 0, 5, 4), 4, "arithmetic only");
	cr_assert_eq(mdl_bundle_count(8, 1, 0, 4), 1);
	cr_assert_eq(mdl_bundle_count(8, 8, 8, 1), 1);
}

/* Lists numbered by disp so order can be checked. */
static void make_list(struct mdl_insn *l, long n, enum mdl_kind k)
{
	long i;

	for (i = 0; i < n; i++) {
		memset(&l[i], 0, sizeof(l[i]));
		l[i].kind = k;
		l[i].disp = i;
		l[i].bytes = 8;
	}
}

/* body is count bundles, each L^a F^b S^c with the shares of Alg. 2. */
static void check_bundles(const struct mdl_insn *body, long nl, long nf,
			  long ns, long count)
{
	long b, pos = 0, next[3] = {0, 0, 0}, n[3] = {nl, nf, ns};
	enum mdl_kind want;
	int s;

	for (b = 0; b < count; b++)
		for (s = 0; s < 3; s++) {
			long share = b == count - 1 ? n[s] - next[s]
						    : n[s] / count, i;

			for (i = 0; i < share; i++, pos++) {
				const struct mdl_insn *x = &body[pos];

				if (s == 0)
					want = MDL_LOAD;
				else if (s == 2)
					want = MDL_STORE;
				else
					want = x->kind == MDL_MUL ? MDL_MUL
								  : MDL_ADD;
				cr_assert_eq(x->kind, want, "bundle %ld at %ld",
					     b, pos);
				cr_assert_eq(x->disp, next[s]++,
					     "order kept at %ld", pos);
			}
		}
	cr_assert_eq(pos, nl + nf + ns);
}

/* The registers the body reads before writing them, computed here. */
static uint64_t early_reads(const struct mdl_insn *body, long n)
{
	uint64_t written = 0, early = 0;
	long i;

	for (i = 0; i < n; i++) {
		const struct mdl_insn *x = &body[i];

		if (x->kind == MDL_ADD || x->kind == MDL_MUL) {
			early |= (((uint64_t)1 << x->src) |
				  ((uint64_t)1 << x->reg)) & ~written;
			written |= (uint64_t)1 << x->reg;
		} else if (x->kind == MDL_STORE) {
			early |= ((uint64_t)1 << x->reg) & ~written;
		} else {
			written |= (uint64_t)1 << x->reg;
		}
	}
	return early;
}

static void check_alloc(struct mdl_insn *body, long n, int nregs)
{
	uint64_t defined = 0, init = mdl_neutral_alloc(body, (size_t)n, nregs);
	long i;

	for (i = 0; i < n; i++) {
		const struct mdl_insn *x = &body[i];
		int arith = x->kind == MDL_ADD || x->kind == MDL_MUL;

		cr_assert(x->reg >= 0 && x->reg < nregs, "reg %d", x->reg);
		if (arith)
			cr_assert(x->src >= 0 && x->src < nregs && x->src !=
				  x->reg, "src %d", x->src);
		/* A store takes a defined register once there is one. */
		if (x->kind == MDL_STORE && defined)
			cr_assert(defined >> x->reg & 1, "store of r%d at %ld",
				  x->reg, i);
		if (x->kind != MDL_STORE)
			defined |= (uint64_t)1 << x->reg;
	}
	cr_assert_eq(early_reads(body, n) & ~init, 0,
		     "a register read before it is written is initialised");
}

Test(mdl_concretize, bundles_and_registers_exhaustive)
{
	static struct mdl_insn loads[8], stores[8], fops[40], body[56];
	enum mdl_kind kinds[40];
	long nl, ns, na, nm, b, i;

	for (nl = 0; nl <= 8; nl++)
		for (ns = 0; ns <= 8; ns++)
			for (na = 0; na <= 20; na++)
				for (nm = 0; nm <= 20; nm++)
					for (b = 1; b <= 4; b++) {
		long nf = na + nm, count;

		make_list(loads, nl, MDL_LOAD);
		make_list(stores, ns, MDL_STORE);
		make_list(fops, nf, MDL_ADD);
		mdl_arith_order(na, nm, (int)(b & 1), kinds);
		for (i = 0; i < nf; i++)
			fops[i].kind = kinds[i];
		count = mdl_bundle_count(nl, ns, nf, b);
		cr_assert(count >= 1 && count <= b);
		mdl_bundle_order(loads, (size_t)nl, fops, (size_t)nf, stores,
				 (size_t)ns, b, body);
		check_bundles(body, nl, nf, ns, count);
		check_alloc(body, nl + nf + ns, b & 1 ? 16 : 32);
	}
}

Test(mdl_concretize, round_robin)
{
	struct mdl_insn body[20];
	int i;

	make_list(body, 20, MDL_LOAD);
	cr_assert_eq(mdl_neutral_alloc(body, 20, 16), 0);
	for (i = 0; i < 20; i++)
		cr_assert_eq(body[i].reg, i % 16);
	/* load r0, add r1 into r2, store the oldest definition: r0. */
	make_list(body, 3, MDL_LOAD);
	body[1].kind = MDL_ADD;
	body[2].kind = MDL_STORE;
	cr_assert_eq(mdl_neutral_alloc(body, 3, 16), (1u << 1) | (1u << 2));
	cr_assert_eq(body[1].src, 1);
	cr_assert_eq(body[1].reg, 2);
	cr_assert_eq(body[2].reg, 0);
}

Test(mdl_concretize, machines)
{
	const struct lk_mdl_machine *s = lk_mdl_machine_find("scalar");
	const struct lk_mdl_machine *a2 = lk_mdl_machine_find("avx2");
	const struct lk_mdl_machine *a5 = lk_mdl_machine_find("avx512");

	cr_assert(s && a2 && a5 && lk_mdl_machine_find("sse"));
	cr_assert_null(lk_mdl_machine_find("avx"));
	cr_assert_eq(a2->registers, 16);
	cr_assert_eq(a5->registers, 32);
	cr_assert_eq(a2->packed_bytes, 32);
	cr_assert_str_eq(a2->insns[1].load_packed, "vmovupd");
	cr_assert_str_eq(a2->insns[1].add_packed, "vaddpd");
	cr_assert_str_eq(a2->insns[1].mul_packed, "vmulpd");
	cr_assert_str_eq(s->insns[0].add_scalar, "addss");
	cr_assert(lk_mdl_machine_runs(s, NULL));
	cr_assert(lk_mdl_machine_runs(a2, "sse4_2 avx avx2 fma"));
	cr_assert_not(lk_mdl_machine_runs(a2, "sse4_2 avx"));
	cr_assert_not(lk_mdl_machine_runs(a5, "avx avx2 avx512f"));
	cr_assert_not(lk_mdl_machine_runs(a5, "avx avx2 avx512fx avx512vl"));
	cr_assert(lk_mdl_machine_runs(a5, "avx avx2 avx512f avx512vl"));
}

Test(mdl_concretize, levels)
{
	struct lk_env_caches c = {32768, 1 << 20, 32 << 20};
	struct lk_env_caches small = {32768, 2 << 20, 8 << 20};
	struct lk_env_caches no_l2 = {32768, 0, 32 << 20};
	struct lk_env_caches none = {0, 0, 0};
	enum lk_mdl_level l;

	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L1, &c), 16384);
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L2, &c), 1 << 19);
	/* 4 x L2 (4 MiB), under a quarter of the L3 (8 MiB)... */
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L3, &c), 4 << 20);
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_RAM, &c), 128 << 20);
	/* ... else the quarter; and the quarter when the L2 is unknown. */
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L3, &small), 2 << 20);
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L3, &no_l2), 8 << 20);
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L2, &none), 0);
	cr_assert_eq(lk_mdl_level_bytes(LK_MDL_L3, &none), 0);
	cr_assert_eq(lk_mdl_level_parse("RAM", &l), 0);
	cr_assert_eq(l, LK_MDL_RAM);
	cr_assert_eq(lk_mdl_level_parse("l1", &l), LK_EINPUT);
	cr_assert_str_eq(lk_mdl_level_name(LK_MDL_L3), "L3");
}

static const char triad[] =
	"MDL 1\nMeta:\nData:\n  flow a\n  flow b\n  flow c\n"
	"  scalar n = 100\nBody:\nTrip: n\nI/O: In: Out:\nLoopBody:\n"
	"  In: b Stride: 8 Offset: 0 Size: 8 c Stride: 8 Offset: 0 Size: 8\n"
	"  Out: a Stride: 8 Offset: 0 Size: 8\n  Add: 1 Mul: 1\n";

/* Concretise text on machine name; the C text or NULL with ctx's error. */
static char *concretize(const char *text, const char *machine, int unroll,
			struct lk_ctx *ctx)
{
	struct lk_mdl_concrete_opts o;
	struct lk_buf c = LK_BUF_INIT;
	struct lk_mdl m;
	int ret;

	lk_ctx_init(ctx);
	cr_assert_eq(lk_mdl_parse(ctx, "t.mdl", text, strlen(text), &m), 0,
		     "%s", ctx->msg);
	lk_mdl_concrete_opts_init(&o);
	o.unroll = unroll;
	o.bytes = 16384;
	o.source = "t.mdl";
	ret = lk_mdl_concretize(ctx, &m, lk_mdl_machine_find(machine), &o, &c);
	lk_mdl_release(&m);
	if (ret) {
		lk_buf_release(&c);
		return NULL;
	}
	return lk_buf_detach(&c);
}

Test(mdl_concretize, c_text)
{
	struct lk_ctx ctx;
	char *c = concretize(triad, "avx2", 8, &ctx);

	cr_assert_not_null(c, "%s", ctx.msg);
	cr_assert(strstr(c, "#include <lkrt.h>"));
	cr_assert(strstr(c, "LK_MEASURE_NAMED(\"mdl\", mdl_step())"));
	cr_assert(strstr(c, "lk_alloc("));
	cr_assert(strstr(c, "k * (1024 + 64)"));
	cr_assert(strstr(c, "ldmxcsr"));
	/* 8 doubles per access: two ymm loads each, one vaddpd, vmulpd. */
	cr_assert(strstr(c, "\"vmovupd 32(%%rsi), %%ymm1\\n\\t\""), "%s", c);
	cr_assert(strstr(c, "vaddpd %%ymm"));
	cr_assert(strstr(c, "vmulpd %%ymm"));
	cr_assert(strstr(c, "\"add $64, %%rdx\\n\\t\""));
	cr_assert(strstr(c, "\"memory\""));
	cr_assert(strstr(c, "target(\"avx2\")"));
	cr_assert_null(strstr(c, "rbp"));
	cr_assert_null(strstr(c, "rsp"));
	/* 16384 bytes / 24 bytes per iteration / 8 = 85 asm iterations. */
	cr_assert(strstr(c, "iterations-per-step=680 "), "%.300s", c);
	free(c);
	c = concretize(triad, "scalar", 1, &ctx);
	cr_assert_not_null(c, "%s", ctx.msg);
	cr_assert(strstr(c, "\"movsd 0(%%rsi), %%xmm0\\n\\t\""), "%s", c);
	cr_assert(strstr(c, "addsd %%xmm"));
	cr_assert_null(strstr(c, "target("));
	cr_assert_null(strstr(c, "vzeroupper"));
	free(c);
	c = concretize(triad, "avx512", 8, &ctx);
	cr_assert(c && strstr(c, "vmovupd 0(%%rsi), %%zmm0"), "%s", c);
	free(c);
}

Test(mdl_concretize, refusals)
{
	struct lk_ctx ctx;
	struct lk_buf many = LK_BUF_INIT;
	int i;

	cr_assert_null(concretize("MDL 1\nMeta:\nData:\nBody:\nTrip: 4\n"
				  "I/O: In: Out:\nLoopBody:\n", "sse", 8,
				  &ctx));
	cr_assert_eq(ctx.code, LK_EINPUT);
	cr_assert(strstr(ctx.msg, "t.mdl: no µkernel"), "%s", ctx.msg);
	cr_assert_null(concretize("MDL 1\nMeta:\nData:\n  flow a\nBody:\n"
				  "Trip: 4\nI/O: In: Out:\nLoopBody:\n  In: a "
				  "Stride: 6 Offset: 0 Size: 6\n  Out:\n"
				  "  Add: 0 Mul: 0\n", "sse", 8, &ctx));
	cr_assert(strstr(ctx.msg, "size 6 is not a whole number"), "%s",
		  ctx.msg);
	cr_assert_null(concretize(triad, "sse", 0, &ctx));
	cr_assert(strstr(ctx.msg, "unroll"), "%s", ctx.msg);
	lk_buf_adds(&many, "MDL 1\nMeta:\nData:\n");
	for (i = 0; i < 13; i++)
		lk_buf_addf(&many, "  flow f%d\n", i);
	lk_buf_adds(&many, "Body:\nTrip: 4\nI/O: In: Out:\nLoopBody:\n  In:");
	for (i = 0; i < 13; i++)
		lk_buf_addf(&many, " f%d Stride: 8 Offset: 0 Size: 8", i);
	lk_buf_adds(&many, "\n  Out:\n  Add: 0 Mul: 0\n");
	cr_assert_null(concretize(many.buf, "sse", 8, &ctx));
	cr_assert(strstr(ctx.msg, "13 streams"), "%s", ctx.msg);
	lk_buf_release(&many);
	/* Load-only and arithmetic-only bodies are fine. */
	free(concretize("MDL 1\nMeta:\nData:\nBody:\nTrip: 4\nI/O: In: Out:\n"
			"LoopBody:\n  In:\n  Out:\n  Add: 3 Mul: 0\n", "avx2", 4,
			&ctx));
	cr_assert_eq(ctx.code, 0, "%s", ctx.msg);
}

/* A seed whose Meta names its classes is planned for those only; named
 * with --seeds for another class it is an error naming the file. */
Test(mdl_concretize, seed_classes)
{
	static const char body[] =
		"Data:\n  flow a\nBody:\nTrip: 4\nI/O: In: a 32 Out:\n"
		"LoopBody:\n  In: a Stride: 8 Offset: 0 Size: 8\n  Out:\n"
		"  Add: 1 Mul: 0\n";
	char dir[] = "/tmp/lk-seeds.XXXXXX", *path;
	struct lk_strv named = LK_STRV_INIT;
	struct lk_mdl_db_plan p;
	struct lk_ctx ctx;
	FILE *f;

	lk_ctx_init(&ctx);
	cr_assert_not_null(mkdtemp(dir));
	path = lk_asprintf("%s/any.mdl", dir);
	f = fopen(path, "w");
	fprintf(f, "MDL 1\nMeta:\n  kind = \"kernel\"\n%s", body);
	fclose(f);
	free(path);
	path = lk_asprintf("%s/one.mdl", dir);
	f = fopen(path, "w");
	fprintf(f, "MDL 1\nMeta:\n  classes = \"avx2, scalar\"\n%s", body);
	fclose(f);
	cr_assert_eq(lk_mdl_db_plan_init(&ctx, &p, dir, NULL,
					 lk_mdl_machine_find("scalar"),
					 1u << LK_MDL_L1, LK_MDL_EXPLORE_MINIMAL),
		     0, "%s", ctx.msg);
	cr_assert_eq(p.nseeds, 2);
	lk_mdl_db_plan_release(&p);
	cr_assert_eq(lk_mdl_db_plan_init(&ctx, &p, dir, NULL,
					 lk_mdl_machine_find("sse"),
					 1u << LK_MDL_L1, LK_MDL_EXPLORE_MINIMAL),
		     0, "%s", ctx.msg);
	cr_assert_eq(p.nseeds, 1);
	cr_assert_str_eq(p.seeds[0].name, "any");
	lk_mdl_db_plan_release(&p);
	lk_strv_push(&named, "one");
	cr_assert_eq(lk_mdl_db_plan_init(&ctx, &p, dir, &named,
					 lk_mdl_machine_find("sse"),
					 1u << LK_MDL_L1, LK_MDL_EXPLORE_MINIMAL),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "one.mdl: seed one is not measured for "
			 "sse"), "%s", ctx.msg);
	lk_mdl_db_plan_release(&p);
	lk_strv_release(&named);
	unlink(path);
	free(path);
	path = lk_asprintf("%s/any.mdl", dir);
	unlink(path);
	free(path);
	rmdir(dir);
}
