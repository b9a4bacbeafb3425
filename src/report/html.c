/*
 * The report as one self-contained HTML page: inline CSS and SVG, no
 * script, no external resource; the page shell, escaping and cells come
 * from the plot layer (loopkit/plot.h). Every name from the store goes
 * through lk_html_add_text.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/plot.h"
#include "report-int.h"

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:24px auto;max-width:1500px;padding:0 16px;color:#222}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:3px}"
	"h3{font-size:15px;margin:18px 0 6px}"
	".meta{color:#555;margin:0 0 12px}"
	".note{background:#fff7e0;border:1px solid #e8c66a;padding:8px 12px;"
	"border-radius:4px;margin:10px 0}"
	"table{border-collapse:collapse;margin:6px 0 14px;font-size:12.5px}"
	"th,td{border:1px solid #d8d8d8;padding:3px 5px;text-align:right;"
	"vertical-align:top}"
	"th{background:#f2f4f7;font-weight:600}"
	"td{white-space:nowrap}td.t,th.t{text-align:left;white-space:normal}"
	"tr:nth-child(even) td{background:#fafbfc}"
	"td.fb{color:#8a5a00}"
	".plots{display:flex;flex-wrap:wrap;gap:16px}"
	"figure{margin:0;border:1px solid #e3e3e3;padding:6px}"
	"figcaption{font-size:12px;color:#555;max-width:530px}"
	"svg{display:block;max-width:100%;height:auto}"
	"code{font-size:12px}"
	"dl{font-size:13px}dt{font-weight:600}dd{margin:0 0 6px 18px}";

/* A measured-unit figure: whole numbers from 100 on, else 4 digits. */
static void td_plain(struct lk_buf *b, double v)
{
	double a = fabs(v);

	if (isfinite(v) && a >= 100 && a < 1e12)
		lk_html_td_num(b, "%.0f", v);
	else
		lk_html_td_num(b, "%.4g", v);
}

/* "-30.0 % [-35.0, -20.0]", in percent. */
static void td_quartiles(struct lk_buf *b, const char *fmt, double median,
			 double q1, double q3)
{
	if (!isfinite(median)) {
		lk_buf_adds(b, "<td>&ndash;</td>");
		return;
	}
	lk_buf_adds(b, "<td>");
	lk_buf_addf(b, fmt, 100 * median);
	lk_buf_adds(b, "&thinsp;% [");
	lk_buf_addf(b, fmt, 100 * q1);
	lk_buf_adds(b, ", ");
	lk_buf_addf(b, fmt, 100 * q3);
	lk_buf_adds(b, "]</td>");
}

static const char *const stat_heads[] = {
	"variants", "excluded", "failed", "no prediction", "not measured",
	"no trustworthy cycles", "compared", "unknown", "MAPE", "error: median [Q1, Q3]",
	"|error|: median [Q1, Q3]", "RMSE", "Kendall &tau;<sub>b</sub>",
};

static void stat_header(struct lk_buf *b, const char *first)
{
	size_t i;

	lk_buf_adds(b, "<tr>");
	if (first)
		lk_buf_addf(b, "<th class=\"t\">%s</th>", first);
	lk_buf_adds(b, "<th class=\"t\">analyzer</th>");
	for (i = 0; i < LK_ARRAY_SIZE(stat_heads); i++)
		lk_buf_addf(b, "<th>%s</th>", stat_heads[i]);
	lk_buf_adds(b, "</tr>\n");
}

static void basis_label(struct lk_buf *b, const struct lk_report_basis *x)
{
	lk_html_add_text(b, x->metric);
	if (*x->sources) {
		lk_buf_adds(b, " (");
		lk_html_add_text(b, x->sources);
		lk_buf_adds(b, ")");
	}
}

static void stat_row(struct lk_buf *b, const struct lk_report *r,
		     const struct lk_report_row *row, int with_group)
{
	const struct lk_err_stats *st = &row->st;

	lk_buf_adds(b, "<tr>");
	if (with_group)
		lk_html_tag_text(b, "td", "t", row->value);
	lk_html_tag_text(b, "td", "t", r->analyzers[row->analyzer].label);
	lk_html_td_count(b, row->variants);
	lk_html_td_count(b, row->excluded);
	lk_html_td_count(b, row->failed);
	lk_html_td_count(b, row->missing);
	lk_html_td_count(b, row->unmeasured);
	lk_html_td_count(b, row->no_cycles);
	lk_html_td_count(b, row->compared);
	lk_html_td_count(b, row->unknown);
	lk_html_td_num(b, "%.1f&thinsp;%%", st->mape);
	td_quartiles(b, "%+.1f", st->median, st->q1, st->q3);
	td_quartiles(b, "%.1f", st->abs_median, st->abs_q1, st->abs_q3);
	td_plain(b, st->rmse);
	lk_html_td_num(b, "%.3f", st->tau_b);
	lk_buf_adds(b, "</tr>\n");
}

static void stats_table(struct lk_buf *b, const struct lk_report *r,
			const char *key)
{
	size_t i;

	lk_buf_adds(b, "<table>\n");
	stat_header(b, *key ? "group" : NULL);
	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].key, key))
			stat_row(b, r, &r->rows[i], *key != '\0');
	lk_buf_adds(b, "</table>\n");
}

static void header(struct lk_buf *b, const struct lk_report *r)
{
	char when[64];

	report_time_text(r->generated, when, sizeof(when));
	lk_html_page_begin(b, r->title, css);
	lk_html_tag_text(b, "h1", NULL, r->title);
	lk_buf_adds(b, "\n<p class=\"meta\">campaign <b>");
	lk_html_add_text(b, r->campaign);
	lk_buf_adds(b, "</b> &middot; store <code>");
	lk_html_add_text(b, r->store_dir);
	lk_buf_addf(b, "</code> &middot; generated %s &middot; %zu variants, "
		       "%zu analyzers, %ld predictions compared</p>\n",
		    when, r->nvariants, r->nanalyzers, r->compared);
}

static long count_reasons(const struct lk_report *r, const char *what)
{
	long n = 0;
	size_t i;

	for (i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reasons[i].what, what))
			n += r->reasons[i].count;
	return n;
}

static void measurement(struct lk_buf *b, const struct lk_report *r)
{
	size_t i;

	lk_buf_adds(b, "<h2>Measurement</h2>\n<p>Every prediction is compared "
		       "with the kernel's measured ");
	basis_label(b, &r->bases[0]);
	lk_buf_addf(b, " per kernel call (the latest ok run of each variant): "
		       "%zu variants.", r->bases[0].nvariants);
	lk_buf_addf(b, " Not measured: %ld. Without a trustworthy core-cycle "
		       "figure, never compared with a prediction: %ld.</p>\n",
		    count_reasons(r, "unmeasured"),
		    count_reasons(r, "no-cycles"));
	for (i = 1; i < r->nbases; i++) {
		int one = r->bases[i].nvariants == 1;

		lk_buf_addf(b, "<p class=\"note\">%zu variant%s no "
			       "trustworthy core-cycle figure: %s run's "
			       "primary figure (",
			    r->bases[i].nvariants, one ? " has" : "s have",
			    one ? "its" : "their");
		basis_label(b, &r->bases[i]);
		lk_buf_adds(b, " in ");
		lk_html_add_text(b, r->bases[i].unit);
		lk_buf_addf(b, ") is shown, and %s never compared with a "
			       "prediction in cycles: counted apart "
			       "(&ldquo;no trustworthy cycles&rdquo;), not in "
			       "MAPE, &tau; or the plots.</p>\n",
			    one ? "it is" : "they are");
	}
}

static void plots(struct lk_buf *b, const char *scatter, const char *cdf,
		  const char *note)
{
	lk_buf_adds(b, "<h2>Plots</h2>\n");
	if (note) {
		lk_buf_adds(b, "<p class=\"note\">");
		lk_html_add_text(b, note);
		lk_buf_adds(b, "</p>\n");
	}
	if (!scatter && !cdf)
		return;
	lk_buf_adds(b, "<div class=\"plots\">\n");
	if (scatter) {
		lk_buf_adds(b, "<figure>");
		lk_svg_inline(b, scatter, "lkscatter-");
		lk_buf_adds(b, "<figcaption>Predicted against measured cycles "
			       "per kernel call, log-log; the dashed line is "
			       "y = x. Above it: overestimates.</figcaption>"
			       "</figure>\n");
	}
	if (cdf) {
		lk_buf_adds(b, "<figure>");
		lk_svg_inline(b, cdf, "lkcdf-");
		lk_buf_adds(b, "<figcaption>Cumulative distribution of the "
			       "relative error per analyzer; left of the "
			       "dashed line: underestimates.</figcaption>"
			       "</figure>\n");
	}
	lk_buf_adds(b, "</div>\n");
}

static void groups(struct lk_buf *b, const struct lk_report *r)
{
	size_t k;

	for (k = 0; k < r->group_by.n; k++) {
		lk_buf_adds(b, "<h2>By ");
		lk_html_add_text(b, r->group_by.v[k]);
		lk_buf_adds(b, "</h2>\n");
		stats_table(b, r, r->group_by.v[k]);
	}
}

static const struct {
	const char *what, *title;
} reason_kinds[] = {
	{"exclude", "Excluded by a filter"},
	{"unknown", "Kept, but a filter could not decide"},
	{"failed", "Lifting failed (the analyzer failed on a block)"},
	{"unmeasured", "Not measured"},
	{"no-cycles", "Measured, but no trustworthy core-cycle figure "
		      "(not compared)"},
};

static void reasons(struct lk_buf *b, const struct lk_report *r)
{
	size_t k, i;

	lk_buf_adds(b, "<h2>Why kernels are left out</h2>\n");
	if (!r->nreasons)
		lk_buf_adds(b, "<p>Every variant was measured and predicted "
			       "by every analyzer; no filter excluded "
			       "any.</p>\n");
	for (k = 0; k < LK_ARRAY_SIZE(reason_kinds); k++) {
		if (!count_reasons(r, reason_kinds[k].what))
			continue;
		lk_html_tag_text(b, "h3", NULL, reason_kinds[k].title);
		lk_buf_adds(b, "<table><tr><th class=\"t\">reason</th>");
		if (!strcmp(reason_kinds[k].what, "failed"))
			lk_buf_adds(b, "<th class=\"t\">analyzer</th>");
		lk_buf_adds(b, "<th>variants</th></tr>\n");
		for (i = 0; i < r->nreasons; i++) {
			const struct lk_report_reason *x = &r->reasons[i];

			if (strcmp(x->what, reason_kinds[k].what))
				continue;
			lk_buf_adds(b, "<tr>");
			lk_html_tag_text(b, "td", "t", x->reason);
			if (x->analyzer >= 0)
				lk_html_tag_text(b, "td", "t",
					 r->analyzers[x->analyzer].label);
			lk_buf_addf(b, "<td>%ld</td></tr>\n", x->count);
		}
		lk_buf_adds(b, "</table>\n");
	}
}

static void variant_params(struct lk_buf *b,
			   const struct lk_report_variant *v)
{
	size_t i;

	lk_buf_adds(b, "<td class=\"t\">");
	for (i = 0; i < v->nparams; i++) {
		lk_buf_adds(b, i ? " " : "");
		lk_html_add_text(b, v->params[i].name);
		lk_buf_addch(b, '=');
		lk_html_add_text(b, v->params[i].value);
	}
	lk_buf_adds(b, "</td>");
}

static void variant_measured(struct lk_buf *b, const struct lk_report *r,
			     const struct lk_report_variant *v)
{
	if (v->meas == LK_MEAS_NONE) {
		lk_buf_adds(b, "<td class=\"t\">");
		lk_html_add_text(b, v->note);
		lk_buf_adds(b, "</td>");
		return;
	}
	lk_buf_addf(b, "<td%s>%.1f ", v->basis ? " class=\"fb\"" : "",
		    v->measured);
	lk_html_add_text(b, r->bases[v->basis].metric);
	lk_buf_adds(b, " (");
	lk_html_add_text(b, v->measured_source);
	lk_buf_adds(b, ")</td>");
}

static void variant_pred(struct lk_buf *b, const struct lk_report_pred *p)
{
	if (p->outcome == LK_OUT_COMPARED) {
		lk_buf_addf(b, "<td>%.1f (%+.1f&thinsp;%%)</td>", p->value,
			    100 * p->rel_error);
		return;
	}
	lk_buf_adds(b, "<td class=\"t\">");
	lk_html_add_text(b, report_outcome_name(p->outcome));
	if (*p->reason) {
		lk_buf_adds(b, ": ");
		lk_html_add_text(b, p->reason);
	}
	lk_buf_adds(b, "</td>");
}

static void variants(struct lk_buf *b, const struct lk_report *r)
{
	size_t i, a;

	lk_buf_adds(b, "<h2>Variants</h2>\n<table><tr><th class=\"t\">"
		       "variant</th><th class=\"t\">name</th>"
		       "<th class=\"t\">source</th>"
		       "<th class=\"t\">compiler</th><th class=\"t\">flags"
		       "</th><th class=\"t\">parameters</th><th>measured"
		       "</th><th class=\"t\">filters</th>");
	for (a = 0; a < r->nanalyzers; a++)
		lk_html_tag_text(b, "th", NULL, r->analyzers[a].label);
	lk_buf_adds(b, "</tr>\n");
	for (i = 0; i < r->nvariants; i++) {
		const struct lk_report_variant *v = &r->variants[i];

		lk_buf_addf(b, "<tr><td class=\"t\"><code>%.12s</code></td>",
			    v->hash);
		lk_html_tag_text(b, "td", "t", v->name);
		lk_html_tag_text(b, "td", "t", v->source_name);
		lk_html_tag_text(b, "td", "t", v->compiler);
		lk_html_tag_text(b, "td", "t", v->flagset);
		variant_params(b, v);
		variant_measured(b, r, v);
		lk_html_tag_text(b, "td", "t", v->verdict);
		for (a = 0; a < r->nanalyzers; a++)
			variant_pred(b, &v->preds[a]);
		lk_buf_adds(b, "</tr>\n");
	}
	lk_buf_adds(b, "</table>\n");
}

static const char definitions[] =
	"<h2>Definitions</h2>\n<dl>"
	"<dt>relative error</dt><dd>(predicted &minus; measured) / measured, "
	"per kernel call; negative: the analyzer underestimates.</dd>"
	"<dt>MAPE</dt><dd>mean of |relative error|, in percent.</dd>"
	"<dt>median, Q1, Q3</dt><dd>quartiles of the signed and of the "
	"absolute relative error, interpolated linearly between order "
	"statistics (type 7).</dd>"
	"<dt>RMSE</dt><dd>root mean square of predicted &minus; measured, "
	"in the measured unit.</dd>"
	"<dt>Kendall &tau;<sub>b</sub></dt><dd>rank agreement of predicted "
	"and measured over the compared kernels, ties accounted for; 1: "
	"same order.</dd>"
	"<dt>counts</dt><dd>each variant once per analyzer, first match: "
	"excluded by a filter, failed (lifting excluded it), no prediction "
	"(never lifted), not measured (no cycles figure), compared. "
	"&ldquo;unknown&rdquo;: compared although a filter could not "
	"decide.</dd></dl>\n";

/* Each analyzer's parameters, as stored with its predictions. */
static void analyzer_params(struct lk_buf *b, const struct lk_report *r)
{
	size_t a;

	lk_buf_adds(b, "<dl class=\"params\">\n");
	for (a = 0; a < r->nanalyzers; a++) {
		lk_html_tag_text(b, "dt", NULL, r->analyzers[a].label);
		lk_buf_adds(b, "<dd><code>");
		lk_html_add_text(b, *r->analyzers[a].params
					   ? r->analyzers[a].params
					   : "(no parameters)");
		lk_buf_adds(b, "</code></dd>\n");
	}
	lk_buf_adds(b, "</dl>\n");
}

void lk_report_html(const struct lk_report *r, const char *scatter,
		    const char *cdf, const char *plot_note,
		    struct lk_buf *out)
{
	lk_report_html_extra(r, scatter, cdf, plot_note, NULL, out);
}

void lk_report_html_extra(const struct lk_report *r, const char *scatter,
			  const char *cdf, const char *plot_note,
			  const char *extra, struct lk_buf *out)
{
	header(out, r);
	measurement(out, r);
	lk_buf_adds(out, "<h2>Analyzers</h2>\n");
	stats_table(out, r, "");
	analyzer_params(out, r);
	plots(out, scatter, cdf, plot_note);
	groups(out, r);
	reasons(out, r);
	variants(out, r);
	if (extra)
		lk_buf_adds(out, extra);
	lk_buf_adds(out, definitions);
	lk_html_page_end(out);
}
