/*
 * plot: SVG inlining (ids prefixed in tags only), HTML escaping, cells
 * and the page shell, gnuplot strings, styles and log tics, the scratch
 * directory. gnuplot itself runs in test-report.c's plot tests.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loopkit/plot.h"

TestSuite(plot);

/* ---- Inlining SVG. ---- */

Test(plot, svg_inline_prefixes_ids_only_in_tags)
{
	const char *svg =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n"
		"<svg id=\"c\" xmlns:xlink=\"x\">"
		"<path id='gpPt0' d='M0'/>"
		"<use xlink:href='#gpPt0' filter=\"url(#tb)\"/>"
		"<text>id='no' &lt; href='#no' > url(#no)</text>"
		"<!-- id='kept' --></svg>";
	struct lk_buf b = LK_BUF_INIT;

	lk_svg_inline(&b, svg, "p-");
	cr_assert_str_eq(lk_buf_str(&b),
			 "<svg id=\"p-c\" xmlns:xlink=\"x\">"
			 "<path id='p-gpPt0' d='M0'/>"
			 "<use xlink:href='#p-gpPt0' filter=\"url(#p-tb)\"/>"
			 "<text>id='no' &lt; href='#no' > url(#no)</text>"
			 "<!-- id='kept' --></svg>");
	lk_buf_release(&b);
}

/* ---- HTML. ---- */

Test(plot, html_escapes_the_five_characters)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_html_add_text(&b, "a<b> & \"c\" 'd' é");
	cr_assert_str_eq(lk_buf_str(&b),
			 "a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39; é");
	lk_buf_reset(&b);
	lk_html_tag_text(&b, "td", "t", "<x>");
	lk_html_tag_text(&b, "h1", NULL, "T&T");
	cr_assert_str_eq(lk_buf_str(&b),
			 "<td class=\"t\">&lt;x&gt;</td><h1>T&amp;T</h1>");
	lk_buf_release(&b);
}

Test(plot, html_cells)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_html_td_count(&b, 3);
	lk_html_td_count(&b, -1);
	lk_html_td_num(&b, "%.1f", 2.25);
	lk_html_td_num(&b, "%.1f", NAN);
	lk_html_td_num(&b, "%.1f", INFINITY);
	cr_assert_str_eq(lk_buf_str(&b),
			 "<td>3</td><td></td><td>2.2</td>"
			 "<td>&ndash;</td><td>&ndash;</td>");
	lk_buf_release(&b);
}

Test(plot, html_page_shell)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_html_page_begin(&b, "a <b>", "p{x:1%}");
	lk_html_page_end(&b);
	cr_assert_str_eq(lk_buf_str(&b),
			 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
			 "<meta charset=\"utf-8\">\n<title>a &lt;b&gt;"
			 "</title>\n<style>p{x:1%}</style>\n</head>\n"
			 "<body>\n</body>\n</html>\n");
	lk_buf_release(&b);
}

/* ---- gnuplot scripts. ---- */

Test(plot, gnuplot_string_quotes_and_drops_control_bytes)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_plot_add_string(&b, "it's\ta\nb");
	cr_assert_str_eq(lk_buf_str(&b), "'it''s a b'");
	lk_buf_release(&b);
}

Test(plot, series_style_cycles_the_palette_and_thins_dense_series)
{
	struct lk_buf b = LK_BUF_INIT;

	cr_assert_str_eq(lk_plot_colour(0), "#0072b2");
	cr_assert_str_eq(lk_plot_colour(8), lk_plot_colour(0));
	lk_plot_series_style(&b, 1, "points", 10);
	cr_assert_str_eq(lk_buf_str(&b),
			 " with points lc rgb '#d55e00' pt 5 ps 0.9");
	lk_buf_reset(&b);
	lk_plot_series_style(&b, 0, "points", 101);
	cr_assert_str_eq(lk_buf_str(&b),
			 " with points lc rgb '#800072b2' pt 7 ps 0.5");
	lk_buf_reset(&b);
	lk_plot_series_style(&b, 2, "steps", 0);
	cr_assert_str_eq(lk_buf_str(&b), " with steps lc rgb '#009e73' lw 2");
	lk_buf_release(&b);
}

Test(plot, log_tics_within_and_past_two_decades)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_plot_log_tics(&b, "x", 15, 120);
	cr_assert_str_eq(lk_buf_str(&b),
			 "set xtics ('20' 20, '50' 50, '100' 100)\n");
	lk_buf_reset(&b);
	lk_plot_log_tics(&b, "y", 0.5, 2000);
	cr_assert_str_eq(lk_buf_str(&b),
			 "set ytics ('1' 1, '10' 10, '100' 100, "
			 "'1000' 1000)\n");
	lk_buf_reset(&b);
	/* No 1, 2 or 5 multiple inside: gnuplot's own tics. */
	lk_plot_log_tics(&b, "x", 3, 4);
	cr_assert_str_eq(lk_buf_str(&b),
			 "set xtics ()\nset xtics autofreq\n");
	lk_buf_release(&b);
}

Test(plot, plotdir_removes_what_it_wrote)
{
	struct lk_ctx ctx;
	struct lk_plotdir pd;
	struct lk_buf text = LK_BUF_INIT;
	struct stat st;
	char *dir;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_plotdir_init(&ctx, &pd, "test-plot"), 0);
	cr_assert(strstr(pd.dir, "/lk-test-plot-"));
	lk_buf_adds(&text, "plot x\n");
	cr_assert_eq(lk_plotdir_write(&ctx, &pd, "a.gp", &text), 0);
	cr_assert_eq(stat(pd.files.v[0], &st), 0);
	dir = strdup(pd.dir);
	lk_plotdir_release(&pd);
	cr_assert_neq(stat(dir, &st), 0, "%s is still there", dir);
	free(dir);
	lk_buf_release(&text);
}
