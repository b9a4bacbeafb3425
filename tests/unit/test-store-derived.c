/*
 * What migration 10 adds: a campaign's current variants (what the stages
 * list), a result row added to a finished run, and a variant's
 * prediction as one predicted block times its copies per call, read by
 * the report with the lifted rows.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/store.h"
#include "tmpdir.h"

static struct lk_ctx ctx;

static void setup(void)
{
	tmpdir_make("store-derived");
	lk_ctx_init(&ctx);
}

static void teardown(void)
{
	tmpdir_remove();
}

TestSuite(store_derived, .init = setup, .fini = teardown);

static struct lk_store *open_store(void)
{
	struct lk_store *s = NULL;

	cr_assert_eq(lk_store_open(&ctx, tmpdir, LK_STORE_CREATE, &s), 0,
		     "%s", ctx.msg);
	return s;
}

static int64_t variant(struct lk_store *s, int64_t campaign, const char *h)
{
	struct lk_variant_rec v = {h, "x.c", "sh", "gcc", "default", "-O2",
				   NULL, 0};
	int64_t id;

	cr_assert_eq(lk_store_variant_put(&ctx, s, campaign, &v, &id), 0,
		     "%s", ctx.msg);
	return id;
}

static void run(struct lk_store *s, int64_t v, const char *method,
		double cycles)
{
	const struct lk_result_rec res[] = {
		{"kernel", "cycles", "tsc-calibrated", "cycles/step", 1,
		 cycles, "p25", 5, 0.02, "", 1},
		{"kernel-2u", "cycles", "tsc-calibrated", "cycles/step", 1,
		 2 * cycles, "p25", 5, 0.01, "", 1}};
	struct lk_run_rec r = {.variant_id = v, .method_hash = method,
			       .method = method, .status = "ok", .reason = "",
			       .results = res, .nresults = 2};

	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
}

Test(store_derived, current_variants_are_what_the_stages_list)
{
	struct lk_store *s = open_store();
	struct lk_variant_binary *rows;
	int64_t campaign, a, b, c, other, ids[2];
	size_t n;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	a = variant(s, campaign, "a");
	b = variant(s, campaign, "b");
	c = variant(s, campaign, "c");
	/* Never marked: every variant is current. */
	cr_assert_eq(lk_store_variant_binaries(&ctx, s, campaign, &rows, &n),
		     0);
	cr_expect_eq(n, 3);
	lk_variant_binaries_free(rows, n);
	cr_assert_eq(lk_store_campaign(&ctx, s, "o", NULL, NULL, &other), 0);
	ids[0] = c;
	ids[1] = variant(s, other, "x"); /* another campaign's: ignored */
	cr_assert_eq(lk_store_variants_current(&ctx, s, campaign, ids, 2), 0,
		     "%s", ctx.msg);
	cr_assert_eq(lk_store_variant_binaries(&ctx, s, campaign, &rows, &n),
		     0);
	cr_assert_eq(n, 1);
	cr_expect_eq(rows[0].variant_id, c);
	lk_variant_binaries_free(rows, n);
	cr_assert_eq(lk_store_variant_binaries(&ctx, s, other, &rows, &n), 0);
	cr_expect_eq(n, 1);
	lk_variant_binaries_free(rows, n);
	/* Back: a and b current again, c not. */
	ids[0] = a;
	ids[1] = b;
	cr_assert_eq(lk_store_variants_current(&ctx, s, campaign, ids, 2), 0);
	cr_assert_eq(lk_store_variant_binaries(&ctx, s, campaign, &rows, &n),
		     0);
	cr_assert_eq(n, 2);
	cr_expect_eq(rows[0].variant_id, a);
	cr_expect_eq(rows[1].variant_id, b);
	lk_variant_binaries_free(rows, n);
	lk_store_close(s);
}

Test(store_derived, result_added_to_the_latest_run)
{
	struct lk_store *s = open_store();
	struct lk_result_rec d = {"kernel", "cycles/copy", "n/2n:tsc",
				  "cycles/copy", 1, 1.5, "p25", 5, 0.04, "",
				  0};
	struct lk_result_row *rows;
	char *status;
	int64_t campaign, v;
	size_t n;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	v = variant(s, campaign, "a");
	cr_expect_eq(lk_store_result_add(&ctx, s, v, &d), LK_ENOTFOUND);
	cr_assert_eq(lk_store_latest_results(&ctx, s, v, &status, &rows, &n),
		     0);
	cr_expect_null(status);
	cr_expect_eq(n, 0);
	run(s, v, "m1", 100);
	cr_assert_eq(lk_store_result_add(&ctx, s, v, &d), 0, "%s", ctx.msg);
	d.value = 1.25; /* again: replaces, does not add */
	cr_assert_eq(lk_store_result_add(&ctx, s, v, &d), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_latest_results(&ctx, s, v, &status, &rows, &n),
		     0);
	cr_expect_str_eq(status, "ok");
	cr_assert_eq(n, 3);
	cr_expect_str_eq(rows[2].metric, "cycles/copy");
	cr_expect_str_eq(rows[2].source, "n/2n:tsc");
	cr_expect_eq(rows[2].value, 1.25);
	cr_expect_eq(rows[2].primary, 0);
	free(status);
	lk_result_rows_free(rows, n);
	/* A run stored again whole drops what was added to the old one. */
	run(s, v, "m1", 90);
	cr_assert_eq(lk_store_latest_results(&ctx, s, v, &status, &rows, &n),
		     0);
	cr_expect_eq(n, 2);
	cr_expect_eq(rows[0].value, 90);
	free(status);
	lk_result_rows_free(rows, n);
	lk_store_close(s);
}

Test(store_derived, body_prediction_is_read_per_call)
{
	struct lk_store *s = open_store();
	struct lk_prediction_key key = {"llvm-mca-19", "19.1.7",
					"-mcpu=znver3"};
	struct lk_prediction_rec p = {"h1", "ok", 1, 4, "cycles/iter", "",
				      "raw", 0.1};
	struct lk_report_input in = {0};
	int64_t campaign, v;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &campaign),
		     0);
	v = variant(s, campaign, "a");
	cr_assert_eq(lk_store_predictions_put(&ctx, s, &key, &p, 1), 0);
	cr_assert_eq(lk_store_variant_prediction_put(&ctx, s, v, &key, "h1",
						     100),
		     0, "%s", ctx.msg);
	/* Linked again: replaced. */
	cr_assert_eq(lk_store_variant_prediction_put(&ctx, s, v, &key, "h1",
						     40),
		     0, "%s", ctx.msg);
	cr_assert_eq(lk_store_report_read(&ctx, s, campaign, &in), 0, "%s",
		     ctx.msg);
	cr_assert_eq(in.nlifted, 1);
	cr_expect_eq(in.lifted[0].variant_id, v);
	cr_expect_str_eq(in.lifted[0].tool, "llvm-mca-19");
	cr_expect_str_eq(in.lifted[0].params, "-mcpu=znver3 body");
	cr_expect_str_eq(in.lifted[0].status, "ok");
	cr_expect_eq(in.lifted[0].value, 160);
	cr_expect_str_eq(in.lifted[0].unit, "cycles/call");
	lk_report_input_release(&in);
	lk_store_close(s);
}
