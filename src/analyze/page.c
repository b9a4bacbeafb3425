/*
 * analysis.html: one self-contained page (inline CSS and SVG, no script)
 * with what the analysis found: the input, the scores, the categories,
 * the importance of each feature, the tree, the confusion matrix and the
 * grouped plots. Figures that could not be drawn leave a note saying why.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "loopkit/plot.h"
#include "analyze-int.h"

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:24px auto;max-width:1200px;padding:0 16px;color:#222}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:3px}"
	".meta{color:#555;margin:0 0 12px}"
	".note{background:#fff7e0;border:1px solid #e8c66a;padding:8px 12px;"
	"border-radius:4px;margin:10px 0}"
	"table{border-collapse:collapse;margin:6px 0 14px;font-size:12.5px}"
	"th,td{border:1px solid #d8d8d8;padding:3px 6px;text-align:right}"
	"th{background:#f2f4f7;font-weight:600}td.t,th.t{text-align:left}"
	".plots{display:flex;flex-wrap:wrap;gap:16px}"
	"figure{margin:0;border:1px solid #e3e3e3;padding:6px}"
	"figcaption{font-size:12px;color:#555;max-width:640px}"
	"svg{display:block;max-width:100%;height:auto}"
	"pre{font-size:12px;background:#f7f7f7;padding:8px;overflow:auto}";

static void note(struct lk_buf *b, const char *text)
{
	if (text)
		lk_html_tag_text(b, "p", "note", text);
}

static void figure(struct lk_buf *b, const char *svg, const char *prefix,
		   const char *caption)
{
	if (!svg)
		return;
	lk_buf_adds(b, "<figure>");
	lk_svg_inline(b, svg, prefix);
	lk_html_tag_text(b, "figcaption", NULL, caption);
	lk_buf_adds(b, "</figure>\n");
}

static const char *score_name(const struct lk_analysis *a)
{
	return a->regression ? "R\xc2\xb2" : "accuracy";
}

static void head(const struct lk_analysis *a, struct lk_buf *b)
{
	char line[512];
	size_t f;

	snprintf(line, sizeof(line), "loopkit analyze: what explains %s",
		 a->o->target);
	lk_html_tag_text(b, "h1", NULL, line);
	snprintf(line, sizeof(line), "%s: %zu rows (%zu train, %zu test), "
		 "%zu filtered out, %zu dropped for a missing cell; %s.",
		 a->file, a->t.nrows, a->train.n, a->test.n,
		 a->t.dropped_filter, a->missing,
		 a->regression ? "regression on the target"
			       : "classification of the target");
	lk_html_tag_text(b, "p", "meta", line);
	lk_buf_adds(b, "<p class=\"meta\">Features: ");
	for (f = 0; f < a->nfeat; f++) {
		lk_buf_adds(b, f ? ", " : "");
		lk_html_tag_text(b, "code", NULL, a->feat_names[f]);
	}
	lk_buf_adds(b, ".</p>\n");
}

static void score_row(struct lk_buf *b, const char *model, const char *what,
		      double score, double rmse, int regression)
{
	lk_buf_adds(b, "<tr>");
	lk_html_tag_text(b, "td", "t", model);
	lk_html_tag_text(b, "td", "t", what);
	lk_html_td_num(b, "%.4f", score);
	if (regression)
		lk_html_td_num(b, "%.4g", rmse);
	lk_buf_adds(b, "</tr>\n");
}

static void scores(const struct lk_analysis *a, struct lk_buf *b)
{
	char what[128];

	lk_buf_adds(b, "<h2>Models</h2>\n<table><tr><th class=\"t\">model"
		    "</th><th class=\"t\">shape</th><th>test ");
	lk_buf_adds(b, score_name(a));
	lk_buf_adds(b, a->regression ? "</th><th>RMSE</th></tr>\n"
				     : "</th></tr>\n");
	snprintf(what, sizeof(what), "depth %d, %zu leaves",
		 lk_tree_depth(&a->tree), lk_tree_leaves(&a->tree));
	score_row(b, "decision tree", what, a->tree_score, a->tree_rmse,
		  a->regression);
	if (a->o->forest > 0) {
		snprintf(what, sizeof(what), "%ld trees", a->o->forest);
		score_row(b, "random forest", what, a->forest_score,
			  a->forest_rmse, a->regression);
	}
	if (a->o->knn > 0) {
		snprintf(what, sizeof(what), "k = %d", a->o->knn);
		score_row(b, "k nearest neighbours", what, a->knn_score,
			  a->knn_rmse, a->regression);
	}
	lk_buf_adds(b, "</table>\n");
}

/* Kendall's tau-b of each numeric feature with the target. */
static void rank_correlation(const struct lk_analysis *a, struct lk_buf *b)
{
	const struct lk_rank_corr *r = &a->tau;
	char text[320], name[256];
	size_t f, g;

	if (!a->has_tau)
		return;
	lk_buf_adds(b, "<h2>Rank correlation with the target</h2>\n");
	snprintf(text, sizeof(text), "Kendall's tau-b of each numeric feature "
		 "with %s: 1 when the target always rises with the feature, "
		 "-1 when it always falls, 0 when the order says nothing%s.",
		 a->o->target, r->ngroups ? "; overall, then within the rows "
		 "of each value of the grouping column" : "");
	lk_html_tag_text(b, "p", "meta", text);
	lk_buf_adds(b, "<table><tr><th class=\"t\">feature</th><th>all rows"
		    "</th>");
	for (g = 0; g < r->ngroups; g++) {
		lk_analysis_tau_group(a, g, name, sizeof(name));
		snprintf(text, sizeof(text), "%s = %s (%zu rows)",
			 a->o->tau_by, name, r->group_rows[g]);
		lk_html_tag_text(b, "th", NULL, text);
	}
	lk_buf_adds(b, "</tr>\n");
	for (f = 0; f < a->nfeat; f++) {
		if (a->feat_cols[f]->categorical)
			continue;
		lk_buf_adds(b, "<tr>");
		lk_html_tag_text(b, "td", "t", a->feat_names[f]);
		lk_html_td_num(b, "%.3f", r->all[f]);
		for (g = 0; g < r->ngroups; g++)
			lk_html_td_num(b, "%.3f",
				       r->within[f * r->ngroups + g]);
		lk_buf_adds(b, "</tr>\n");
	}
	lk_buf_adds(b, "</table>\n");
}

static void categories(const struct lk_analysis *a,
		       const struct lk_analysis_figs *fg, struct lk_buf *b)
{
	const struct lk_categories *c = &a->cats;
	char caption[256];
	size_t i;

	if (!c->n)
		return;
	lk_buf_adds(b, "<h2>Categories of the target</h2>\n<table><tr>"
		    "<th class=\"t\">category</th><th>from</th><th>to</th>"
		    "<th>centroid</th><th>rows</th></tr>\n");
	for (i = 0; i < c->n; i++) {
		lk_buf_adds(b, "<tr>");
		lk_html_tag_text(b, "td", "t", c->list[i].label);
		lk_html_td_num(b, "%.6g", c->list[i].lo);
		lk_html_td_num(b, "%.6g", c->list[i].hi);
		lk_html_td_num(b, "%.6g", c->list[i].centroid);
		lk_html_td_count(b, (long)c->list[i].count);
		lk_buf_adds(b, "</tr>\n");
	}
	lk_buf_adds(b, "</table>\n");
	if (c->method == LK_CAT_KDE)
		snprintf(caption, sizeof(caption), "The target's Gaussian KDE "
			 "(bandwidth %s = %.4g), the cuts at its minima "
			 "(dashed), the centroids at its peaks and the values.",
			 c->bandwidth_rule, c->bandwidth);
	else
		snprintf(caption, sizeof(caption), "The target's values and "
			 "the bins' bounds (dashed).");
	lk_buf_adds(b, "<div class=\"plots\">");
	figure(b, fg->density, "density-", caption);
	lk_buf_adds(b, "</div>\n");
}

static void importance(const struct lk_analysis *a,
		       const struct lk_analysis_figs *fg, struct lk_buf *b)
{
	int forest = a->o->forest > 0;
	size_t f;

	lk_buf_adds(b, "<h2>Importance of each feature</h2>\n<table><tr>"
		    "<th class=\"t\">feature</th><th>tree MDI</th>");
	if (forest)
		lk_buf_adds(b, "<th>forest MDI</th><th>std</th>"
			    "<th>permutation</th><th>std</th>");
	lk_buf_adds(b, "</tr>\n");
	for (f = 0; f < a->nfeat; f++) {
		lk_buf_adds(b, "<tr>");
		lk_html_tag_text(b, "td", "t", a->feat_names[f]);
		lk_html_td_num(b, "%.3f", a->tree.importance[f]);
		if (forest) {
			lk_html_td_num(b, "%.3f", a->forest.importance[f]);
			lk_html_td_num(b, "%.3f", a->forest.importance_std[f]);
			lk_html_td_num(b, "%.3f", a->perm_mean[f]);
			lk_html_td_num(b, "%.3f", a->perm_std[f]);
		}
		lk_buf_adds(b, "</tr>\n");
	}
	lk_buf_adds(b, "</table>\n<div class=\"plots\">");
	figure(b, fg->importance, "importance-", "Mean decrease in impurity "
	       "of the tree and of the forest (with its std over the trees), "
	       "and the test score's drop when the feature is shuffled "
	       "(permutation importance, with its std over the repeats).");
	lk_buf_adds(b, "</div>\n");
}

static void tree(const struct lk_analysis *a,
		 const struct lk_analysis_figs *fg, struct lk_buf *b)
{
	struct lk_buf text = LK_BUF_INIT;

	lk_buf_adds(b, "<h2>The decision tree</h2>\n");
	note(b, fg->tree_note);
	if (fg->tree_svg) {
		lk_buf_adds(b, "<div class=\"plots\">");
		figure(b, fg->tree_svg, "tree-", "The tree (graphviz dot): "
		       "x <= threshold goes left.");
		lk_buf_adds(b, "</div>\n");
		return;
	}
	lk_tree_text(&a->tree, a->feat_names, a->feat_cols, a->class_names,
		     &text);
	lk_html_tag_text(b, "pre", NULL, lk_buf_str(&text));
	lk_buf_release(&text);
}

static void confusion(const struct lk_analysis *a,
		      const struct lk_analysis_figs *fg, struct lk_buf *b)
{
	size_t i, j, nc = (size_t)a->nclasses;

	if (a->regression || !nc)
		return;
	lk_buf_adds(b, "<h2>Confusion of the tree on the test rows</h2>\n"
		    "<table><tr><th class=\"t\">true \\ predicted</th>");
	for (j = 0; j < nc; j++)
		lk_html_tag_text(b, "th", NULL, a->class_names[j]);
	lk_buf_adds(b, "</tr>\n");
	for (i = 0; i < nc; i++) {
		lk_buf_adds(b, "<tr>");
		lk_html_tag_text(b, "th", "t", a->class_names[i]);
		for (j = 0; j < nc; j++)
			lk_html_td_count(b, (long)a->confusion[i * nc + j]);
		lk_buf_adds(b, "</tr>\n");
	}
	lk_buf_adds(b, "</table>\n<div class=\"plots\">");
	figure(b, fg->confusion, "confusion-", "Test rows by true (rows) and "
	       "predicted (columns) class.");
	lk_buf_adds(b, "</div>\n");
}

static void grouped(const struct lk_analysis *a,
		    const struct lk_analysis_figs *fg, struct lk_buf *b)
{
	size_t p;

	if (!a->o->nplots)
		return;
	lk_buf_adds(b, "<h2>Plots</h2>\n<div class=\"plots\">");
	for (p = 0; p < fg->ncustom; p++) {
		const struct lk_analysis_plot *pl = &a->o->plots[p];
		char prefix[32], caption[512];

		snprintf(prefix, sizeof(prefix), "plot%zu-", p + 1);
		snprintf(caption, sizeof(caption), "%s against %s%s%s%s.",
			 pl->y ? pl->y : a->o->target, pl->x,
			 pl->group ? ", one series per " : "",
			 pl->group ? pl->group : "",
			 pl->scatter ? "" : " (the mean per x)");
		figure(b, fg->custom[p], prefix, caption);
	}
	lk_buf_adds(b, "</div>\n");
}

void lk_analysis_page(const struct lk_analysis *a,
		      const struct lk_analysis_figs *fg, struct lk_buf *out)
{
	char title[256];

	snprintf(title, sizeof(title), "loopkit analyze: %s", a->o->target);
	lk_html_page_begin(out, title, css);
	head(a, out);
	note(out, fg->plot_note);
	scores(a, out);
	rank_correlation(a, out);
	categories(a, fg, out);
	importance(a, fg, out);
	tree(a, fg, out);
	confusion(a, fg, out);
	grouped(a, fg, out);
	lk_html_page_end(out);
}
