/*
 * The report's MDL section: loopkit mdl eval's rows of the campaign
 * (the store's mdl_evals) as a table per memory level, MDL's error
 * against the replays beside llvm-mca's on the same loops, the loops
 * not compared and why, and predicted against replayed per level.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/plot.h"
#include "report-int.h"

static const char *const level_names[] = {"L1", "L2", "L3", "RAM"};

void lk_report_mdl_level(const struct lk_mdl_eval_row *rows, size_t n,
			 const char *level, struct lk_report_mdl_level *out)
{
	double *v = lk_calloc(4 * (n + 1), sizeof(double));
	double *pred = v, *meas = v + n + 1, *mca = v + 2 * (n + 1);
	double *mmeas = v + 3 * (n + 1);
	size_t i, np = 0, nm = 0;

	memset(out, 0, sizeof(*out));
	out->mca_tool = "";
	for (i = 0; i < n; i++) {
		const struct lk_mdl_eval_row *r = &rows[i];

		if (strcmp(r->level, level))
			continue;
		out->rows++;
		if (!(r->replayed > 0) || !isfinite(r->replayed) ||
		    !isfinite(r->predicted))
			continue;
		pred[np] = r->predicted;
		meas[np++] = r->replayed;
		if (isfinite(r->mca)) {
			mca[nm] = r->mca;
			mmeas[nm++] = r->replayed;
			out->mca_tool = r->mca_tool;
		}
	}
	lk_err_stats_compute(pred, meas, np, &out->mdl);
	lk_err_stats_compute(mca, mmeas, nm, &out->mca);
	free(v);
}

static void level_row(struct lk_buf *b, const struct lk_report_mdl_level *l,
		      const char *name)
{
	lk_buf_adds(b, "<tr>");
	lk_html_tag_text(b, "td", NULL, name);
	lk_html_td_count(b, (long)l->mdl.n);
	lk_html_td_count(b, (long)l->rows);
	lk_html_td_num(b, "%.1f", l->mdl.mape);
	lk_html_td_num(b, "%.1f", 100 * l->mdl.abs_median);
	lk_html_td_num(b, "%.1f", 100 * l->mdl.abs_q1);
	lk_html_td_num(b, "%.1f", 100 * l->mdl.abs_q3);
	lk_html_td_num(b, "%.3f", l->mdl.tau_b);
	lk_html_td_count(b, (long)l->mca.n);
	lk_html_td_num(b, "%.1f", l->mca.mape);
	lk_html_td_num(b, "%.3f", l->mca.tau_b);
	lk_buf_adds(b, "</tr>\n");
}

static void levels_table(struct lk_buf *b, const struct lk_mdl_eval_row *rows,
			 size_t n)
{
	const char *tool = "";
	size_t l;

	lk_buf_adds(b, "<table>\n<tr><th>level</th><th>compared</th>"
		    "<th>loops</th><th>MDL MAPE %</th><th>median |error| %"
		    "</th><th>q1 %</th><th>q3 %</th><th>Kendall &tau;<sub>b"
		    "</sub></th><th>same loops with llvm-mca</th><th>llvm-mca"
		    " MAPE %</th><th>llvm-mca &tau;<sub>b</sub></th></tr>\n");
	for (l = 0; l < LK_ARRAY_SIZE(level_names); l++) {
		struct lk_report_mdl_level s;

		lk_report_mdl_level(rows, n, level_names[l], &s);
		if (s.rows)
			level_row(b, &s, level_names[l]);
		if (*s.mca_tool)
			tool = s.mca_tool;
	}
	lk_buf_adds(b, "</table>\n");
	if (*tool) {
		lk_buf_adds(b, "<p>llvm-mca: ");
		lk_html_add_text(b, tool);
		lk_buf_adds(b, ", on the same loop blocks, its cycles per "
			    "iteration divided by the loop's unroll "
			    "factor.</p>\n");
	}
}

size_t lk_report_mdl_reasons(const struct lk_mdl_eval_row *rows, size_t n,
			     struct lk_report_mdl_reason **out)
{
	size_t i, k, ng = 0, alloc = 0;

	*out = NULL;
	for (i = 0; i < n; i++) {
		if (!strcmp(rows[i].status, "ok"))
			continue;
		for (k = 0; k < ng; k++)
			if (!strcmp((*out)[k].status, rows[i].status) &&
			    !strcmp((*out)[k].reason, rows[i].reason))
				break;
		if (k == ng) {
			LK_GROW(*out, ng + 1, alloc);
			(*out)[ng++] = (struct lk_report_mdl_reason){
				rows[i].status, rows[i].reason, 0};
		}
		(*out)[k].count++;
	}
	return ng;
}

/* Each (status, reason) of the rows not compared, with its count. */
static void reasons_table(struct lk_buf *b, const struct lk_mdl_eval_row *rows,
			  size_t n)
{
	struct lk_report_mdl_reason *g;
	size_t ng = lk_report_mdl_reasons(rows, n, &g), i;

	if (ng)
		lk_buf_adds(b, "<h3>Not compared</h3>\n<table>\n<tr>"
			    "<th>status</th><th>rows</th><th>reason"
			    "</th></tr>\n");
	for (i = 0; i < ng; i++) {
		lk_buf_adds(b, "<tr>");
		lk_html_tag_text(b, "td", NULL, g[i].status);
		lk_html_td_count(b, (long)g[i].count);
		lk_html_tag_text(b, "td", NULL, g[i].reason);
		lk_buf_adds(b, "</tr>\n");
	}
	if (ng)
		lk_buf_adds(b, "</table>\n");
	free(g);
}

/* Predicted against replayed, log-log, one series per level. */
static int scatter(struct lk_ctx *ctx, const struct lk_mdl_eval_row *rows,
		   size_t n, const char *gnuplot, char **svg)
{
	struct lk_buf s = LK_BUF_INIT, data = LK_BUF_INIT;
	double lo = INFINITY, hi = 0;
	size_t l, i, nseries = 0;
	struct lk_plotdir pd;
	int ret = lk_plotdir_init(ctx, &pd, "report-mdl");

	lk_buf_adds(&s, "plot");
	for (l = 0; !ret && l < LK_ARRAY_SIZE(level_names); l++) {
		size_t npoints = 0;
		char name[32];

		lk_buf_reset(&data);
		for (i = 0; i < n; i++) {
			const struct lk_mdl_eval_row *r = &rows[i];

			if (strcmp(r->level, level_names[l]) ||
			    !(r->replayed > 0) || !(r->predicted > 0))
				continue;
			npoints++;
			lk_buf_addf(&data, "%.17g %.17g\n", r->replayed,
				    r->predicted);
			lo = fmin(lo, fmin(r->replayed, r->predicted));
			hi = fmax(hi, fmax(r->replayed, r->predicted));
		}
		if (!npoints)
			continue;
		snprintf(name, sizeof(name), "mdl%zu.dat", l);
		ret = lk_plotdir_write(ctx, &pd, name, &data);
		lk_buf_addf(&s, "%s '%s' using 1:2", nseries++ ? "," : "",
			    name);
		lk_plot_series_style(&s, l, "points", npoints);
		lk_buf_adds(&s, " title ");
		lk_plot_add_string(&s, level_names[l]);
	}
	if (!ret && nseries) {
		const struct report_loglog plot = {
			"mdl.gp", lk_buf_str(&s), lo, hi,
			"replayed (cycles per canonical iteration)",
			"MDL prediction (cycles per canonical iteration)",
			"top left"};

		ret = report_loglog(ctx, gnuplot, &pd, &plot, svg);
	}
	lk_plotdir_release(&pd);
	lk_buf_release(&s);
	lk_buf_release(&data);
	return ret;
}

int lk_report_mdl_html(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const char *gnuplot,
		       struct lk_buf *out)
{
	struct lk_mdl_eval_row *rows = NULL;
	size_t n = 0, i, loops = 0, refused = 0;
	char *svg = NULL;
	int ret = lk_store_mdl_eval_get(ctx, s, campaign, &rows, &n);

	if (ret || !n)
		return ret;
	for (i = 0; i < n; i++) {
		int first = !i || rows[i].variant_id != rows[i - 1].variant_id ||
			    rows[i].loop != rows[i - 1].loop;

		loops += first;
		refused += first && !strcmp(rows[i].status, "refused");
	}
	lk_buf_addf(out, "<h2>MDL</h2>\n<p>loopkit mdl eval: %zu innermost "
		    "loops, %zu extracted, %zu refused. Each extracted loop is "
		    "predicted by the k-NN over the seed database of its ISA "
		    "class and replayed (its own bytes, its bases walking the "
		    "level's working set): the replay is the measured "
		    "figure, in tsc-calibrated cycles per canonical "
		    "iteration.</p>\n", loops, loops - refused, refused);
	levels_table(out, rows, n);
	if (gnuplot && *gnuplot)
		ret = scatter(ctx, rows, n, gnuplot, &svg);
	if (!ret && svg) {
		lk_buf_adds(out, "<div class=\"plot\">");
		lk_svg_inline(out, svg, "mdl");
		lk_buf_adds(out, "</div>\n");
	}
	reasons_table(out, rows, n);
	free(svg);
	lk_mdl_eval_rows_free(rows, n);
	return ret;
}
