/*
 * cachegrind.out, read directly: header lines ("desc:", "cmd:",
 * "events: Ir I1mr ..."), then "fl=FILE" and "fn=NAME" lines opening a
 * block of cost lines "LINE COUNT COUNT ...", then "summary:". One
 * function may appear under several files (code inlined from headers):
 * its blocks are summed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/filter.h"

static const char *const event_names[LK_CG_NEVENTS] = {
	"Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw"};

#define MAX_COLUMNS 64

struct cg_parse {
	struct lk_ctx *ctx;
	const char *name;
	long lineno;
	int columns[MAX_COLUMNS]; /* column -> event, -1: ignored */
	int ncolumns;             /* -1 until the events line */
	int in_fn;                /* the current fn= is the one wanted */
};

static int parse_error(struct cg_parse *p, const char *what)
{
	return lk_error_at(p->ctx, LK_EINPUT, p->name, p->lineno, "%s", what);
}

static int event_index(const char *word, size_t len)
{
	for (int e = 0; e < LK_CG_NEVENTS; e++)
		if (strlen(event_names[e]) == len &&
		    !memcmp(event_names[e], word, len))
			return e;
	return -1;
}

static int parse_events(struct cg_parse *p, const char *s)
{
	p->ncolumns = 0;
	for (;;) {
		size_t len;

		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (!len)
			break;
		if (p->ncolumns == MAX_COLUMNS)
			return parse_error(p, "more than 64 events");
		p->columns[p->ncolumns++] = event_index(s, len);
		s += len;
	}
	if (!p->ncolumns)
		return parse_error(p, "an events line naming no event");
	return 0;
}

static int parse_number(const char **s, uint64_t *out)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*out = strtoull(*s, &end, 10);
	if (errno || (*end && *end != ' ' && *end != '\t'))
		return -1;
	*s = end;
	return 0;
}

static int parse_costs(struct cg_parse *p, const char *s,
		       struct lk_cg_counts *out)
{
	uint64_t v;
	int col;

	if (p->ncolumns < 0)
		return parse_error(p, "a cost line before the events line");
	if (parse_number(&s, &v))
		return parse_error(p, "a line number that is not a number");
	for (col = 0;; col++) {
		s += strspn(s, " \t");
		if (!*s)
			break;
		if (col == p->ncolumns)
			return parse_error(p, "more counts than events");
		if (parse_number(&s, &v))
			return parse_error(p, "a count that is not a number");
		if (p->in_fn && p->columns[col] >= 0)
			out->ev[p->columns[col]] += v;
	}
	out->lines += p->in_fn;
	return 0;
}

/* One line, NUL-terminated, without its newline. */
static int parse_line(struct cg_parse *p, const char *line, const char *fn,
		      struct lk_cg_counts *out)
{
	if (!*line)
		return 0;
	if (!strncmp(line, "events:", 7))
		return parse_events(p, line + 7);
	if (!strncmp(line, "fn=", 3)) {
		p->in_fn = !strcmp(line + 3, fn);
		return 0;
	}
	if (!strncmp(line, "fl=", 3))
		return 0;
	if (*line >= '0' && *line <= '9')
		return parse_costs(p, line, out);
	/* desc:, cmd:, summary:, positions: and any later header. */
	if (strchr(line, ':') && strspn(line, "abcdefghijklmnopqrstuvwxyz") ==
					 (size_t)(strchr(line, ':') - line))
		return 0;
	return parse_error(p, "not a cachegrind.out line");
}

int lk_cachegrind_function(struct lk_ctx *ctx, const char *name,
			   const char *text, size_t len, const char *fn,
			   struct lk_cg_counts *out)
{
	struct cg_parse p = {ctx, name, 0, {0}, -1, 0};
	struct lk_buf line = LK_BUF_INIT;
	size_t i = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	while (!ret && i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		p.lineno++;
		lk_buf_reset(&line);
		lk_buf_add(&line, text + i, n);
		if (memchr(text + i, '\0', n))
			ret = parse_error(&p, "a NUL byte");
		else
			ret = parse_line(&p, lk_buf_str(&line), fn, out);
		i += n + 1;
	}
	if (!ret && p.ncolumns < 0)
		ret = lk_error_at(ctx, LK_EINPUT, name, 0,
				  "no events line: not a cachegrind.out file");
	lk_buf_release(&line);
	return ret;
}

int lk_l1_warm_ratio(struct lk_ctx *ctx, const struct lk_cg_counts *a,
		     const struct lk_cg_counts *b, double *ratio,
		     double *reads)
{
	double dr = (double)b->ev[LK_CG_DR] - (double)a->ev[LK_CG_DR];
	double dw = (double)b->ev[LK_CG_DW] - (double)a->ev[LK_CG_DW];
	double mr = (double)b->ev[LK_CG_D1MR] - (double)a->ev[LK_CG_D1MR];
	double mw = (double)b->ev[LK_CG_D1MW] - (double)a->ev[LK_CG_D1MW];

	if (dr + dw <= 0)
		return lk_error(ctx, LK_EINPUT, "the extra kernel calls made "
				"no data accesses (%.0f reads, %.0f writes)",
				dr, dw);
	/* A miss count can drop a little between runs (placement): a warm
	 * cache does not miss less than never, and reads do not make up
	 * for writes. */
	mr = mr > 0 ? mr : 0;
	mw = mw > 0 ? mw : 0;
	*ratio = (mr + mw) / (dr + dw);
	*reads = dr > 0 ? mr / dr : -1;
	return 0;
}
