/*
 * plot: what the stages that draw and publish share: gnuplot run on a
 * script in a scratch directory (SVG out), the palette and series
 * styles, SVG made fit to sit inline in a page, and HTML writing
 * (escaping, table cells, the page shell). Each stage keeps its own
 * plots and page layout; this layer knows nothing of them.
 */
#ifndef LOOPKIT_PLOT_H
#define LOOPKIT_PLOT_H

#include <stddef.h>

#include "core.h"

/* ---- gnuplot. ---- */

/* A scratch directory for a plot's script and data files. */
struct lk_plotdir {
	char *dir;
	struct lk_strv files; /* written, to remove */
};

/*
 * Make a fresh directory $TMPDIR/lk-<what>-XXXXXX (/tmp without TMPDIR).
 * Returns 0, or < 0 with the error in ctx (pd then needs no release).
 */
int lk_plotdir_init(struct lk_ctx *ctx, struct lk_plotdir *pd,
		    const char *what);
/* Remove the files written and the directory; free pd's memory. */
void lk_plotdir_release(struct lk_plotdir *pd);
/* Write text to pd->dir/name, to be removed with pd. 0 or < 0 (ctx). */
int lk_plotdir_write(struct lk_ctx *ctx, struct lk_plotdir *pd,
		     const char *name, const struct lk_buf *text);

/*
 * Run gnuplot (the program's path or name) on the script 'script' in
 * pd->dir, with a timeout. On success *svg gets what it wrote on stdout
 * (LK_GIVE, an SVG document); a failure, a timeout or output without
 * "<svg" is LK_ECHILD with gnuplot's first line of stderr in ctx.
 */
int lk_plot_run(struct lk_ctx *ctx, const char *gnuplot,
		const struct lk_plotdir *pd, const char *script,
		LK_GIVE char **svg);

/* Append s as a gnuplot single-quoted string ('' for a quote, control
 * bytes as spaces). */
void lk_plot_add_string(struct lk_buf *b, const char *s);
/* The svg terminal and the house style (grid, border, key below). */
void lk_plot_terminal(struct lk_buf *b, int width, int height);
/* Series i's colour, "#rrggbb", from Okabe and Ito's palette (cycles). */
const char *lk_plot_colour(size_t i);
/*
 * " with <with> lc rgb ... [pt N ps S | lw 2]" for series i: points
 * for "points", lines otherwise. Past 100 points a series is drawn
 * smaller and half transparent.
 */
void lk_plot_series_style(struct lk_buf *b, size_t i, const char *with,
			  size_t npoints);
/* "set <axis>tics (...)" at 1, 2 and 5 times the powers of ten in
 * [lo, hi] (decades only past two decades); lo, hi > 0. */
void lk_plot_log_tics(struct lk_buf *b, const char *axis, double lo,
		      double hi);

/* ---- SVG. ---- */

/*
 * Copy an SVG document (from gnuplot) into b for inlining in HTML: no
 * XML prolog, every id (and reference to one) prefixed with 'prefix',
 * so that two plots on one page do not share ids. Text outside tags
 * and comments are copied unchanged; nothing without "<svg".
 */
void lk_svg_inline(struct lk_buf *b, const char *svg, const char *prefix);

/* ---- HTML. ---- */

/* Append s as HTML text: & < > " ' escaped. */
void lk_html_add_text(struct lk_buf *b, const char *s);
/* <tag class="cls">text</tag>, text escaped; cls NULL: no class. */
void lk_html_tag_text(struct lk_buf *b, const char *tag, const char *cls,
		      const char *text);
/* <td>n</td>; an empty cell for n < 0. */
void lk_html_td_count(struct lk_buf *b, long n);
/* <td>v by fmt</td>; a dash for a value that is not finite. */
void lk_html_td_num(struct lk_buf *b, const char *fmt, double v);
/*
 * The page's head: doctype, <html lang="en">, UTF-8, the title
 * (escaped), the inline style sheet css (copied as is), then <body>.
 * lk_html_page_end closes body and html.
 */
void lk_html_page_begin(struct lk_buf *b, const char *title,
			const char *css);
void lk_html_page_end(struct lk_buf *b);

#endif
