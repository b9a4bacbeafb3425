/*
 * gnuplot's SVG, made fit to sit inline in an HTML page next to another
 * one: the XML prolog goes, and every id gnuplot gives (gpPt0,
 * gnuplot_canvas, ...) gets a per-plot prefix, as do the references to
 * them, so two plots do not share ids. Text between tags is copied
 * unchanged (gnuplot escapes < and & in it).
 */
#include <string.h>

#include "loopkit/plot.h"

/* Rewrite one tag, from '<' to its '>' (or the end): returns its end. */
static const char *copy_tag(struct lk_buf *b, const char *p,
			    const char *prefix)
{
	char quote = 0;

	while (*p) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '>') {
			lk_buf_addch(b, *p);
			return p + 1;
		}
		if (!quote && (!strncmp(p, "id=\"", 4) ||
			       !strncmp(p, "id='", 4)) &&
		    (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n')) {
			lk_buf_add(b, p, 4);
			lk_buf_adds(b, prefix);
			p += 4;
			quote = p[-1];
			continue;
		}
		if (!strncmp(p, "href='#", 7) || !strncmp(p, "href=\"#", 7)) {
			lk_buf_add(b, p, 7);
			lk_buf_adds(b, prefix);
			quote = p[5];
			p += 7;
			continue;
		}
		if (!strncmp(p, "url(#", 5)) {
			lk_buf_add(b, p, 5);
			lk_buf_adds(b, prefix);
			p += 5;
			continue;
		}
		lk_buf_addch(b, *p++);
	}
	return p;
}

void lk_svg_inline(struct lk_buf *b, const char *svg, const char *prefix)
{
	const char *p = strstr(svg, "<svg");

	if (!p)
		return;
	while (*p) {
		if (*p == '<') {
			/* Comments and the like are copied as they are. */
			if (!strncmp(p, "<!--", 4)) {
				const char *end = strstr(p, "-->");

				end = end ? end + 3 : p + strlen(p);
				lk_buf_add(b, p, (size_t)(end - p));
				p = end;
				continue;
			}
			lk_buf_addch(b, *p++);
			p = copy_tag(b, p, prefix);
			continue;
		}
		lk_buf_addch(b, *p++);
	}
}
