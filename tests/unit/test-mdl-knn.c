/*
 * mdl prediction: the feature vector of a description (elements per
 * canonical iteration, joint and per µkernel), the iterative k-NN's
 * properties (a seed predicts itself in one step, scaling and sums are
 * exact, the residual never goes negative, at most kmax steps, orders),
 * and lk_mdl_predict over a database row (seed names in the trace, a
 * level without values refused).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/mdl.h"

TestSuite(mdl_knn);

static void parse(const char *text, struct lk_mdl *m)
{
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", text, strlen(text), m), 0,
		     "%s", ctx.msg);
}

static const char two_uks[] =
	"MDL 1\nMeta:\nData:\n  flow a\n  flow b\n  flow c\n"
	"  scalar n = 64\n  scalar k = 3\nBody:\nTrip: n\n"
	"I/O: In: a n*8 b n*8 Out: c n*8\nLoopBody:\n"
	"  In:  a Stride: 24 Offset: 0 Size: 24\n"
	"       b Stride: 8 Offset: 0 Size: 8\n"
	"  Out: c Stride: 8 Offset: 0 Size: 8\n"
	"  Add: 2 Mul: k\n"
	"  In:  a Stride: 8 Offset: 0 Size: 8\n"
	"  Out:\n"
	"  Add: 1 Mul: 0\n";

Test(mdl_knn, features_joint_and_per_ukernel)
{
	struct lk_ctx ctx;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];

	lk_ctx_init(&ctx);
	parse(two_uks, &m);
	cr_assert_eq(lk_mdl_ukernel_count(&m), 2);
	/* Joint: loads 3 + 1 + 1 = 5 elements, 1 store, 3 streams. */
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, -1, f), 0, "%s",
		     ctx.msg);
	cr_assert_float_eq(f[0], 5.0 / 3, 1e-12);
	cr_assert_float_eq(f[1], 1.0 / 3, 1e-12);
	cr_assert_eq(f[2], 3);
	cr_assert_eq(f[3], 3);
	cr_assert_eq(f[4], 3);     /* the scalar k */
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, 1, f), 0);
	cr_assert(f[0] == 1 && f[1] == 0 && f[2] == 1 && f[3] == 1 &&
		  f[4] == 0);
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, 2, f), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "t.mdl: no µkernel 2 (it has 2)"), "%s",
		  ctx.msg);
	lk_mdl_release(&m);
}

/* The sixth feature: the lines far accesses (a stride of 64 bytes or
 * more) touch per iteration. */
Test(mdl_knn, features_far_lines)
{
	static const char far[] =
		"MDL 1\nMeta:\nData:\n  flow a\n  flow b\n  flow c\n"
		"Body:\nTrip: 4\nI/O: In: a 4096 b 32 Out: c 32\nLoopBody:\n"
		"  In:  a Stride: 576 Offset: 0 Size: 8\n"
		"       a Stride: 576 Offset: 160 Size: 8\n"
		"       a Stride: 576 Offset: 8 Size: 8\n"
		"       b Stride: 8 Offset: 0 Size: 8\n"
		"  Out: c Stride: -64 Offset: -8 Size: 8\n"
		"  Add: 0 Mul: 0\n";
	struct lk_ctx ctx;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];

	lk_ctx_init(&ctx);
	parse(far, &m);
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, -1, f), 0, "%s",
		     ctx.msg);
	/* a: offsets 0 and 8 share a line, 160 is another; c: a negative
	 * stride of a line; b's unit stride is not far. */
	cr_assert_eq(f[5], 3);
	cr_assert_eq(f[2], 3);
	lk_mdl_release(&m);
}

/* A column stencil (a[i-1][j], a[i][j], a[i+1][j] walking i) touches
 * one new line per iteration: the other two were touched before. */
Test(mdl_knn, features_column_stencil_one_line)
{
	static const char col[] =
		"MDL 1\nMeta:\nData:\n  flow a\n  flow b\nBody:\nTrip: 4\n"
		"I/O: In: a 4096 Out: b 32\nLoopBody:\n"
		"  In:  a Stride: 576 Offset: -576 Size: 8\n"
		"       a Stride: 576 Offset: 0 Size: 8\n"
		"       a Stride: 576 Offset: 576 Size: 8\n"
		"  Out: b Stride: 8 Offset: 0 Size: 8\n"
		"  Add: 2 Mul: 0\n";
	struct lk_ctx ctx;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];

	lk_ctx_init(&ctx);
	parse(col, &m);
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, -1, f), 0, "%s",
		     ctx.msg);
	cr_assert_eq(f[5], 1);
	lk_mdl_release(&m);
}

/* Planes of one array through one base (heat-3d's a[i-1], a[i], a[i+1]
 * split into flows 32 KiB apart) and another array from the same base
 * far away: a trailing plane is no stream once what the loop touches
 * meanwhile (the distance / 8 bytes of stride x 40 bytes per
 * iteration) fits in the nearer cache; nothing trails at L1 (near 0),
 * nor behind a leader megabytes ahead. */
Test(mdl_knn, features_trailing_streams)
{
	static const char planes[] =
		"MDL 1\nMeta:\nData:\n"
		"  flow p0 base=\"%rax\" stride=8 disp=0\n"
		"  flow p1 base=\"%rax\" stride=8 disp=32768\n"
		"  flow p2 base=\"%rax\" stride=8 disp=65536\n"
		"  flow far base=\"%rax\" stride=8 disp=67108864\n"
		"  flow out base=\"%rdx\" stride=8\n"
		"Body:\nTrip: 4\n"
		"I/O: In: p0 32 p1 32 p2 32 far 32 Out: out 32\nLoopBody:\n"
		"  In:  p0 Stride: 8 Offset: 0 Size: 8\n"
		"       p1 Stride: 8 Offset: 0 Size: 8\n"
		"       p2 Stride: 8 Offset: 0 Size: 8\n"
		"       far Stride: 8 Offset: 0 Size: 8\n"
		"  Out: out Stride: 8 Offset: 0 Size: 8\n"
		"  Add: 3 Mul: 1\n";
	struct lk_ctx ctx;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];

	lk_ctx_init(&ctx);
	parse(planes, &m);
	/* 5 flows, 40 bytes per iteration; 'far' leads, 64 MiB ahead. */
	cr_assert_eq(lk_mdl_features_near(&ctx, "t.mdl", &m, -1, 0, f), 0,
		     "%s", ctx.msg);
	cr_assert_eq(f[2], 5);
	cr_assert_eq(lk_mdl_features_near(&ctx, "t.mdl", &m, -1, 1 << 20, f),
		     0, "%s", ctx.msg);
	cr_assert_eq(f[2], 5, "the leader is 64 MiB ahead of them all");
	lk_mdl_release(&m);
	/* 'far' 6.4 MiB behind instead: p2 leads; p1 trails it by 32 KiB
	 * (4096 iterations of 40 bytes: 160 KiB), p0 by 64 KiB (320 KiB),
	 * far by 6.4 MiB (32 MiB). */
	{
		char *text = lk_strdup(planes), *at;

		at = strstr(text, "disp=67108864");
		memcpy(at, "disp=-6710886", 13);
		parse(text, &m);
		free(text);
	}
	cr_assert_eq(lk_mdl_features_near(&ctx, "t.mdl", &m, -1, 0, f), 0);
	cr_assert_eq(f[2], 5);
	cr_assert_float_eq(f[0], 4.0 / 5, 1e-12);
	cr_assert_eq(lk_mdl_features_near(&ctx, "t.mdl", &m, -1, 160 << 10, f),
		     0);
	cr_assert_eq(f[2], 4, "p1 is in the nearer cache, p0 not yet");
	cr_assert_float_eq(f[0], 3.0 / 4, 1e-12);
	cr_assert_eq(lk_mdl_features_near(&ctx, "t.mdl", &m, -1, 1 << 20, f),
		     0);
	cr_assert_eq(f[2], 3, "p0 and p1: the leader's lines");
	cr_assert_float_eq(f[0], 2.0 / 3, 1e-12);
	cr_assert_eq(f[3], 3, "operations all counted");
	lk_mdl_release(&m);
}

Test(mdl_knn, features_four_byte_elements_and_errors)
{
	static const char f4[] =
		"MDL 1\nMeta:\nData:\n  flow a\nBody:\nTrip: 4\n"
		"I/O: In: a 16 Out:\nLoopBody:\n"
		"  In:  a Stride: 12 Offset: 0 Size: 12\n  Out:\n"
		"  Add: 0 Mul: 0\n";
	static const char none[] =
		"MDL 1\nMeta:\nData:\nBody:\nTrip: 4\nI/O: In: Out:\n"
		"LoopBody:\n";
	struct lk_ctx ctx;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];

	lk_ctx_init(&ctx);
	parse(f4, &m);
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, -1, f), 0);
	cr_assert_eq(f[0], 3);     /* 12 bytes = three 4-byte elements */
	lk_mdl_release(&m);
	parse(none, &m);
	cr_assert_eq(lk_mdl_features(&ctx, "n.mdl", &m, -1, f), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "n.mdl: no µkernel"), "%s", ctx.msg);
	lk_mdl_release(&m);
}

/* A small database: two one-stream loads, a store, arithmetic. */
static const struct lk_mdl_knn_seed db[] = {
	{"L1S0", {1, 0, 1, 0, 0}, 0.25},
	{"L2S0", {1, 0, 2, 0, 0}, 0.5},
	{"S", {0, 1, 1, 0, 0}, 0.75},
	{"A1M1", {0, 0, 0, 1, 1}, 1.5},
	{"zero", {0, 0, 0, 0, 0}, 99},
};
#define NDB (sizeof(db) / sizeof(db[0]))

/* The defaults, greedy: the tests below follow one decomposition. */
static struct lk_mdl_knn_opts opts(void)
{
	struct lk_mdl_knn_opts o;

	lk_mdl_knn_opts_init(&o);
	o.orders = 1;
	return o;
}

Test(mdl_knn, defaults)
{
	struct lk_mdl_knn_opts o;

	lk_mdl_knn_opts_init(&o);
	cr_assert_eq(o.kmax, 3);
	cr_assert_eq(o.orders, 2);
}

Test(mdl_knn, a_seed_predicts_itself_in_one_step)
{
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;
	size_t i;

	for (i = 0; i + 1 < NDB; i++) {
		lk_mdl_knn(db[i].f, db, NDB, &o, &r);
		cr_assert_eq(r.nsteps, 1, "%s", db[i].name);
		cr_assert_eq(r.steps[0].seed, i);
		cr_assert_eq(r.steps[0].scale, 1);
		cr_assert_eq(r.value, db[i].perf, "%s", db[i].name);
		cr_assert_eq(r.residual, 0);
		lk_mdl_knn_result_release(&r);
	}
}

Test(mdl_knn, twice_a_seed_is_twice_its_performance)
{
	/* In a database where the seed is alone along its direction. */
	static const struct lk_mdl_knn_seed one[] = {
		{"A1M1", {0, 0, 0, 1, 1}, 1.5}, {"S", {0, 1, 1, 0, 0}, 0.75}};
	const double t[LK_MDL_NFEATURES] = {0, 0, 0, 2, 2};
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;

	lk_mdl_knn(t, one, 2, &o, &r);
	cr_assert_eq(r.nsteps, 1);
	cr_assert_float_eq(r.value, 3.0, 1e-12);
	cr_assert_float_eq(r.steps[0].scale, 2.0, 1e-12);
	lk_mdl_knn_result_release(&r);
}

Test(mdl_knn, disjoint_seeds_add_up)
{
	/* S (a store stream) and A1M1 (arithmetic) share no feature. */
	const double t[LK_MDL_NFEATURES] = {0, 1, 1, 1, 1};
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;

	lk_mdl_knn(t, db, NDB, &o, &r);
	cr_assert_eq(r.nsteps, 2);
	cr_assert_float_eq(r.value, 0.75 + 1.5, 1e-12);
	cr_assert_eq(r.residual, 0);
	lk_mdl_knn_result_release(&r);
}

Test(mdl_knn, residual_never_negative_and_kmax_bounds_steps)
{
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;
	double t[LK_MDL_NFEATURES];
	unsigned seed = 12345;
	int trial, k, kmax;
	size_t i;

	for (trial = 0; trial < 500; trial++) {
		for (k = 0; k < LK_MDL_NFEATURES; k++) {
			seed = seed * 1103515245u + 12345u;
			t[k] = (double)(seed >> 16 & 0xff) / 16.0;
		}
		kmax = 1 + trial % 8;
		o.kmax = kmax;
		lk_mdl_knn(t, db, NDB, &o, &r);
		cr_assert_leq(r.nsteps, (size_t)kmax);
		cr_assert_geq(r.value, 0);
		cr_assert_geq(r.residual, 0);
		cr_assert_leq(r.residual, 1 + 1e-12);
		for (i = 0; i < r.nsteps; i++) {
			cr_assert_gt(r.steps[i].scale, 0);
			cr_assert_geq(r.steps[i].residual, 0);
			cr_assert_neq(r.steps[i].seed, NDB - 1,
				      "the all-zero seed was chosen");
			if (i)
				cr_assert_leq(r.steps[i].residual,
					      r.steps[i - 1].residual + 1e-12);
		}
		lk_mdl_knn_result_release(&r);
	}
}

Test(mdl_knn, zero_target_and_empty_database)
{
	const double zero[LK_MDL_NFEATURES] = {0};
	const double t[LK_MDL_NFEATURES] = {1, 0, 1, 0, 0};
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;

	lk_mdl_knn(zero, db, NDB, &o, &r);
	cr_assert_eq(r.value, 0);
	cr_assert_eq(r.nsteps, 0);
	lk_mdl_knn_result_release(&r);
	lk_mdl_knn(t, db, 0, &o, &r);
	cr_assert_eq(r.value, 0);
	cr_assert_eq(r.residual, 1);
	lk_mdl_knn_result_release(&r);
}

Test(mdl_knn, orders_weight_later_starts)
{
	/* Order 1 starts from L1S0 (exact: 0.25); order 2 from the second
	 * nearest, L2S0, at scale <t,x>/<x,x> = 3/5, leaving r = (0.4, 0,
	 * 0, 0, 0); then L1S0 at half the residual's load each step (its
	 * stream count is not in r any more): scales 0.2, 0.1, 0.05, until
	 * kmax steps or a load left within 5 % of the target's (0.05).
	 * Final: (P1 + P2 / 2) / (1 + 1/2). */
	const double t[LK_MDL_NFEATURES] = {1, 0, 1, 0, 0};
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;
	int kmax;

	o.orders = 2;
	for (kmax = 1; kmax <= 8; kmax++) {
		int steps2 = kmax < 4 ? kmax : 4;
		double p2 = 0.5 * 0.6 + 0.25 * 0.4 * (1 - ldexp(1, 1 - steps2));

		o.kmax = kmax;
		lk_mdl_knn(t, db, NDB, &o, &r);
		cr_assert_float_eq(r.value, (0.25 + p2 / 2) / 1.5, 1e-12,
				   "kmax %d: %.17g", kmax, r.value);
		cr_assert_eq(r.steps[0].order, 1);
		cr_assert_eq(r.steps[r.nsteps - 1].order, 2);
		cr_assert_eq(r.nsteps, 1 + (size_t)steps2);
		lk_mdl_knn_result_release(&r);
	}
}

/* A residual of streams alone ends the decomposition: the loads are
 * accounted for, and one more load stream would count them twice. */
Test(mdl_knn, a_residual_of_streams_alone_stops)
{
	/* Two loads over two streams: L1S0 at scale (1 + 2) / 2 = 1.5
	 * leaves r = (0, 0, 0.5, 0, 0). Without the rule, L1S0 again at
	 * 0.25, 0.125: the loads of 1.875 streams. */
	static const struct lk_mdl_knn_seed two[] = {
		{"L1S0", {1, 0, 1, 0, 0}, 0.25},
		{"L2", {2, 0, 1, 0, 0}, 0.5}};
	const double t[LK_MDL_NFEATURES] = {1, 0, 2, 0, 0};
	/* A load left over (more than 5 % of the target's, 0.075) goes
	 * on: L1S0 at 1.25 leaves r = (0.25, 0, 0, 0, 0), then at 0.125
	 * and 0.0625 leaves 0.125 and 0.0625. */
	const double u[LK_MDL_NFEATURES] = {1.5, 0, 1, 0, 0};
	struct lk_mdl_knn_opts o = opts();
	struct lk_mdl_knn_result r;

	o.kmax = 8;
	lk_mdl_knn(t, two, 2, &o, &r);
	cr_assert_eq(r.nsteps, 1);
	cr_assert_float_eq(r.steps[0].scale, 1.5, 1e-12);
	cr_assert_float_eq(r.value, 1.5 * 0.25, 1e-12);
	cr_assert_float_eq(r.residual, 0.5 / sqrt(5), 1e-12);
	lk_mdl_knn_result_release(&r);
	lk_mdl_knn(u, two, 2, &o, &r);
	cr_assert_eq(r.nsteps, 3);
	cr_assert_float_eq(r.steps[0].scale, 1.25, 1e-12);
	cr_assert_float_eq(r.value, 0.25 * (1.25 + 0.125 + 0.0625), 1e-12);
	lk_mdl_knn_result_release(&r);
}

Test(mdl_knn, predict_from_a_database_row)
{
	struct lk_mdl_seed_row seeds[] = {
		{"L1S0", "multi-stream", "", {1, 0, 1, 0, 0}},
		{"S", "one-stream", "", {0, 1, 1, 0, 0}}};
	struct lk_mdl_perf_row perf[] = {
		{"L1S0", "L1", 1, 0.5, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""},
		{"S", "L1", 1, 0.25, "cycles/iter", "tsc-calibrated", 8, 1, 0,
		 0, 1, ""},
		{"L1S0", "RAM", 0, 0, "cycles/iter", "", 0, 0, 0, 0, 0,
		 "not-measured"}};
	struct lk_mdl_db_row row = {1, "abc", "m", "avx2", "L1,RAM", "", 0,
				    0, 0, seeds, 2, perf, 3};
	struct lk_mdl_predict_opts o = {LK_MDL_COMBINE_SUM, {8, 1, NULL}};
	struct lk_mdl_prediction p;
	struct lk_ctx ctx;
	struct lk_mdl m;

	lk_ctx_init(&ctx);
	parse(two_uks, &m);
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_L1, &o,
				    &p), 0, "%s", ctx.msg);
	cr_assert_eq(p.seeds, 2);
	cr_assert_gt(p.nsteps, 0);
	cr_assert_eq(p.step_ukernel[p.nsteps - 1], 1);
	/* µkernel 1 alone is one load stream: exactly L1S0. */
	cr_assert_str_eq(seeds[p.steps[p.nsteps - 1].seed].name, "L1S0");
	lk_mdl_prediction_release(&p);
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_RAM, &o,
				    &p), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "has no seed measured at RAM"), "%s",
		  ctx.msg);
	lk_mdl_release(&m);
}

/* L1D size size (a fake sysfs under dir, $LOOPKIT_SYSROOT) */
static void fake_l1d(const char *dir, const char *size)
{
	char *idx = lk_asprintf("%s/sys/devices/system/cpu/cpu0/cache/index0",
				dir);
	char *cmd = lk_asprintf("mkdir -p %s && echo 1 >%s/level && echo Data "
				">%s/type && echo %s >%s/size", idx, idx, idx,
				size, idx);

	cr_assert_eq(system(cmd), 0);
	setenv("LOOPKIT_SYSROOT", dir, 1);
	free(cmd);
	free(idx);
}

/* At L2, a flow 4 KiB behind another of its base (512 iterations of 16
 * bytes: 8 KiB meanwhile) re-reads lines still in a 32 KiB L1D: the
 * prediction leaves it out and says so; not at L1, nor with a 4 KiB
 * L1D. */
Test(mdl_knn, predict_leaves_out_trailing_streams)
{
	static const char rows[] =
		"MDL 1\nMeta:\nData:\n"
		"  flow p0 base=\"%rax\" stride=8 disp=0\n"
		"  flow p1 base=\"%rax\" stride=8 disp=4096\n"
		"Body:\nTrip: 4\nI/O: In: p0 32 p1 32 Out:\nLoopBody:\n"
		"  In:  p0 Stride: 8 Offset: 0 Size: 8\n"
		"       p1 Stride: 8 Offset: 0 Size: 8\n"
		"  Out:\n  Add: 1 Mul: 0\n";
	struct lk_mdl_seed_row seeds[] = {
		{"L1S0A1M0", "multi-stream", "", {1, 0, 1, 1, 0}},
		{"L2S0A1M0", "multi-stream", "", {1, 0, 2, 1, 0}}};
	struct lk_mdl_perf_row perf[] = {
		{"L1S0A1M0", "L1", 1, 0.5, "cycles/iter", "tsc-calibrated", 8,
		 1, 0, 0, 1, ""},
		{"L2S0A1M0", "L1", 1, 1, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""},
		{"L1S0A1M0", "L2", 1, 1, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""},
		{"L2S0A1M0", "L2", 1, 2, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""}};
	struct lk_mdl_db_row row = {1, "abc", "m", "avx2", "L1,L2", "", 0,
				    0, 0, seeds, 2, perf, 4};
	struct lk_mdl_predict_opts o = {LK_MDL_COMBINE_JOINT, {8, 1, NULL}};
	struct lk_mdl_prediction p;
	char dir[] = "/tmp/lk-mdl-sysXXXXXX", *cmd;
	struct lk_ctx ctx;
	struct lk_mdl m;

	cr_assert(mkdtemp(dir));
	lk_ctx_init(&ctx);
	parse(rows, &m);
	fake_l1d(dir, "32K");
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_L2, &o,
				    &p), 0, "%s", ctx.msg);
	cr_assert_eq(p.trailing.n, 1);
	cr_assert_str_eq(p.trailing.v[0], "p0");
	cr_assert_str_eq(row.seeds[p.steps[0].seed].name, "L1S0A1M0");
	lk_mdl_prediction_release(&p);
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_L1, &o,
				    &p), 0);
	cr_assert_eq(p.trailing.n, 0);
	cr_assert_str_eq(row.seeds[p.steps[0].seed].name, "L2S0A1M0");
	lk_mdl_prediction_release(&p);
	cmd = lk_asprintf("rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	fake_l1d(dir, "4K");
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_L2, &o,
				    &p), 0);
	cr_assert_eq(p.trailing.n, 0, "8 KiB meanwhile: not in 4 KiB");
	lk_mdl_prediction_release(&p);
	cr_assert_eq(system(cmd), 0);
	unsetenv("LOOPKIT_SYSROOT");
	free(cmd);
	lk_mdl_release(&m);
}

/* A measured value of seed at level, as db build stores it. */
#define PERF(seed, level, value)                                          \
	{seed, level, 1, value, "cycles/iter", "tsc-calibrated", 8, 1, 0, 0, \
	 1, ""}

/* lk_mdl_predict of m at level against row, which must succeed. */
static void predict_ok(const struct lk_mdl_db_row *row,
		       const struct lk_mdl *m, enum lk_mdl_level level,
		       const struct lk_mdl_predict_opts *o,
		       struct lk_mdl_prediction *p)
{
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_predict(&ctx, row, "t.mdl", m, level, o, p), 0,
		     "%s", ctx.msg);
}

/* A 4-byte element loop: against a packed database, predicted per pair
 * of canonical iterations (8 bytes per access, as the seeds') and
 * halved; against a scalar one, per iteration at L1 (an instruction per
 * element whatever its width), and beyond L1 per pair, halved, but
 * never below what its instructions cost at L1. */
Test(mdl_knn, predict_four_byte_elements_per_pair)
{
	static const char f4[] =
		"MDL 1\nMeta:\nData:\n  flow a\nBody:\nTrip: 4\n"
		"I/O: In: a 16 Out:\nLoopBody:\n"
		"  In:  a Stride: 4 Offset: 0 Size: 4\n  Out:\n"
		"  Add: 1 Mul: 0\n";
	struct lk_mdl_seed_row seeds[] = {
		{"L1S0A1", "synthetic", "", {1, 0, 1, 1, 0}},
		{"L1S0A2", "synthetic", "", {1, 0, 1, 2, 0}}};
	struct lk_mdl_perf_row perf[] = {
		PERF("L1S0A1", "L1", 0.5),
		PERF("L1S0A2", "L1", 0.75),
		PERF("L1S0A1", "RAM", 3.0),
		PERF("L1S0A2", "L2", 0.8),
		PERF("L1S0A2", "RAM", 3.2)};
	struct lk_mdl_db_row row = {1, "abc", "m", "avx2", "L1,L2,RAM", "",
				    0, 0, 0, seeds, 2, perf, 5};
	struct lk_mdl_predict_opts o = {LK_MDL_COMBINE_JOINT, {8, 1, NULL}};
	struct lk_mdl_prediction p;
	struct lk_mdl m;

	parse(f4, &m);
	cr_assert_eq(lk_mdl_element_bytes(&m), 4);
	/* packed: the pair is L1S0A1 exactly, half of it per iteration */
	predict_ok(&row, &m, LK_MDL_L1, &o, &p);
	cr_assert_float_eq(p.value, 0.25, 1e-12, "%g", p.value);
	lk_mdl_prediction_release(&p);
	/* scalar: L1S0A1 per iteration */
	row.isa = "scalar";
	predict_ok(&row, &m, LK_MDL_L1, &o, &p);
	cr_assert_float_eq(p.value, 0.5, 1e-12, "%g", p.value);
	cr_assert_eq(p.instructions, 0);
	lk_mdl_prediction_release(&p);
	/* scalar at RAM: per pair (8 bytes, two adds: L1S0A2), halved */
	predict_ok(&row, &m, LK_MDL_RAM, &o, &p);
	cr_assert_float_eq(p.knn, 1.6, 1e-12, "%g", p.knn);
	cr_assert_float_eq(p.instructions, 0.5, 1e-12, "%g",
			   p.instructions);
	cr_assert_float_eq(p.value, 1.6, 1e-12, "%g", p.value);
	lk_mdl_prediction_release(&p);
	/* scalar at L2: its bytes (0.4) cost less than its instructions */
	predict_ok(&row, &m, LK_MDL_L2, &o, &p);
	cr_assert_float_eq(p.knn, 0.4, 1e-12, "%g", p.knn);
	cr_assert_float_eq(p.value, 0.5, 1e-12, "%g", p.value);
	lk_mdl_prediction_release(&p);
	/* packed at RAM: per pair (one add instruction: L1S0A1), no
	 * instruction bound */
	row.isa = "avx2";
	predict_ok(&row, &m, LK_MDL_RAM, &o, &p);
	cr_assert_float_eq(p.value, 1.5, 1e-12, "%g", p.value);
	cr_assert_eq(p.instructions, 0);
	lk_mdl_prediction_release(&p);
	lk_mdl_release(&m);
}

/* Per pair of 4-byte iterations, the far lines count twice: a far
 * access touches a line whatever its width, so the pair touches two
 * (the far-stream seed of two lines per iteration, halved: each
 * iteration pays its line). */
Test(mdl_knn, predict_four_byte_far_lines_per_pair)
{
	static const char f4[] =
		"MDL 1\nMeta:\nData:\n  flow a\nBody:\nTrip: 4\n"
		"I/O: In: a 1024 Out:\nLoopBody:\n"
		"  In:  a Stride: 256 Offset: 0 Size: 4\n  Out:\n"
		"  Add: 0 Mul: 0\n";
	struct lk_mdl_seed_row seeds[] = {
		{"F1", "synthetic", "", {1, 0, 1, 0, 0, 1}},
		{"F1x2", "synthetic", "", {1, 0, 1, 0, 0, 2}}};
	struct lk_mdl_perf_row perf[] = {
		PERF("F1", "L1", 10),
		PERF("F1x2", "L1", 18)};
	struct lk_mdl_db_row row = {1, "abc", "m", "avx2", "L1", "", 0, 0, 0,
				    seeds, 2, perf, 2};
	struct lk_mdl_predict_opts o = {LK_MDL_COMBINE_JOINT, {8, 1, NULL}};
	struct lk_mdl_prediction p;
	struct lk_mdl m;

	parse(f4, &m);
	predict_ok(&row, &m, LK_MDL_L1, &o, &p);
	cr_assert_float_eq(p.value, 9, 1e-12, "%g", p.value);
	cr_assert_eq(p.nsteps, 1);
	cr_assert_str_eq(seeds[p.steps[0].seed].name, "F1x2");
	lk_mdl_prediction_release(&p);
	lk_mdl_release(&m);
}

/* At L3 and RAM a far line weighs 16 in the distance: a column walk
 * with some arithmetic is matched first with the far-stream seed, not
 * with the arithmetic seed that differs from it by the far line alone
 * (which the unweighted distance, at L2, still picks). */
Test(mdl_knn, far_lines_weigh_more_beyond_l2)
{
	static const char column[] =
		"MDL 1\nMeta:\nData:\n  flow a\n  flow b\n"
		"  scalar n = 64\nBody:\nTrip: n\n"
		"I/O: In: a n*704 b n*8 Out:\nLoopBody:\n"
		"  In:  a Stride: 704 Offset: 0 Size: 8\n"
		"       b Stride: 8 Offset: 0 Size: 8\n"
		"  Out:\n"
		"  Add: 1 Mul: 2\n";
	struct lk_mdl_seed_row seeds[] = {
		{"L2A1M2", "arithmetic", "", {1, 0, 2, 1, 2, 0}},
		{"F1L1", "far-stream", "", {1, 0, 2, 0, 0, 1}}};
	struct lk_mdl_perf_row perf[] = {
		{"L2A1M2", "L2", 1, 1, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""},
		{"F1L1", "L2", 1, 2, "cycles/iter", "tsc-calibrated", 8, 1, 0,
		 0, 1, ""},
		{"L2A1M2", "L3", 1, 2, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""},
		{"F1L1", "L3", 1, 5, "cycles/iter", "tsc-calibrated", 8, 1, 0,
		 0, 1, ""},
		{"L2A1M2", "RAM", 1, 3, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""},
		{"F1L1", "RAM", 1, 20, "cycles/iter", "tsc-calibrated", 8, 1,
		 0, 0, 1, ""}};
	struct lk_mdl_db_row row = {1, "abc", "m", "avx2", "L2,L3,RAM", "",
				    0, 0, 0, seeds, 2, perf, 6};
	struct lk_mdl_predict_opts o = {LK_MDL_COMBINE_JOINT, {3, 1, NULL}};
	static const double t[LK_MDL_NFEATURES] = {1, 0, 2, 1, 2, 1};
	const double *w;
	struct lk_mdl_prediction p;
	struct lk_mdl_knn_seed ks[2];
	struct lk_mdl_knn_result r;
	struct lk_ctx ctx;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];
	int k;

	lk_ctx_init(&ctx);
	parse(column, &m);
	cr_assert_eq(lk_mdl_features(&ctx, "t.mdl", &m, -1, f), 0, "%s",
		     ctx.msg);
	for (k = 0; k < LK_MDL_NFEATURES; k++)
		cr_assert_float_eq(f[k], t[k], 1e-12, "feature %d: %g", k,
				   f[k]);
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_L2, &o,
				    &p), 0, "%s", ctx.msg);
	cr_assert_str_eq(seeds[p.steps[0].seed].name, "L2A1M2");
	lk_mdl_prediction_release(&p);
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_L3, &o,
				    &p), 0, "%s", ctx.msg);
	cr_assert_str_eq(seeds[p.steps[0].seed].name, "F1L1");
	lk_mdl_prediction_release(&p);
	cr_assert_eq(lk_mdl_predict(&ctx, &row, "t.mdl", &m, LK_MDL_RAM, &o,
				    &p), 0, "%s", ctx.msg);
	cr_assert_str_eq(seeds[p.steps[0].seed].name, "F1L1");
	lk_mdl_prediction_release(&p);
	lk_mdl_release(&m);
	/* lk_mdl_knn itself: the weights given, or none. */
	for (k = 0; k < 2; k++) {
		ks[k].name = seeds[k].name;
		memcpy(ks[k].f, seeds[k].features, sizeof(ks[k].f));
		ks[k].perf = k ? 20 : 3;
	}
	o.knn.weight = NULL;
	lk_mdl_knn(t, ks, 2, &o.knn, &r);
	cr_assert_eq(r.steps[0].seed, 0);
	lk_mdl_knn_result_release(&r);
	w = (const double[LK_MDL_NFEATURES]){1, 1, 1, 1, 1, 16};
	o.knn.weight = w;
	lk_mdl_knn(t, ks, 2, &o.knn, &r);
	cr_assert_eq(r.steps[0].seed, 1);
	lk_mdl_knn_result_release(&r);
}
