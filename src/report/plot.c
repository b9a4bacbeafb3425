/*
 * The report's plots, drawn by gnuplot (svg terminal) from data files in
 * a temporary directory: predicted against measured on log-log axes
 * with the y = x line, and the empirical CDF of the relative error, one
 * series per analyzer, on basis 0 (cycles) only.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/subprocess.h"
#include "report-int.h"

#define GNUPLOT_TIMEOUT 60.0

/* Okabe and Ito's palette: tells colours apart for most eyes. */
static const char *const colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7",
	"#e69f00", "#56b4e9", "#000000", "#f0e442",
};
static const int point_types[] = {7, 5, 9, 11, 13, 6, 4, 8};

struct plotdir {
	char *dir;
	struct lk_strv files; /* written, to remove */
};

/* A gnuplot single-quoted string: '' for a quote, no control bytes. */
static void add_gp_string(struct lk_buf *b, const char *s)
{
	lk_buf_addch(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			lk_buf_adds(b, "''");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			lk_buf_addch(b, ' ');
		else
			lk_buf_addch(b, *s);
	}
	lk_buf_addch(b, '\'');
}

static int write_file(struct lk_ctx *ctx, struct plotdir *pd,
		      const char *name, const struct lk_buf *text)
{
	char *path = lk_path_join(pd->dir, name);
	int ret = lk_file_write_atomic(ctx, path, lk_buf_str(text),
				       text->len);

	if (!ret)
		lk_strv_push(&pd->files, path);
	free(path);
	return ret;
}

static void plotdir_remove(struct plotdir *pd)
{
	size_t i;

	for (i = 0; i < pd->files.n; i++)
		unlink(pd->files.v[i]);
	if (pd->dir)
		rmdir(pd->dir);
	lk_strv_release(&pd->files);
	free(pd->dir);
}

static int plotdir_make(struct lk_ctx *ctx, struct plotdir *pd)
{
	const char *tmp = getenv("TMPDIR");

	memset(pd, 0, sizeof(*pd));
	pd->dir = lk_asprintf("%s/lk-report-XXXXXX",
			      tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(pd->dir)) {
		int ret = lk_error_errno(ctx, "cannot make a directory for "
					 "the plots' data (%s)", pd->dir);

		free(pd->dir);
		pd->dir = NULL;
		return ret;
	}
	return 0;
}

/* Run gnuplot on script (in pd->dir, where its data files are). */
static int run_gnuplot(struct lk_ctx *ctx, const char *gnuplot,
		       struct plotdir *pd, const char *script, char **svg)
{
	const char *argv[] = {gnuplot, script, NULL};
	struct lk_proc_opts o = {.argv = argv, .cwd = pd->dir,
				 .timeout = GNUPLOT_TIMEOUT,
				 .result_fd = -1};
	struct lk_proc_result res;
	int ret = lk_proc_run(ctx, &o, &res);

	if (!ret && !lk_proc_ok(&res)) {
		char *how = lk_proc_describe(&res, GNUPLOT_TIMEOUT);
		size_t len = strcspn(res.err ? res.err : "", "\n");

		ret = lk_error(ctx, LK_ECHILD, "gnuplot failed (%s)%s%.*s",
			       how, len ? ": " : "", (int)len,
			       res.err ? res.err : "");
		free(how);
	} else if (!ret && !strstr(res.out ? res.out : "", "<svg")) {
		ret = lk_error(ctx, LK_ECHILD, "gnuplot wrote no SVG");
	}
	if (!ret) {
		*svg = res.out;
		res.out = NULL;
	}
	lk_proc_result_release(&res);
	return ret;
}

static void terminal(struct lk_buf *s)
{
	lk_buf_adds(s, "set terminal svg size 530,500 noenhanced "
		       "font 'sans,12' background '#ffffff'\n"
		       "set encoding utf8\n"
		       "set grid lc rgb '#dddddd'\n"
		       "set border lc rgb '#444444'\n"
		       "set key outside below center vertical "
		       "maxrows 4 nobox\n");
}

/* Past this many points a series is drawn smaller and half transparent,
 * so that a dense cloud still shows where it is dense. */
#define DENSE_SERIES 100

static void series_style(struct lk_buf *s, size_t a, const char *with,
			 size_t npoints)
{
	const char *colour = colours[a % LK_ARRAY_SIZE(colours)];
	int dense = npoints > DENSE_SERIES;

	/* gnuplot's '#AARRGGBB': alpha 0x80 is opacity 0.5. */
	lk_buf_addf(s, " with %s lc rgb '#%s%s'", with, dense ? "80" : "",
		    colour + 1);
	if (!strcmp(with, "points"))
		lk_buf_addf(s, " pt %d ps %s",
			    point_types[a % LK_ARRAY_SIZE(point_types)],
			    dense ? "0.5" : "0.9");
	else
		lk_buf_adds(s, " lw 2");
}

/* Points on basis 0 that a log scale can show. */
static int scatter_point(const struct lk_report_variant *v,
			 const struct lk_report_pred *p)
{
	return p->outcome == LK_OUT_COMPARED && v->basis == 0 &&
	       p->value > 0;
}

/* Tics at 1, 2 and 5 times the powers of ten in [lo, hi]: a log axis
 * spanning less than a decade still gets labels. */
static void log_tics(struct lk_buf *s, const char *axis, double lo, double hi)
{
	static const double steps[] = {1, 2, 5};
	double decade = pow(10, floor(log10(lo)));
	/* 1, 2, 5 per decade over two decades at most, else decades. */
	size_t nsteps = log10(hi / lo) > 2 ? 1 : LK_ARRAY_SIZE(steps);
	int n = 0;

	lk_buf_addf(s, "set %stics (", axis);
	for (; decade <= hi && n < 60; decade *= 10) {
		for (size_t i = 0; i < nsteps; i++) {
			double t = steps[i] * decade;

			if (t < lo || t > hi)
				continue;
			lk_buf_addf(s, "%s'%g' %.17g", n++ ? ", " : "", t, t);
		}
	}
	lk_buf_adds(s, ")\n");
	if (!n)
		lk_buf_addf(s, "set %stics autofreq\n", axis);
}

static int scatter(struct lk_ctx *ctx, const struct lk_report *r,
		   const char *gnuplot, struct plotdir *pd, char **svg)
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
		ret = write_file(ctx, pd, name, &data);
		lk_buf_addf(&s, "%s '%s' using 1:2", nseries++ ? "," : "",
			    name);
		series_style(&s, a, "points", npoints);
		lk_buf_adds(&s, " title ");
		add_gp_string(&s, r->analyzers[a].label);
	}
	if (!ret && nseries) {
		struct lk_buf script = LK_BUF_INIT;

		terminal(&script);
		log_tics(&script, "x", lo / 1.5, hi * 1.5);
		log_tics(&script, "y", lo / 1.5, hi * 1.5);
		lk_buf_addf(&script,
			    "set logscale xy\nset size ratio -1\n"
			    "set xrange [%.17g:%.17g]\n"
			    "set yrange [%.17g:%.17g]\n"
			    "set xlabel 'measured (%s per kernel call)'\n"
			    "set ylabel 'predicted (cycles per kernel call)'\n"
			    "%s, x with lines dt 2 lw 1.5 "
			    "lc rgb '#555555' title 'y = x'\n",
			    lo / 1.5, hi * 1.5, lo / 1.5, hi * 1.5,
			    r->bases[0].metric, lk_buf_str(&s));
		ret = write_file(ctx, pd, "scatter.gp", &script);
		if (!ret)
			ret = run_gnuplot(ctx, gnuplot, pd, "scatter.gp", svg);
		lk_buf_release(&script);
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
	       const char *gnuplot, struct plotdir *pd, char **svg)
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
		ret = write_file(ctx, pd, name, &data);
		lk_buf_addf(&s, "%s '%s' using 1:2", nseries++ ? "," : "",
			    name);
		series_style(&s, a, "steps", 0);
		lk_buf_adds(&s, " title ");
		add_gp_string(&s, r->analyzers[a].label);
	}
	if (!ret && nseries) {
		struct lk_buf script = LK_BUF_INIT;
		double pad = fmax(hi - lo, 10) * 0.05;

		terminal(&script);
		lk_buf_addf(&script,
			    "set xrange [%.17g:%.17g]\nset yrange [0:1.02]\n"
			    "set xlabel 'relative error: (predicted - "
			    "measured) / measured, %%'\n"
			    "set ylabel 'fraction of kernels'\n"
			    "set arrow from 0, graph 0 to 0, graph 1 nohead "
			    "dt 2 lc rgb '#555555'\n%s\n",
			    fmin(lo, 0) - pad, fmax(hi, 0) + pad,
			    lk_buf_str(&s));
		ret = write_file(ctx, pd, "cdf.gp", &script);
		if (!ret)
			ret = run_gnuplot(ctx, gnuplot, pd, "cdf.gp", svg);
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
	struct plotdir pd;
	int ret;

	*scatter_svg = *cdf_svg = NULL;
	ret = plotdir_make(ctx, &pd);
	if (ret)
		return ret;
	ret = scatter(ctx, r, gnuplot, &pd, scatter_svg);
	if (!ret)
		ret = cdf(ctx, r, gnuplot, &pd, cdf_svg);
	plotdir_remove(&pd);
	if (ret) {
		free(*scatter_svg);
		free(*cdf_svg);
		*scatter_svg = *cdf_svg = NULL;
	}
	return ret;
}
