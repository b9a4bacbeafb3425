/*
 * The report's plots, drawn by gnuplot (svg terminal) from data files in
 * a temporary directory: predicted against measured on log-log axes
 * with the y = x line, and the empirical CDF of the relative error, one
 * series per analyzer, on basis 0 (cycles) only. Running gnuplot and
 * the style are the plot layer's (loopkit/plot.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/plot.h"
#include "report-int.h"

/* Points on basis 0 that a log scale can show. */
static int scatter_point(const struct lk_report_variant *v,
			 const struct lk_report_pred *p)
{
	return p->outcome == LK_OUT_COMPARED && v->basis == 0 &&
	       p->value > 0;
}

int report_loglog(struct lk_ctx *ctx, const char *gnuplot,
		  struct lk_plotdir *pd, const struct report_loglog *l,
		  char **svg)
{
	struct lk_buf script = LK_BUF_INIT;
	double lo = l->lo / 1.5, hi = l->hi * 1.5;
	int ret;

	lk_plot_terminal(&script, 530, 500);
	lk_plot_log_tics(&script, "x", lo, hi);
	lk_plot_log_tics(&script, "y", lo, hi);
	lk_buf_addf(&script, "set logscale xy\nset size ratio -1\n"
		    "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n",
		    lo, hi, lo, hi);
	if (l->key)
		lk_buf_addf(&script, "set key %s\n", l->key);
	lk_buf_adds(&script, "set xlabel ");
	lk_plot_add_string(&script, l->xlabel);
	lk_buf_adds(&script, "\nset ylabel ");
	lk_plot_add_string(&script, l->ylabel);
	lk_buf_addf(&script, "\n%s, x with lines dt 2 lw 1.5 lc rgb '#555555' "
		    "title 'y = x'\n", l->series);
	ret = lk_plotdir_write(ctx, pd, l->script, &script);
	if (!ret)
		ret = lk_plot_run(ctx, gnuplot, pd, l->script, svg);
	lk_buf_release(&script);
	return ret;
}

static int scatter(struct lk_ctx *ctx, const struct lk_report *r,
		   const char *gnuplot, struct lk_plotdir *pd, char **svg)
{
	struct lk_buf s = LK_BUF_INIT, data = LK_BUF_INIT;
	double lo = INFINITY, hi = 0;
	size_t a, i, nseries = 0;
	int ret = 0;

	lk_buf_adds(&s, "plot");
	for (a = 0; !ret && a < r->nanalyzers; a++) {
		char name[32];

		size_t npoints = 0;

		lk_buf_reset(&data);
		for (i = 0; i < r->nvariants; i++) {
			const struct lk_report_variant *v = &r->variants[i];
			const struct lk_report_pred *p = &v->preds[a];

			if (!scatter_point(v, p))
				continue;
			npoints++;
			lk_buf_addf(&data, "%.17g %.17g\n", v->measured,
				    p->value);
			lo = fmin(lo, fmin(v->measured, p->value));
			hi = fmax(hi, fmax(v->measured, p->value));
		}
		if (!npoints)
			continue;
		snprintf(name, sizeof(name), "scatter%zu.dat", a);
		ret = lk_plotdir_write(ctx, pd, name, &data);
		lk_buf_addf(&s, "%s '%s' using 1:2", nseries++ ? "," : "",
			    name);
		lk_plot_series_style(&s, a, "points", npoints);
		lk_buf_adds(&s, " title ");
		lk_plot_add_string(&s, r->analyzers[a].label);
	}
	if (!ret && nseries) {
		char *xlabel = lk_asprintf("measured (%s per kernel call)",
					   r->bases[0].metric);
		const struct report_loglog l = {
			"scatter.gp", lk_buf_str(&s), lo, hi, xlabel,
			"predicted (cycles per kernel call)", NULL};

		ret = report_loglog(ctx, gnuplot, pd, &l, svg);
		free(xlabel);
	}
	lk_buf_release(&s);
	lk_buf_release(&data);
	return ret;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The sorted relative errors (percent) of analyzer a on basis 0. */
static size_t errors_of(const struct lk_report *r, size_t a, double *out)
{
	size_t i, n = 0;

	for (i = 0; i < r->nvariants; i++) {
		const struct lk_report_variant *v = &r->variants[i];

		if (v->preds[a].outcome == LK_OUT_COMPARED && v->basis == 0)
			out[n++] = 100 * v->preds[a].rel_error;
	}
	qsort(out, n, sizeof(*out), cmp_double);
	return n;
}

static int cdf(struct lk_ctx *ctx, const struct lk_report *r,
	       const char *gnuplot, struct lk_plotdir *pd, char **svg)
{
	struct lk_buf s = LK_BUF_INIT, data = LK_BUF_INIT;
	double *err = lk_malloc((r->nvariants + 1) * sizeof(*err));
	double lo = INFINITY, hi = -INFINITY;
	size_t a, i, n, nseries = 0;
	int ret = 0;

	lk_buf_adds(&s, "plot");
	for (a = 0; !ret && a < r->nanalyzers; a++) {
		char name[32];

		n = errors_of(r, a, err);
		if (!n)
			continue;
		lk_buf_reset(&data);
		/* A step up at every error, from 0 to 1. */
		lk_buf_addf(&data, "%.17g 0\n", err[0]);
		for (i = 0; i < n; i++)
			lk_buf_addf(&data, "%.17g %.17g\n", err[i],
				    (double)(i + 1) / (double)n);
		lo = fmin(lo, err[0]);
		hi = fmax(hi, err[n - 1]);
		snprintf(name, sizeof(name), "cdf%zu.dat", a);
		ret = lk_plotdir_write(ctx, pd, name, &data);
		lk_buf_addf(&s, "%s '%s' using 1:2", nseries++ ? "," : "",
			    name);
		lk_plot_series_style(&s, a, "steps", 0);
		lk_buf_adds(&s, " title ");
		lk_plot_add_string(&s, r->analyzers[a].label);
	}
	if (!ret && nseries) {
		struct lk_buf script = LK_BUF_INIT;
		double pad = fmax(hi - lo, 10) * 0.05;

		lk_plot_terminal(&script, 530, 500);
		lk_buf_addf(&script,
			    "set xrange [%.17g:%.17g]\nset yrange [0:1.02]\n"
			    "set xlabel 'relative error: (predicted - "
			    "measured) / measured, %%'\n"
			    "set ylabel 'fraction of kernels'\n"
			    "set arrow from 0, graph 0 to 0, graph 1 nohead "
			    "dt 2 lc rgb '#555555'\n%s\n",
			    fmin(lo, 0) - pad, fmax(hi, 0) + pad,
			    lk_buf_str(&s));
		ret = lk_plotdir_write(ctx, pd, "cdf.gp", &script);
		if (!ret)
			ret = lk_plot_run(ctx, gnuplot, pd, "cdf.gp", svg);
		lk_buf_release(&script);
	}
	free(err);
	lk_buf_release(&s);
	lk_buf_release(&data);
	return ret;
}

int lk_report_plots(struct lk_ctx *ctx, const struct lk_report *r,
		    const char *gnuplot, char **scatter_svg, char **cdf_svg)
{
	struct lk_plotdir pd;
	int ret;

	*scatter_svg = *cdf_svg = NULL;
	ret = lk_plotdir_init(ctx, &pd, "report");
	if (ret)
		return ret;
	ret = scatter(ctx, r, gnuplot, &pd, scatter_svg);
	if (!ret)
		ret = cdf(ctx, r, gnuplot, &pd, cdf_svg);
	lk_plotdir_release(&pd);
	if (ret) {
		free(*scatter_svg);
		free(*cdf_svg);
		*scatter_svg = *cdf_svg = NULL;
	}
	return ret;
}
