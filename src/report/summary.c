/*
 * The report in a few lines for the terminal: each analyzer's coverage
 * and error over every variant, the figures of the report's first rows
 * (those report.csv lists with an empty group).
 */
#include <math.h>
#include <string.h>

#include "report-int.h"

static void add_figure(struct lk_buf *b, const char *what, const char *fmt,
		       double v, const char *unit)
{
	lk_buf_addf(b, ", %s ", what);
	if (isfinite(v)) {
		lk_buf_addf(b, fmt, v);
		lk_buf_adds(b, unit);
	} else {
		lk_buf_adds(b, "n/a");
	}
}

/* "(2 excluded by a filter, 1 failed)": why the others are not compared. */
static void add_left_out(struct lk_buf *b, const struct lk_report_row *row)
{
	const struct {
		long n;
		const char *what;
	} why[] = {
		{row->excluded, "excluded by a filter"},
		{row->failed, "failed"},
		{row->missing, "without prediction"},
		{row->unmeasured, "not measured"},
		{row->no_cycles, "without a trustworthy cycles figure"},
	};
	size_t i, shown = 0;

	for (i = 0; i < LK_ARRAY_SIZE(why); i++) {
		if (why[i].n <= 0)
			continue;
		lk_buf_addf(b, "%s%ld %s", shown++ ? ", " : " (", why[i].n,
			    why[i].what);
	}
	if (shown)
		lk_buf_addch(b, ')');
}

static void summary_row(struct lk_buf *b, const struct lk_report *r,
			const struct lk_report_row *row)
{
	lk_buf_addf(b, "%s: ", r->analyzers[row->analyzer].label);
	lk_buf_addf(b, "%ld/%ld kernel%s compared", row->compared,
		    row->variants, row->variants == 1 ? "" : "s");
	add_left_out(b, row);
	add_figure(b, "MAPE", "%.1f", row->st.mape, " %");
	add_figure(b, "median |error|", "%.1f", 100 * row->st.abs_median,
		   " %");
	add_figure(b, "Kendall tau-b", "%.3f", row->st.tau_b, "");
	lk_buf_addch(b, '\n');
}

void lk_report_summary(const struct lk_report *r, struct lk_buf *out)
{
	size_t i;

	for (i = 0; i < r->nrows && !*r->rows[i].key; i++)
		summary_row(out, r, &r->rows[i]);
}
