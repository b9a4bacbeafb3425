/*
 * The MDL seed database in the store (migration 8): a database round
 * trips whole, one stored again under its hash replaces the old, the
 * latest of a class wins, a missing class is "none", a schema-7 store
 * gains the tables and keeps its rows, a variant's run figure, and the
 * units a database build records.
 */
#include <math.h>
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loopkit/mdl.h"
#include "loopkit/store.h"
#include "tmpdir.h"

static struct lk_ctx ctx;

static void setup(void)
{
	tmpdir_make("store-mdl");
	lk_ctx_init(&ctx);
}

static void teardown(void)
{
	tmpdir_remove();
}

TestSuite(store_mdl, .init = setup, .fini = teardown);

static struct lk_store *open_store(void)
{
	struct lk_store *s = NULL;

	cr_assert_eq(lk_store_open(&ctx, tmpdir, LK_STORE_CREATE, &s), 0,
		     "%s", ctx.msg);
	return s;
}

static struct lk_mdl_seed_row seeds[] = {
	{"L1S0", "multi-stream", "MDL 1\n", {1, 0, 1, 0, 0}},
	{"L2S1A1M1", "arithmetic", "MDL 1\n", {1, 0.5, 3, 1, 1}}};

static struct lk_mdl_perf_row perf[] = {
	{"L1S0", "L1", 1, 0.125, "cycles/iter", "tsc-calibrated", 8, 1, 0,
	 0.01, 12, ""},
	{"L1S0", "RAM", 1, 1.5, "cycles/iter", "tsc-calibrated", 4, 2, 0,
	 0.2, 3, ""},
	{"L2S1A1M1", "L1", 0, 0, "cycles/iter", "", 0, 0, 0, 0, 0,
	 "not-measured"}};

static struct lk_mdl_db_row make_db(const char *hash, const char *isa)
{
	return (struct lk_mdl_db_row){0, (char *)hash, "cpu", (char *)isa,
				      "L1,RAM", "explore=minimal", 0, 0, 0,
				      seeds, 2, perf, 3};
}

Test(store_mdl, round_trip)
{
	struct lk_store *s = open_store();
	struct lk_mdl_db_row in = make_db("h1", "avx2"), out;
	int64_t id;

	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &in, &id), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_mdl_db_get(&ctx, s, "avx2", &out), 1, "%s",
		     ctx.msg);
	cr_assert_eq(out.id, id);
	cr_assert_str_eq(out.hash, "h1");
	cr_assert_str_eq(out.levels, "L1,RAM");
	cr_assert_eq(out.nseeds, 2);
	cr_assert_str_eq(out.seeds[1].name, "L2S1A1M1");
	cr_assert_eq(out.seeds[1].features[1], 0.5);
	cr_assert_str_eq(out.seeds[1].mdl, "MDL 1\n");
	cr_assert_eq(out.nperf, 3);
	/* Ordered by seed, then L1 < L2 < L3 < RAM. */
	cr_assert_str_eq(out.perf[0].level, "L1");
	cr_assert_eq(out.perf[0].value, 0.125);
	cr_assert_str_eq(out.perf[1].level, "RAM");
	cr_assert_eq(out.perf[1].best_bundles, 2);
	cr_assert_eq(out.perf[1].spread, 0.2);
	cr_assert_eq(out.perf[2].has_value, 0);
	cr_assert_str_eq(out.perf[2].flags, "not-measured");
	lk_mdl_db_row_release(&out);
	cr_assert_eq(lk_store_mdl_db_get(&ctx, s, "sse", &out), 0);
	cr_assert_eq(out.nseeds, 0);
	lk_store_close(s);
}

Test(store_mdl, same_hash_replaces_latest_wins)
{
	struct lk_store *s = open_store();
	struct lk_mdl_db_row a = make_db("h1", "avx2"), b = make_db("h2",
								   "avx2");
	struct lk_mdl_db_row out;

	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &a, NULL), 0);
	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &b, NULL), 0);
	cr_assert_eq(lk_store_mdl_db_get(&ctx, s, "avx2", &out), 1);
	cr_assert_str_eq(out.hash, "h2");
	lk_mdl_db_row_release(&out);
	a.nperf = 1;
	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &a, NULL), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_mdl_db_get(&ctx, s, NULL, &out), 1);
	cr_assert_str_eq(out.hash, "h1");
	cr_assert_eq(out.nperf, 1);
	lk_mdl_db_row_release(&out);
	lk_store_close(s);
}

Test(store_mdl, failed_put_changes_nothing)
{
	struct lk_store *s = open_store();
	struct lk_mdl_db_row a = make_db("h1", "avx2"), out;
	struct lk_mdl_seed_row twice[] = {seeds[0], seeds[0]};

	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &a, NULL), 0);
	a.seeds = twice;      /* the same seed twice: a primary key clash */
	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &a, NULL), LK_ESTORE);
	cr_assert(strstr(ctx.msg, "L1S0"), "%s", ctx.msg);
	cr_assert_eq(lk_store_mdl_db_get(&ctx, s, "avx2", &out), 1);
	cr_assert_str_eq(out.seeds[1].name, "L2S1A1M1");
	lk_mdl_db_row_release(&out);
	lk_store_close(s);
}

static void raw_exec(const char *sql)
{
	char *path = lk_path_join(tmpdir, "store.db");
	sqlite3 *db = NULL;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK,
		     "%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_close(db);
	free(path);
}

Test(store_mdl, schema_7_store_migrates)
{
	struct lk_store *s = open_store();
	struct lk_mdl_db_row a = make_db("h1", "avx2"), out;
	int64_t campaign;
	long n;

	cr_assert_eq(lk_store_schema_version(s), 10);
	cr_assert_eq(lk_store_campaign(&ctx, s, "old", NULL, NULL, &campaign),
		     0);
	lk_store_close(s);
	/* What a schema-7 store is: everything but migrations 8 to 10. */
	raw_exec("DROP TABLE variant_predictions;"
		 " ALTER TABLE variants DROP COLUMN current;"
		 " DROP TABLE mdl_evals; DROP TABLE mdl_seed_perf; DROP TABLE mdl_seeds;"
		 " DROP TABLE mdl_dbs; PRAGMA user_version = 7;");
	s = open_store();
	cr_assert_eq(lk_store_schema_version(s), 10);
	cr_assert_eq(lk_store_variant_count(&ctx, s, campaign, &n), 0);
	cr_assert_eq(lk_store_mdl_db_put(&ctx, s, &a, NULL), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_mdl_db_get(&ctx, s, "avx2", &out), 1);
	lk_mdl_db_row_release(&out);
	lk_store_close(s);
}

/* An ok run of variant under method "m" with these results. */
static struct lk_run_rec ok_run(int64_t variant,
				const struct lk_result_rec *res, size_t n)
{
	struct lk_run_rec r = {0};

	r.variant_id = variant;
	r.method_hash = "m";
	r.method = "m";
	r.status = "ok";
	r.reason = "";
	r.results = res;
	r.nresults = n;
	return r;
}

Test(store_mdl, run_figure)
{
	struct lk_store *s = open_store();
	const struct lk_result_rec res[] = {
		{"mdl", "tsc", "tsc", "ticks/step", 1, 70, "p25", 5, 0.01, "",
		 0},
		{"mdl", "cycles", "tsc-calibrated", "cycles/step", 1, 100,
		 "p25", 5, 0.02, "", 1}};
	struct lk_variant_rec v = {"vh", "x.c", "sh", "gcc", "default", "-O2",
				   NULL, 0};
	struct lk_run_rec r;
	struct lk_run_figure f;
	int64_t campaign, variant;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, campaign, &v, &variant),
		     0);
	cr_assert_eq(lk_store_run_figure(&ctx, s, variant, "cycles", &f), 0);
	cr_assert_null(f.status);
	r = ok_run(variant, res, 2);
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_run_figure(&ctx, s, variant, "cycles", &f), 0);
	cr_assert_str_eq(f.status, "ok");
	cr_assert_eq(f.has_value, 1);
	cr_assert_eq(f.value, 100);
	cr_assert_str_eq(f.source, "tsc-calibrated");
	lk_run_figure_release(&f);
	cr_assert_eq(lk_store_run_figure(&ctx, s, variant, "ns", &f), 0);
	cr_assert_str_eq(f.status, "ok");
	cr_assert_eq(f.has_value, 0);
	lk_run_figure_release(&f);
	/* A second run under another method: the latest of any method, or
	 * the one of a method named. */
	r.method_hash = "m2";
	r.method = "m;round=1";
	r.status = "failed";
	r.nresults = 0;
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_run_figure(&ctx, s, variant, "cycles", &f), 0);
	cr_assert_str_eq(f.status, "failed");
	lk_run_figure_release(&f);
	cr_assert_eq(lk_store_run_figure_of(&ctx, s, variant, "m", "cycles",
					    &f), 0);
	cr_assert_str_eq(f.status, "ok");
	cr_assert_eq(f.value, 100);
	lk_run_figure_release(&f);
	cr_assert_eq(lk_store_run_figure_of(&ctx, s, variant, "m;round=1",
					    "cycles", &f), 0);
	cr_assert_str_eq(f.status, "failed");
	lk_run_figure_release(&f);
	cr_assert_eq(lk_store_run_figure_of(&ctx, s, variant, "m;round=2",
					    "cycles", &f), 0);
	cr_assert_null(f.status);
	lk_store_close(s);
}

/*
 * The least sample of a run (its "cycles" region only, every process
 * and attempt), a campaign's clock (the 99th percentile of its
 * samples' reference ratio: one odd fast reading in 101 is left out),
 * a run's own clock (its fastest reference) and the campaign's runs'.
 */
Test(store_mdl, run_least_ticks_and_campaign_clock)
{
	struct lk_store *s = open_store();
	const struct lk_result_rec res[] = {
		{"mdl", "cycles", "tsc-calibrated", "cycles/step", 1, 100,
		 "p25", 5, 0.02, "", 1}};
	struct lk_variant_rec v = {"vh", "x.c", "sh", "gcc", "default", "-O2",
				   NULL, 0};
	struct lk_sample_rec sm[2 * 101 + 4];
	struct lk_run_rec r;
	int64_t campaign, other, variant;
	double ticks, clock, *clocks;
	size_t n = 0;
	int i;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	cr_assert_eq(lk_store_campaign(&ctx, s, "o", NULL, NULL, &other), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, campaign, &v, &variant),
		     0);
	cr_assert_eq(lk_store_run_least_ticks(&ctx, s, variant, NULL, &ticks),
		     0);
	cr_assert_eq(ticks, 0);
	cr_assert_eq(lk_store_campaign_clock(&ctx, s, campaign, &clock), 0);
	cr_assert_eq(clock, 0);
	/* 101 samples: ratio 1 + i / 1000 for i < 100, then one at 2. */
	for (i = 0; i <= 100; i++) {
		sm[n++] = (struct lk_sample_rec){i % 2, 0, "mdl", i, 4,
						 "ref_cycles", 3000, 3000};
		sm[n++] = (struct lk_sample_rec){
			i % 2, 0, "mdl", i, 4, "ref_tsc",
			i < 100 ? 3000 / (1 + i / 1000.0) : 1500,
			0};
	}
	sm[n++] = (struct lk_sample_rec){0, 0, "mdl", 0, 4, "tsc", 400, 99};
	sm[n++] = (struct lk_sample_rec){1, 1, "mdl", 1, 4, "tsc", 350, 87};
	sm[n++] = (struct lk_sample_rec){1, 0, "mdl", 2, 4, "tsc", 0, 0};
	sm[n++] = (struct lk_sample_rec){0, 0, "other", 0, 4, "tsc", 8, 2};
	r = ok_run(variant, res, 1);
	r.samples = sm;
	r.nsamples = n;
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_run_least_ticks(&ctx, s, variant, NULL, &ticks),
		     0, "%s", ctx.msg);
	cr_assert_eq(ticks, 87);
	cr_assert_eq(lk_store_run_least_ticks(&ctx, s, variant, "m", &ticks),
		     0);
	cr_assert_eq(ticks, 87);
	cr_assert_eq(lk_store_run_least_ticks(&ctx, s, variant, "m;round=1",
					      &ticks), 0);
	cr_assert_eq(ticks, 0);
	cr_assert_eq(lk_store_campaign_clock(&ctx, s, campaign, &clock), 0,
		     "%s", ctx.msg);
	cr_assert_float_eq(clock, 1.099, 1e-9, "%g", clock);
	cr_assert_eq(lk_store_campaign_clock(&ctx, s, other, &clock), 0);
	cr_assert_eq(clock, 0);
	/* The run's own clock is its fastest reference, the odd one too. */
	cr_assert_eq(lk_store_run_clock(&ctx, s, variant, NULL, &clock), 0,
		     "%s", ctx.msg);
	cr_assert_float_eq(clock, 2, 1e-12, "%g", clock);
	cr_assert_eq(lk_store_run_clock(&ctx, s, variant, "m;round=1",
					&clock), 0);
	cr_assert_eq(clock, 0);
	/* A second run, its fastest at 1.5: one clock per run, ascending. */
	r.method_hash = "m2";
	r.method = "m;round=1";
	r.nsamples = 2;
	sm[0] = (struct lk_sample_rec){0, 0, "mdl", 0, 4, "ref_cycles", 3000,
				       3000};
	sm[1] = (struct lk_sample_rec){0, 0, "mdl", 0, 4, "ref_tsc", 2000, 0};
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_campaign_run_clocks(&ctx, s, campaign, &clocks,
						  &n), 0, "%s", ctx.msg);
	cr_assert_eq(n, 2);
	cr_assert_float_eq(clocks[0], 1.5, 1e-12);
	cr_assert_float_eq(clocks[1], 2, 1e-12);
	free(clocks);
	cr_assert_eq(lk_store_campaign_run_clocks(&ctx, s, other, &clocks,
						  &n), 0);
	cr_assert_eq(n, 0);
	free(clocks);
	lk_store_close(s);
}

/* A run of variant whose every reference reads clock q and whose least
 * sample is 100 ticks a step. */
static void clocked_run(struct lk_store *s, int64_t variant, double q)
{
	static const struct lk_result_rec res[] = {
		{"mdl", "cycles", "tsc-calibrated", "cycles/step", 1, 150,
		 "p25", 5, 0.02, "", 1}};
	struct lk_sample_rec sm[] = {
		{0, 0, "mdl", 0, 4, "ref_cycles", 1000 * q, 1000 * q},
		{0, 0, "mdl", 0, 4, "ref_tsc", 1000, 1000},
		{0, 0, "mdl", 0, 4, "tsc", 480, 120},
		{0, 0, "mdl", 1, 4, "tsc", 400, 100}};
	struct lk_run_rec r = ok_run(variant, res, 1);

	r.samples = sm;
	r.nsamples = sizeof(sm) / sizeof(sm[0]);
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
}

/*
 * lk_mdl_figure: at L1 and L2 the least sample at the campaign's clock
 * while its runs show one state, at each run's own once they show two
 * (doc/loopkit-mdl.md, "A clock that moves"); from L3 on the run's
 * figure as it is.
 */
Test(store_mdl, figure_at_each_runs_clock)
{
	struct lk_store *s = open_store();
	struct lk_variant_rec v = {"a", "a.c", "sh", "gcc", "default", "-O2",
				   NULL, 0};
	struct lk_run_figure f = {0};
	struct lk_mdl_clock c;
	int64_t campaign, a, b;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	cr_assert_eq(lk_mdl_clock_read(&ctx, s, campaign, &c), 0);
	cr_assert_eq(c.build, 0);
	cr_assert_eq(c.nstates, 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, campaign, &v, &a), 0);
	v.hash = "b";
	v.source = "b.c";
	cr_assert_eq(lk_store_variant_put(&ctx, s, campaign, &v, &b), 0);
	clocked_run(s, a, 1.6);
	cr_assert_eq(lk_mdl_clock_read(&ctx, s, campaign, &c), 0, "%s",
		     ctx.msg);
	cr_assert_eq(c.nstates, 1);
	cr_assert_float_eq(c.build, 1.6, 1e-12);
	cr_assert_eq(lk_mdl_figure(&ctx, s, a, LK_MDL_L1, &c, &f), 0);
	cr_assert_float_eq(f.value, 160, 1e-9, "%g", f.value);
	cr_assert_str_eq(f.source, "tsc-least");
	lk_run_figure_release(&f);
	/* b's run in another state: two states, each run at its own. */
	clocked_run(s, b, 2.0);
	cr_assert_eq(lk_mdl_clock_read(&ctx, s, campaign, &c), 0);
	cr_assert_eq(c.nstates, 2);
	cr_assert_eq(lk_mdl_figure(&ctx, s, a, LK_MDL_L2, &c, &f), 0);
	cr_assert_float_eq(f.value, 160, 1e-9, "%g", f.value);
	lk_run_figure_release(&f);
	cr_assert_eq(lk_mdl_figure(&ctx, s, b, LK_MDL_L1, &c, &f), 0);
	cr_assert_float_eq(f.value, 200, 1e-9, "%g", f.value);
	lk_run_figure_release(&f);
	cr_assert_eq(lk_mdl_figure(&ctx, s, a, LK_MDL_L3, &c, &f), 0);
	cr_assert_eq(f.value, 150);
	cr_assert_str_eq(f.source, "tsc-calibrated");
	lk_run_figure_release(&f);
	lk_store_close(s);
}

Test(store_mdl, eval_rows_replace_and_keep_nan)
{
	struct lk_store *s = open_store();
	struct lk_variant_rec v = {"vh", "x.c", "sh", "gcc", "default", "-O2",
				   NULL, 0};
	struct lk_mdl_eval_row in[3] = {
		{.variant = "x.c gcc", .function = "k", .loop = 0x40,
		 .level = "RAM", .isa = "sse", .status = "ok", .unroll = 2,
		 .predicted = 2.5, .replayed = 3, .mca = NAN},
		{.variant = "x.c gcc", .function = "k", .loop = 0x40,
		 .level = "L1", .isa = "sse", .status = "ok", .unroll = 2,
		 .predicted = 1, .replayed = 1.25, .mca = 0.75,
		 .mca_tool = "llvm-mca-19", .db_hash = "abc"},
		{.variant = "x.c gcc", .function = "k", .loop = 0x10,
		 .level = "", .status = "refused", .reason = "indirect",
		 .predicted = NAN, .replayed = NAN, .mca = NAN}};
	struct lk_mdl_eval_row *out;
	int64_t campaign, variant;
	size_t n, i;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, campaign, &v, &variant),
		     0);
	for (i = 0; i < 3; i++)
		in[i].variant_id = variant;
	cr_assert_eq(lk_store_mdl_eval_put(&ctx, s, campaign, in, 3), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_mdl_eval_get(&ctx, s, campaign, &out, &n), 0);
	cr_assert_eq(n, 3);
	/* By loop, then level L1 before RAM. */
	cr_assert_str_eq(out[0].status, "refused");
	cr_assert_str_eq(out[0].reason, "indirect");
	cr_assert(isnan(out[0].predicted) && isnan(out[0].replayed));
	cr_assert_str_eq(out[1].level, "L1");
	cr_assert_eq(out[1].mca, 0.75);
	cr_assert_str_eq(out[1].mca_tool, "llvm-mca-19");
	cr_assert_str_eq(out[2].level, "RAM");
	cr_assert(isnan(out[2].mca));
	cr_assert_eq(out[2].predicted, 2.5);
	cr_assert_eq(out[2].unroll, 2);
	cr_assert_str_eq(out[2].variant, "x.c gcc");
	lk_mdl_eval_rows_free(out, n);
	/* A second put replaces the campaign's rows. */
	cr_assert_eq(lk_store_mdl_eval_put(&ctx, s, campaign, in + 1, 1), 0);
	cr_assert_eq(lk_store_mdl_eval_get(&ctx, s, campaign, &out, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(out[0].level, "L1");
	lk_mdl_eval_rows_free(out, n);
	lk_store_close(s);
}

/* Phase 0 explores unrolls of 1, 2, 4 and 8 vectors of the class: U
 * canonical iterations of 8-byte elements, times the class's lanes (so
 * that an asm iteration holds enough independent operations to run at
 * their throughput). */
/* A directory of one seed, A1 (one load stream, an add and a mul). */
static char *seed_dir(void)
{
	char *dir = lk_asprintf("%s/seeds", tmpdir);
	char *path = lk_asprintf("%s/A1.mdl", dir);
	FILE *f;

	cr_assert_eq(mkdir(dir, 0777), 0);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("MDL 1\nMeta:\n  kind = \"arithmetic\"\nData:\n  flow a\n"
	      "Body:\nTrip: 4\nI/O: In: a 32 Out:\nLoopBody:\n"
	      "  In: a Stride: 8 Offset: 0 Size: 8\n  Out:\n"
	      "  Add: 1 Mul: 1\n", f);
	fclose(f);
	free(path);
	return dir;
}

Test(store_mdl, db_plan_unrolls_in_vectors)
{
	static const char *const classes[] = {"scalar", "sse"};
	static const int lanes[] = {1, 2};
	struct lk_store *s = open_store();
	char *dir = seed_dir();
	int64_t campaign;
	size_t c, i, added;
	cr_assert_eq(lk_store_campaign(&ctx, s, "mdl-db:test", NULL, NULL,
				       &campaign), 0);
	for (c = 0; c < 2; c++) {
		const struct lk_mdl_machine *mc =
			lk_mdl_machine_find(classes[c]);
		struct lk_mdl_db_plan p;
		unsigned seen = 0;

		cr_assert_eq(lk_mdl_db_plan_init(&ctx, &p, dir, NULL, mc,
						 1u << LK_MDL_L1,
						 LK_MDL_EXPLORE_DEFAULT),
			     0, "%s", ctx.msg);
		cr_assert_eq(lk_mdl_db_record(&ctx, s, campaign, &p, 0,
					      &added), 0, "%s", ctx.msg);
		for (i = 0; i < p.nunits; i++) {
			int u = p.units[i].unroll / lanes[c];

			if (p.units[i].latency)
				continue;
			cr_assert_eq(p.units[i].unroll % lanes[c], 0);
			cr_assert(u == 1 || u == 2 || u == 4 || u == 8,
				  "%s: unroll %d", classes[c],
				  p.units[i].unroll);
			seen |= 1u << u;
		}
		cr_assert_eq(seen, 2u | 4u | 16u | 256u, "%s", classes[c]);
		lk_mdl_db_plan_release(&p);
	}
	free(dir);
	lk_store_close(s);
}

/* A run of variant whose "cycles" figure is value (no samples: the
 * campaign has no clock, and the figure is the unit's value). */
static void put_run(struct lk_store *s, int64_t variant, double value)
{
	const struct lk_result_rec res[] = {
		{"mdl", "cycles", "tsc-calibrated", "cycles/step", 1, value,
		 "p25", 5, 0.01, "", 1}};
	struct lk_run_rec r = ok_run(variant, res, 1);

	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
}

/* Units of p from the first, at level, not latency ones. */
static size_t units_at(const struct lk_mdl_db_plan *p, size_t first,
		       enum lk_mdl_level level)
{
	size_t i, n = 0;

	for (i = first; i < p->nunits; i++)
		n += !p->units[i].latency && p->units[i].level == level;
	return n;
}

/*
 * The default exploration's later phases: phase 1 measures every
 * distinct L1 variant at L2, phase 2 the best 3 of L2 (not of L1) at L3;
 * without L2 in the levels, phase 1 takes the best 3 of L1 to L3 and
 * phase 2 adds nothing.
 */
Test(store_mdl, db_plan_phases_from_the_level_below)
{
	struct lk_store *s = open_store();
	char *dir = seed_dir();
	const struct lk_mdl_machine *mc = lk_mdl_machine_find("sse");
	unsigned levels[2] = {1u << LK_MDL_L1 | 1u << LK_MDL_L2 |
			      1u << LK_MDL_L3, 1u << LK_MDL_L1 | 1u << LK_MDL_L3};
	char name[2][16] = {"mdl-db:a", "mdl-db:b"};
	int c;

	for (c = 0; c < 2; c++) {
		struct lk_mdl_db_plan p;
		size_t i, k, added, n1, n2, distinct = 0;
		int64_t campaign;

		cr_assert_eq(lk_store_campaign(&ctx, s, name[c], NULL, NULL,
					       &campaign), 0);
		cr_assert_eq(lk_mdl_db_plan_init(&ctx, &p, dir, NULL, mc,
						 levels[c],
						 LK_MDL_EXPLORE_DEFAULT),
			     0, "%s", ctx.msg);
		cr_assert_eq(lk_mdl_db_record(&ctx, s, campaign, &p, 0,
					      &added), 0, "%s", ctx.msg);
		n1 = p.nunits;
		/* At L1, the later a unit the faster; a variant's first
		 * unit stores its run. */
		for (i = 0; i < n1; i++) {
			for (k = 0; k < i; k++)
				if (p.units[k].variant_id ==
				    p.units[i].variant_id)
					break;
			if (k < i || p.units[i].latency)
				continue;
			distinct++;
			put_run(s, p.units[i].variant_id,
				(double)(1000 - i) * p.units[i].iterations);
		}
		cr_assert_gt(distinct, 3);
		cr_assert_eq(lk_mdl_db_record(&ctx, s, campaign, &p, 1,
					      &added), 0, "%s", ctx.msg);
		n2 = p.nunits;
		if (c == 1) {
			/* No L2: the best 3 of L1, the last 3 distinct. */
			cr_assert_eq(added, 3);
			cr_assert_eq(units_at(&p, n1, LK_MDL_L3), 3);
			for (i = n1; i + 1 < n2; i++)
				cr_assert(p.units[i].unroll >
						  p.units[i + 1].unroll ||
					  (p.units[i].unroll ==
						   p.units[i + 1].unroll &&
					   p.units[i].bundles >
						   p.units[i + 1].bundles));
			cr_assert_eq(lk_mdl_db_record(&ctx, s, campaign, &p, 2,
						      &added), 0);
			cr_assert_eq(added, 0);
			lk_mdl_db_plan_release(&p);
			continue;
		}
		cr_assert_eq(added, distinct);
		cr_assert_eq(units_at(&p, n1, LK_MDL_L2), distinct);
		/* At L2 the order turns over: the earlier the faster. */
		for (i = n1; i < n2; i++)
			put_run(s, p.units[i].variant_id,
				(double)(100 + i) * p.units[i].iterations);
		cr_assert_eq(lk_mdl_db_record(&ctx, s, campaign, &p, 2,
					      &added), 0, "%s", ctx.msg);
		cr_assert_eq(added, 3);
		cr_assert_eq(units_at(&p, n2, LK_MDL_L3), 3);
		for (i = 0; i < 3; i++) {
			cr_assert_eq(p.units[n2 + i].unroll,
				     p.units[n1 + i].unroll);
			cr_assert_eq(p.units[n2 + i].bundles,
				     p.units[n1 + i].bundles);
		}
		lk_mdl_db_plan_release(&p);
	}
	free(dir);
	lk_store_close(s);
}
