/*
 * Typed tables from CSV: row filters with the sweep's selector
 * semantics, numeric or label-encoded columns (sorted, as scikit-learn's
 * LabelEncoder), row selection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

static int check_keys(struct lk_ctx *ctx, const char *file,
		      const struct lk_csv *csv, const struct lk_selector *w)
{
	size_t i, j;

	for (i = 0; w && i < w->nconds; i++) {
		for (j = 0; j < csv->ncols; j++)
			if (!strcmp(csv->header[j], w->conds[i].key))
				break;
		if (j == csv->ncols)
			return lk_error_at(ctx, LK_EINPUT, file,
					   csv->header_line, "--where: "
					   "unknown column '%s'",
					   w->conds[i].key);
	}
	return 0;
}

static int row_matches(const struct lk_csv *csv, size_t row,
		       const struct lk_selector *w)
{
	const char *name;
	size_t i, j;

	for (i = 0; w && i < w->nconds; i++) {
		for (j = 0; strcmp(csv->header[j], w->conds[i].key); j++)
			;
		name = csv->cells[row * csv->ncols + j];
		if (!lk_selector_cond_holds(&w->conds[i], &name, 1))
			return 0;
	}
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t label_index(char **labels, size_t n, const char *s)
{
	char **hit = bsearch(&s, labels, n, sizeof(*labels), cmp_str);

	return (size_t)(hit - labels);
}

static void encode(struct lk_column *c, const char **cells, size_t n)
{
	size_t i, k = 0;

	c->categorical = 1;
	c->labels = lk_calloc(n + 1, sizeof(*c->labels));
	for (i = 0; i < n; i++)
		if (*cells[i])
			c->labels[k++] = (char *)cells[i];
	qsort(c->labels, k, sizeof(*c->labels), cmp_str);
	for (i = 0; i < k; i++)
		if (!c->nlabels || strcmp(c->labels[c->nlabels - 1],
					  c->labels[i]))
			c->labels[c->nlabels++] = c->labels[i];
	for (i = 0; i < c->nlabels; i++)
		c->labels[i] = lk_strdup(c->labels[i]);
	for (i = 0; i < n; i++)
		c->v[i] = *cells[i] ? (double)label_index(c->labels,
							  c->nlabels, cells[i])
				    : NAN;
}

static void type_column(struct lk_column *c, const char **cells, size_t n)
{
	size_t i;

	c->v = lk_calloc(n ? n : 1, sizeof(*c->v));
	for (i = 0; i < n; i++) {
		if (!*cells[i])
			c->v[i] = NAN;
		else if (lk_parse_double(cells[i], &c->v[i]) ||
			 !isfinite(c->v[i]))
			break;
	}
	if (i < n)
		encode(c, cells, n);
}

int lk_table_from_csv(struct lk_ctx *ctx, const char *file,
		      const struct lk_csv *csv, const struct lk_selector *where,
		      struct lk_table *out)
{
	const char **cells = lk_calloc(csv->nrows + 1, sizeof(*cells));
	size_t *rows = lk_calloc(csv->nrows + 1, sizeof(*rows));
	size_t i, j, n = 0;
	int ret = check_keys(ctx, file, csv, where);

	memset(out, 0, sizeof(*out));
	for (i = 0; !ret && i < csv->nrows; i++)
		if (row_matches(csv, i, where))
			rows[n++] = i;
	out->file = lk_strdup(file);
	out->nrows = n;
	out->dropped_filter = csv->nrows - n;
	out->header_line = csv->header_line;
	out->lines = lk_calloc(n + 1, sizeof(*out->lines));
	for (i = 0; i < n; i++)
		out->lines[i] = csv->lines[rows[i]];
	out->ncols = ret ? 0 : csv->ncols;
	out->cols = lk_calloc(csv->ncols + 1, sizeof(*out->cols));
	for (j = 0; j < out->ncols; j++) {
		for (i = 0; i < n; i++)
			cells[i] = csv->cells[rows[i] * csv->ncols + j];
		out->cols[j].name = lk_strdup(csv->header[j]);
		type_column(&out->cols[j], cells, n);
	}
	free(cells);
	free(rows);
	if (ret)
		lk_table_release(out);
	return ret;
}

void lk_table_release(struct lk_table *t)
{
	size_t i, j;

	if (!t)
		return;
	for (i = 0; i < t->ncols; i++) {
		for (j = 0; j < t->cols[i].nlabels; j++)
			free(t->cols[i].labels[j]);
		free(t->cols[i].labels);
		free(t->cols[i].name);
		free(t->cols[i].v);
	}
	free(t->cols);
	free(t->lines);
	free(t->file);
	memset(t, 0, sizeof(*t));
}

int lk_table_find(const struct lk_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].name, name))
			return (int)i;
	return -1;
}

void lk_table_add(struct lk_table *t, const char *name, double *v)
{
	struct lk_column *c;

	t->cols = lk_reallocarray(t->cols, t->ncols + 1, sizeof(*t->cols));
	c = memset(&t->cols[t->ncols++], 0, sizeof(*c));
	c->name = lk_strdup(name);
	c->v = v;
}

void lk_table_keep(struct lk_table *t, const unsigned char *keep)
{
	size_t i, j, n = 0;

	for (i = 0; i < t->nrows; i++) {
		if (!keep[i])
			continue;
		for (j = 0; j < t->ncols; j++)
			t->cols[j].v[n] = t->cols[j].v[i];
		t->lines[n++] = t->lines[i];
	}
	t->nrows = n;
}

static const char *const op_names[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "in", "not-in", NULL,
};

static int parse_values(struct lk_selector_cond *c, const char *list)
{
	const char *s = list, *comma;

	do {
		comma = strchr(s, ',');
		lk_strv_push_take(&c->values, comma ? lk_strndup(s, (size_t)
						      (comma - s))
					    : lk_strdup(s));
		s = comma + 1;
	} while (comma);
	return 0;
}

int lk_where_parse(struct lk_ctx *ctx, const char *text,
		   struct lk_selector *sel)
{
	const char *c1 = strchr(text, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : 0;
	struct lk_selector_cond c = {0};
	double num;
	int op;

	if (!c1 || !c2 || c1 == text)
		return lk_error(ctx, LK_EINPUT, "--where '%s': expected "
				"COLUMN:OP:VALUE", text);
	for (op = 0; op_names[op]; op++)
		if (strlen(op_names[op]) == (size_t)(c2 - c1 - 1) &&
		    !strncmp(op_names[op], c1 + 1, (size_t)(c2 - c1 - 1)))
			break;
	if (!op_names[op])
		return lk_error(ctx, LK_EINPUT, "--where '%s': unknown "
				"operator (eq, ne, lt, le, gt, ge, in, "
				"not-in)", text);
	c.op = (enum lk_selector_op)op;
	parse_values(&c, c2 + 1);
	if (c.op >= LK_SEL_LT && c.op <= LK_SEL_GE &&
	    (c.values.n != 1 || lk_parse_double(c.values.v[0], &num))) {
		lk_strv_release(&c.values);
		return lk_error(ctx, LK_EINPUT, "--where '%s': %s needs one "
				"number", text, op_names[op]);
	}
	c.key = lk_strndup(text, (size_t)(c1 - text));
	sel->conds = lk_reallocarray(sel->conds, sel->nconds + 1,
				     sizeof(*sel->conds));
	sel->conds[sel->nconds++] = c;
	return 0;
}

int lk_normalize(struct lk_ctx *ctx, const char *what, enum lk_normalize how,
		 double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, m = 0, s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
		m += v[i] / (double)n;
	}
	if (how == LK_NORM_LOG && n && !(lo > 0))
		return lk_error(ctx, LK_EINPUT, "--normalize log: '%s' has "
				"a value <= 0 (%g)", what, lo);
	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	s = n ? sqrt(s / (double)n) : 0;
	for (i = 0; i < n; i++) {
		if (how == LK_NORM_MINMAX)
			v[i] = hi > lo ? (v[i] - lo) / (hi - lo) : 0;
		else if (how == LK_NORM_ZSCORE)
			v[i] = s > 0 ? (v[i] - m) / s : 0;
		else if (how == LK_NORM_LOG)
			v[i] = log(v[i]);
	}
	return 0;
}
