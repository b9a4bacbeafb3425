/*
 * The L1 filter: the cachegrind.out parser on captured and hand-written
 * files (tests/data/filter/), its errors, the warm ratio, the settings'
 * defaults and the 'filter:' config section.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/config.h"
#include "loopkit/filter.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

TestSuite(filter, .init = setup);

static char *data_path(const char *area, const char *rel)
{
	const char *dir = getenv("LOOPKIT_TEST_DATA");

	return lk_asprintf("%s/%s/%s", dir ? dir : "tests/data", area, rel);
}

static void parse_file(const char *rel, const char *fn,
		       struct lk_cg_counts *c)
{
	char *path = data_path("filter", rel), *text;
	size_t len;

	cr_assert_eq(lk_file_read(&ctx, path, &text, &len), 0, "%s", ctx.msg);
	cr_assert_eq(lk_cachegrind_function(&ctx, path, text, len, fn, c), 0,
		     "%s", ctx.msg);
	free(text);
	free(path);
}

static int parse_text(const char *text, const char *fn,
		      struct lk_cg_counts *c)
{
	lk_ctx_clear(&ctx);
	return lk_cachegrind_function(&ctx, "cg.out", text, strlen(text), fn,
				      c);
}

Test(filter, captured_triad_function_only)
{
	struct lk_cg_counts c;

	parse_file("triad-scalar-4000.1.out", "triad.constprop.0", &c);
	cr_assert_eq(c.lines, 3);
	cr_assert_eq(c.ev[LK_CG_IR], 12003 + 16000 + 1);
	cr_assert_eq(c.ev[LK_CG_DR], 8002);
	cr_assert_eq(c.ev[LK_CG_D1MR], 1001);
	cr_assert_eq(c.ev[LK_CG_DW], 4000);
	cr_assert_eq(c.ev[LK_CG_D1MW], 500);
	cr_assert_eq(c.ev[LK_CG_DLMW], 0);
	/* main is another function: not mixed in. */
	parse_file("triad-scalar-4000.1.out", "main", &c);
	cr_assert_gt(c.lines, 0);
	cr_assert_neq(c.ev[LK_CG_DR], 8002);
	parse_file("triad-scalar-4000.1.out", "absent", &c);
	cr_assert_eq(c.lines, 0);
	cr_assert_eq(c.ev[LK_CG_IR], 0);
}

Test(filter, warm_ratio_of_captured_runs)
{
	struct lk_cg_counts a, b;
	double ratio, reads;

	parse_file("triad-scalar-4000.1.out", "triad.constprop.0", &a);
	parse_file("triad-scalar-4000.3.out", "triad.constprop.0", &b);
	cr_assert_eq(lk_l1_warm_ratio(&ctx, &a, &b, &ratio, &reads), 0);
	cr_assert_float_eq(ratio, 3004.0 / 24004.0, 1e-12);
	cr_assert_float_eq(reads, 2004.0 / 16004.0, 1e-12);
	/* The scalar streaming figure: one miss per 8 doubles. */
	cr_assert(ratio > 0.12 && ratio < 0.13, "%g", ratio);
	/* Backwards is no data at all. */
	cr_assert_eq(lk_l1_warm_ratio(&ctx, &b, &a, &ratio, &reads),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "no data accesses"), "%s", ctx.msg);
}

Test(filter, one_function_under_two_files)
{
	struct lk_cg_counts c;

	parse_file("two-files.out", "kern", &c);
	cr_assert_eq(c.lines, 3);
	cr_assert_eq(c.ev[LK_CG_DR], 35);
	cr_assert_eq(c.ev[LK_CG_D1MR], 3);
	cr_assert_eq(c.ev[LK_CG_IR], 150);
	cr_assert_eq(c.ev[LK_CG_DW], 0, "an event the file lacks reads 0");
}

Test(filter, warm_ratio_never_negative)
{
	struct lk_cg_counts a = {{0}, 1}, b = {{0}, 1};
	double ratio, reads;

	a.ev[LK_CG_DR] = 100;
	a.ev[LK_CG_D1MR] = 10;
	b.ev[LK_CG_DR] = 300;
	b.ev[LK_CG_D1MR] = 9;
	cr_assert_eq(lk_l1_warm_ratio(&ctx, &a, &b, &ratio, &reads), 0);
	cr_assert_eq(ratio, 0);
	cr_assert_eq(reads, 0);
	b.ev[LK_CG_DR] = 100;
	b.ev[LK_CG_DW] = 50;
	b.ev[LK_CG_D1MW] = 5;
	cr_assert_eq(lk_l1_warm_ratio(&ctx, &a, &b, &ratio, &reads), 0);
	cr_assert_float_eq(ratio, 0.1, 1e-12);
	cr_assert_eq(reads, -1, "no extra reads: no read ratio");
}

Test(filter, malformed_files_name_the_line)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"fn=k\n1 2 3\n", "cg.out:2: a cost line before the events"},
		{"events: Ir Dr\nfn=k\n1 2 3 4\n", "cg.out:3: more counts"},
		{"events: Ir\nfn=k\n1 x\n", "cg.out:3: a count that is not"},
		{"events: Ir\nfn=k\n1 99999999999999999999999\n",
		 "cg.out:3: a count that is not"},
		{"events: Ir\n1x 2\n", "cg.out:2: a line number"},
		{"events:\n", "cg.out:1: an events line naming no event"},
		{"desc: x\n", "cg.out: no events line"},
		{"events: Ir\nGarbage here\n", "cg.out:2: not a cachegrind"},
		{"", "cg.out: no events line"},
	};
	struct lk_cg_counts c;

	for (size_t i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		cr_assert_eq(parse_text(cases[i].text, "k", &c), LK_EINPUT,
			     "case %zu", i);
		cr_assert(strstr(ctx.msg, cases[i].msg), "case %zu: %s", i,
			  ctx.msg);
	}
}

Test(filter, nul_byte_is_refused)
{
	static const char text[] = "events: Ir\nfn=k\0x\n";
	struct lk_cg_counts c;

	cr_assert_eq(lk_cachegrind_function(&ctx, "cg.out", text,
					    sizeof(text) - 1, "k", &c),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "cg.out:2: a NUL byte"), "%s", ctx.msg);
}

Test(filter, no_trailing_newline)
{
	struct lk_cg_counts c;

	cr_assert_eq(parse_text("events: Ir Dr\nfn=k\n5 7 9", "k", &c), 0);
	cr_assert_eq(c.ev[LK_CG_IR], 7);
	cr_assert_eq(c.ev[LK_CG_DR], 9);
}

Test(filter, settings_defaults)
{
	struct lk_l1_filter_cfg f = {0};
	struct lk_l1_settings set;

	lk_l1_settings_resolve(NULL, &set);
	cr_assert_eq(set.threshold, LK_L1_DEFAULT_THRESHOLD);
	cr_assert_eq(set.calls[0], 1);
	cr_assert_eq(set.calls[1], 3);
	cr_assert_str_eq(set.working_set_param, "working_set_bytes");
	cr_assert_gt(set.l1d_size, 0);
	f.l1d_size = 32768 + 1024; /* no host has it: 8-way, 64 B */
	f.has_threshold = 1;
	f.threshold = 0;
	lk_l1_settings_resolve(&f, &set);
	cr_assert_eq(set.threshold, 0, "a threshold of 0 is a threshold");
	cr_assert_eq(set.l1d_assoc, 8);
	cr_assert_eq(set.line_size, 64);
	cr_assert_str_eq(set.l1d_from, "configured");
}

static int parse_sweep(const char *filter, struct lk_sweep **s)
{
	char *src = data_path("kernels", "sum.c");
	char *text = lk_asprintf("sources: [%s]\nfilter:\n%s", src, filter);
	int ret;

	lk_ctx_clear(&ctx);
	ret = lk_sweep_parse(&ctx, "c.yaml", text, strlen(text), s);
	free(text);
	free(src);
	return ret;
}

Test(filter, config_section)
{
	struct lk_sweep *s;

	cr_assert_eq(parse_sweep("  threshold: 2%\n  l1d-size: 32KiB\n"
				 "  l1d-assoc: 8\n  calls: [2, 5]\n"
				 "  timeout: 30\n  working-set-param: ws\n"
				 "  enabled: no\n", &s), 0, "%s", ctx.msg);
	cr_assert(s->filter.has_threshold);
	cr_assert_float_eq(s->filter.threshold, 0.02, 1e-12);
	cr_assert_eq(s->filter.l1d_size, 32768);
	cr_assert_eq(s->filter.l1d_assoc, 8);
	cr_assert_eq(s->filter.calls[0], 2);
	cr_assert_eq(s->filter.calls[1], 5);
	cr_assert_eq(s->filter.timeout, 30);
	cr_assert_str_eq(s->filter.working_set_param, "ws");
	cr_assert(s->filter.disabled);
	lk_sweep_free(s);
	cr_assert_eq(parse_sweep("  threshold: 0.005\n  l1d-size: host\n", &s),
		     0, "%s", ctx.msg);
	cr_assert_float_eq(s->filter.threshold, 0.005, 1e-12);
	cr_assert_eq(s->filter.l1d_size, 0);
	lk_sweep_free(s);
}

Test(filter, config_section_errors)
{
	static const struct {
		const char *yaml, *msg;
	} cases[] = {
		{"  threshold: 150%\n", "c.yaml:3: filter.threshold"},
		{"  threshold: lots\n", "c.yaml:3: filter.threshold"},
		{"  l1d-size: -1\n", "c.yaml:3: filter.l1d-size"},
		{"  calls: [3, 1]\n", "c.yaml:3: filter.calls: the second"},
		{"  calls: [1]\n", "c.yaml:3: filter.calls: expected two"},
		{"  timeout: 0\n", "c.yaml:3: filter.timeout"},
		{"  enabled: maybe\n", "c.yaml:3: filter.enabled"},
		{"  treshold: 1%\n", "treshold"},
	};
	struct lk_sweep *s;

	for (size_t i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		cr_assert_eq(parse_sweep(cases[i].yaml, &s), LK_EINPUT,
			     "case %zu", i);
		cr_assert(strstr(ctx.msg, cases[i].msg), "case %zu: %s", i,
			  ctx.msg);
	}
}

Test(filter, proxy_flags_replace_the_isa)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"-O3 -march=native", "-O3 -march=x86-64-v3"},
		{"-O2 -march=x86-64-v4 -DX=1", "-O2 -DX=1 -march=x86-64-v3"},
		{"-O1 -mavx512f -mavx512vl -mno-avx512bw -mtune=znver4",
		 "-O1 -mtune=znver4 -march=x86-64-v3"},
		{"", "-march=x86-64-v3"},
		{"-O2 '-DS=a b'", "-O2 -DS=a\\ b -march=x86-64-v3"},
	};
	struct lk_strv a = LK_STRV_INIT;

	for (size_t i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		char *got = lk_l1_proxy_flags(&ctx, cases[i].in);

		cr_assert_str_eq(got, cases[i].out, "case %zu", i);
		free(got);
	}
	/* The shell-like split reads the same words back. */
	cr_assert_eq(lk_strv_split(&ctx, &a, cases[4].out), 0);
	cr_assert_eq(a.n, 3);
	cr_assert_str_eq(a.v[1], "-DS=a b");
	lk_strv_release(&a);
	cr_assert_null(lk_l1_proxy_flags(&ctx, "-O2 '-Dx"));
}
