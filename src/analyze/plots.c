/*
 * The analysis' plots, drawn by gnuplot (the plot layer runs it): the
 * target's density with the category cuts, centroids and a rug; the
 * features' importance as bars with their std; the confusion matrix;
 * and the grouped line or scatter plots the options ask for.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/plot.h"
#include "loopkit/subprocess.h"
#include "analyze-int.h"

/* Write data, run script; *svg gets the SVG. */
static int draw(struct lk_analysis *a, struct lk_plotdir *pd,
		const char *name, const struct lk_buf *data,
		struct lk_buf *script, const char *gnuplot, char **svg)
{
	char *file = lk_asprintf("%s.gp", name);
	char *dat = lk_asprintf("%s.dat", name);
	int ret = lk_plotdir_write(a->ctx, pd, dat, data);

	if (!ret)
		ret = lk_plotdir_write(a->ctx, pd, file, script);
	if (!ret)
		ret = lk_plot_run(a->ctx, gnuplot, pd, file, svg);
	free(file);
	free(dat);
	return ret;
}

/* The target's density (KDE) or a rug alone, the cuts and centroids. */
static int density_plot(struct lk_analysis *a, struct lk_plotdir *pd,
			const char *gnuplot, char **svg)
{
	const struct lk_categories *c = &a->cats;
	const double *y = a->t.cols[a->target].v;
	struct lk_buf d = LK_BUF_INIT, s = LK_BUF_INIT;
	double top = 0;
	size_t i;
	int ret;

	for (i = 0; i < c->ngrid; i++)
		top = fmax(top, c->density[i]);
	top = top > 0 ? top : 1;
	/* Block 0: the density; 1: the rug; 2: the centroids. */
	for (i = 0; i < c->ngrid; i++)
		lk_buf_addf(&d, "%.17g %.17g\n", c->grid[i], c->density[i]);
	lk_buf_adds(&d, c->ngrid ? "\n\n" : "0 0\n\n\n");
	for (i = 0; i < a->t.nrows; i++)
		lk_buf_addf(&d, "%.17g 0\n", y[i]);
	lk_buf_adds(&d, "\n\n");
	for (i = 0; i < c->n; i++)
		lk_buf_addf(&d, "%.17g %.17g\n", c->list[i].centroid,
			    top * 1.02);
	lk_plot_terminal(&s, 640, 360);
	lk_buf_adds(&s, "set xlabel ");
	lk_plot_add_string(&s, a->o->target);
	lk_buf_addf(&s, "\nset ylabel '%s'\nset yrange [%.17g:%.17g]\n",
		    c->ngrid ? "density" : "", -0.06 * top, 1.1 * top);
	for (i = 0; i < c->ncuts; i++)
		lk_buf_addf(&s, "set arrow from %.17g, graph 0 to %.17g, "
			    "graph 1 nohead dt 2 lc rgb '#555555'\n",
			    c->cuts[i], c->cuts[i]);
	lk_buf_adds(&s, "plot 'density.dat' index 0 using 1:2");
	lk_plot_series_style(&s, 0, "lines", 0);
	lk_buf_adds(&s, c->ngrid ? " title 'density'" : " notitle");
	lk_buf_addf(&s, ", '' index 1 using 1:(%.17g):(0):(%.17g) with "
		    "vectors nohead lc rgb '#80000000' title 'values (rug)'",
		    -0.05 * top, 0.04 * top);
	lk_buf_adds(&s, ", '' index 2 using 1:2");
	lk_plot_series_style(&s, 1, "points", 0);
	lk_buf_adds(&s, " title 'centroids'\n");
	ret = draw(a, pd, "density", &d, &s, gnuplot, svg);
	lk_buf_release(&d);
	lk_buf_release(&s);
	return ret;
}

/* Bars: the tree's MDI, the forest's MDI and permutation (+- std). */
static int importance_plot(struct lk_analysis *a, struct lk_plotdir *pd,
			   const char *gnuplot, char **svg)
{
	struct lk_buf d = LK_BUF_INIT, s = LK_BUF_INIT;
	int forest = a->o->forest > 0, ret;
	size_t f;

	for (f = 0; f < a->nfeat; f++) {
		lk_buf_addf(&d, "%zu %.17g", f, a->tree.importance[f]);
		if (forest)
			lk_buf_addf(&d, " %.17g %.17g %.17g %.17g",
				    a->forest.importance[f],
				    a->forest.importance_std[f],
				    a->perm_mean[f], a->perm_std[f]);
		lk_buf_adds(&d, "\n");
	}
	lk_plot_terminal(&s, 640, 80 + 26 * (int)(a->nfeat < 30 ? a->nfeat
							       : 30) + 200);
	lk_buf_addf(&s, "set style fill solid 0.85 noborder\n"
		    "set ylabel 'importance'\nset yrange [0:*]\n"
		    "set xrange [-0.6:%.1f]\nset xtics rotate by -30 (",
		    (double)a->nfeat - 0.4);
	for (f = 0; f < a->nfeat; f++) {
		lk_buf_adds(&s, f ? ", " : "");
		lk_plot_add_string(&s, a->feat_names[f]);
		lk_buf_addf(&s, " %zu", f);
	}
	lk_buf_addf(&s, ")\nset boxwidth %s\nplot 'importance.dat' using "
		    "($1-%s):2:(%s) with boxes lc rgb '%s' title 'tree MDI'",
		    forest ? "0.27" : "0.6", forest ? "0.28" : "0",
		    forest ? "0.27" : "0.6", lk_plot_colour(0));
	if (forest)
		lk_buf_addf(&s, ", '' using 1:3:(0.27) with boxes lc rgb '%s' "
			    "title 'forest MDI', '' using 1:3:4 with "
			    "yerrorbars lc rgb '#444444' pt -1 notitle, '' "
			    "using ($1+0.28):5:(0.27) with boxes lc rgb '%s' "
			    "title 'permutation', '' using ($1+0.28):5:6 with "
			    "yerrorbars lc rgb '#444444' pt -1 notitle",
			    lk_plot_colour(1), lk_plot_colour(2));
	lk_buf_adds(&s, "\n");
	ret = draw(a, pd, "importance", &d, &s, gnuplot, svg);
	lk_buf_release(&d);
	lk_buf_release(&s);
	return ret;
}

/* The confusion matrix as a heat map with its counts. */
static int confusion_plot(struct lk_analysis *a, struct lk_plotdir *pd,
			  const char *gnuplot, char **svg)
{
	struct lk_buf d = LK_BUF_INIT, s = LK_BUF_INIT;
	size_t i, j, nc = (size_t)a->nclasses;
	int ret;

	for (i = 0; i < nc; i++)
		for (j = 0; j < nc; j++)
			lk_buf_addf(&d, "%zu %zu %zu\n", j, i,
				    a->confusion[i * nc + j]);
	lk_plot_terminal(&s, 520, 480);
	lk_buf_addf(&s, "unset grid\nset xlabel 'predicted'\nset ylabel "
		    "'true'\nset yrange [%.1f:-0.5]\nset xrange [-0.5:%.1f]\n"
		    "set palette defined (0 '#ffffff', 1 '%s')\nset xtics (",
		    (double)nc - 0.5, (double)nc - 0.5, lk_plot_colour(0));
	for (i = 0; i < nc; i++) {
		lk_buf_adds(&s, i ? ", " : "");
		lk_plot_add_string(&s, a->class_names[i]);
		lk_buf_addf(&s, " %zu", i);
	}
	lk_buf_adds(&s, ")\nset ytics (");
	for (i = 0; i < nc; i++) {
		lk_buf_adds(&s, i ? ", " : "");
		lk_plot_add_string(&s, a->class_names[i]);
		lk_buf_addf(&s, " %zu", i);
	}
	lk_buf_adds(&s, ")\nplot 'confusion.dat' using 1:2:3 with image "
		    "notitle, '' using 1:2:(sprintf('%d', $3)) with labels "
		    "tc rgb '#222222' notitle\n");
	ret = draw(a, pd, "confusion", &d, &s, gnuplot, svg);
	lk_buf_release(&d);
	lk_buf_release(&s);
	return ret;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The value of column c on row i as a plot coordinate (a label's index). */
static double coord(const struct lk_column *c, size_t i)
{
	return c->v[i];
}

/* The series of a grouped plot: one per label of a categorical group
 * column, one per distinct value of a numeric one (increasing), or one
 * for every row without a group column. */
struct series {
	const struct lk_column *g;
	double *values;          /* numeric: the distinct values */
	size_t n;
};

static void series_init(struct series *sr, const struct lk_column *g,
			size_t nrows)
{
	size_t i, m = 0;

	sr->g = g;
	sr->values = NULL;
	sr->n = g && g->categorical ? g->nlabels : 1;
	if (!g || g->categorical)
		return;
	sr->values = lk_calloc(nrows + 1, sizeof(*sr->values));
	for (i = 0; i < nrows; i++)
		if (!isnan(g->v[i]))
			sr->values[m++] = g->v[i];
	qsort(sr->values, m, sizeof(*sr->values), cmp_double);
	for (i = 0, sr->n = 0; i < m; i++)
		if (!sr->n || sr->values[i] != sr->values[sr->n - 1])
			sr->values[sr->n++] = sr->values[i];
}

/* The series of row, or (size_t)-1 for a row in none (no group value). */
static size_t series_of(const struct series *sr, size_t row)
{
	size_t lo = 0, hi = sr->n;
	double v;

	if (!sr->g)
		return 0;
	if (sr->g->categorical)
		return (size_t)sr->g->v[row];
	v = sr->g->v[row];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sr->values[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sr->n && sr->values[lo] == v ? lo : (size_t)-1;
}

/* The legend's title of series k. */
static void series_title(const struct series *sr, size_t k,
			 const char *y_name, struct lk_buf *s)
{
	char *t;

	if (!sr->g) {
		lk_plot_add_string(s, y_name);
	} else if (sr->g->categorical) {
		lk_plot_add_string(s, sr->g->labels[k]);
	} else {
		t = lk_asprintf("%s=%.15g", sr->g->name, sr->values[k]);
		lk_plot_add_string(s, t);
		free(t);
	}
}

static void label_tics(struct lk_buf *s, const char *axis,
		       const struct lk_column *c)
{
	size_t i;

	if (!c->categorical)
		return;
	lk_buf_addf(s, "set %stics (", axis);
	for (i = 0; i < c->nlabels && i < 200; i++) {
		lk_buf_adds(s, i ? ", " : "");
		lk_plot_add_string(s, c->labels[i]);
		lk_buf_addf(s, " %zu", i);
	}
	lk_buf_adds(s, ")\n");
}

/* Rows of series k as "x y" lines: every row (scatter), or the mean y
 * per distinct x in increasing x (lines). */
static size_t series_data(const struct lk_analysis *a, const int *col,
			  const struct series *g, size_t k, int scatter,
			  struct lk_buf *d)
{
	const struct lk_column *x = &a->t.cols[col[0]], *y = &a->t.cols[col[1]];
	double *xs = lk_calloc(a->t.nrows + 1, sizeof(*xs));
	size_t i, j, n = 0, points = 0;

	for (i = 0; i < a->t.nrows; i++) {
		if (series_of(g, i) != k || isnan(coord(x, i)) ||
		    isnan(coord(y, i)))
			continue;
		if (scatter) {
			lk_buf_addf(d, "%.17g %.17g\n", coord(x, i),
				    coord(y, i));
			points++;
		} else {
			xs[n++] = coord(x, i);
		}
	}
	qsort(xs, n, sizeof(*xs), cmp_double);
	for (i = 0; i < n; i++) {
		double sum = 0, cnt = 0;

		if (i && xs[i] == xs[i - 1])
			continue;
		for (j = 0; j < a->t.nrows; j++)
			if (series_of(g, j) == k && coord(x, j) == xs[i] &&
			    !isnan(coord(y, j))) {
				sum += coord(y, j);
				cnt++;
			}
		lk_buf_addf(d, "%.17g %.17g\n", xs[i], sum / cnt);
		points++;
	}
	free(xs);
	lk_buf_adds(d, "\n\n");
	return points;
}

/* Plot p: y against x, one series per value of the group column. */
static int grouped_plot(struct lk_analysis *a, struct lk_plotdir *pd,
			const char *gnuplot, size_t p, char **svg)
{
	const struct lk_analysis_plot *pl = &a->o->plots[p];
	int col[3] = {lk_table_find(&a->t, pl->x),
		      pl->y ? lk_table_find(&a->t, pl->y) : a->target,
		      pl->group ? lk_table_find(&a->t, pl->group) : -1};
	struct series g;
	size_t k;
	struct lk_buf d = LK_BUF_INIT, s = LK_BUF_INIT;
	char name[32];
	int ret;

	series_init(&g, col[2] >= 0 ? &a->t.cols[col[2]] : NULL, a->t.nrows);

	lk_plot_terminal(&s, 640, 400);
	lk_buf_adds(&s, "set xlabel ");
	lk_plot_add_string(&s, a->t.cols[col[0]].name);
	lk_buf_adds(&s, "\nset ylabel ");
	lk_plot_add_string(&s, a->t.cols[col[1]].name);
	lk_buf_adds(&s, "\nset offsets graph 0.04, graph 0.04, graph 0.04, "
		    "graph 0.04\n");
	label_tics(&s, "x", &a->t.cols[col[0]]);
	snprintf(name, sizeof(name), "plot%zu", p + 1);
	lk_buf_adds(&s, "plot");
	for (k = 0; k < g.n && k < 64; k++) {
		size_t n = series_data(a, col, &g, k, pl->scatter, &d);

		lk_buf_addf(&s, "%s '%s.dat' index %zu using 1:2", k ? "," : "",
			    name, k);
		lk_plot_series_style(&s, k, pl->scatter ? "points"
							: "linespoints", n);
		lk_buf_adds(&s, " title ");
		series_title(&g, k, a->t.cols[col[1]].name, &s);
	}
	lk_buf_adds(&s, "\n");
	ret = draw(a, pd, name, &d, &s, gnuplot, svg);
	free(g.values);
	lk_buf_release(&d);
	lk_buf_release(&s);
	return ret;
}

/* tree.svg by graphviz dot, or a note saying why there is none. */
static void tree_svg(struct lk_analysis *a, struct lk_plotdir *pd,
		     struct lk_analysis_figs *fg)
{
	char *dot = a->o->dot ? (*a->o->dot ? lk_strdup(a->o->dot) : NULL)
			      : lk_which("dot");
	struct lk_buf b = LK_BUF_INIT;
	char *path;
	struct lk_ctx quiet;

	if (!dot) {
		fg->tree_note = lk_strdup(a->o->dot ? "No drawing of the tree "
					  "was asked for: the tree is shown "
					  "as text." :
					  "graphviz dot is not installed "
					  "(apt-get install graphviz): the "
					  "tree is shown as text.");
		return;
	}
	lk_ctx_init(&quiet);
	lk_tree_dot(&a->tree, a->feat_names, a->feat_cols, a->class_names,
		    &b);
	path = lk_path_join(pd->dir, "tree.dot");
	if (!lk_plotdir_write(&quiet, pd, "tree.dot", &b)) {
		const char *argv[] = {dot, "-Tsvg", path, NULL};

		if (lk_proc_capture(&quiet, argv, 60, &fg->tree_svg) ||
		    !strstr(fg->tree_svg, "<svg")) {
			free(fg->tree_svg);
			fg->tree_svg = NULL;
		}
	}
	if (!fg->tree_svg)
		fg->tree_note = lk_asprintf("graphviz dot failed (%s): the "
					    "tree is shown as text.",
					    quiet.msg[0] ? quiet.msg
							 : "no SVG");
	lk_buf_release(&b);
	free(path);
	free(dot);
}

/* Every gnuplot figure; the first failure becomes the note. */
static void gnuplot_figures(struct lk_analysis *a, struct lk_plotdir *pd,
			    const char *gnuplot, struct lk_analysis_figs *fg)
{
	struct lk_ctx *keep = a->ctx, quiet;
	size_t p;
	int ret = 0;

	lk_ctx_init(&quiet);
	a->ctx = &quiet;
	if (a->cats.n)
		ret = density_plot(a, pd, gnuplot, &fg->density);
	if (!ret && a->nfeat)
		ret = importance_plot(a, pd, gnuplot, &fg->importance);
	if (!ret && !a->regression && a->nclasses > 0)
		ret = confusion_plot(a, pd, gnuplot, &fg->confusion);
	fg->custom = lk_calloc(a->o->nplots + 1, sizeof(*fg->custom));
	fg->ncustom = a->o->nplots;
	for (p = 0; !ret && p < a->o->nplots; p++)
		ret = grouped_plot(a, pd, gnuplot, p, &fg->custom[p]);
	if (ret)
		fg->plot_note = lk_asprintf("gnuplot failed: %s", quiet.msg);
	a->ctx = keep;
}

void lk_analysis_figures(struct lk_analysis *a, struct lk_analysis_figs *fg)
{
	char *gnuplot = a->o->gnuplot ? (*a->o->gnuplot ?
					 lk_strdup(a->o->gnuplot) : NULL)
				      : lk_which("gnuplot");
	struct lk_plotdir pd;

	memset(fg, 0, sizeof(*fg));
	if (lk_plotdir_init(a->ctx, &pd, "analyze")) {
		fg->plot_note = lk_asprintf("no plots: %s", a->ctx->msg);
		fg->tree_note = lk_strdup("no scratch directory: the tree is "
					  "shown as text.");
		free(gnuplot);
		return;
	}
	if (gnuplot)
		gnuplot_figures(a, &pd, gnuplot, fg);
	else if (a->o->gnuplot)
		fg->plot_note = lk_strdup("Plots were not asked for.");
	else
		fg->plot_note = lk_strdup("No plots: gnuplot is not installed "
					  "on the machine that wrote this page "
					  "(apt-get install gnuplot-nox).");
	tree_svg(a, &pd, fg);
	lk_plotdir_release(&pd);
	free(gnuplot);
}

void lk_analysis_figs_release(struct lk_analysis_figs *fg)
{
	size_t p;

	free(fg->density);
	free(fg->importance);
	free(fg->confusion);
	for (p = 0; p < fg->ncustom; p++)
		free(fg->custom[p]);
	free(fg->custom);
	free(fg->tree_svg);
	free(fg->plot_note);
	free(fg->tree_note);
}
