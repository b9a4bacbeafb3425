/* src/analyze: CSV, tables, expressions, bandwidths, categories, trees. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "loopkit/analyze.h"

static const char table[] =
	"# a comment\r\n"
	"x,name,y\r\n"
	"1,\"b, quoted\",10\r\n"
	"2,a,\r\n"
	"# another\n"
	"3,a,30\n";

Test(analyze, csv_types_and_missing)
{
	struct lk_ctx ctx;
	struct lk_csv csv;
	struct lk_table t;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_csv_parse(&ctx, "t.csv", table, strlen(table), &csv), 0,
		     "%s", ctx.msg);
	cr_assert_eq(csv.nrows, 3);
	cr_assert_eq(csv.header_line, 2);
	cr_assert_eq(csv.lines[2], 6);
	cr_assert_str_eq(csv.cells[1], "b, quoted");
	cr_assert_eq(lk_table_from_csv(&ctx, "t.csv", &csv, NULL, &t), 0);
	cr_assert(!t.cols[0].categorical);
	cr_assert(t.cols[1].categorical);
	/* Sorted labels: "a" < "b, quoted". */
	cr_assert_eq(t.cols[1].v[0], 1);
	cr_assert_eq(t.cols[1].v[1], 0);
	cr_assert(isnan(t.cols[2].v[1]));
	lk_table_release(&t);
	lk_csv_release(&csv);
}

/* A spreadsheet's "CSV UTF-8" starts with a byte order mark: not part of
 * the first column's name. */
Test(analyze, csv_byte_order_mark)
{
	static const char bom[] = "\xef\xbb\xbf" "a,b\r\n1,2\r\n";
	struct lk_ctx ctx;
	struct lk_csv csv;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_csv_parse(&ctx, "b.csv", bom, strlen(bom), &csv), 0,
		     "%s", ctx.msg);
	cr_assert_str_eq(csv.header[0], "a");
	cr_assert_eq(csv.nrows, 1);
	lk_csv_release(&csv);
}

Test(analyze, csv_errors)
{
	static const char ragged[] = "a,b\n1,2\n3\n";
	static const char quote[] = "a,b\n1,\"2\n";
	struct lk_ctx ctx;
	struct lk_csv csv;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_csv_parse(&ctx, "r.csv", ragged, strlen(ragged), &csv),
		     LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "r.csv:3: 1 fields, the header has 2");
	cr_assert_eq(lk_csv_parse(&ctx, "q.csv", quote, strlen(quote), &csv),
		     LK_EINPUT);
	cr_assert(!strncmp(ctx.msg, "q.csv:2:", 8), "%s", ctx.msg);
}

Test(analyze, where_and_derive)
{
	struct lk_selector sel = {0};
	struct lk_ctx ctx;
	struct lk_csv csv;
	struct lk_table t;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_csv_parse(&ctx, "t.csv", table, strlen(table), &csv), 0);
	cr_assert_eq(lk_where_parse(&ctx, "x:ge:2", &sel), 0);
	cr_assert_eq(lk_where_parse(&ctx, "x:zz:2", &sel), LK_EINPUT);
	cr_assert_eq(lk_table_from_csv(&ctx, "t.csv", &csv, &sel, &t), 0);
	cr_assert_eq(t.nrows, 2);
	cr_assert_eq(t.dropped_filter, 1);
	cr_assert_eq(lk_table_derive(&ctx, &t, "z=-x*(2+1)/max(x,4)+distinct(x,x,1)"), 0,
		     "%s", ctx.msg);
	cr_assert_float_eq(t.cols[3].v[0], -2 * 3 / 4.0 + 2, 1e-12);
	cr_assert_eq(lk_table_derive(&ctx, &t, "w=x+(1"), LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "--derive w: column 5: expected ')'");
	cr_assert_eq(lk_table_derive(&ctx, &t, "w=abs(x, 1)"), LK_EINPUT);
	cr_assert_eq(lk_table_derive(&ctx, &t, "w=y + nope"), LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "--derive w: column 5: unknown column 'nope'");
	free(sel.conds[0].key);
	lk_strv_release(&sel.conds[0].values);
	free(sel.conds);
	lk_table_release(&t);
	lk_csv_release(&csv);
}

/* KDEpy's doctests (bw_selection.py, v1.1.9). */
Test(analyze, kdepy_doctests)
{
	double x[9], isq[50], a2[50], one = 3, same[4] = {2, 2, 2, 2};
	int i;

	for (i = 0; i < 9; i++)
		x[i] = i;
	cr_assert_float_eq(lk_kde_silverman(x, 9), 1.8692607078355594, 1e-15);
	for (i = 0; i < 50; i++)
		isq[i] = a2[i] = i + 1;
	cr_assert_float_eq(lk_kde_isj_fixed_point(0.01, 50, isq, a2, 50),
			   0.0099076220293967618515, 1e-15);
	cr_assert_eq(lk_kde_silverman(&one, 1), 1.0);
	cr_assert_eq(lk_kde_silverman(same, 4), 1.0);
}

Test(analyze, kde_cuts_between_modes)
{
	struct lk_cat_options o = {.method = LK_CAT_KDE};
	struct lk_categories c;
	struct lk_ctx ctx;
	double x[60];
	int cls[60], i;

	lk_ctx_init(&ctx);
	for (i = 0; i < 60; i++)
		x[i] = (i % 2 ? 10 : 50) + (i % 5) * 0.5;
	cr_assert_eq(lk_categorize(&ctx, "t", &o, x, 60, &c, cls), 0);
	cr_assert_eq(c.n, 2);
	cr_assert(c.cuts[0] > 13 && c.cuts[0] < 49, "cut %g", c.cuts[0]);
	cr_assert(c.list[0].centroid >= 10 && c.list[0].centroid <= 12);
	cr_assert_eq(cls[0], 1);
	cr_assert_eq(cls[1], 0);
	lk_categories_release(&c);
	o.method = LK_CAT_STEP;
	o.step_from = 0;
	o.step_width = 25;
	cr_assert_eq(lk_categorize(&ctx, "t", &o, x, 60, &c, cls), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(c.list[1].centroid, 62.5);
	lk_categories_release(&c);
}

/* sklearn: thresholds at midpoints, <= goes left, MDI on the root. */
Test(analyze, tree_by_hand)
{
	double f0[] = {1, 2, 3, 4, 5, 6}, f1[] = {0, 0, 0, 0, 0, 0};
	const double *x[] = {f0, f1};
	int cls[] = {0, 0, 0, 1, 1, 1};
	struct lk_dataset d = {6, 2, x, cls, NULL, 2};
	struct lk_tree_params p = {0};
	struct lk_tree t;

	lk_tree_fit(&t, &d, NULL, &p);
	cr_assert_eq(t.n, 3);
	cr_assert_eq(t.nodes[0].feature, 0);
	cr_assert_eq(t.nodes[0].threshold, 3.5);
	cr_assert_float_eq(t.nodes[0].impurity, 0.5, 1e-15);
	cr_assert_eq(t.importance[0], 1);
	cr_assert_eq(lk_tree_depth(&t), 1);
	cr_assert_eq(lk_tree_predict(&t, x, 2), 0);
	cr_assert_eq(lk_tree_predict(&t, x, 3), 1);
	lk_tree_release(&t);
	/* One class: one leaf. */
	memset(cls, 0, sizeof(cls));
	lk_tree_fit(&t, &d, NULL, &p);
	cr_assert_eq(lk_tree_leaves(&t), 1);
	lk_tree_release(&t);
}

Test(analyze, forest_same_for_any_jobs)
{
	double f0[40], f1[40];
	const double *x[] = {f0, f1};
	int cls[40], i;
	struct lk_dataset d = {40, 2, x, cls, NULL, 2};
	struct lk_tree_params p = {.seed = 7};
	struct lk_forest a, b;

	for (i = 0; i < 40; i++) {
		f0[i] = i;
		f1[i] = (i * 7) % 11;
		cls[i] = i >= 20;
	}
	lk_forest_fit(&a, &d, 16, &p, 1);
	lk_forest_fit(&b, &d, 16, &p, 2);
	for (i = 0; i < 2; i++)
		cr_assert_eq(a.importance[i], b.importance[i]);
	cr_assert(a.importance[0] > 0.5);
	lk_forest_release(&a);
	lk_forest_release(&b);
}

/* A noisy 3-class table of n rows and 5 features (or a numeric target). */
static void noisy(size_t n, double *col[5], int *cls, double *y)
{
	struct lk_rng r;
	size_t i, f;

	lk_rng_seed(&r, 3, 1);
	for (i = 0; i < n; i++) {
		for (f = 0; f < 5; f++)
			col[f][i] = (double)lk_rng_below(&r, 1000) / 100;
		cls[i] = (col[0][i] > 5) + (col[1][i] + col[2][i] > 10);
		if (lk_rng_below(&r, 10) == 0)
			cls[i] = (int)lk_rng_below(&r, 3);
		y[i] = col[0][i] * 2 + col[1][i] + (double)lk_rng_below(&r, 100)
			/ 50;
	}
}

/* Pruning renumbers the kept nodes in preorder: each split's left child
 * right after it (copy_node once wrote the children's ids into the array
 * it had just grown, i.e. into freed memory). */
Test(analyze, pruned_tree_renumbered)
{
	enum { N = 600 };
	static double c0[N], c1[N], c2[N], c3[N], c4[N], y[N];
	double *col[5] = {c0, c1, c2, c3, c4};
	int cls[N];
	struct lk_dataset d = {N, 5, (const double *const *)col, cls, NULL, 3};
	struct lk_tree_params p = {.seed = 1};
	struct lk_tree full, t;
	size_t i;

	noisy(N, col, cls, y);
	lk_tree_fit(&full, &d, NULL, &p);
	p.ccp_alpha = 0.002;
	lk_tree_fit(&t, &d, NULL, &p);
	cr_assert(lk_tree_leaves(&t) > 2);
	cr_assert(lk_tree_leaves(&t) < lk_tree_leaves(&full));
	for (i = 0; i < t.n; i++) {
		if (t.nodes[i].feature < 0)
			continue;
		cr_assert_eq(t.nodes[i].left, (int)i + 1, "node %zu", i);
		cr_assert(t.nodes[i].right > t.nodes[i].left &&
			  (size_t)t.nodes[i].right < t.n, "node %zu", i);
	}
	lk_tree_release(&full);
	lk_tree_release(&t);
}

static double forest_row(const void *m, const double *const *x, size_t row)
{
	return lk_forest_predict(m, x, row);
}

/* The one-pass predictions and the forest's permutation importance are
 * the row-by-row figures bit for bit, for classes and for a regression. */
static void same_as_row_by_row(int classes)
{
	enum { N = 600, T = 300 };
	static double c0[N], c1[N], c2[N], c3[N], c4[N], y[N], pred[N];
	double *col[5] = {c0, c1, c2, c3, c4};
	double m1[5], s1[5], m2[5], s2[5];
	int cls[N];
	struct lk_dataset train = {T, 5, (const double *const *)col,
				   classes ? cls : NULL, y, classes ? 3 : 0};
	struct lk_dataset test = train;
	const double *tcol[5];
	struct lk_tree_params p = {.seed = 5, .max_features = 2};
	struct lk_forest f;
	size_t i;

	noisy(N, col, cls, y);
	for (i = 0; i < 5; i++)
		tcol[i] = col[i] + T;
	test.x = tcol;
	test.cls = classes ? cls + T : NULL;
	test.y = y + T;
	test.n = N - T;
	if (!classes)
		p.criterion = LK_CRIT_MSE;
	lk_forest_fit(&f, &train, 30, &p, 2);
	lk_forest_predict_all(&f, &test, pred);
	for (i = 0; i < test.n; i++)
		cr_assert_eq(pred[i], lk_forest_predict(&f, test.x, i));
	lk_permutation_importance(forest_row, &f, &test, 4, 9, m1, s1);
	lk_forest_permutation_importance(&f, &test, 4, 9, m2, s2);
	for (i = 0; i < 5; i++) {
		cr_assert_eq(m1[i], m2[i], "feature %zu: %g %g", i, m1[i],
			     m2[i]);
		cr_assert_eq(s1[i], s2[i]);
	}
	cr_assert(m2[0] > m2[3] && m2[0] > m2[4]);
	lk_forest_release(&f);
}

Test(analyze, forest_fast_paths_classes)
{
	same_as_row_by_row(1);
}

Test(analyze, forest_fast_paths_regression)
{
	same_as_row_by_row(0);
}

Test(analyze, rank_correlation_by_group)
{
	/* Rising in group 0, falling in group 1; the last row in none. */
	static const double x[] = {1, 2, 3, 4, 1, 2, 3, 4, 5};
	static const double same[] = {7, 7, 7, 7, 7, 7, 7, 7, 7};
	static const double y[] = {10, 20, 30, 40, 4, 3, 2, 1, 0};
	const double group[] = {0, 0, 0, 0, 1, 1, 1, 1, NAN};
	const double *xs[] = {x, NULL, same};
	struct lk_rank_corr r;

	cr_assert_eq(lk_rank_corr_compute(&r, xs, 3, y, group, 9, 8), 0);
	cr_assert_eq(r.ngroups, 2);
	cr_assert_eq(r.groups[0], 0);
	cr_assert_eq(r.groups[1], 1);
	cr_assert_eq(r.group_rows[0], 4);
	cr_assert_eq(r.group_rows[1], 4);
	/* Brute force over the 36 pairs: 12 concordant, 20 discordant,
	 * 4 tied in x: -8 / sqrt(32 * 36). */
	cr_assert_float_eq(r.all[0], -0.23570226039551587, 1e-12);
	cr_assert_float_eq(r.within[0], 1, 1e-12);
	cr_assert_float_eq(r.within[1], -1, 1e-12);
	/* A missing column and a constant one: undefined. */
	cr_assert(isnan(r.all[1]) && isnan(r.within[2]) && isnan(r.within[3]));
	cr_assert(isnan(r.all[2]) && isnan(r.within[4]) && isnan(r.within[5]));
	lk_rank_corr_release(&r);

	/* No grouping column: over all rows only. */
	cr_assert_eq(lk_rank_corr_compute(&r, xs, 1, y, NULL, 9, 8), 0);
	cr_assert_eq(r.ngroups, 0);
	cr_assert_float_eq(r.all[0], -0.23570226039551587, 1e-12);
	lk_rank_corr_release(&r);

	/* Too many groups: refused, the count given. */
	cr_assert_eq(lk_rank_corr_compute(&r, xs, 1, y, x, 9, 4), -1);
	cr_assert_eq(r.ngroups, 5);
	cr_assert_null(r.all);
	lk_rank_corr_release(&r);
}
