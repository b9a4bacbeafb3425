/*
 * lk_report_campaign: build the report of a campaign and write the HTML
 * page, the CSV tables and the JSON document, or say why there is
 * nothing to report.
 */
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

static const char *const default_names[] = {
	[LK_REPORT_HTML] = "report.html",
	[LK_REPORT_CSV] = "report.csv",
	[LK_REPORT_JSON] = "report.json",
	[LK_REPORT_VARIANTS_CSV] = "variants.csv",
};

char *lk_report_output_path(const struct lk_store *s,
			    const struct lk_sweep *cfg,
			    const struct lk_report_opts *opts,
			    enum lk_report_file which)
{
	const char *given[] = {
		[LK_REPORT_HTML] = opts->html, [LK_REPORT_CSV] = opts->csv,
		[LK_REPORT_JSON] = opts->json,
		[LK_REPORT_VARIANTS_CSV] = opts->variants_csv,
	};

	if (given[which])
		return lk_strdup(given[which]);
	if (opts->out_dir)
		return lk_path_join(opts->out_dir, default_names[which]);
	if (cfg && cfg->report.output)
		return lk_path_join(cfg->report.output, default_names[which]);
	return lk_asprintf("%s/report/%s", lk_store_dir(s),
			   default_names[which]);
}

/* What is missing, for the "nothing to report" message. */
static int nothing_to_report(struct lk_ctx *ctx, const struct lk_report *r)
{
	size_t i, measured = 0, excluded = 0, cycles = 0;
	const char *hint;

	for (i = 0; i < r->nvariants; i++) {
		measured += r->variants[i].meas != LK_MEAS_NONE ||
			    r->variants[i].no_cycles;
		cycles += r->variants[i].meas == LK_MEAS_CYCLES &&
			  !r->variants[i].excluded;
		excluded += r->variants[i].excluded;
	}
	if (!r->nvariants)
		hint = "the campaign has no variants (run 'loopkit run -c' or "
		       "'loopkit campaign' first)";
	else if (!r->nanalyzers)
		hint = "no lifted prediction (run 'loopkit predict' and "
		       "'loopkit lift' first)";
	else if (!measured)
		hint = "no variant has a measured figure (run 'loopkit run -c' "
		       "first; see the runs' status with 'loopkit export')";
	else if (excluded == r->nvariants)
		hint = "the filters excluded every variant";
	else if (!cycles)
		hint = "no variant kept has a trustworthy core-cycle figure "
		       "to compare the predictions in cycles with (never "
		       "TSC ticks: see each variant's measure_note)";
	else
		hint = "no variant is both measured and predicted";
	return lk_error(ctx, LK_ENOTFOUND, "campaign '%s': nothing to "
			"report: %s (%zu variants, %zu measured, %zu "
			"excluded by filters, %zu analyzers)",
			r->campaign, hint, r->nvariants, measured, excluded,
			r->nanalyzers);
}

static int write_output(struct lk_ctx *ctx, const char *path,
			const struct lk_buf *text, FILE *dash)
{
	char *dir;
	int ret;

	if (dash && !strcmp(path, "-")) {
		if (fwrite(lk_buf_str(text), 1, text->len, dash) !=
			    text->len ||
		    fflush(dash))
			return lk_error_errno(ctx, "cannot write the report");
		return 0;
	}
	dir = lk_path_dirname(path);
	ret = lk_mkdir_p(ctx, dir, 0777);
	free(dir);
	if (!ret)
		ret = lk_file_write_atomic(ctx, path, lk_buf_str(text),
					   text->len);
	return ret;
}

/* The SVG plots, or a note saying why there are none. */
static int make_plots(struct lk_ctx *ctx, const struct lk_report *r,
		      const struct lk_report_opts *opts, char **scatter,
		      char **cdf, char **note)
{
	char *gnuplot = NULL;
	int ret = 0;

	*scatter = *cdf = *note = NULL;
	if (opts->gnuplot && !*opts->gnuplot) {
		*note = lk_strdup("Plots were not asked for.");
		return 0;
	}
	gnuplot = opts->gnuplot ? lk_strdup(opts->gnuplot)
				: lk_which("gnuplot");
	if (!gnuplot) {
		lk_warn(ctx, "gnuplot is not installed: the report has no "
			"plots (apt-get install gnuplot-nox)");
		*note = lk_strdup("No plots: gnuplot is not installed on the "
				  "machine that wrote this report.");
		return 0;
	}
	ret = lk_report_plots(ctx, r, gnuplot, scatter, cdf);
	if (!ret && !*scatter)
		*note = lk_strdup("No plots: no kernel was compared in cycles "
				  "with a positive prediction.");
	free(gnuplot);
	return ret;
}

static int write_all(struct lk_ctx *ctx, struct lk_store *s,
		     const struct lk_report *r, const struct lk_sweep *cfg,
		     const struct lk_report_opts *opts, const char *scatter,
		     const char *cdf, const char *note, const char *mdl)
{
	struct lk_buf text = LK_BUF_INIT;
	int which, ret = 0;

	for (which = 0; !ret && which < LK_REPORT_NFILES; which++) {
		char *path = lk_report_output_path(s, cfg, opts, which);

		lk_buf_reset(&text);
		switch (which) {
		case LK_REPORT_HTML: {
			struct lk_buf links = LK_BUF_INIT;

			lk_buf_adds(&links, mdl);
			lk_report_analyses_html(r, cfg, path, &links);
			lk_report_html_extra(r, scatter, cdf, note,
					     lk_buf_str(&links), &text);
			lk_buf_release(&links);
			break;
		}
		case LK_REPORT_CSV: lk_report_csv(r, &text); break;
		case LK_REPORT_JSON: lk_report_json(r, &text); break;
		default: lk_report_variants_csv(r, &text); break;
		}
		ret = write_output(ctx, path, &text, opts->dash);
		free(path);
	}
	lk_buf_release(&text);
	return ret;
}

int lk_report_campaign(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const struct lk_sweep *cfg,
		       const struct lk_report_opts *opts)
{
	static const struct lk_report_opts none;
	char *scatter = NULL, *cdf = NULL, *note = NULL, *gnuplot;
	struct lk_buf mdl = LK_BUF_INIT;
	struct lk_report *r = NULL;
	int ret;

	if (!opts)
		opts = &none;
	ret = lk_report_build(ctx, s, campaign, cfg, &r);
	if (!ret) {
		gnuplot = opts->gnuplot ? lk_strdup(opts->gnuplot)
					: lk_which("gnuplot");
		ret = lk_report_mdl_html(ctx, s, campaign, gnuplot, &mdl);
		free(gnuplot);
	}
	/* MDL's evaluation alone makes a report. */
	if (!ret && !r->compared && !mdl.len)
		ret = nothing_to_report(ctx, r);
	if (!ret)
		ret = make_plots(ctx, r, opts, &scatter, &cdf, &note);
	if (!ret)
		ret = write_all(ctx, s, r, cfg, opts, scatter, cdf, note,
				lk_buf_str(&mdl));
	lk_buf_release(&mdl);
	if (!ret && opts->summary)
		lk_report_summary(r, opts->summary);
	free(scatter);
	free(cdf);
	free(note);
	lk_report_free(r);
	return ret;
}

/* The page's path, then each analyzer's figures on a line of its own. */
int lk_report_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *cfg,
		    const struct lk_stage_opts *opts,
		    struct lk_stage_summary *sum)
{
	struct lk_buf figures = LK_BUF_INIT, b = LK_BUF_INIT;
	struct lk_report_opts o = {.summary = &figures};
	int ret = lk_report_campaign(ctx, s, campaign, cfg, &o);
	char *html, *p, *nl;

	memset(sum, 0, sizeof(*sum));
	if (!ret) {
		html = lk_report_output_path(s, cfg, &o, LK_REPORT_HTML);
		lk_buf_adds(&b, html);
		free(html);
		for (p = figures.buf; p && (nl = strchr(p, '\n'));
		     p = nl + 1)
			lk_buf_addf(&b, "\n%9s%.*s", "", (int)(nl - p), p);
		sum->line = lk_buf_detach(&b);
	}
	lk_buf_release(&figures);
	lk_buf_release(&b);
	return ret;
}
