/*
 * CPU lists and the threads: axis: lk_cpuset_* (core), method.cpu in
 * its text and YAML forms, and threads: with nproc (config). The
 * invalid and golden YAML cases are in tests/data/config (threads-*,
 * method-cpu-*), run by test-config.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

TestSuite(cpus, .init = setup);

static char *canonical(const char *text)
{
	struct lk_cpuset s;
	const char *why = NULL;

	cr_assert_eq(lk_cpuset_parse(text, &s, &why), 0, "%s: %s", text, why);
	return lk_cpuset_format(&s);
}

Test(cpus, parse_and_format)
{
	static const char *const cases[][2] = {
		{"3", "3"},         {"0-3", "0-3"},     {"0-3,6", "0-3,6"},
		{"6,0-3", "0-3,6"}, {"1,2,3", "1-3"},   {"0, 2 ,4", "0,2,4"},
		{"5-5", "5"},       {"0-2,1-4", "0-4"}, {"1023", "1023"},
		{"0,2-3,5-7,9", "0,2-3,5-7,9"},
	};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		char *got = canonical(cases[i][0]);

		cr_expect_str_eq(got, cases[i][1], "%s", cases[i][0]);
		free(got);
	}
}

Test(cpus, parse_refuses)
{
	static const char *const bad[] = {"", "-1", "x", "1-", "-3", "3-1",
					  "0,", ",0", "0;1", "1024", "0x1",
					  "1 2", "0--2", "99999999999999999"};
	struct lk_cpuset s, before;
	const char *why;
	size_t i;

	lk_cpuset_clear(&s);
	lk_cpuset_add(&s, 7);
	before = s;
	for (i = 0; i < LK_ARRAY_SIZE(bad); i++) {
		why = NULL;
		cr_expect_eq(lk_cpuset_parse(bad[i], &s, &why), -1, "'%s'",
			     bad[i]);
		cr_expect(why && *why, "'%s' has no reason", bad[i]);
	}
	cr_assert_eq(memcmp(&s, &before, sizeof(s)), 0, "a refusal changed it");
	lk_cpuset_parse("3-1", &s, &why);
	cr_assert_str_eq(why, "a range goes down (write it low-high)");
	lk_cpuset_parse("2000", &s, &why);
	cr_assert(strstr(why, "1023"), "%s", why);
}

Test(cpus, set_operations)
{
	struct lk_cpuset s;
	char *text;

	lk_cpuset_clear(&s);
	cr_assert_eq(lk_cpuset_count(&s), 0);
	cr_assert_eq(lk_cpuset_next(&s, -1), -1);
	text = lk_cpuset_format(&s);
	cr_assert_str_eq(text, "");
	free(text);
	lk_cpuset_add(&s, 64);
	lk_cpuset_add(&s, 1);
	lk_cpuset_add(&s, -1);     /* ignored */
	lk_cpuset_add(&s, 1024);   /* ignored */
	cr_assert_eq(lk_cpuset_count(&s), 2);
	cr_assert_eq(lk_cpuset_next(&s, -1), 1);
	cr_assert_eq(lk_cpuset_next(&s, 1), 64);
	cr_assert_eq(lk_cpuset_next(&s, 64), -1);
	cr_assert(!lk_cpuset_has(&s, 1024));
}

Test(cpus, machine_sets)
{
	struct lk_cpuset online, allowed;
	int cpu = -1;

	cr_assert_eq(lk_cpus_online(&online), 0);
	cr_assert_eq(lk_cpus_allowed(&allowed), 0);
	cr_assert_geq(lk_cpuset_count(&online), 1);
	cr_assert_geq(lk_cpuset_count(&allowed), 1);
	/* This process runs on online CPUs only. */
	while ((cpu = lk_cpuset_next(&allowed, cpu)) >= 0)
		cr_expect(lk_cpuset_has(&online, cpu), "CPU %d", cpu);
}

Test(cpus, method_cpu_records_where)
{
	struct lk_method m;
	char *text;

	lk_method_init(&m);
	cr_assert_str_eq(m.cpu_where, "");
	cr_assert_eq(lk_method_set(&ctx, &m, "cpu", "2,0-1", "s.yaml:9"), 0);
	cr_assert_str_eq(m.cpu_where, "s.yaml:9");
	text = lk_method_canonical(&m);
	cr_assert(strstr(text, ";cpu=0-2;"), "%s", text);
	free(text);
	/* A single CPU keeps the key it had before lists. */
	cr_assert_eq(lk_method_set(&ctx, &m, "cpu", "5", "command line"), 0);
	cr_assert_str_eq(m.cpu_where, "command line");
	text = lk_method_canonical(&m);
	cr_assert(strstr(text, ";cpu=5;"), "%s", text);
	free(text);
	/* A refused value changes neither the set nor where it came from. */
	cr_assert_eq(lk_method_set(&ctx, &m, "cpu", "5-", "other:1"),
		     LK_EINPUT);
	cr_assert_str_eq(m.cpu_where, "command line");
	cr_assert(lk_cpuset_has(&m.cpus, 5));
}

static struct lk_sweep *load(const char *yaml)
{
	struct lk_sweep *s = NULL;

	lk_ctx_clear(&ctx);
	cr_assert_eq(lk_sweep_parse(&ctx, "t.yaml", yaml, strlen(yaml), &s), 0,
		     "%s", ctx.msg);
	return s;
}

static int load_error(const char *yaml)
{
	struct lk_sweep *s = NULL;
	int ret;

	lk_ctx_clear(&ctx);
	ret = lk_sweep_parse(&ctx, "t.yaml", yaml, strlen(yaml), &s);
	cr_assert_null(s);
	return ret;
}

#define SRC "sources: [" __FILE__ "]\n"

Test(cpus, yaml_cpu_list)
{
	struct lk_sweep *s = load(SRC "method:\n  cpu: [0, \"2-3\", 6]\n");
	char *text = lk_cpuset_format(&s->method.cpus);

	cr_assert_str_eq(text, "0,2-3,6");
	cr_assert_str_eq(s->method.cpu_where, "t.yaml:3");
	free(text);
	lk_sweep_free(s);
	s = load(SRC "method: {cpu: none}\n");
	cr_assert_eq(lk_cpuset_count(&s->method.cpus), 0);
	lk_sweep_free(s);
	cr_assert_eq(load_error(SRC "method: {cpu: [0, [1]]}\n"), LK_EINPUT);
	cr_assert_eq(load_error(SRC "method: {cpu: [0, x]}\n"), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "t.yaml:2: bad value '0,x' for method.cpu"),
		  "%s", ctx.msg);
	/* Only cpu takes a list. */
	cr_assert_eq(load_error(SRC "method: {warmup: [1]}\n"), LK_EINPUT);
}

/* The values of the threads axis, "1 2 4". */
static char *threads_values(const struct lk_sweep *s)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i, j;

	for (i = 0; i < s->naxes; i++) {
		if (strcmp(s->axes[i].name, "threads"))
			continue;
		cr_assert(s->axes[i].implicit, "threads is no -D");
		for (j = 0; j < s->axes[i].values.n; j++)
			lk_buf_addf(&b, "%s%s", j ? " " : "",
				    s->axes[i].values.v[j]);
	}
	return lk_buf_detach(&b);
}

static void expect_threads(const char *value, const char *want)
{
	char *yaml = lk_asprintf(SRC "threads: %s\n", value);
	struct lk_sweep *s = load(yaml);
	char *got = threads_values(s);

	cr_expect_str_eq(got, want, "threads: %s", value);
	free(got);
	free(yaml);
	lk_sweep_free(s);
}

Test(cpus, threads_forms)
{
	struct lk_cpuset online;
	char *n, *up_to_n = lk_strdup("1"), *with_n;
	int count, i;

	cr_assert_eq(lk_cpus_online(&online), 0);
	count = lk_cpuset_count(&online);
	n = lk_asprintf("%d", count);
	for (i = 2; i <= count; i++) {
		char *next = lk_asprintf("%s %d", up_to_n, i);

		free(up_to_n);
		up_to_n = next;
	}
	with_n = count > 2 ? lk_asprintf("1 2 %d", count) : lk_strdup(
						 count == 2 ? "1 2" : "1");
	expect_threads("2", "2");
	expect_threads("[1, 2, 8]", "1 2 8");
	expect_threads("{from: 2, to: 8, step: 3}", "2 5 8");
	expect_threads("{from: 1, to: 20, times: 2}", "1 2 4 8 16");
	expect_threads("{from: 3, to: 27, times: 3}", "3 9 27");
	expect_threads("nproc", n);
	expect_threads("{from: 1, to: nproc}", up_to_n);
	/* nproc repeating a count written beside it is dropped, so a file
	 * written for a bigger machine loads on a small one. */
	expect_threads("[1, 2, nproc]", with_n);
	free(with_n);
	free(up_to_n);
	free(n);
}

Test(cpus, threads_axis_in_variants)
{
	struct lk_sweep *s = load(SRC "defines: {N: [1, 2]}\n"
				      "threads: [1, 2]\n"
				      "exclude:\n  - {threads: 2, N: 1}\n");
	struct lk_variant *v;
	size_t n;

	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	cr_assert_eq(n, 3);
	cr_assert_eq(lk_variant_threads(s, &v[0]), 1);
	cr_assert_eq(lk_variant_threads(s, &v[1]), 1);
	cr_assert_str_eq(v[1].values[0], "2");
	cr_assert_eq(lk_variant_threads(s, &v[2]), 2);
	lk_variants_free(v, n);
	lk_sweep_free(s);
	s = load(SRC "defines: {N: [1]}\n");
	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	cr_assert_eq(lk_variant_threads(s, &v[0]), 0, "no threads: key");
	lk_variants_free(v, n);
	lk_sweep_free(s);
}

Test(cpus, threads_refused)
{
	static const char *const bad[][2] = {
		{"threads: 0\n", "t.yaml:2: threads: expected nproc or"},
		{"threads: 1025\n", "between 1 and 1024, not '1025'"},
		{"threads: [1, -2]\n", "not '-2'"},
		{"threads: [2, 2]\n", "threads: 2 is listed twice"},
		{"threads: []\n", "threads: empty list"},
		{"threads: {to: 4}\n", "a range needs 'from' and 'to'"},
		{"threads: {from: 1, to: 1025}\n", "threads.to:"},
		{"threads: {from: 1, to: 4, step: -1}\n", "threads.step:"},
		{"threads: {from: 9999, to: nproc}\n", "threads.from:"},
		{"threads: {from: 1000, to: nproc}\n", "gives no values (nproc "
						       "is"},
		{"threads: [[1]]\n", "t.yaml:2: threads: expected a single"},
		{"threads: {from: 1, to: 8, step: 1, times: 2}\n",
		 "'step' or 'times', not both"},
		{"threads: {from: 1, to: 8, times: 1}\n", "threads.times: "
							  "expected a whole "
							  "number between 2"},
		{"defines: {threads: [1]}\nthreads: 1\n", "already defined "
							  "(line 2)"},
	};
	size_t i;
	char *yaml;

	for (i = 0; i < LK_ARRAY_SIZE(bad); i++) {
		yaml = lk_asprintf(SRC "%s", bad[i][0]);
		cr_expect_eq(load_error(yaml), LK_EINPUT, "%s", bad[i][0]);
		cr_expect(strstr(ctx.msg, bad[i][1]), "%s: got '%s'",
			  bad[i][0], ctx.msg);
		free(yaml);
	}
}
