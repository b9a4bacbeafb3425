/*
 * gnuplot, run on a script and data files in a scratch directory, its
 * SVG on stdout; and the house style every plot shares.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/plot.h"
#include "loopkit/subprocess.h"

#define GNUPLOT_TIMEOUT 60.0

/* Okabe and Ito's palette: tells colours apart for most eyes. */
static const char *const colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7",
	"#e69f00", "#56b4e9", "#000000", "#f0e442",
};
static const int point_types[] = {7, 5, 9, 11, 13, 6, 4, 8};

void lk_plot_add_string(struct lk_buf *b, const char *s)
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

int lk_plotdir_write(struct lk_ctx *ctx, struct lk_plotdir *pd,
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

void lk_plotdir_release(struct lk_plotdir *pd)
{
	size_t i;

	for (i = 0; i < pd->files.n; i++)
		unlink(pd->files.v[i]);
	if (pd->dir)
		rmdir(pd->dir);
	lk_strv_release(&pd->files);
	free(pd->dir);
	pd->dir = NULL;
}

int lk_plotdir_init(struct lk_ctx *ctx, struct lk_plotdir *pd,
		    const char *what)
{
	const char *tmp = getenv("TMPDIR");

	memset(pd, 0, sizeof(*pd));
	pd->dir = lk_asprintf("%s/lk-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
			      what);
	if (!mkdtemp(pd->dir)) {
		int ret = lk_error_errno(ctx, "cannot make a directory for "
					 "the plots' data (%s)", pd->dir);

		free(pd->dir);
		pd->dir = NULL;
		return ret;
	}
	return 0;
}

int lk_plot_run(struct lk_ctx *ctx, const char *gnuplot,
		const struct lk_plotdir *pd, const char *script, char **svg)
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

void lk_plot_terminal(struct lk_buf *b, int width, int height)
{
	lk_buf_addf(b, "set terminal svg size %d,%d noenhanced "
		       "font 'sans,12' background '#ffffff'\n"
		       "set encoding utf8\n"
		       "set grid lc rgb '#dddddd'\n"
		       "set border lc rgb '#444444'\n"
		       "set key outside below center vertical "
		       "maxrows 4 nobox\n",
		    width, height);
}

const char *lk_plot_colour(size_t i)
{
	return colours[i % LK_ARRAY_SIZE(colours)];
}

/* Past this many points a series is drawn smaller and half transparent,
 * so that a dense cloud still shows where it is dense. */
#define DENSE_SERIES 100

void lk_plot_series_style(struct lk_buf *b, size_t i, const char *with,
			  size_t npoints)
{
	const char *colour = lk_plot_colour(i);
	int dense = npoints > DENSE_SERIES;

	/* gnuplot's '#AARRGGBB': alpha 0x80 is opacity 0.5. */
	lk_buf_addf(b, " with %s lc rgb '#%s%s'", with, dense ? "80" : "",
		    colour + 1);
	if (!strcmp(with, "points"))
		lk_buf_addf(b, " pt %d ps %s",
			    point_types[i % LK_ARRAY_SIZE(point_types)],
			    dense ? "0.5" : "0.9");
	else
		lk_buf_adds(b, " lw 2");
}

/* A log axis spanning less than a decade still gets labels. */
void lk_plot_log_tics(struct lk_buf *b, const char *axis, double lo,
		      double hi)
{
	static const double steps[] = {1, 2, 5};
	double decade = pow(10, floor(log10(lo)));
	/* 1, 2, 5 per decade over two decades at most, else decades. */
	size_t nsteps = log10(hi / lo) > 2 ? 1 : LK_ARRAY_SIZE(steps);
	int n = 0;

	lk_buf_addf(b, "set %stics (", axis);
	for (; decade <= hi && n < 60; decade *= 10) {
		for (size_t i = 0; i < nsteps; i++) {
			double t = steps[i] * decade;

			if (t < lo || t > hi)
				continue;
			lk_buf_addf(b, "%s'%g' %.17g", n++ ? ", " : "", t, t);
		}
	}
	lk_buf_adds(b, ")\n");
	if (!n)
		lk_buf_addf(b, "set %stics autofreq\n", axis);
}
