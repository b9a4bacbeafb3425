/*
 * measure: the runtime-protocol parser (data-driven: tests/data/protocol/,
 * format in its README), the reducers and the calibration check, and the
 * build cache key.
 *
 * LOOPKIT_TEST_DATA points at tests/data (default: relative to the cwd).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loopkit/measure.h"
#include "loopkit/toolchain.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

static int near(double got, double expect)
{
	return fabs(got - expect) <= 1e-9 * fmax(1, fabs(expect));
}

/* ---- protocol: the data-driven cases --------------------------------- */

static char *protocol_path(const char *file)
{
	const char *dir = getenv("LOOPKIT_TEST_DATA");

	return lk_asprintf("%s/protocol/%s", dir && *dir ? dir : "tests/data",
			   file);
}

/* One case being checked: its parse and where its .expect is. */
struct pcase {
	const char *name;
	long line;                /* in NAME.expect */
	struct lk_ctx ctx;
	struct lk_rt_output out;
	int ret;
	int want_error;
	int checks;
};

#define CHECK(c, cond, fmt, ...)                                              \
	cr_expect(cond, "%s.expect:%ld: " fmt, (c)->name, (c)->line,         \
		  ##__VA_ARGS__)

static double num(struct pcase *c, const char *s)
{
	double v = NAN;

	CHECK(c, !lk_parse_double(s, &v), "'%s' is not a number", s);
	return v;
}

static const struct lk_rt_region *find_region(const struct lk_rt_output *o,
					      const char *name)
{
	size_t i;

	for (i = 0; i < o->nregions; i++)
		if (!strcmp(o->regions[i].name, name))
			return &o->regions[i];
	return NULL;
}

static int find_event(const struct lk_rt_output *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nevents; i++)
		if (!strcmp(o->events[i].name, name))
			return (int)i;
	return -1;
}

static void check_value(struct pcase *c, const char *what, double got,
			const char *expect)
{
	double want = num(c, expect);

	CHECK(c, near(got, want), "%s is %.17g, expected %s", what, got,
	      expect);
}

/* The declared work of unit in r, NAN when it declared none. */
static double region_work(const struct lk_rt_region *r, const char *unit)
{
	size_t i;

	for (i = 0; i < r->nwork; i++)
		if (!strcmp(r->work[i].unit, unit))
			return r->work[i].per_call;
	return NAN;
}

static void check_region(struct pcase *c, char **w, size_t n)
{
	const struct lk_rt_region *r = find_region(&c->out, w[1]);
	size_t i;

	CHECK(c, r != NULL, "no region '%s'", w[1]);
	if (!r)
		return;
	for (i = 2; i + 1 < n; i += 2) {
		const char *k = w[i], *v = w[i + 1];

		if (!strcmp(k, "samples"))
			check_value(c, k, (double)r->nsamples, v);
		else if (!strcmp(k, "steps"))
			check_value(c, k, (double)r->steps, v);
		else if (!strcmp(k, "roi_addr"))
			CHECK(c, r->roi_addr && !strcmp(r->roi_addr, v),
			      "roi_addr is %s", r->roi_addr);
		else if (!strcmp(k, "overhead") && !strcmp(v, "none"))
			CHECK(c, !r->has_overhead, "has an overhead");
		else if (!strcmp(k, "overhead"))
			check_value(c, k, r->has_overhead ? r->ovh_tsc_min :
				    NAN, v);
		else if (!strcmp(k, "overhead_tsc_median"))
			check_value(c, k, r->ovh_tsc_median, v);
		else if (!strcmp(k, "overhead_ns_min"))
			check_value(c, k, r->ovh_ns_min, v);
		else if (!strcmp(k, "overhead_ns_median"))
			check_value(c, k, r->ovh_ns_median, v);
		else if (!strcmp(k, "nwork"))
			check_value(c, k, (double)r->nwork, v);
		else if (!strcmp(k, "threads"))
			check_value(c, k, (double)r->threads, v);
		else if (!strncmp(k, "work.", 5) && !strcmp(v, "-"))
			CHECK(c, isnan(region_work(r, k + 5)), "%s declared",
			      k);
		else if (!strncmp(k, "work.", 5))
			check_value(c, k, region_work(r, k + 5), v);
		else
			CHECK(c, 0, "unknown region key '%s'", k);
	}
	CHECK(c, i == n, "region keys and values do not pair up");
}

static void check_sample_key(struct pcase *c, const struct lk_rt_sample *s,
			     const char *k, const char *v)
{
	int e;

	if (!strcmp(k, "idx"))
		check_value(c, k, (double)s->idx, v);
	else if (!strcmp(k, "steps"))
		check_value(c, k, (double)s->steps, v);
	else if (!strcmp(k, "tsc"))
		check_value(c, k, s->tsc, v);
	else if (!strcmp(k, "ns"))
		check_value(c, k, s->ns, v);
	else if (!strcmp(k, "has_ref"))
		check_value(c, k, s->has_ref, v);
	else if (!strcmp(k, "ref_tsc"))
		check_value(c, k, s->ref_tsc, v);
	else if (!strcmp(k, "ref_cycles"))
		check_value(c, k, s->ref_cycles, v);
	else if (!strcmp(k, "has_issue"))
		check_value(c, k, s->has_issue, v);
	else if (!strcmp(k, "issue_tsc"))
		check_value(c, k, s->issue_tsc, v);
	else if (!strcmp(k, "issue_cycles"))
		check_value(c, k, s->issue_cycles, v);
	else if (!strcmp(k, "has_window"))
		check_value(c, k, s->has_window, v);
	else if (!strcmp(k, "window_tsc"))
		check_value(c, k, s->window_tsc, v);
	else if (!strcmp(k, "mux"))
		check_value(c, k, s->mux, v);
	else if ((e = find_event(&c->out, k)) < 0)
		CHECK(c, 0, "'%s' is neither a sample key nor an event", k);
	else if (!strcmp(v, "-"))
		CHECK(c, !(s->ev_mask & (1u << e)), "%s has a value", k);
	else
		check_value(c, k, s->ev_mask & (1u << e) ? s->ev[e] : NAN, v);
}

static void check_sample(struct pcase *c, char **w, size_t n)
{
	const struct lk_rt_region *r = find_region(&c->out, w[1]);
	size_t i, at = (size_t)num(c, w[2]);

	CHECK(c, r && at < r->nsamples, "no sample %s of region '%s'", w[2],
	      w[1]);
	if (!r || at >= r->nsamples)
		return;
	for (i = 3; i + 1 < n; i += 2)
		check_sample_key(c, &r->samples[at], w[i], w[i + 1]);
	CHECK(c, i == n, "sample keys and values do not pair up");
}

static void check_event(struct pcase *c, char **w, size_t n)
{
	int e = find_event(&c->out, w[1]);
	const struct lk_rt_event *ev;

	CHECK(c, e >= 0, "no event '%s'", w[1]);
	if (e < 0)
		return;
	ev = &c->out.events[e];
	if (!strcmp(w[2], "ok")) {
		CHECK(c, ev->ok, "event %s is not ok", w[1]);
		return;
	}
	CHECK(c, n == 5 && !strcmp(w[2], "unsupported"),
	      "expected: event NAME unsupported ERRNO REASON");
	if (n != 5)
		return;
	CHECK(c, !ev->ok, "event %s is ok", w[1]);
	check_value(c, "errno", ev->err, w[3]);
	CHECK(c, !strcmp(ev->reason, strcmp(w[4], "-") ? w[4] : ""),
	      "reason is '%s'", ev->reason);
}

static void check_info(struct pcase *c, char **w)
{
	const char *v = lk_rt_info(&c->out, w[1]);

	if (!strcmp(w[2], "-"))
		CHECK(c, v == NULL, "info %s is '%s'", w[1], v);
	else
		CHECK(c, v && !strcmp(v, w[2]), "info %s is '%s'", w[1],
		      v ? v : "(absent)");
}

static void check_runtime_error(struct pcase *c, const char *expect)
{
	const char *e = c->out.error;

	if (!strcmp(expect, "-"))
		CHECK(c, e == NULL, "runtime error '%s'", e);
	else
		CHECK(c, e && !strcmp(e, expect), "runtime error is '%s'",
		      e ? e : "(none)");
}

static void check_error_line(struct pcase *c, const char *line)
{
	char *prefix = lk_asprintf("%s:%s: ", c->name, line);

	c->want_error = 1;
	CHECK(c, c->ret == LK_EINPUT, "parse returned %d, not LK_EINPUT",
	      c->ret);
	CHECK(c, !strncmp(c->ctx.msg, prefix, strlen(prefix)),
	      "message '%s' does not start '%s'", c->ctx.msg, prefix);
	free(prefix);
}

static void check_error_text(struct pcase *c, const char *text)
{
	CHECK(c, strstr(c->ctx.msg, text) != NULL,
	      "message '%s' lacks '%s'", c->ctx.msg, text);
}

/* One line of NAME.expect: its words, and the text after the first. */
static void check_one(struct pcase *c, const struct lk_strv *sv,
		      const char *rest)
{
	char **w = sv->v;
	const char *k = w[0];
	size_t n = sv->n;

	c->checks++;
	if (!strcmp(k, "error-line") && n == 2)
		check_error_line(c, w[1]);
	else if (!strcmp(k, "error-text") && n >= 2)
		check_error_text(c, rest);
	else if (!strcmp(k, "complete") && n == 2)
		check_value(c, k, c->out.complete, w[1]);
	else if (!strcmp(k, "end-samples") && n == 2)
		check_value(c, k, (double)c->out.end_samples, w[1]);
	else if (!strcmp(k, "runtime-error") && n == 2)
		check_runtime_error(c, w[1]);
	else if (!strcmp(k, "info") && n == 3)
		check_info(c, w);
	else if (!strcmp(k, "info-count") && n == 2)
		check_value(c, k, (double)c->out.info_keys.n, w[1]);
	else if (!strcmp(k, "info-length") && n == 3)
		check_value(c, k, lk_rt_info(&c->out, w[1]) ?
			    (double)strlen(lk_rt_info(&c->out, w[1])) : -1,
			    w[2]);
	else if (!strcmp(k, "events") && n == 2)
		check_value(c, k, (double)c->out.nevents, w[1]);
	else if (!strcmp(k, "event") && n >= 3)
		check_event(c, w, n);
	else if (!strcmp(k, "regions") && n == 2)
		check_value(c, k, (double)c->out.nregions, w[1]);
	else if (!strcmp(k, "region") && n >= 2)
		check_region(c, w, n);
	else if (!strcmp(k, "sample") && n >= 3)
		check_sample(c, w, n);
	else
		CHECK(c, 0, "unknown check '%s' with %zu words", k, n);
}

static void check_expectations(struct pcase *c, char *expect)
{
	char *line, *end;

	for (end = expect; (line = strsep(&end, "\n")); c->line++) {
		struct lk_strv sv = LK_STRV_INIT;
		char *copy, *word, *save = NULL;
		size_t skip = strspn(line, " \t");

		if (line[skip] == '#')
			continue;
		copy = lk_strdup(line);
		for (word = strtok_r(copy, " \t", &save); word;
		     word = strtok_r(NULL, " \t", &save))
			lk_strv_push(&sv, word);
		skip += strcspn(line + skip, " \t");
		if (sv.n)
			check_one(c, &sv, line + skip + strspn(line + skip,
							       " \t"));
		lk_strv_release(&sv);
		free(copy);
	}
}

static void run_case(const char *name)
{
	struct pcase c = {.name = name, .line = 1};
	char *file = lk_asprintf("%s.txt", name), *path = protocol_path(file);
	char *epath = protocol_path(name), *text, *expect;
	size_t len;

	free(file);
	file = lk_asprintf("%s.expect", epath);
	cr_assert_eq(lk_file_read(&ctx, path, &text, &len), 0, "%s", ctx.msg);
	cr_assert_eq(lk_file_read(&ctx, file, &expect, NULL), 0,
		     "case %s: %s", name, ctx.msg);
	lk_ctx_init(&c.ctx);
	c.ret = lk_rt_parse(&c.ctx, name, text, len, &c.out);
	check_expectations(&c, expect);
	if (!c.want_error)
		cr_expect_eq(c.ret, 0, "%s: parse failed: %s", name,
			     c.ctx.msg);
	cr_expect_gt(c.checks, 0, "%s.expect checks nothing", name);
	lk_rt_output_release(&c.out);
	free(text);
	free(expect);
	free(path);
	free(epath);
	free(file);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

TestSuite(protocol, .init = setup);

Test(protocol, data_driven_cases)
{
	char *dir = protocol_path("");
	struct dirent **ents;
	int n, i, cases = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	cr_assert_geq(n, 0, "cannot list %s (set LOOPKIT_TEST_DATA)", dir);
	for (i = 0; i < n; i++) {
		const char *f = ents[i]->d_name;
		char *base = lk_strndup(f, strcspn(f, "."));
		char *other = protocol_path(base), *pair;

		if (has_suffix(f, ".txt")) {
			pair = lk_asprintf("%s.expect", other);
			cr_expect(lk_path_exists(pair), "%s has no .expect", f);
			if (lk_path_exists(pair))
				run_case(base), cases++;
		} else if (has_suffix(f, ".expect")) {
			pair = lk_asprintf("%s.txt", other);
			cr_expect(lk_path_exists(pair), "%s has no .txt", f);
		} else {
			pair = NULL;
		}
		free(pair);
		free(other);
		free(base);
		free(ents[i]);
	}
	free(ents);
	free(dir);
	cr_assert_geq(cases, 20, "only %d cases found", cases);
}

/* ---- protocol: properties no data file expresses --------------------- */

static const char full_stream[] =
	"lkrt version=1\n"
	"info cpu=2\n"
	"event name=cycles status=ok\n"
	"sample region=k idx=0 steps=1 tsc=5 ns=2 cycles=7\n"
	"end samples=1\n";

Test(protocol, prefix_of_a_stream_is_never_complete)
{
	size_t len = strlen(full_stream), cut;

	/* Every proper prefix parses, since cut tails are dropped. */
	for (cut = 0; cut < len; cut++) {
		struct lk_rt_output out;
		int ret = lk_rt_parse(&ctx, "s", full_stream, cut, &out);

		cr_assert_eq(ret, 0, "cut at %zu: %s", cut, ctx.msg);
		cr_assert_not(out.complete, "complete when cut at %zu", cut);
		lk_rt_output_release(&out);
	}
}

Test(protocol, output_is_reset_by_parse_and_release)
{
	struct lk_rt_output out;

	cr_assert_eq(lk_rt_parse(&ctx, "s", full_stream, strlen(full_stream),
				 &out), 0);
	lk_rt_output_release(&out);
	cr_assert_null(out.regions);
	cr_assert_eq(out.nevents, 0);
	lk_rt_output_release(&out);
	cr_assert_eq(lk_rt_parse(&ctx, "s", "lkrt version=1\n", 15, &out), 0);
	cr_assert_eq(out.nregions, 0);
	cr_assert_not(out.complete);
	cr_assert_null(lk_rt_info(&out, "cpu"));
	lk_rt_output_release(&out);
}

Test(protocol, length_bounds_the_text)
{
	struct lk_rt_output out;
	size_t len = strlen("lkrt version=1\nend samples=0\n");

	/* The bytes past len (an unterminated "garbage") are not read. */
	cr_assert_eq(lk_rt_parse(&ctx, "s", "lkrt version=1\nend samples=0\n"
				 "garbage", len, &out), 0, "%s", ctx.msg);
	cr_assert(out.complete);
	lk_rt_output_release(&out);
}

Test(protocol, failed_parse_can_be_released)
{
	struct lk_rt_output out;
	const char *s = "lkrt version=1\ninfo a=1\nevent name=x status=ok\n"
			"sample region=k idx=0 steps=1 tsc=1 ns=1\nbogus\n";

	cr_assert_eq(lk_rt_parse(&ctx, "s", s, strlen(s), &out), LK_EINPUT);
	cr_assert_eq(ctx.code, LK_EINPUT);
	lk_rt_output_release(&out);
	cr_assert_null(out.events);
}

/* ---- reducers -------------------------------------------------------- */

TestSuite(reduce, .init = setup);

static double reduce_with(enum lk_reducer reducer, double percentile,
			  const double *v, size_t n)
{
	struct lk_method m;

	lk_method_init(&m);
	m.reducer = reducer;
	m.percentile = percentile;
	return lk_reduce(&m, v, n);
}

/* Unsorted, skewed: every reducer gives a different answer. */
static const double skewed[] = {5, 1, 4, 2, 3, 100, 6, 8, 7, 9, 10};

Test(reduce, default_method_reduces_with_p25)
{
	struct lk_method m;

	/* Sorted: 1 2 3 4 5 6 7 8 9 10 100; position 2.5 lies between 3
	 * and 4. */
	lk_method_init(&m);
	cr_assert_float_eq(lk_reduce(&m, skewed, 11), 3.5, 1e-12);
}

Test(reduce, each_reducer)
{
	cr_assert_float_eq(reduce_with(LK_REDUCE_MEDIAN, 0, skewed, 11), 6,
			   1e-12);
	cr_assert_float_eq(reduce_with(LK_REDUCE_MIN, 0, skewed, 11), 1,
			   1e-12);
	cr_assert_float_eq(reduce_with(LK_REDUCE_MEAN, 0, skewed, 11),
			   155.0 / 11, 1e-12);
	/* p90 of 11 values: position 9 of 0..10, the value 10. */
	cr_assert_float_eq(reduce_with(LK_REDUCE_PERCENTILE, 90, skewed, 11),
			   10, 1e-12);
	cr_assert_float_eq(reduce_with(LK_REDUCE_PERCENTILE, 25, skewed, 11),
			   3.5, 1e-12);
	/* Trimmed: without 1 and 100, the mean of 2..10. */
	cr_assert_float_eq(reduce_with(LK_REDUCE_TRIMMED, 0, skewed, 11), 6,
			   1e-12);
}

Test(reduce, trimmed_reducer_differs_from_mean)
{
	static const double v[] = {10, 11, 12, 1000};

	cr_assert_float_eq(reduce_with(LK_REDUCE_TRIMMED, 0, v, 4), 11.5,
			   1e-12);
	cr_assert_float_eq(reduce_with(LK_REDUCE_MEAN, 0, v, 4), 258.25,
			   1e-12);
}

/* ---- calibration ----------------------------------------------------- */

#define NCAL 40

/* Deterministic noise in [-1, 1]. */
static double noise(size_t i)
{
	return sin((double)i * 12.9898) * 0.999;
}

/* The core/TSC ratio wandering between 1.3 and 1.6. */
static double moving_ratio(size_t i)
{
	return 1.3 + 0.3 * (double)((i * 7) % NCAL) / (NCAL - 1);
}

Test(reduce, calibration_reliable_for_a_clock_bound_kernel)
{
	double ticks[NCAL], ratio[NCAL];
	int moved = -1;
	size_t i;

	/* A fixed number of core cycles: its TSC time follows the clock. */
	for (i = 0; i < NCAL; i++) {
		ratio[i] = moving_ratio(i);
		ticks[i] = 30000 / ratio[i] * (1 + 0.001 * noise(i));
	}
	cr_assert(lk_calibration_reliable(ticks, ratio, NCAL, &moved));
	cr_assert_eq(moved, 1);
}

Test(reduce, calibration_unreliable_for_a_memory_bound_kernel)
{
	double ticks[NCAL], ratio[NCAL];
	int moved = -1;
	size_t i;

	/* Its time is set by memory, not by the core clock. */
	for (i = 0; i < NCAL; i++) {
		ratio[i] = moving_ratio(i);
		ticks[i] = 50000 * (1 + 0.001 * noise(i));
	}
	cr_assert_not(lk_calibration_reliable(ticks, ratio, NCAL, &moved));
	cr_assert_eq(moved, 1);
}

Test(reduce, calibration_reliable_on_a_steady_clock)
{
	double ticks[NCAL], ratio[NCAL];
	int moved = -1;
	size_t i;

	for (i = 0; i < NCAL; i++) {
		ratio[i] = 1.45 * (1 + 0.0002 * noise(i + 100));
		ticks[i] = 40000 * (1 + 0.01 * noise(i));
	}
	cr_assert(lk_calibration_reliable(ticks, ratio, NCAL, &moved));
	cr_assert_eq(moved, 0);
}

Test(reduce, calibration_with_few_samples_is_trusted)
{
	static const double ticks[] = {100, 200, 300};
	static const double ratio[] = {1.0, 1.5, 2.0};
	int moved = -1;

	cr_assert(lk_calibration_reliable(ticks, ratio, 3, &moved));
	cr_assert_eq(moved, 0);
}

/* ---- contention ------------------------------------------------------ */

Test(reduce, contention_is_the_probe_in_cycles_over_its_floor)
{
	/* 2049 ticks, 49 of them the timer's, at 1.5 cycles per tick:
	 * 3000 cycles against a floor of 2500. */
	cr_assert_float_eq(lk_issue_contention(2049, 49, 1.5, 2500), 1.2,
			   1e-12);
	cr_assert_float_eq(lk_issue_contention(1716, 49, 1.5, 2500),
			   1.0002, 1e-12);
	cr_assert(isnan(lk_issue_contention(2049, 49, NAN, 2500)));
	cr_assert(isnan(lk_issue_contention(2049, 49, 1.5, 0)));
}

Test(reduce, only_short_samples_above_a_bound_are_contended)
{
	cr_assert_not(lk_sample_contended(1.0, 1.0, 1000));
	cr_assert_not(lk_sample_contended(LK_CONTENDED, LK_WINDOW_SLACK,
					  1000));
	cr_assert(lk_sample_contended(LK_CONTENDED + 0.001, 1.0, 1000));
	cr_assert(lk_sample_contended(1.0, LK_WINDOW_SLACK + 0.001, 1000));
	cr_assert(lk_sample_contended(2.0, 1.0, LK_CONTENTION_SPAN_NS));
	/* A longer sample's middle is not what its two probes saw. */
	cr_assert_not(lk_sample_contended(2.0, 2.0,
					  LK_CONTENTION_SPAN_NS + 1));
	/* A probe that did not run says nothing. */
	cr_assert_not(lk_sample_contended(NAN, NAN, 1000));
	cr_assert(lk_sample_contended(NAN, 2.0, 1000));
	cr_assert(lk_sample_contended(2.0, NAN, 1000));
}

/* ---- build key ------------------------------------------------------- */

static char tmpdir[64];

static void setup_tmpdir(void)
{
	lk_ctx_init(&ctx);
	strcpy(tmpdir, "/tmp/lk-test-measure.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	return remove(path);
}

static void remove_tmpdir(void)
{
	nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(build, .init = setup_tmpdir, .fini = remove_tmpdir);

static char *put_file(const char *name, const char *text)
{
	char *path = lk_path_join(tmpdir, name);

	cr_assert_eq(lk_file_write_atomic(&ctx, path, text, strlen(text)), 0,
		     "%s", ctx.msg);
	return path;
}

static const char kernel_src[] =
	"#include <lkrt.h>\nint main(void) { return N; }\n";

static void spec_init(struct lk_build_spec *spec, const char *source)
{
	memset(spec, 0, sizeof(*spec));
	spec->source = source;
	spec->compiler = "gcc";
	spec->cflags = "-O2";
}

static void key_of(const struct lk_build_spec *spec, char key[LK_HASH_HEX])
{
	lk_ctx_clear(&ctx);
	cr_assert_eq(lk_build_key(&ctx, spec, key), 0, "%s", ctx.msg);
}

Test(build, key_is_stable_for_equal_inputs)
{
	char *src = put_file("k.c", kernel_src);
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	key_of(&spec, a);
	key_of(&spec, b);
	cr_assert_str_eq(a, b);
	cr_assert_eq(strlen(a), 32);
	cr_assert_eq(strspn(a, "0123456789abcdef"), 32);
	free(src);
}

Test(build, key_follows_source_content)
{
	char *src = put_file("k.c", kernel_src);
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	key_of(&spec, a);
	free(put_file("k.c", "int main(void) { return 1; }\n"));
	key_of(&spec, b);
	cr_assert_str_neq(a, b);
	free(put_file("k.c", kernel_src));
	key_of(&spec, b);
	cr_assert_str_eq(a, b);
	free(src);
}

Test(build, key_follows_define_values)
{
	char *src = put_file("k.c", kernel_src);
	char a[LK_HASH_HEX], b[LK_HASH_HEX], c[LK_HASH_HEX];
	struct lk_param defs[] = {{"N", "1000"}};
	struct lk_build_spec spec;

	spec_init(&spec, src);
	spec.defines = defs;
	spec.ndefines = 1;
	key_of(&spec, a);
	defs[0].value = "2000";
	key_of(&spec, b);
	cr_assert_str_neq(a, b);
	defs[0].value = "";
	key_of(&spec, c);
	cr_assert_str_neq(c, a);
	cr_assert_str_neq(c, b);
	free(src);
}

Test(build, key_follows_cflags_but_not_their_spacing)
{
	char *src = put_file("k.c", kernel_src);
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	spec.cflags = "-O2 -g";
	key_of(&spec, a);
	spec.cflags = "-O3 -g";
	key_of(&spec, b);
	cr_assert_str_neq(a, b);
	spec.cflags = "  -O2\t-g ";
	key_of(&spec, b);
	cr_assert_str_eq(a, b);
	free(src);
}

Test(build, key_follows_function_alignment)
{
	char *src = put_file("k.c", kernel_src);
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	key_of(&spec, a);
	spec.align_functions = 64;
	key_of(&spec, b);
	cr_assert_str_neq(a, b);
	free(src);
}

Test(build, key_follows_the_compiler)
{
	char *src = put_file("k.c", kernel_src), *clang = lk_which("clang");
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_build_spec spec;

	if (!clang)
		cr_skip_test("clang not installed");
	spec_init(&spec, src);
	key_of(&spec, a);
	spec.compiler = "clang";
	key_of(&spec, b);
	cr_assert_str_neq(a, b);
	free(clang);
	free(src);
}

Test(build, key_follows_the_runtime_header)
{
	char *src = put_file("k.c", kernel_src), *lib, *lib_copy;
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_build_spec spec;

	/* A private runtime directory, LOOPKIT_RT_DIR's layout. */
	lib = lk_path_join(lk_rt_lib_dir(), "liblkrt.a");
	lib_copy = lk_path_join(tmpdir, "liblkrt.a");
	cr_assert_eq(lk_file_copy_atomic(&ctx, lib, lib_copy, 0644), 0,
		     "%s (make build/lib/liblkrt.a)", ctx.msg);
	free(put_file("lkrt.h", "/* runtime v1 */\n"));
	setenv("LOOPKIT_RT_DIR", tmpdir, 1);
	cr_assert_str_eq(lk_rt_include_dir(), tmpdir);
	spec_init(&spec, src);
	key_of(&spec, a);
	free(put_file("lkrt.h", "/* runtime v2 */\n"));
	key_of(&spec, b);
	cr_assert_str_neq(a, b);
	free(lib);
	free(lib_copy);
	free(src);
}

Test(build, missing_runtime_is_not_found)
{
	char *src = put_file("k.c", kernel_src);
	char key[LK_HASH_HEX];
	struct lk_build_spec spec;

	setenv("LOOPKIT_RT_DIR", tmpdir, 1);
	spec_init(&spec, src);
	cr_assert_eq(lk_build_key(&ctx, &spec, key), LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "runtime header"), "msg: %s", ctx.msg);
	free(src);
}

Test(build, missing_source_is_not_found)
{
	char *src = lk_path_join(tmpdir, "absent.c");
	char key[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	cr_assert_eq(lk_build_key(&ctx, &spec, key), LK_ENOTFOUND);
	cr_assert_eq(ctx.code, LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "absent.c"), "msg: %s", ctx.msg);
	free(src);
}

Test(build, unknown_compiler_fails)
{
	char *src = put_file("k.c", kernel_src);
	char key[LK_HASH_HEX];
	struct lk_build_spec spec;
	int ret;

	spec_init(&spec, src);
	spec.compiler = "loopkit-no-such-cc";
	ret = lk_build_key(&ctx, &spec, key);
	cr_assert(ret == LK_ENOTFOUND || ret == LK_ECHILD, "returned %d", ret);
	cr_assert(strstr(ctx.msg, "loopkit-no-such-cc"), "msg: %s", ctx.msg);
	free(src);
}

Test(build, compiler_that_fails_its_version_check)
{
	char *src = put_file("k.c", kernel_src);
	char key[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	spec.compiler = "false";
	cr_assert_eq(lk_build_key(&ctx, &spec, key), LK_ECHILD);
	free(src);
}

Test(build, unbalanced_quote_in_cflags_is_input_error)
{
	char *src = put_file("k.c", kernel_src);
	char key[LK_HASH_HEX];
	struct lk_build_spec spec;

	spec_init(&spec, src);
	spec.cflags = "-O2 -DMSG='hello";
	cr_assert_eq(lk_build_key(&ctx, &spec, key), LK_EINPUT);
	cr_assert_eq(ctx.code, LK_EINPUT);
	cr_assert(strstr(ctx.msg, "cflags"), "msg: %s", ctx.msg);
	cr_assert(strstr(ctx.msg, "unbalanced ' quote"), "msg: %s", ctx.msg);
	free(src);
}
