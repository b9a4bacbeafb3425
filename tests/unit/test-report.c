/*
 * The report (its statistics are tested in test-stats.c): the tables
 * built from a synthetic store (two analyzers, kernels with families and
 * transformations, an excluded variant, a failed lift, a variant
 * without trustworthy cycles, a crashed one), grouping, the writers'
 * escaping, the report: config section (SVG inlining: test-plot.c).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"
#include "loopkit/report.h"
#include "loopkit/store.h"
#include "../../src/report/report-int.h"
#include "../../src/store/store-int.h"
#include "tmpdir.h"

#define EPS 1e-12

static struct lk_ctx ctx;

static void setup(void)
{
	tmpdir_make("report");
	lk_ctx_init(&ctx);
}

static void teardown(void)
{
	tmpdir_remove();
}

TestSuite(report, .init = setup, .fini = teardown);

/* ---- A synthetic campaign in a real store. ---- */

struct kernel {
	const char *source, *kernel, *family, *transformation;
	const char *status;      /* of its run */
	double cycles;           /* 0: no cycles figure */
	const char *cycles_flags;
	double tsc;
};

/*
 * v4 is excluded by the L1 filter, v5 unknown to it, v6's calibration is
 * unreliable (its primary figure is TSC ticks), v7 crashed.
 */
static const struct kernel kernels[] = {
	{"dot.c", "dot", "reduction", "none", "ok", 1000, "", 700},
	{"dot.c", "dot", "reduction", "unroll4", "ok", 600, "", 420},
	{"triad.c", "triad", "stream", "none", "ok", 2000, "", 1400},
	{"triad.c", "triad", "stream", "unroll4", "ok", 1500, "", 1050},
	{"jacobi.c", "jacobi", "stencil", "tile", "ok", 4000, "", 2800},
	{"jacobi.c", "jacobi", "stencil", "none", "ok", 4300,
	 "calibration-unreliable", 3000},
	{"gemm.c", "gemm", "blas3", "none", "crashed", 0, "", 0},
};
#define NKERNELS LK_ARRAY_SIZE(kernels)

struct fixture {
	struct lk_store *s;
	int64_t campaign;
	int64_t ids[NKERNELS];
};

static void put_run(struct fixture *f, size_t i)
{
	const struct kernel *k = &kernels[i];
	struct lk_result_rec res[2] = {
		{.region = "kernel", .metric = "tsc", .source = "tsc",
		 .unit = "ticks/step", .has_value = 1, .value = k->tsc,
		 .reducer = "p25", .n = 5, .flags = "",
		 .primary = !!*k->cycles_flags},
		{.region = "kernel", .metric = "cycles",
		 .source = "tsc-calibrated", .unit = "cycles/step",
		 .has_value = 1, .value = k->cycles, .reducer = "p25", .n = 5,
		 .flags = k->cycles_flags, .primary = !*k->cycles_flags},
	};
	int ok = !strcmp(k->status, "ok");
	struct lk_run_rec r = {
		.variant_id = f->ids[i], .method_hash = "m", .method = "m",
		.status = k->status, .reason = ok ? "" : "killed by SIGSEGV",
		.attempts = 1, .started = 1, .finished = 2,
		.results = ok ? res : NULL, .nresults = ok ? 2 : 0,
	};

	cr_assert_eq(lk_store_run_put(&ctx, f->s, &r, NULL), 0, "%s",
		     ctx.msg);
}

static void put_variant(struct fixture *f, size_t i)
{
	const struct kernel *k = &kernels[i];
	struct lk_param params[] = {
		{"kernel", k->kernel}, {"family", k->family},
		{"transformation", k->transformation},
	};
	char hash[40];
	struct lk_variant_rec v = {
		.hash = hash, .source = k->source, .source_hash = "sh",
		.compiler = "gcc", .flagset = "O2", .cflags = "-O2",
		.params = params, .nparams = 3,
	};

	snprintf(hash, sizeof(hash), "%zx%zx%030zx", i + 1, i + 1, i);
	cr_assert_eq(lk_store_variant_put(&ctx, f->s, f->campaign, &v,
					  &f->ids[i]), 0, "%s", ctx.msg);
	put_run(f, i);
}

static void sql(struct fixture *f, const char *fmt, ...)
{
	va_list ap;
	char *text;

	/* sqlite3's printf: %Q quotes a string as an SQL literal. */
	va_start(ap, fmt);
	text = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	cr_assert_eq(sqlite3_exec(f->s->db, text, NULL, NULL, NULL),
		     SQLITE_OK, "%s: %s", text, sqlite3_errmsg(f->s->db));
	sqlite3_free(text);
}

static void put_lifted(struct fixture *f, size_t i, const char *tool,
		       const char *version, const char *params,
		       const char *status, double value, const char *reason)
{
	char *v = status[0] == 'o' ? lk_asprintf("%.17g", value)
				   : lk_strdup("NULL");

	sql(f, "INSERT INTO lifted(variant_id, function_id, tool, "
	       "tool_version, params, status, value, unit, nblocks, nfailed,"
	       " reason) VALUES (%lld, 1, %Q, %Q, %Q, %Q, %s, 'cycles', 3,"
	       " 0, %Q)", (long long)f->ids[i], tool, version, params, status,
	    v, reason);
	free(v);
}

#define MCA "llvm-mca", "19.1.7", "-mcpu=znver5"
#define BPROF "bprof", "1", "unroll=100,200"

static struct fixture make_campaign(const char *name)
{
	struct fixture f = {0};
	static const double mca[] = {900, 660, 1800, 1000, 5000, 2700, 100};
	static const double bprof[] = {1100, 0, 2000, 1500, 3000, 0, 8000};
	char *dir = lk_path_join(tmpdir, name);
	size_t i;

	cr_assert_eq(lk_store_open(&ctx, dir, 1, &f.s), 0, "%s", ctx.msg);
	free(dir);
	cr_assert_eq(lk_store_campaign(&ctx, f.s, "synthetic", NULL, NULL,
				       &f.campaign), 0);
	for (i = 0; i < NKERNELS; i++)
		put_variant(&f, i);
	sql(&f, "INSERT INTO bb_functions(id, binary_hash, function, addr,"
		" size) VALUES (1, 'b', 'kernel', 4096, 64)");
	for (i = 0; i < NKERNELS; i++) {
		put_lifted(&f, i, MCA, "ok", mca[i], "");
		if (i == 1)
			put_lifted(&f, i, BPROF, "excluded", 0,
				   "block 0x401020: timed out");
		else if (i != 5)
			put_lifted(&f, i, BPROF, "ok", bprof[i], "");
	}
	sql(&f, "INSERT INTO verdicts(variant_id, filter, verdict, value, "
		"source, reason) VALUES (%lld, 'l1', 'exclude', 0.18, "
		"'cachegrind', 'D1 miss ratio 18%% > 15%%'), (%lld, 'l1', "
		"'unknown', NULL, 'generator', 'AVX-512'), (%lld, 'l1', 'pass',"
		" 0.01, 'cachegrind', '')",
	    (long long)f.ids[3], (long long)f.ids[4], (long long)f.ids[0]);
	return f;
}

static const struct lk_report_row *find_row(const struct lk_report *r,
					    const char *tool, size_t basis,
					    const char *key, const char *value)
{
	for (size_t i = 0; i < r->nrows; i++) {
		const struct lk_report_row *row = &r->rows[i];

		if (!strcmp(r->analyzers[row->analyzer].tool, tool) &&
		    row->basis == basis && !strcmp(row->key, key) &&
		    !strcmp(row->value, value))
			return row;
	}
	return NULL;
}

static long reason_count(const struct lk_report *r, const char *what,
			 const char *reason)
{
	for (size_t i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i].what, what) &&
		    !strcmp(r->reasons[i].reason, reason))
			return r->reasons[i].count;
	return 0;
}

static void check_counts(const struct lk_report_row *row, long variants,
			 long excluded, long failed, long missing,
			 long unmeasured, long no_cycles, long compared,
			 long unknown)
{
	cr_assert_not_null(row);
	cr_assert_eq(row->variants, variants);
	cr_assert_eq(row->excluded, excluded);
	cr_assert_eq(row->failed, failed);
	cr_assert_eq(row->missing, missing);
	cr_assert_eq(row->unmeasured, unmeasured);
	cr_assert_eq(row->no_cycles, no_cycles);
	cr_assert_eq(row->compared, compared);
	cr_assert_eq(row->unknown, unknown);
	cr_assert_eq(row->st.n, (size_t)compared);
}

/* Two configurations of one tool: the parameters tell them apart. */
Test(report, analyzer_labels_carry_params_only_on_a_clash)
{
	struct fixture f = make_campaign("clash");
	struct lk_report *r;
	size_t i, found = 0;

	put_lifted(&f, 0, "llvm-mca", "19.1.7", "-mcpu=skylake", "ok", 950,
		   "");
	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0,
		     "%s", ctx.msg);
	cr_assert_eq(r->nanalyzers, 3);
	for (i = 0; i < r->nanalyzers; i++) {
		const char *l = r->analyzers[i].label;

		if (!strcmp(r->analyzers[i].tool, "bprof"))
			cr_assert_str_eq(l, "bprof 1");
		else
			found += !strcmp(l, "llvm-mca 19.1.7 -mcpu=skylake") ||
				 !strcmp(l, "llvm-mca 19.1.7 -mcpu=znver5");
	}
	cr_assert_eq(found, 2);
	lk_report_free(r);
	lk_store_close(f.s);
}

Test(report, analyzers_bases_and_counts)
{
	struct fixture f = make_campaign("a");
	struct lk_report *r;
	const struct lk_report_row *row;

	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0,
		     "%s", ctx.msg);
	cr_assert_eq(r->nanalyzers, 2);
	cr_assert_str_eq(r->analyzers[0].label, "bprof 1");
	cr_assert_str_eq(r->analyzers[1].label,
			 "llvm-mca 19.1.7");
	cr_assert_str_eq(r->campaign, "synthetic");
	cr_assert_str_eq(r->title, "loopkit report: synthetic");
	/* cycles for 5 variants, v6 on TSC ticks, v7 not measured */
	cr_assert_eq(r->nbases, 2);
	cr_assert_str_eq(r->bases[0].metric, "cycles");
	cr_assert_str_eq(r->bases[0].sources, "tsc-calibrated");
	cr_assert_eq(r->bases[0].nvariants, 5);
	cr_assert_str_eq(r->bases[1].metric, "tsc");
	cr_assert_str_eq(r->bases[1].unit, "ticks/step");
	cr_assert_eq(r->bases[1].nvariants, 1);
	cr_assert_eq(r->variants[6].meas, LK_MEAS_NONE);
	cr_assert_str_eq(r->variants[6].note, "run crashed");

	/* llvm-mca: v4 excluded, v7 not measured, v6 counted apart (its
	 * 2700 against 3000 TSC ticks would be a -10 % that is only the
	 * clock ratio); errors -0.1, +0.1, -0.1, +0.25 */
	row = find_row(r, "llvm-mca", 0, "", "");
	check_counts(row, 7, 1, 0, 0, 1, 1, 4, 1);
	cr_assert_float_eq(row->st.mape, 13.75, EPS);
	cr_assert_float_eq(row->st.q1, -0.1, EPS);
	cr_assert_float_eq(row->st.median, 0, EPS);
	cr_assert_float_eq(row->st.q3, 0.1375, EPS);
	cr_assert_float_eq(row->st.rmse, sqrt(1053600.0 / 4), 1e-9);
	cr_assert_float_eq(row->st.tau_b, 1, EPS);
	/* no row compares with TSC ticks */
	cr_assert_null(find_row(r, "llvm-mca", 1, "", ""));
	cr_assert_eq(r->variants[5].preds[1].outcome, LK_OUT_NO_CYCLES);
	cr_assert_str_eq(r->variants[5].note, "no trustworthy core-cycle "
			 "figure: calibration unreliable");
	cr_assert_eq(r->variants[5].meas, LK_MEAS_FALLBACK);
	cr_assert_float_eq(r->variants[5].measured, 3000, EPS);

	/* bprof: v2 failed, v6 never lifted, v7 not measured;
	 * errors +0.1, 0, -0.25 */
	row = find_row(r, "bprof", 0, "", "");
	check_counts(row, 7, 1, 1, 1, 1, 0, 3, 1);
	cr_assert_float_eq(row->st.mape, 35.0 / 3, EPS);
	cr_assert_float_eq(row->st.median, 0, EPS);
	cr_assert_float_eq(row->st.tau_b, 1, EPS);
	cr_assert_null(find_row(r, "bprof", 1, "", ""));
	cr_assert_eq(r->compared, 4 + 3);

	cr_assert_eq(reason_count(r, "exclude",
				  "l1: D1 miss ratio 18% > 15%"), 1);
	cr_assert_eq(reason_count(r, "unknown", "l1: AVX-512"), 1);
	cr_assert_eq(reason_count(r, "failed", "block 0x401020: timed out"),
		     1);
	cr_assert_eq(reason_count(r, "unmeasured", "run crashed"), 1);
	cr_assert_eq(reason_count(r, "no-cycles", "no trustworthy core-cycle "
				  "figure: calibration unreliable"), 1);
	cr_assert_eq(r->variants[1].preds[0].outcome, LK_OUT_FAILED);
	cr_assert_eq(r->variants[5].preds[0].outcome, LK_OUT_MISSING);
	cr_assert_eq(r->variants[3].preds[1].outcome, LK_OUT_EXCLUDED);
	cr_assert_float_eq(r->variants[4].preds[1].rel_error, 0.25, EPS);
	lk_report_free(r);
	lk_store_close(f.s);
}

Test(report, default_groups_and_group_rows)
{
	struct fixture f = make_campaign("g");
	struct lk_report *r;
	const struct lk_report_row *row;

	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0,
		     "%s", ctx.msg);
	/* one compiler and one flag set: not groups; the generated
	 * variants' sources are named by their kernel, so 'kernel' would
	 * repeat the 'source' groups */
	cr_assert_eq(r->group_by.n, 3);
	cr_assert_str_eq(r->group_by.v[0], "source");
	cr_assert_str_eq(r->group_by.v[1], "family");
	cr_assert_str_eq(r->group_by.v[2], "transformation");
	row = find_row(r, "llvm-mca", 0, "source", "dot");
	check_counts(row, 2, 0, 0, 0, 0, 0, 2, 0);
	/* reduction: v1 -0.1, v2 +0.1 for llvm-mca; bprof failed on v2 */
	row = find_row(r, "llvm-mca", 0, "family", "reduction");
	check_counts(row, 2, 0, 0, 0, 0, 0, 2, 0);
	cr_assert_float_eq(row->st.mape, 10, EPS);
	cr_assert_float_eq(row->st.median, 0, EPS);
	row = find_row(r, "bprof", 0, "family", "reduction");
	check_counts(row, 2, 0, 1, 0, 0, 0, 1, 0);
	cr_assert_float_eq(row->st.median, 0.1, EPS);
	/* transformation none: v1, v3 compared; v6 without trustworthy
	 * cycles, v7 not measured */
	row = find_row(r, "llvm-mca", 0, "transformation", "none");
	check_counts(row, 4, 0, 0, 0, 1, 1, 2, 0);
	cr_assert_float_eq(row->st.mape, 10, EPS);
	cr_assert_null(find_row(r, "llvm-mca", 1, "transformation", "none"));
	/* the group values are sorted */
	row = find_row(r, "llvm-mca", 0, "family", "blas3");
	cr_assert_lt(row - r->rows,
		     find_row(r, "llvm-mca", 0, "family", "stream") - r->rows);
	lk_report_free(r);
	lk_store_close(f.s);
}

static struct lk_sweep *sweep_with_groups(const char *const *keys, size_t n)
{
	struct lk_sweep *sw = lk_sweep_new();

	sw->path = lk_strdup("campaign.yaml");
	sw->report.group_by_given = 1;
	sw->report.group_by_line = 12;
	sw->report.title = lk_strdup("Analyzers <&> \"all\"");
	for (size_t i = 0; i < n; i++)
		lk_strv_push(&sw->report.group_by, keys[i]);
	return sw;
}

Test(report, configured_groups_and_a_bad_key)
{
	static const char *const good[] = {"compiler", "family"};
	static const char *const bad[] = {"family", "famly"};
	struct fixture f = make_campaign("c");
	struct lk_sweep *sw = sweep_with_groups(good, 2);
	struct lk_report *r;

	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, sw, &r), 0,
		     "%s", ctx.msg);
	cr_assert_eq(r->group_by.n, 2);
	cr_assert_str_eq(r->title, "Analyzers <&> \"all\"");
	check_counts(find_row(r, "llvm-mca", 0, "compiler", "gcc"), 7, 1, 0,
		     0, 1, 1, 4, 1);
	lk_report_free(r);
	lk_sweep_free(sw);

	sw = sweep_with_groups(bad, 2);
	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, sw, &r),
		     LK_EINPUT);
	cr_assert_null(r);
	cr_assert(strstr(ctx.msg, "campaign.yaml:12:") &&
		  strstr(ctx.msg, "'famly'") &&
		  strstr(ctx.msg, "transformation"), "%s", ctx.msg);
	lk_sweep_free(sw);
	lk_store_close(f.s);
}

static char *read_text(const char *path)
{
	char *text;
	size_t len;

	cr_assert_eq(lk_file_read(&ctx, path, &text, &len), 0, "%s", ctx.msg);
	return text;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(report, campaign_writes_four_files)
{
	struct fixture f = make_campaign("w");
	char *out = lk_path_join(tmpdir, "out");
	struct lk_report_opts opts = {.out_dir = out, .gnuplot = ""};
	char *html, *csv, *json, *vcsv, *path;
	struct lk_report *r;

	sql(&f, "UPDATE lifted SET tool = 'uiCA <skl> & \"co''s\"' WHERE "
		"tool = 'bprof'");
	cr_assert_eq(lk_report_campaign(&ctx, f.s, f.campaign, NULL, &opts),
		     0, "%s", ctx.msg);
	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0);
	path = lk_path_join(out, "report.html");
	html = read_text(path);
	free(path);
	cr_assert(strstr(html, "uiCA &lt;skl&gt; &amp; &quot;co&#39;s&quot;"));
	cr_assert_null(strstr(html, "<skl>"));
	cr_assert(strstr(html, "Plots were not asked for."));
	cr_assert_null(strstr(html, "<script"));
	path = lk_path_join(out, "report.csv");
	csv = read_text(path);
	free(path);
	cr_assert_eq(count_lines(csv), 1 + r->nrows);
	cr_assert(strstr(csv, "\"uiCA <skl> & \"\"co's\"\"\""), "%s", csv);
	cr_assert(!strncmp(csv, "analyzer,tool,tool_version,params,unit,"
				"group_by,group,", 39));
	path = lk_path_join(out, "report.json");
	json = read_text(path);
	free(path);
	cr_assert(strstr(json, "\"uiCA <skl> & \\\"co's\\\"\""));
	cr_assert(strstr(json, "\"not_measured\": 1, \"no_cycles\": 1, "
			       "\"compared\": 4, \"unknown\": 1, "
			       "\"mape_pct\": 13.75"), "%s", json);
	path = lk_path_join(out, "variants.csv");
	vcsv = read_text(path);
	free(path);
	cr_assert_eq(count_lines(vcsv), 1 + NKERNELS * 2);
	cr_assert(strstr(vcsv, ",kernel,family,transformation,region,"));
	cr_assert(!strncmp(vcsv, "variant,name,source,compiler,flagset,", 37));
	cr_assert(strstr(vcsv, ",triad unroll4 gcc O2,triad,gcc,O2,triad,"),
		  "%s", vcsv);
	cr_assert(strstr(json, "\"name\": \"jacobi tile gcc O2\", "
			       "\"source\": \"jacobi\""));
	free(html);
	free(csv);
	free(json);
	free(vcsv);
	free(out);
	lk_report_free(r);
	lk_store_close(f.s);
}

Test(report, nothing_to_report_writes_nothing)
{
	struct fixture f = make_campaign("n");
	char *out = lk_path_join(tmpdir, "none");
	struct lk_report_opts opts = {.out_dir = out, .gnuplot = ""};

	sql(&f, "DELETE FROM lifted");
	cr_assert_eq(lk_report_campaign(&ctx, f.s, f.campaign, NULL, &opts),
		     LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "nothing to report") &&
		  strstr(ctx.msg, "no lifted prediction"), "%s", ctx.msg);
	cr_assert_not(lk_path_exists(out));
	/* every variant excluded */
	put_lifted(&f, 0, MCA, "ok", 10, "");
	sql(&f, "INSERT INTO verdicts(variant_id, filter, verdict) SELECT "
		"id, 'x', 'exclude' FROM variants");
	cr_assert_eq(lk_report_campaign(&ctx, f.s, f.campaign, NULL, &opts),
		     LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "excluded every variant"), "%s", ctx.msg);
	cr_assert_not(lk_path_exists(out));
	free(out);
	lk_store_close(f.s);
}

Test(report, unknown_campaign)
{
	struct fixture f = make_campaign("u");
	int64_t id;

	cr_assert_eq(lk_store_report_find_campaign(&ctx, f.s, "nope", &id),
		     LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "campaigns: synthetic"), "%s", ctx.msg);
	cr_assert_eq(lk_store_report_find_campaign(&ctx, f.s, "synthetic",
						   &id), 0);
	cr_assert_eq(id, f.campaign);
	lk_store_close(f.s);
}

Test(report, plots_with_gnuplot)
{
	struct fixture f = make_campaign("p");
	char *gnuplot = lk_which("gnuplot"), *scatter, *cdf;
	struct lk_report *r;
	struct lk_buf page = LK_BUF_INIT;

	if (!gnuplot) {
		lk_store_close(f.s);
		cr_skip_test("gnuplot is not installed");
	}
	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0);
	cr_assert_eq(lk_report_plots(&ctx, r, gnuplot, &scatter, &cdf), 0,
		     "%s", ctx.msg);
	cr_assert(strstr(scatter, "<svg") && strstr(cdf, "<svg"));
	cr_assert(strstr(scatter, "llvm-mca 19.1.7"));
	cr_assert(strstr(cdf, "bprof 1"));
	lk_report_html(r, scatter, cdf, NULL, &page);
	cr_assert(strstr(page.buf, "id='lkscatter-gpPt0'"));
	cr_assert(strstr(page.buf, "id='lkcdf-gpPt0'"));
	cr_assert_null(strstr(page.buf, "<?xml"));
	free(scatter);
	free(cdf);
	cr_assert_eq(lk_report_plots(&ctx, r, "/nonexistent/gnuplot",
				     &scatter, &cdf) < 0, 1);
	lk_buf_release(&page);
	free(gnuplot);
	lk_report_free(r);
	lk_store_close(f.s);
}

/* ---- The report: section. ---- */

static int parse(const char *yaml, struct lk_sweep **sw)
{
	char *src = lk_path_join(tmpdir, "k.c"), *name;
	int ret;

	cr_assert_eq(lk_file_write_atomic(&ctx, src, "int x;\n", 7), 0);
	name = lk_path_join(tmpdir, "c.yaml");
	ret = lk_sweep_parse(&ctx, name, yaml, strlen(yaml), sw);
	free(name);
	free(src);
	return ret;
}

Test(report, config_section)
{
	struct lk_sweep *sw;
	char *want;

	cr_assert_eq(parse("sources: [k.c]\nreport:\n  title: T <1>\n"
			   "  group-by: [family, compiler]\n"
			   "  output: rep/\n", &sw), 0, "%s", ctx.msg);
	cr_assert(sw->report.given);
	cr_assert_str_eq(sw->report.title, "T <1>");
	cr_assert(sw->report.group_by_given);
	cr_assert_eq(sw->report.group_by.n, 2);
	cr_assert_str_eq(sw->report.group_by.v[1], "compiler");
	cr_assert_eq(sw->report.group_by_line, 4);
	want = lk_path_join(tmpdir, "rep/");
	cr_assert_str_eq(sw->report.output, want);
	free(want);
	lk_sweep_free(sw);

	cr_assert_eq(parse("sources: [k.c]\nreport: {group-by: []}\n", &sw),
		     0, "%s", ctx.msg);
	cr_assert(sw->report.group_by_given);
	cr_assert_eq(sw->report.group_by.n, 0);
	cr_assert_null(sw->report.title);
	lk_sweep_free(sw);

	cr_assert_eq(parse("sources: [k.c]\n", &sw), 0);
	cr_assert_not(sw->report.given);
	cr_assert_not(sw->report.group_by_given);
	lk_sweep_free(sw);
}

Test(report, config_section_errors)
{
	static const struct {
		const char *yaml, *msg;
	} cases[] = {
		{"report: {titel: x}\n", "titel"},
		{"report: {group-by: [a, a]}\n", "listed twice"},
		{"report: {title: ''}\n", "empty"},
		{"report: [a]\n", "report"},
		{"report: {output: {a: b}}\n", "report.output"},
	};
	struct lk_sweep *sw;

	for (size_t i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		char *yaml = lk_asprintf("sources: [k.c]\n%s", cases[i].yaml);

		cr_assert_eq(parse(yaml, &sw), LK_EINPUT, "%s", yaml);
		cr_assert(strstr(ctx.msg, "c.yaml:2:") &&
			  strstr(ctx.msg, cases[i].msg), "%s: %s", yaml,
			  ctx.msg);
		cr_assert_null(sw);
		free(yaml);
	}
}

/* ---- Odd rows, names, paths. ---- */

Test(report, odd_lifted_rows_and_pending_variants)
{
	struct fixture f = make_campaign("o");
	struct lk_variant_rec v = {
		.hash = "ffff0000ffff0000ffff0000ffff0000",
		.source = "/elsewhere/dot.c", .source_hash = "sh",
		.compiler = "gcc", .flagset = "O2", .cflags = "-O2",
	};
	struct lk_report *r;
	int64_t id;

	cr_assert_eq(lk_store_variant_put(&ctx, f.s, f.campaign, &v, &id), 0);
	sql(&f, "UPDATE lifted SET value = NULL WHERE tool = 'bprof' AND "
		"variant_id = %lld", (long long)f.ids[0]);
	sql(&f, "UPDATE lifted SET value = -5 WHERE tool = 'bprof' AND "
		"variant_id = %lld", (long long)f.ids[2]);
	sql(&f, "UPDATE lifted SET status = 'weird', reason = 'why' WHERE "
		"tool = 'llvm-mca' AND variant_id = %lld", (long long)f.ids[0]);
	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0,
		     "%s", ctx.msg);
	cr_assert_str_eq(r->variants[0].preds[0].reason, "ok but no value");
	cr_assert_eq(r->variants[0].preds[0].outcome, LK_OUT_FAILED);
	cr_assert_str_eq(r->variants[2].preds[0].reason,
			 "negative lifted value");
	cr_assert_str_eq(r->variants[0].preds[1].reason, "status weird: why");
	/* never run, never lifted */
	cr_assert_eq(r->variants[7].meas, LK_MEAS_NONE);
	cr_assert_str_eq(r->variants[7].note, "never run");
	cr_assert_eq(r->variants[7].preds[1].outcome, LK_OUT_MISSING);
	/* a file of the user's keeps its name beside the kernel dot */
	cr_assert_str_eq(r->variants[7].source_name, "dot.c");
	cr_assert_str_eq(r->variants[7].name, "dot.c gcc O2");
	cr_assert_str_eq(r->variants[0].source_name, "dot");
	cr_assert_eq(reason_count(r, "unmeasured", "never run"), 1);
	lk_report_free(r);
	lk_store_close(f.s);
}

/* A report of n variants given by (source, kernel, family) rows; kernel
 * NULL: not generated. */
static struct lk_report *named_variants(const char *const (*rows)[3],
					size_t n)
{
	struct lk_report *r = lk_calloc(1, sizeof(*r));
	size_t i;

	r->variants = lk_calloc(n, sizeof(*r->variants));
	r->nvariants = n;
	for (i = 0; i < n; i++) {
		struct lk_report_variant *v = &r->variants[i];

		v->source = lk_strdup(rows[i][0]);
		v->compiler = lk_strdup("gcc");
		v->flagset = lk_strdup("O2");
		if (!rows[i][1])
			continue;
		v->params = lk_calloc(3, sizeof(*v->params));
		v->params[0] = (struct lk_param){lk_strdup("kernel"),
						 lk_strdup(rows[i][1])};
		v->params[1] = (struct lk_param){lk_strdup("family"),
						 lk_strdup(rows[i][2])};
		v->params[2] = (struct lk_param){lk_strdup("transformation"),
						 lk_strdup("original")};
		v->nparams = 3;
	}
	report_name_sources(r);
	return r;
}

Test(report, source_names)
{
	static const char *const plain[][3] = {
		{"/a/dot.c", NULL, NULL}, {"/b/dot.c", NULL, NULL},
		{"/a/triad.c", NULL, NULL}};
	static const char *const gen[][3] = {
		{"loopkit.d/objects/ab/0123456789abcdef0123456789abcd.c",
		 "gemm", "blas"},
		{"loopkit.d/objects/cd/fedcba9876543210fedcba98765432.c",
		 "gemm", "blas"},
		{"/a/dot.c", NULL, NULL}};
	static const char *const twice[][3] = {
		{"loopkit.d/objects/ab/0123.c", "gemm", "blas"},
		{"loopkit.d/objects/cd/4567.c", "gemm", "mine"}};
	struct lk_report *r;

	/* two dot.c in two directories: sources are named by their paths */
	r = named_variants(plain, 3);
	cr_assert_str_eq(r->variants[0].source_name, "/a/dot.c");
	cr_assert_str_eq(r->variants[2].source_name, "/a/triad.c");
	lk_report_free(r);
	/* generated: by kernel, one name for two chains' files */
	r = named_variants(gen, 3);
	cr_assert_str_eq(r->variants[0].source_name, "gemm");
	cr_assert_str_eq(r->variants[1].source_name, "gemm");
	cr_assert_str_eq(r->variants[2].source_name, "dot.c");
	cr_assert_str_eq(r->variants[0].name, "gemm original gcc O2");
	lk_report_free(r);
	/* two kernels called gemm in two families: family/kernel */
	r = named_variants(twice, 2);
	cr_assert_str_eq(r->variants[0].source_name, "blas/gemm");
	cr_assert_str_eq(r->variants[1].source_name, "mine/gemm");
	lk_report_free(r);
}

Test(report, output_paths)
{
	struct fixture f = make_campaign("paths");
	struct lk_report_opts opts = {0};
	struct lk_sweep *sw = lk_sweep_new();
	char *p, *want;

	p = lk_report_output_path(f.s, NULL, &opts, LK_REPORT_HTML);
	want = lk_asprintf("%s/report/report.html", lk_store_dir(f.s));
	cr_assert_str_eq(p, want);
	free(p);
	free(want);
	sw->report.output = lk_strdup("/x/rep");
	p = lk_report_output_path(f.s, sw, &opts, LK_REPORT_JSON);
	cr_assert_str_eq(p, "/x/rep/report.json");
	free(p);
	opts.out_dir = "/y";
	p = lk_report_output_path(f.s, sw, &opts, LK_REPORT_VARIANTS_CSV);
	cr_assert_str_eq(p, "/y/variants.csv");
	free(p);
	opts.csv = "-";
	p = lk_report_output_path(f.s, sw, &opts, LK_REPORT_CSV);
	cr_assert_str_eq(p, "-");
	free(p);
	lk_sweep_free(sw);
	lk_store_close(f.s);
}

/* The terminal's lines: the figures of the rows without a group. */
Test(report, summary_lines)
{
	struct fixture f = make_campaign("s");
	struct lk_buf b = LK_BUF_INIT;
	struct lk_report *r;
	char want[256];
	size_t i, n = 0;

	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0,
		     "%s", ctx.msg);
	lk_report_summary(r, &b);
	for (i = 0; i < r->nrows && !*r->rows[i].key; i++, n++) {
		const struct lk_report_row *row = &r->rows[i];

		char tau[16] = "n/a";

		if (!isnan(row->st.tau_b))
			snprintf(tau, sizeof(tau), "%.3f", row->st.tau_b);
		snprintf(want, sizeof(want), "MAPE %.1f %%, median |error| "
			 "%.1f %%, Kendall tau-b %s\n", row->st.mape,
			 100 * row->st.abs_median, tau);
		cr_assert(strstr(b.buf, want), "%s not in %s", want, b.buf);
	}
	cr_assert_eq(count_lines(b.buf), n);
	cr_assert(strstr(b.buf, "bprof 1: 3/7 kernels compared (1 excluded by "
				"a filter, 1 failed, 1 without prediction, 1 "
				"not measured), MAPE "), "%s", b.buf);
	cr_assert(strstr(b.buf, "llvm-mca 19.1.7: 4/7 kernels compared (1 "
				"excluded by a filter, 1 not measured, 1 "
				"without a trustworthy cycles figure), MAPE "
				"13.8 %"), "%s", b.buf);
	cr_assert(!strstr(b.buf, "instead of cycles"), "%s", b.buf);
	lk_buf_release(&b);
	lk_report_free(r);
	lk_store_close(f.s);
}

/* Several threads ran: the cycles are one CPU's clock, never compared. */
Test(report, multi_threaded_cycles_are_not_compared)
{
	struct fixture f = make_campaign("mt");
	struct lk_report *r;

	sql(&f, "UPDATE results SET flags = 'multi-threaded', is_primary = "
		"(metric = 'tsc') WHERE run_id = (SELECT id FROM runs WHERE "
		"variant_id = %lld)", (long long)f.ids[0]);
	cr_assert_eq(lk_report_build(&ctx, f.s, f.campaign, NULL, &r), 0,
		     "%s", ctx.msg);
	cr_assert_str_eq(r->variants[0].note, "no trustworthy core-cycle "
			 "figure: several threads ran (cycles are one CPU's "
			 "clock)");
	cr_assert_eq(r->variants[0].meas, LK_MEAS_FALLBACK);
	cr_assert_eq(r->variants[0].preds[1].outcome, LK_OUT_NO_CYCLES);
	lk_report_free(r);
	lk_store_close(f.s);
}
