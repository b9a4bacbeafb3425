/*
 * config: method keys, sweep building, filters and expansion, and the
 * data-driven YAML cases in tests/data/config/{valid,invalid}/.
 *
 * Files invalid/NAME.yaml start with "# error: LINE: text": loading must fail
 * with LK_EINPUT and a message "<path>:LINE: ...text...".
 * Files valid/NAME.yaml have a golden NAME.out (the dump below); run with
 * LOOPKIT_UPDATE_GOLDEN=1 to rewrite them, then review the diff.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"
#include "loopkit/subprocess.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

TestSuite(config, .init = setup);

static char *data_path(const char *rel)
{
	const char *dir = getenv("LOOPKIT_TEST_DATA");

	return lk_asprintf("%s/config/%s", dir ? dir : "tests/data", rel);
}

/* ---- method ---------------------------------------------------------- */

Test(config, method_defaults)
{
	struct lk_method m;

	lk_method_init(&m);
	cr_assert_eq(m.warmup, 10);
	cr_assert_eq(m.steps, 0);
	cr_assert_eq(m.min_sample_ticks, 20000);
	cr_assert_eq(m.repetitions, 30);
	cr_assert_eq(m.processes, 3);
	cr_assert_eq(m.reducer, LK_REDUCE_PERCENTILE);
	cr_assert_float_eq(m.percentile, 25, 1e-12);
	cr_assert_eq(m.trim_runs, 5);
	cr_assert_float_eq(m.trim_tolerance, 0.02, 1e-12);
	cr_assert_eq(m.trim_retries, 3);
	cr_assert_eq(m.cold_cache, 0);
	cr_assert_eq(lk_cpuset_count(&m.cpus), 0);
	cr_assert_eq(m.fifo, 0);
	cr_assert_eq(m.calibrate, 1);
	cr_assert_eq(m.no_aslr, 1);
	cr_assert_eq(m.align_functions, 64);
	cr_assert_float_eq(m.timeout, 60, 1e-12);
}

static void set_ok(struct lk_method *m, const char *key, const char *value)
{
	int ret = lk_method_set(&ctx, m, key, value, NULL);

	cr_assert_eq(ret, 0, "%s=%s: %s", key, value, ctx.msg);
}

Test(config, method_set_values)
{
	struct lk_method m;

	lk_method_init(&m);
	set_ok(&m, "warmup", "0");
	cr_assert_eq(m.warmup, 0);
	set_ok(&m, "steps", "1000");
	cr_assert_eq(m.steps, 1000);
	set_ok(&m, "steps", "auto");
	cr_assert_eq(m.steps, 0);
	set_ok(&m, "min-sample-ticks", "300");
	cr_assert_eq(m.min_sample_ticks, 300);
	set_ok(&m, "repetitions", "1");
	cr_assert_eq(m.repetitions, 1);
	set_ok(&m, "processes", "8");
	cr_assert_eq(m.processes, 8);
	set_ok(&m, "stability.runs", "7");
	cr_assert_eq(m.trim_runs, 7);
	set_ok(&m, "stability.retries", "0");
	cr_assert_eq(m.trim_retries, 0);
	set_ok(&m, "cache", "cold");
	cr_assert_eq(m.cold_cache, 1);
	set_ok(&m, "cache", "hot");
	cr_assert_eq(m.cold_cache, 0);
	set_ok(&m, "cpu", "3");
	cr_assert(lk_cpuset_has(&m.cpus, 3));
	cr_assert_eq(lk_cpuset_count(&m.cpus), 1);
	set_ok(&m, "cpu", "0-3,6");
	cr_assert_eq(lk_cpuset_count(&m.cpus), 5);
	cr_assert(lk_cpuset_has(&m.cpus, 6));
	set_ok(&m, "cpu", "none");
	cr_assert_eq(lk_cpuset_count(&m.cpus), 0);
	set_ok(&m, "align-functions", "0");
	cr_assert_eq(m.align_functions, 0);
	set_ok(&m, "align-functions", "32");
	cr_assert_eq(m.align_functions, 32);
	set_ok(&m, "timeout", "0.5");
	cr_assert_float_eq(m.timeout, 0.5, 1e-12);
}

Test(config, method_set_tolerance)
{
	struct lk_method m;

	lk_method_init(&m);
	set_ok(&m, "stability.tolerance", "5%");
	cr_assert_float_eq(m.trim_tolerance, 0.05, 1e-12);
	set_ok(&m, "stability.tolerance", "0.1");
	cr_assert_float_eq(m.trim_tolerance, 0.1, 1e-12);
	set_ok(&m, "stability.tolerance", "0.5%");
	cr_assert_float_eq(m.trim_tolerance, 0.005, 1e-12);
}

Test(config, method_set_booleans)
{
	static const char *const yes[] = {"true", "yes", "on", "1", "TRUE",
					  "Yes"};
	static const char *const no[] = {"false", "no", "off", "0", "False",
					 "OFF"};
	struct lk_method m;
	size_t i;

	lk_method_init(&m);
	for (i = 0; i < LK_ARRAY_SIZE(yes); i++) {
		set_ok(&m, "fifo", yes[i]);
		cr_assert_eq(m.fifo, 1, "%s", yes[i]);
		set_ok(&m, "aslr", yes[i]);
		cr_assert_eq(m.no_aslr, 0, "%s", yes[i]);
		set_ok(&m, "fifo", no[i]);
		cr_assert_eq(m.fifo, 0, "%s", no[i]);
		set_ok(&m, "calibrate", no[i]);
		cr_assert_eq(m.calibrate, 0, "%s", no[i]);
		set_ok(&m, "aslr", no[i]);
		cr_assert_eq(m.no_aslr, 1, "%s", no[i]);
	}
}

Test(config, method_set_reducers)
{
	struct lk_method m;

	lk_method_init(&m);
	set_ok(&m, "reducer", "p10");
	cr_assert_eq(m.reducer, LK_REDUCE_PERCENTILE);
	cr_assert_float_eq(m.percentile, 10, 1e-12);
	set_ok(&m, "reducer", "p99.9");
	cr_assert_float_eq(m.percentile, 99.9, 1e-12);
	set_ok(&m, "reducer", "p50");
	cr_assert_eq(m.reducer, LK_REDUCE_MEDIAN);
	set_ok(&m, "reducer", "p0");
	cr_assert_eq(m.reducer, LK_REDUCE_PERCENTILE);
	cr_assert_float_eq(m.percentile, 0, 1e-12);
	set_ok(&m, "reducer", "min");
	cr_assert_eq(m.reducer, LK_REDUCE_MIN);
	set_ok(&m, "reducer", "mean");
	cr_assert_eq(m.reducer, LK_REDUCE_MEAN);
	set_ok(&m, "reducer", "trimmed-mean");
	cr_assert_eq(m.reducer, LK_REDUCE_TRIMMED);
	set_ok(&m, "reducer", "median");
	cr_assert_eq(m.reducer, LK_REDUCE_MEDIAN);
	cr_assert_float_eq(m.percentile, 50, 1e-12);
}

Test(config, method_mode_min_of_n)
{
	struct lk_method m;

	lk_method_init(&m);
	set_ok(&m, "mode", "min-of-4");
	cr_assert_eq(m.processes, 4);
	cr_assert_eq(m.repetitions, 1);
	cr_assert_eq(m.reducer, LK_REDUCE_MIN);
	/* Later keys override. */
	set_ok(&m, "repetitions", "3");
	cr_assert_eq(m.repetitions, 3);
	set_ok(&m, "mode", "min-of-10");
	cr_assert_eq(m.processes, 10);
}

Test(config, method_set_rejects)
{
	static const char *const bad[][2] = {
		{"warmup", "-1"}, {"warmup", "ten"}, {"warmup", ""},
		{"warmup", " 1"}, {"warmup", "0x10"}, {"steps", "0"},
		{"steps", "automatic"}, {"min-sample-ticks", "0"},
		{"repetitions", "0"}, {"repetitions", "1.5"},
		{"processes", "0"}, {"processes", "99999999999999999999"},
		{"reducer", "max"}, {"reducer", "p"}, {"reducer", "p101"},
		{"reducer", "p-1"}, {"reducer", "p1.2.3"}, {"reducer", "pnan"},
		{"stability.runs", "0"}, {"stability.retries", "-1"},
		{"stability.tolerance", "0"}, {"stability.tolerance", "1"},
		{"stability.tolerance", "100%"}, {"stability.tolerance", "%"},
		{"stability.tolerance", "-2%"}, {"stability.tolerance", "nan"},
		{"stability.tolerance", "2 %"}, {"cache", "warm"},
		{"cpu", "-1"}, {"cpu", "65536"}, {"cpu", "any"},
		{"cpu", "1024"}, {"cpu", "3-1"}, {"cpu", "0,"},
		{"cpu", "0;1"}, {"cpu", ""},
		{"fifo", "maybe"}, {"fifo", ""}, {"calibrate", "2"},
		{"aslr", "y"}, {"align-functions", "3"},
		{"align-functions", "-64"}, {"align-functions", "131072"},
		{"timeout", "0"}, {"timeout", "-1"}, {"timeout", "inf"},
		{"timeout", "1e999"}, {"mode", "min-of-0"}, {"mode", "min-of-"},
		{"mode", "max-of-4"},
	};
	struct lk_method m, orig;
	size_t i;

	lk_method_init(&m);
	orig = m;
	for (i = 0; i < LK_ARRAY_SIZE(bad); i++) {
		lk_ctx_clear(&ctx);
		cr_expect_eq(lk_method_set(&ctx, &m, bad[i][0], bad[i][1],
					   NULL),
			     LK_EINPUT, "%s=%s accepted", bad[i][0],
			     bad[i][1]);
		cr_expect_eq(ctx.code, LK_EINPUT);
		cr_expect(strstr(ctx.msg, bad[i][0]), "%s", ctx.msg);
	}
	/* A refused value leaves the method as it was. */
	cr_assert_eq(memcmp(&m, &orig, sizeof(m)), 0);
}

Test(config, method_set_messages)
{
	struct lk_method m;
	char *text;

	lk_method_init(&m);
	cr_assert_eq(lk_method_set(&ctx, &m, "repetitons", "5", "s.yaml:7"),
		     LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "s.yaml:7: unknown key 'repetitons' in "
				  "method (did you mean 'repetitions'?)");
	lk_method_set(&ctx, &m, "zzzzzzzz", "5", NULL);
	cr_assert_str_eq(ctx.msg, "unknown key 'zzzzzzzz' in method "
				  "(allowed: warmup, steps, min-sample-ticks,"
				  " repetitions, processes, reducer, "
				  "stability.runs, stability.tolerance, "
				  "stability.retries, relaunches, round, cache, "
				  "cpu, "
				  "fifo, "
				  "calibrate, aslr, align-functions, opt-report,"
				  " timeout, memory-limit, mode)");
	lk_method_set(&ctx, &m, "cpu", "x", "f:2");
	cr_assert_str_eq(ctx.msg, "f:2: bad value 'x' for method.cpu: "
				  "expected none or a CPU list such as 3, "
				  "0-3 or 0-3,6");
	/* opt-report: off by default and then absent from the run keys. */
	text = lk_method_canonical(&m);
	cr_assert_null(strstr(text, "opt-report"));
	free(text);
	cr_assert_eq(lk_method_set(&ctx, &m, "opt-report", "yes", NULL), 0);
	cr_assert_eq(m.opt_report, 1);
	text = lk_method_canonical(&m);
	cr_assert_not_null(strstr(text, ";opt-report=1"));
	cr_assert_null(strstr(text, "relaunches"));
	free(text);
	cr_assert_eq(lk_method_set(&ctx, &m, "opt-report", "maybe", NULL),
		     LK_EINPUT);
	/* relaunches: 0 to 10, in the run key only when not the default. */
	cr_assert_eq(lk_method_set(&ctx, &m, "relaunches", "11", NULL),
		     LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "bad value '11' for method.relaunches: "
				  "expected an integer from 0 to 10");
	cr_assert_eq(lk_method_set(&ctx, &m, "relaunches", "0", NULL), 0);
	text = lk_method_canonical(&m);
	cr_assert_not_null(strstr(text, ";relaunches=0"));
	cr_assert_null(strstr(text, "round"));
	free(text);
	/* round: the same measurement again, a run key of its own; round
	 * 0 is the key it always was. */
	cr_assert_eq(lk_method_set(&ctx, &m, "round", "-1", NULL), LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "bad value '-1' for method.round: "
				  "expected an integer from 0 to 1000");
	cr_assert_eq(lk_method_set(&ctx, &m, "round", "2", NULL), 0);
	text = lk_method_canonical(&m);
	cr_assert(strlen(text) > 8 &&
		  !strcmp(text + strlen(text) - 8, ";round=2"), "%s", text);
	free(text);
}

/* $LOOPKIT_RELAUNCHES sets the default budget; a bad value is refused
 * (the CLI exits 2 before any method is made) and leaves the default;
 * an empty one is unset. */
Test(config, relaunches_env)
{
	struct lk_method m;
	long n = -1;

	setenv("LOOPKIT_RELAUNCHES", "2", 1);
	lk_method_init(&m);
	cr_assert_eq(m.relaunches, 2);
	cr_assert_eq(lk_relaunches_env(&n), 1);
	cr_assert_eq(n, 2);
	setenv("LOOPKIT_RELAUNCHES", "11", 1);
	cr_assert_eq(lk_relaunches_env(&n), -1);
	setenv("LOOPKIT_RELAUNCHES", "2x", 1);
	lk_method_init(&m);
	cr_assert_eq(m.relaunches, LK_RELAUNCHES_DEFAULT);
	setenv("LOOPKIT_RELAUNCHES", "", 1);
	cr_assert_eq(lk_relaunches_env(&n), 0);
	lk_method_init(&m);
	cr_assert_eq(m.relaunches, 5);
	unsetenv("LOOPKIT_RELAUNCHES");
	cr_assert_eq(lk_relaunches_env(&n), 0);
	lk_method_init(&m);
	cr_assert_eq(m.relaunches, 5);
}

Test(config, method_canonical)
{
	struct lk_method a, b;
	char *ca, *cb;

	lk_method_init(&a);
	ca = lk_method_canonical(&a);
	cr_assert_str_eq(ca, "warmup=10;steps=0;min-sample-ticks=20000;"
			     "repetitions=30;processes=3;reducer=percentile;"
			     "percentile=25;trim-runs=5;trim-tolerance=0.02;"
			     "trim-retries=3;cold-cache=0;cpu=-1;fifo=0;"
			     "calibrate=1;no-aslr=1;align-functions=64;"
			     "timeout=60");
	/* Equal methods spelt differently hash the same... */
	lk_method_init(&b);
	set_ok(&b, "reducer", "p10");
	set_ok(&b, "reducer", "p25");
	set_ok(&b, "stability.tolerance", "2%");
	cb = lk_method_canonical(&b);
	cr_assert_str_eq(ca, cb);
	free(cb);
	/* ...and any change shows. */
	set_ok(&b, "timeout", "60.5");
	cb = lk_method_canonical(&b);
	cr_assert_str_neq(ca, cb);
	cr_assert(strstr(cb, "timeout=60.5"));
	free(cb);
	free(ca);
}

Test(config, reducer_names)
{
	static const char *const names[] = {"median", "min", "mean",
					    "trimmed-mean", "p10", "p99.9",
					    "p0"};
	struct lk_method m;
	size_t i;

	lk_method_init(&m);
	for (i = 0; i < LK_ARRAY_SIZE(names); i++) {
		char *name;

		set_ok(&m, "reducer", names[i]);
		name = lk_reducer_name(&m);
		cr_expect_str_eq(name, names[i]);
		free(name);
	}
}

Test(config, metrics)
{
	size_t n = 0;

	while (lk_metric_names[n])
		cr_assert(lk_metric_known(lk_metric_names[n++]));
	cr_assert_eq(n, 11);
	cr_assert(lk_metric_known("llc-misses"));
	cr_assert(!lk_metric_known("cycle"));
	cr_assert(!lk_metric_known(""));
}

/* ---- building a sweep by hand ---------------------------------------- */

Test(config, sweep_new_defaults)
{
	struct lk_sweep *s = lk_sweep_new();
	struct lk_method m;

	lk_method_init(&m);
	cr_assert_null(s->path);
	cr_assert_str_eq(s->name, "cli");
	cr_assert_eq(s->sources.n, 0);
	cr_assert_eq(s->compilers.n, 1);
	cr_assert_str_eq(s->compilers.v[0], "gcc");
	cr_assert_eq(s->nflagsets, 1);
	cr_assert_str_eq(s->flagsets[0].name, "default");
	cr_assert_str_eq(s->flagsets[0].flags, "-O2");
	cr_assert_eq(s->naxes, 0);
	cr_assert_eq(s->nexclude + s->nonly, 0);
	cr_assert_eq(s->metrics.n, 3);
	cr_assert_str_eq(s->metrics.v[0], "tsc");
	cr_assert_str_eq(s->metrics.v[1], "cycles");
	cr_assert_str_eq(s->metrics.v[2], "ns");
	cr_assert_eq(memcmp(&s->method, &m, sizeof(m)), 0);
	lk_sweep_free(s);
	lk_sweep_free(NULL);
}

Test(config, add_define)
{
	struct lk_sweep *s = lk_sweep_new();

	cr_assert_eq(lk_sweep_add_define(&ctx, s, "N=1000"), 0);
	cr_assert_eq(lk_sweep_add_define(&ctx, s, "FLAG"), 0);
	cr_assert_eq(lk_sweep_add_define(&ctx, s, "EMPTY="), 0);
	cr_assert_eq(lk_sweep_add_define(&ctx, s, "EXPR=a=b"), 0);
	cr_assert_eq(s->naxes, 4);
	cr_assert_str_eq(s->axes[0].name, "N");
	cr_assert_eq(s->axes[0].values.n, 1);
	cr_assert_str_eq(s->axes[0].values.v[0], "1000");
	cr_assert_str_eq(s->axes[1].name, "FLAG");
	cr_assert_str_eq(s->axes[1].values.v[0], "");
	cr_assert_str_eq(s->axes[2].values.v[0], "");
	cr_assert_str_eq(s->axes[3].values.v[0], "a=b");
	lk_sweep_free(s);
}

Test(config, add_define_rejects)
{
	static const char *const bad[] = {"N=2", "1N=3", "=3", "", "A-B=1",
					  "source=1", "flags", "N M=1"};
	struct lk_sweep *s = lk_sweep_new();
	size_t i;

	cr_assert_eq(lk_sweep_add_define(&ctx, s, "N=1"), 0);
	for (i = 0; i < LK_ARRAY_SIZE(bad); i++)
		cr_expect_eq(lk_sweep_add_define(&ctx, s, bad[i]), LK_EINPUT,
			     "'%s' accepted", bad[i]);
	cr_assert_eq(s->naxes, 1);
	lk_sweep_add_define(&ctx, s, "N=2");
	cr_assert_str_eq(ctx.msg, "define 'N=2': name 'N' is defined twice");
	lk_sweep_add_define(&ctx, s, "1N");
	cr_assert_str_eq(ctx.msg, "define '1N': name '1N' is not a C "
				  "identifier");
	lk_sweep_free(s);
}

Test(config, add_source)
{
	struct lk_sweep *s = lk_sweep_new();
	char *dot = data_path("src/dot.c");
	char *dir = data_path("src");
	char *nope = data_path("src/nope.c");
	char *real = lk_path_real(dot);

	cr_assert_eq(lk_sweep_add_source(&ctx, s, dot), 0, "%s", ctx.msg);
	cr_assert_eq(s->sources.n, 1);
	cr_assert_str_eq(s->sources.v[0], real);
	cr_assert_str_eq(s->source_names.v[0], dot);
	cr_assert_eq(lk_sweep_add_source(&ctx, s, dot), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "is listed twice"), "%s", ctx.msg);
	cr_assert_eq(lk_sweep_add_source(&ctx, s, nope), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "not found"), "%s", ctx.msg);
	cr_assert_eq(lk_sweep_add_source(&ctx, s, dir), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "is not a regular file"), "%s", ctx.msg);
	cr_assert_eq(s->sources.n, 1);
	cr_assert_eq(s->source_names.n, 1);
	free(real);
	free(nope);
	free(dir);
	free(dot);
	lk_sweep_free(s);
}

/* ---- expansion and filters ------------------------------------------- */

/* Two sources, gcc+clang, O2 only, A in {1,2}, B in {x,y,z}. */
static struct lk_sweep *small_sweep(void)
{
	struct lk_sweep *s = lk_sweep_new();
	char *dot = data_path("src/dot.c"), *triad = data_path("src/triad.c");

	cr_assert_eq(lk_sweep_add_source(&ctx, s, dot), 0, "%s", ctx.msg);
	cr_assert_eq(lk_sweep_add_source(&ctx, s, triad), 0, "%s", ctx.msg);
	lk_strv_push(&s->compilers, "/usr/bin/clang");
	cr_assert_eq(lk_sweep_add_define(&ctx, s, "A=1"), 0);
	lk_strv_push(&s->axes[0].values, "2");
	cr_assert_eq(lk_sweep_add_define(&ctx, s, "B=x"), 0);
	lk_strv_push(&s->axes[1].values, "y");
	lk_strv_push(&s->axes[1].values, "z");
	free(triad);
	free(dot);
	return s;
}

Test(config, expand_order)
{
	struct lk_sweep *s = small_sweep();
	struct lk_variant *v;
	size_t n, i;

	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	cr_assert_eq(n, 2 * 2 * 1 * 2 * 3);
	/* Last axis fastest, sources slowest. */
	for (i = 0; i < n; i++) {
		cr_assert_eq(v[i].source, s->sources.v[i / 12]);
		cr_assert_eq(v[i].compiler, s->compilers.v[i / 6 % 2]);
		cr_assert_eq(v[i].flagset, &s->flagsets[0]);
		/* Values point into the sweep's own strings. */
		cr_assert_eq(v[i].values[0], s->axes[0].values.v[i / 3 % 2]);
		cr_assert_eq(v[i].values[1], s->axes[1].values.v[i % 3]);
	}
	lk_variants_free(v, n);
	lk_sweep_free(s);
}

static struct lk_selector *add_filter(struct lk_selector **list, size_t *n)
{
	*list = lk_reallocarray(*list, *n + 1, sizeof(**list));
	memset(&(*list)[*n], 0, sizeof(**list));
	return &(*list)[(*n)++];
}

static void add_cond(struct lk_selector *f, const char *key,
		     enum lk_selector_op op, const char *v1, const char *v2)
{
	struct lk_selector_cond *c;

	f->conds = lk_reallocarray(f->conds, f->nconds + 1, sizeof(*c));
	c = memset(&f->conds[f->nconds++], 0, sizeof(*c));
	c->key = lk_strdup(key);
	c->op = op;
	lk_strv_push(&c->values, v1);
	if (v2)
		lk_strv_push(&c->values, v2);
}

static size_t count_kept(struct lk_sweep *s)
{
	struct lk_variant *v;
	size_t n;

	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	lk_variants_free(v, n);
	return n;
}

Test(config, expand_filters)
{
	struct lk_sweep *s = small_sweep();
	struct lk_selector *f;

	f = add_filter(&s->exclude, &s->nexclude);
	add_cond(f, "compiler", LK_SEL_EQ, "clang", NULL); /* base name */
	add_cond(f, "A", LK_SEL_GT, "1", NULL);
	cr_assert_eq(count_kept(s), 24 - 6);
	f = add_filter(&s->exclude, &s->nexclude);
	add_cond(f, "source", LK_SEL_EQ, "triad.c", NULL);
	cr_assert_eq(count_kept(s), 18 - 9);
	f = add_filter(&s->only, &s->nonly);
	add_cond(f, "B", LK_SEL_IN, "x", "z");
	cr_assert_eq(count_kept(s), 6);
	f = add_filter(&s->only, &s->nonly);
	add_cond(f, "B", LK_SEL_EQ, "y", NULL);
	cr_assert_eq(count_kept(s), 9);
	f = add_filter(&s->exclude, &s->nexclude);
	add_cond(f, "flags", LK_SEL_EQ, "default", NULL);
	cr_assert_eq(count_kept(s), 0);
	lk_sweep_free(s);
}

static int match1(const struct lk_sweep *s, const struct lk_variant *v,
		  const char *key, enum lk_selector_op op, const char *v1,
		  const char *v2)
{
	struct lk_selector f = {NULL, 0, 0};
	int m;

	add_cond(&f, key, op, v1, v2);
	m = lk_selector_match(s, &f, v);
	free(f.conds[0].key);
	lk_strv_release(&f.conds[0].values);
	free(f.conds);
	return m;
}

Test(config, filter_match_ops)
{
	struct lk_sweep *s = lk_sweep_new();
	const char *values[] = {"1000", "big"};
	struct lk_variant v;
	char *dot = data_path("src/dot.c");

	cr_assert_eq(lk_sweep_add_source(&ctx, s, dot), 0, "%s", ctx.msg);
	lk_sweep_add_define(&ctx, s, "N=1000");
	lk_sweep_add_define(&ctx, s, "S=big");
	v.source = s->sources.v[0];
	v.compiler = s->compilers.v[0];
	v.flagset = &s->flagsets[0];
	v.values = values;
	cr_assert(match1(s, &v, "N", LK_SEL_EQ, "1000", NULL));
	cr_assert(!match1(s, &v, "N", LK_SEL_EQ, "1e3", NULL));
	cr_assert(match1(s, &v, "N", LK_SEL_NE, "999", NULL));
	cr_assert(!match1(s, &v, "N", LK_SEL_NE, "1000", NULL));
	cr_assert(match1(s, &v, "N", LK_SEL_LT, "1000.5", NULL));
	cr_assert(!match1(s, &v, "N", LK_SEL_LT, "1000", NULL));
	cr_assert(match1(s, &v, "N", LK_SEL_LE, "1000", NULL));
	cr_assert(!match1(s, &v, "N", LK_SEL_LE, "999", NULL));
	cr_assert(match1(s, &v, "N", LK_SEL_GT, "-5", NULL));
	cr_assert(!match1(s, &v, "N", LK_SEL_GT, "1000", NULL));
	cr_assert(match1(s, &v, "N", LK_SEL_GE, "1e3", NULL));
	cr_assert(!match1(s, &v, "N", LK_SEL_GE, "1001", NULL));
	cr_assert(match1(s, &v, "N", LK_SEL_IN, "1", "1000"));
	cr_assert(!match1(s, &v, "N", LK_SEL_IN, "1", "2"));
	cr_assert(match1(s, &v, "N", LK_SEL_NOT_IN, "1", "2"));
	cr_assert(!match1(s, &v, "N", LK_SEL_NOT_IN, "1000", "2"));
	/* A value that is no number never compares. */
	cr_assert(!match1(s, &v, "S", LK_SEL_LT, "1", NULL));
	cr_assert(!match1(s, &v, "S", LK_SEL_GE, "1", NULL));
	/* A source goes by base name, as written and absolute path. */
	cr_assert(match1(s, &v, "source", LK_SEL_EQ, "dot.c", NULL));
	cr_assert(match1(s, &v, "source", LK_SEL_EQ, dot, NULL));
	cr_assert(match1(s, &v, "source", LK_SEL_EQ, s->sources.v[0], NULL));
	cr_assert(!match1(s, &v, "source", LK_SEL_NE, "dot.c", NULL));
	cr_assert(!match1(s, &v, "source", LK_SEL_NOT_IN, dot, "x"));
	cr_assert(match1(s, &v, "source", LK_SEL_NE, "triad.c", NULL));
	cr_assert(match1(s, &v, "compiler", LK_SEL_EQ, "gcc", NULL));
	cr_assert(match1(s, &v, "flags", LK_SEL_EQ, "default", NULL));
	cr_assert(!match1(s, &v, "flags", LK_SEL_EQ, "-O2", NULL));
	/* A key that names nothing matches nothing. */
	cr_assert(!match1(s, &v, "nothing", LK_SEL_NE, "x", NULL));
	free(dot);
	lk_sweep_free(s);
}

Test(config, expand_empty_and_guard)
{
	struct lk_sweep *s = lk_sweep_new();
	struct lk_variant *v = (void *)1;
	size_t n = 7, i;
	char *dot = data_path("src/dot.c");

	/* No sources: nothing to expand, and not an error. */
	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0);
	cr_assert_null(v);
	cr_assert_eq(n, 0);
	lk_variants_free(NULL, 0);
	cr_assert_eq(lk_sweep_add_source(&ctx, s, dot), 0, "%s", ctx.msg);
	lk_sweep_add_define(&ctx, s, "A=0");
	lk_sweep_add_define(&ctx, s, "B=0");
	for (i = 1; i < 1000; i++) {
		lk_strv_pushf(&s->axes[0].values, "%zu", i);
		lk_strv_pushf(&s->axes[1].values, "%zu", i);
	}
	lk_strv_push(&s->compilers, "clang");
	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), LK_EINPUT);
	cr_assert_null(v);
	cr_assert_eq(n, 0);
	cr_assert_str_eq(ctx.msg, "the sweep has more than 1000000 "
				  "combinations; narrow its axes or split "
				  "it");
	free(dot);
	lk_sweep_free(s);
}

Test(config, expand_at_the_limit, .timeout = 60)
{
	struct lk_sweep *s = lk_sweep_new();
	struct lk_selector *f;
	char *dot = data_path("src/dot.c");
	size_t i;

	cr_assert_eq(lk_sweep_add_source(&ctx, s, dot), 0, "%s", ctx.msg);
	lk_sweep_add_define(&ctx, s, "A=0");
	lk_sweep_add_define(&ctx, s, "B=0");
	for (i = 1; i < 1000; i++) {
		lk_strv_pushf(&s->axes[0].values, "%zu", i);
		lk_strv_pushf(&s->axes[1].values, "%zu", i);
	}
	/* Exactly 1,000,000 is allowed; keep few so this stays quick. */
	f = add_filter(&s->only, &s->nonly);
	add_cond(f, "A", LK_SEL_LT, "3", NULL);
	add_cond(f, "B", LK_SEL_GE, "998", NULL);
	cr_assert_eq(count_kept(s), 3 * 2);
	free(dot);
	lk_sweep_free(s);
}

/* ---- loading --------------------------------------------------------- */

/* A path that names nothing is the user's mistake (exit 2), not a
 * failed system call. */
Test(config, load_missing_file)
{
	struct lk_sweep *s = (void *)1;

	cr_assert_eq(lk_sweep_load(&ctx, "/nonexistent/sweep.yaml", &s),
		     LK_EINPUT);
	cr_assert_null(s);
	cr_assert(strstr(ctx.msg, "/nonexistent/sweep.yaml"), "%s", ctx.msg);
}

Test(config, parse_buffer)
{
	static const char text[] = "sources: [src/dot.c]\n"
				   "defines: {N: [1, 2]}\n";
	char *name = data_path("my.sweep.yaml");
	struct lk_sweep *s;

	/* Sources are relative to the name's directory. */
	cr_assert_eq(lk_sweep_parse(&ctx, name, text, strlen(text), &s), 0,
		     "%s", ctx.msg);
	cr_assert_str_eq(s->name, "my.sweep");
	cr_assert_str_eq(s->path, name);
	cr_assert_str_eq(s->source_names.v[0], "src/dot.c");
	cr_assert(strstr(s->sources.v[0], "/config/src/dot.c"));
	cr_assert_eq(s->sources.v[0][0], '/');
	cr_assert_eq(s->axes[0].line, 2);
	lk_sweep_free(s);
	free(name);
}

Test(config, parse_error_clears_out)
{
	static const char text[] = "sources: [a\n";
	struct lk_sweep *s = (void *)1;

	cr_assert_eq(lk_sweep_parse(&ctx, "x.yaml", text, strlen(text), &s),
		     LK_EINPUT);
	cr_assert_null(s);
	cr_assert_eq(strncmp(ctx.msg, "x.yaml:2: YAML syntax error", 27), 0,
		     "%s", ctx.msg);
}

Test(config, default_names)
{
	static const char text[] = "sources: /dev/null\n";
	static const char *const cases[][2] = {
		{"a/b/sweep.yaml", "sweep"}, {"plain", "plain"},
		{".hidden", ".hidden"}, {"dir.d/x.tar.yml", "x.tar"},
	};
	struct lk_sweep *s;
	size_t i;

	/* /dev/null is not a regular file: the name is set before that. */
	for (i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		static const char ok[] = "sources: /etc/passwd\n";

		cr_assert_eq(lk_sweep_parse(&ctx, cases[i][0], ok, strlen(ok),
					    &s), 0, "%s", ctx.msg);
		cr_expect_str_eq(s->name, cases[i][1]);
		lk_sweep_free(s);
	}
	cr_assert_eq(lk_sweep_parse(&ctx, "n.yaml", text, strlen(text), &s),
		     LK_EINPUT);
}

/* YAML splits a flow list at every comma: a list item of parameters
 * alone continues the chain before it (doc/loopkit-campaign.md's
 * example); quoted, or first, or in a block list, it is an error that
 * says what to write. */
Test(config, gen_flow_list_parameters)
{
	static const char text[] =
		"sources: /etc/passwd\n"
		"gen:\n"
		"  transformations: [original, isl+tile,sizes=8x8,\n"
		"    tile2,outer=32x32,inner=4x4+unroll,factor=2+vectorize,\n"
		"    'isl+tile,sizes=16x16']\n";
	static const char *const bad[] = {
		"sources: /etc/passwd\ngen: {transformations: [sizes=8x8]}\n",
		"sources: /etc/passwd\ngen: {transformations: [original, "
		"'sizes=8x8']}\n",
		"sources: /etc/passwd\ngen:\n  transformations:\n"
		"    - tile\n    - sizes=8x8\n",
	};
	struct lk_sweep *s;
	size_t i;

	cr_assert_eq(lk_sweep_parse(&ctx, "g.yaml", text, strlen(text), &s),
		     0, "%s", ctx.msg);
	cr_assert_eq(s->gen.nchains, 4);
	cr_expect_str_eq(s->gen.chains[0].text, "original");
	cr_expect_str_eq(s->gen.chains[1].text, "isl+tile,sizes=8x8");
	cr_expect_str_eq(s->gen.chains[2].text,
			 "tile2,outer=32x32,inner=4x4+unroll,factor=2+vectorize");
	cr_expect_str_eq(s->gen.chains[3].text, "isl+tile,sizes=16x16");
	cr_expect_eq(s->gen.chains[2].line, 4);
	lk_sweep_free(s);
	for (i = 0; i < LK_ARRAY_SIZE(bad); i++) {
		cr_assert_eq(lk_sweep_parse(&ctx, "g.yaml", bad[i],
					    strlen(bad[i]), &s),
			     LK_EINPUT, "%zu", i);
		cr_assert_null(s);
		cr_expect(strstr(ctx.msg, "'sizes=8x8' is a parameter with no "
				 "transformation before it"), "%s", ctx.msg);
		cr_expect(!strncmp(ctx.msg, "g.yaml:", 7), "%s", ctx.msg);
	}
}

/* The memprof: section: programs relative to the file, flags split
 * into words from a string or a list, strict; absent or left empty, no
 * section ({} is one, over the sweep's sources). */
Test(config, memprof_section)
{
	static const char text[] =
		"sources: [src/dot.c]\n"
		"memprof:\n"
		"  programs: [src/triad.c, src/dot.c]\n"
		"  cflags: [-O1 '-DNAME=a b', -g]\n"
		"  strict: yes\n";
	static const char *const none[] = {
		"sources: [src/dot.c]\n",
		"sources: [src/dot.c]\nmemprof:\n",
	};
	static const char sources_only[] =
		"sources: [src/dot.c]\n"
		"memprof: {cflags: -O2 -march=native}\n";
	char *name = data_path("m.yaml");
	struct lk_sweep *s;
	size_t i;

	cr_assert_eq(lk_sweep_parse(&ctx, name, text, strlen(text), &s), 0,
		     "%s", ctx.msg);
	cr_assert(s->memprof.given);
	cr_expect_eq(s->memprof.line, 3);
	cr_assert_eq(s->memprof.programs.n, 2);
	cr_expect_str_eq(s->memprof.program_names.v[0], "src/triad.c");
	cr_expect_eq(s->memprof.programs.v[0][0], '/');
	cr_expect(strstr(s->memprof.programs.v[1], "/config/src/dot.c"));
	cr_assert_eq(s->memprof.cflags.n, 3);
	cr_expect_str_eq(s->memprof.cflags.v[0], "-O1");
	cr_expect_str_eq(s->memprof.cflags.v[1], "-DNAME=a b");
	cr_expect_str_eq(s->memprof.cflags.v[2], "-g");
	cr_expect(s->memprof.strict);
	lk_sweep_free(s);
	for (i = 0; i < LK_ARRAY_SIZE(none); i++) {
		cr_assert_eq(lk_sweep_parse(&ctx, name, none[i],
					    strlen(none[i]), &s), 0, "%s",
			     ctx.msg);
		cr_expect(!s->memprof.given, "%zu", i);
		lk_sweep_free(s);
	}
	cr_assert_eq(lk_sweep_parse(&ctx, name, sources_only,
				    strlen(sources_only), &s), 0, "%s",
		     ctx.msg);
	cr_expect(s->memprof.given && !s->memprof.programs.n &&
		  !s->memprof.strict);
	cr_expect_eq(s->memprof.cflags.n, 2);
	lk_sweep_free(s);
	free(name);
}

/* ---- data-driven cases ----------------------------------------------- */

static int is_yaml(const struct dirent *d)
{
	size_t len = strlen(d->d_name);

	return len > 5 && !strcmp(d->d_name + len - 5, ".yaml");
}

/* "# error: 12: text" → 12 and "text"; 0 if the header is missing. */
static long expected_error(const char *text, char **what)
{
	const char *p;
	char *end;
	long line;

	if (strncmp(text, "# error: ", 9))
		return 0;
	line = strtol(text + 9, &end, 10);
	if (end[0] != ':' || end[1] != ' ')
		return 0;
	p = end + 2;
	*what = lk_strndup(p, strcspn(p, "\r\n"));
	return line;
}

static void check_invalid(const char *path)
{
	struct lk_sweep *s = (void *)1;
	char *text, *what = NULL, *prefix;
	size_t len;
	long line;

	cr_assert_eq(lk_file_read(&ctx, path, &text, &len), 0);
	line = expected_error(text, &what);
	cr_assert_gt(line, 0, "%s: no '# error: LINE: text' header", path);
	prefix = lk_asprintf("%s:%ld: ", path, line);
	lk_ctx_clear(&ctx);
	cr_expect_eq(lk_sweep_load(&ctx, path, &s), LK_EINPUT, "%s: %s",
		     path, ctx.msg);
	cr_expect_null(s, "%s", path);
	cr_expect_eq(strncmp(ctx.msg, prefix, strlen(prefix)), 0,
		     "expected %s..., got %s", prefix, ctx.msg);
	cr_expect(strstr(ctx.msg, what), "expected '%s' in %s", what,
		  ctx.msg);
	free(prefix);
	free(what);
	free(text);
}

Test(config, invalid_files)
{
	char *dir = data_path("invalid");
	struct dirent **names;
	int n, i;

	n = scandir(dir, &names, is_yaml, alphasort);
	cr_assert_gt(n, 70, "too few cases in %s", dir);
	for (i = 0; i < n; i++) {
		char *path = lk_path_join(dir, names[i]->d_name);

		check_invalid(path);
		free(path);
		free(names[i]);
	}
	free(names);
	free(dir);
}

static const char *written(const struct lk_sweep *s, const char *source)
{
	size_t i;

	for (i = 0; i < s->sources.n; i++)
		if (s->sources.v[i] == source)
			return s->source_names.v[i];
	return "?";
}

static void dump_filters(struct lk_buf *b, const char *what,
			 const struct lk_selector *f, size_t n)
{
	static const char *const ops[] = {"eq", "ne", "lt", "le",
					  "gt", "ge", "in", "not-in"};
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		lk_buf_addf(b, "%s (line %ld):", what, f[i].line);
		for (j = 0; j < f[i].nconds; j++) {
			const struct lk_selector_cond *c = &f[i].conds[j];

			lk_buf_addf(b, "%s %s %s", j ? ";" : "", c->key,
				    ops[c->op]);
			for (k = 0; k < c->values.n; k++)
				lk_buf_addf(b, " [%s]", c->values.v[k]);
		}
		lk_buf_adds(b, "\n");
	}
}

/* Machine-independent text of a sweep and its variants. */
static char *dump(const struct lk_sweep *s, const struct lk_variant *v,
		  size_t n)
{
	struct lk_buf b = LK_BUF_INIT;
	char *method = lk_method_canonical(&s->method);
	char *reducer = lk_reducer_name(&s->method);
	size_t i, j;

	lk_buf_addf(&b, "name: %s\nsources:", s->name);
	for (i = 0; i < s->sources.n; i++)
		lk_buf_addf(&b, " %s", s->source_names.v[i]);
	lk_buf_adds(&b, "\ncompilers:");
	for (i = 0; i < s->compilers.n; i++)
		lk_buf_addf(&b, " %s", s->compilers.v[i]);
	lk_buf_adds(&b, "\n");
	for (i = 0; i < s->nflagsets; i++)
		lk_buf_addf(&b, "flags %s = [%s]\n", s->flagsets[i].name,
			    s->flagsets[i].flags);
	for (i = 0; i < s->naxes; i++) {
		lk_buf_addf(&b, "axis %s (line %ld):", s->axes[i].name,
			    s->axes[i].line);
		for (j = 0; j < s->axes[i].values.n; j++)
			lk_buf_addf(&b, " [%s]", s->axes[i].values.v[j]);
		lk_buf_adds(&b, "\n");
	}
	dump_filters(&b, "exclude", s->exclude, s->nexclude);
	dump_filters(&b, "only", s->only, s->nonly);
	lk_buf_adds(&b, "metrics:");
	for (i = 0; i < s->metrics.n; i++)
		lk_buf_addf(&b, " %s", s->metrics.v[i]);
	lk_buf_addf(&b, "\nmethod: %s\nreducer: %s\nvariants: %zu\n", method,
		    reducer, n);
	for (i = 0; i < n; i++) {
		lk_buf_addf(&b, "%s %s %s", written(s, v[i].source),
			    v[i].compiler, v[i].flagset->name);
		for (j = 0; j < s->naxes; j++)
			lk_buf_addf(&b, " %s=%s", s->axes[j].name,
				    v[i].values[j]);
		lk_buf_adds(&b, "\n");
	}
	free(reducer);
	free(method);
	return lk_buf_detach(&b);
}

static void check_valid(const char *path)
{
	struct lk_sweep *s;
	struct lk_variant *v;
	char *got, *want = NULL, *golden;
	size_t n, len;

	lk_ctx_clear(&ctx);
	cr_assert_eq(lk_sweep_load(&ctx, path, &s), 0, "%s", ctx.msg);
	cr_assert_eq(lk_sweep_expand(&ctx, s, &v, &n), 0, "%s", ctx.msg);
	got = dump(s, v, n);
	golden = lk_asprintf("%.*s.out", (int)strlen(path) - 5, path);
	if (getenv("LOOPKIT_UPDATE_GOLDEN"))
		lk_file_write_atomic(&ctx, golden, got, strlen(got));
	cr_assert_eq(lk_file_read(&ctx, golden, &want, &len), 0, "%s",
		     ctx.msg);
	cr_expect_str_eq(got, want, "%s differs from %s", path, golden);
	free(want);
	free(golden);
	free(got);
	lk_variants_free(v, n);
	lk_sweep_free(s);
}

Test(config, valid_files)
{
	char *dir = data_path("valid");
	struct dirent **names;
	int n, i;

	n = scandir(dir, &names, is_yaml, alphasort);
	cr_assert_gt(n, 5, "too few cases in %s", dir);
	for (i = 0; i < n; i++) {
		char *path = lk_path_join(dir, names[i]->d_name);

		check_valid(path);
		free(path);
		free(names[i]);
	}
	free(names);
	free(dir);
}

Test(config, method_memory_limit)
{
	struct lk_method m;
	char *before, *after;

	lk_method_init(&m);
	cr_assert_eq(m.memory_limit, lk_proc_default_memory_limit());
	before = lk_method_canonical(&m);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "64M", NULL), 0);
	cr_assert_eq(m.memory_limit, (size_t)64 << 20);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "1.5GiB", NULL),
		     0);
	cr_assert_eq(m.memory_limit, (size_t)3 << 29);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "4096", NULL), 0);
	cr_assert_eq(m.memory_limit, 4096);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "100%", NULL), 0);
	cr_assert_eq(m.memory_limit, lk_proc_default_memory_limit() * 2);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "none", NULL), 0);
	cr_assert_eq(m.memory_limit, LK_PROC_UNLIMITED);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "0", NULL), 0);
	cr_assert_eq(m.memory_limit, LK_PROC_UNLIMITED);
	/* Not part of a run's key: stored beside it. */
	after = lk_method_canonical(&m);
	cr_assert_str_eq(before, after);
	free(before);
	free(after);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "12Q", "f:3"),
		     LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "f:3: bad value '12Q' for "
				  "method.memory-limit: expected a size (64M, "
				  "12G, 50%, a number of bytes) or none");
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "150%", NULL),
		     LK_EINPUT);
	cr_assert_eq(lk_method_set(&ctx, &m, "memory-limit", "-1G", NULL),
		     LK_EINPUT);
	cr_assert_eq(m.memory_limit, LK_PROC_UNLIMITED, "unchanged on error");
}

Test(config, analyze_section)
{
	static const char text[] =
		"sources: [src/dot.c]\n"
		"analyze:\n"
		"  - target: cycles\n"
		"  - name: by-n\n"
		"    target: ns\n"
		"    features: [N, compiler]\n"
		"    where: ['N:ge:10']\n"
		"    categories: step:0:2.5\n"
		"    max-depth: 4\n"
		"    forest: 0\n"
		"    test: 0.25\n"
		"    plots:\n"
		"      - {x: N, group: compiler, kind: scatter}\n";
	char *name = data_path("an.yaml");
	struct lk_sweep *s;
	const struct lk_analysis_cfg *a;

	cr_assert_eq(lk_sweep_parse(&ctx, name, text, strlen(text), &s), 0,
		     "%s", ctx.msg);
	cr_assert(s->analyze.given);
	cr_assert_eq(s->analyze.n, 2);
	a = &s->analyze.list[0];
	cr_assert_str_eq(a->name, "cycles");
	cr_assert_eq(a->forest, 100);
	cr_assert_eq(a->knn, 10);
	cr_assert_eq(a->permutation, 10);
	cr_assert_eq(a->test, 0.2);
	cr_assert_eq(a->line, 3);
	a = &s->analyze.list[1];
	cr_assert_str_eq(a->name, "by-n");
	cr_assert_str_eq(a->target, "ns");
	cr_assert_eq(a->features.n, 2);
	cr_assert_str_eq(a->where.v[0], "N:ge:10");
	cr_assert_str_eq(a->categories, "step:0:2.5");
	cr_assert_eq(a->max_depth, 4);
	cr_assert_eq(a->forest, 0);
	cr_assert_eq(a->test, 0.25);
	cr_assert_eq(a->nplots, 1);
	cr_assert_str_eq(a->plots[0].x, "N");
	cr_assert_null(a->plots[0].y);
	cr_assert_str_eq(a->plots[0].group, "compiler");
	cr_assert(a->plots[0].scatter);
	lk_sweep_free(s);
	free(name);
}
