/*
 * HTML writing shared by the pages loopkit makes: one self-contained
 * page (inline CSS and SVG, no script, no external resource); every
 * text from a store or a user goes through lk_html_add_text.
 */
#include <math.h>

#include "loopkit/plot.h"

void lk_html_add_text(struct lk_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': lk_buf_adds(b, "&amp;"); break;
		case '<': lk_buf_adds(b, "&lt;"); break;
		case '>': lk_buf_adds(b, "&gt;"); break;
		case '"': lk_buf_adds(b, "&quot;"); break;
		case '\'': lk_buf_adds(b, "&#39;"); break;
		default: lk_buf_addch(b, *s);
		}
	}
}

void lk_html_tag_text(struct lk_buf *b, const char *tag, const char *cls,
		      const char *text)
{
	lk_buf_addf(b, "<%s%s%s%s>", tag, cls ? " class=\"" : "",
		    cls ? cls : "", cls ? "\"" : "");
	lk_html_add_text(b, text);
	lk_buf_addf(b, "</%s>", tag);
}

void lk_html_td_count(struct lk_buf *b, long n)
{
	if (n < 0)
		lk_buf_adds(b, "<td></td>");
	else
		lk_buf_addf(b, "<td>%ld</td>", n);
}

void lk_html_td_num(struct lk_buf *b, const char *fmt, double v)
{
	if (!isfinite(v)) {
		lk_buf_adds(b, "<td>&ndash;</td>");
		return;
	}
	lk_buf_adds(b, "<td>");
	lk_buf_addf(b, fmt, v);
	lk_buf_adds(b, "</td>");
}

void lk_html_page_begin(struct lk_buf *b, const char *title,
			const char *css)
{
	lk_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		       "<meta charset=\"utf-8\">\n<title>");
	lk_html_add_text(b, title);
	lk_buf_addf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

void lk_html_page_end(struct lk_buf *b)
{
	lk_buf_adds(b, "</body>\n</html>\n");
}
