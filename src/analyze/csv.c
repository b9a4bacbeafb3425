/*
 * CSV input through libcsv (RFC 4180): quoted fields, CRLF or LF, a
 * header row. libcsv knows no comments, so the text is fed a line at a
 * time and a line starting with '#' where no record has begun is skipped.
 */
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

struct reader {
	struct lk_ctx *ctx;
	const char *file;
	struct lk_strv row;      /* the record being read */
	long line, row_line;
	struct lk_csv *out;
	size_t alloc_cells, alloc_rows;
	int failed;
};

static void on_field(void *s, size_t len, void *data)
{
	struct reader *r = data;

	lk_strv_push_take(&r->row, lk_strndup(s ? s : "", s ? len : 0));
}

static int take_header(struct reader *r)
{
	size_t i, j;

	for (i = 0; i < r->row.n; i++) {
		if (!*r->row.v[i])
			return lk_error_at(r->ctx, LK_EINPUT, r->file,
					   r->row_line, "column %zu: empty "
					   "header name", i + 1);
		for (j = 0; j < i; j++)
			if (!strcmp(r->row.v[i], r->row.v[j]))
				return lk_error_at(r->ctx, LK_EINPUT, r->file,
						   r->row_line, "column '%s' "
						   "twice in the header",
						   r->row.v[i]);
	}
	r->out->ncols = r->row.n;
	r->out->header_line = r->row_line;
	r->out->header = r->row.v;
	memset(&r->row, 0, sizeof(r->row));
	return 0;
}

static int take_row(struct reader *r)
{
	struct lk_csv *c = r->out;

	if (r->row.n != c->ncols)
		return lk_error_at(r->ctx, LK_EINPUT, r->file, r->row_line,
				   "%zu fields, the header has %zu",
				   r->row.n, c->ncols);
	LK_GROW(c->cells, (c->nrows + 1) * c->ncols, r->alloc_cells);
	LK_GROW(c->lines, c->nrows + 1, r->alloc_rows);
	memcpy(&c->cells[c->nrows * c->ncols], r->row.v,
	       c->ncols * sizeof(char *));
	c->lines[c->nrows++] = r->row_line;
	free(r->row.v);
	memset(&r->row, 0, sizeof(r->row));
	return 0;
}

static void on_record(int term, void *data)
{
	struct reader *r = data;

	(void)term;
	if (r->failed) {
		lk_strv_release(&r->row);
		return;
	}
	if (!r->out->header)
		r->failed = take_header(r) != 0;
	else
		r->failed = take_row(r) != 0;
	lk_strv_release(&r->row);
}

/* A line at [s, s + len), newline included; 0 or the error set. */
static int feed_line(struct reader *r, struct csv_parser *p, const char *s,
		     size_t len)
{
	if (p->pstate == 0) {
		r->row_line = r->line;
		if (len && s[0] == '#')
			return 0;
	}
	if (csv_parse(p, s, len, on_field, on_record, r) != len && !r->failed)
		return lk_error_at(r->ctx, LK_EINPUT, r->file, r->line, "%s",
				   csv_strerror(csv_error(p)));
	return r->failed ? LK_EINPUT : 0;
}

static int feed(struct reader *r, struct csv_parser *p, const char *data,
		size_t len)
{
	size_t at = lk_text_bom(data, len);
	int ret = 0;

	if (memchr(data, '\0', len))
		return lk_error_at(r->ctx, LK_EINPUT, r->file, 0,
				   "a NUL byte: not a text file");
	while (!ret && at < len) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - data) - at + 1 : len - at;

		r->line++;
		ret = feed_line(r, p, data + at, n);
		at += n;
	}
	if (!ret && csv_fini(p, on_field, on_record, r) && !r->failed)
		ret = lk_error_at(r->ctx, LK_EINPUT, r->file, r->row_line,
				  "%s", csv_strerror(csv_error(p)));
	if (!ret && r->failed)
		ret = LK_EINPUT;
	return ret;
}

int lk_csv_parse(struct lk_ctx *ctx, const char *file, const char *data,
		 size_t len, struct lk_csv *out)
{
	struct reader r = {ctx, file, LK_STRV_INIT, 0, 1, out, 0, 0, 0};
	struct csv_parser p;
	int ret;

	memset(out, 0, sizeof(*out));
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL))
		LK_BUG("csv_init");
	ret = feed(&r, &p, data, len);
	csv_free(&p);
	lk_strv_release(&r.row);
	if (!ret && !out->header)
		ret = lk_error_at(ctx, LK_EINPUT, file, 0, "no header row");
	if (ret)
		lk_csv_release(out);
	return ret;
}

void lk_csv_release(struct lk_csv *csv)
{
	size_t i;

	if (!csv)
		return;
	for (i = 0; i < csv->ncols; i++)
		free(csv->header[i]);
	for (i = 0; i < csv->nrows * csv->ncols; i++)
		free(csv->cells[i]);
	free(csv->header);
	free(csv->cells);
	free(csv->lines);
	memset(csv, 0, sizeof(*csv));
}
