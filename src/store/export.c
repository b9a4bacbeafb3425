/*
 * Export: the store as one tidy table (a row per variant x result of its
 * latest run), in CSV or JSON, for pandas and friends. The rows are built
 * as typed cells first so that both formats print the same table.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

static const char *const head_columns[] = {
	"campaign", "variant", "name", "source", "compiler", "flagset",
	"cflags",
};
static const char *const tail_columns[] = {
	"region", "metric", "value", "unit", "metric_source", "reducer",
	"samples", "spread", "primary", "status", "flags", "reason",
};
#define NHEAD LK_ARRAY_SIZE(head_columns)
#define NTAIL LK_ARRAY_SIZE(tail_columns)

/* A variant's parameters, in order. */
static const char params_sql[] =
	"SELECT name, value FROM variant_params WHERE variant_id = ?1"
	" ORDER BY position";

/* Flush the output buffer to the FILE past this many bytes. */
#define FLUSH_AT 65536

enum cell_kind { CELL_NULL, CELL_TEXT, CELL_PARAM, CELL_REAL, CELL_INT };

struct cell {
	enum cell_kind kind;
	const char *text;   /* TEXT and PARAM: borrowed */
	double real;
	long long integer;
};

/*
 * One row per variant and result, ordered as the campaign was: campaign,
 * variant, result position. A variant's latest run is the one finished
 * last; a run without results still yields its row (LEFT JOIN), and so
 * does a variant without a run.
 */
static const char rows_sql[] =
	"SELECT c.name, v.id, substr(v.hash, 1, 12), v.source, v.compiler,"
	" v.flagset, v.cflags, r.status, r.reason,"
	" x.region, x.metric, x.value, x.unit, x.source, x.reducer, x.n,"
	" x.spread, x.is_primary, x.flags"
	" FROM variants v JOIN campaigns c ON c.id = v.campaign_id"
	" LEFT JOIN runs r ON r.id = (SELECT id FROM runs"
	"  WHERE variant_id = v.id ORDER BY finished DESC, id DESC LIMIT 1)"
	" LEFT JOIN results x ON x.run_id = r.id"
	" WHERE ?1 IS NULL OR v.campaign_id = ?1"
	" ORDER BY c.id, v.id, x.position";
enum {
	COL_CAMPAIGN, COL_VARIANT_ID, COL_VARIANT, COL_SOURCE, COL_COMPILER,
	COL_FLAGSET, COL_CFLAGS, COL_STATUS, COL_REASON, COL_REGION,
	COL_METRIC, COL_VALUE, COL_UNIT, COL_METRIC_SOURCE, COL_REDUCER,
	COL_SAMPLES, COL_SPREAD, COL_PRIMARY, COL_FLAGS,
};

struct export {
	struct lk_ctx *ctx;
	struct lk_store *s;
	enum lk_export_format fmt;
	FILE *out;
	int64_t campaign;        /* 0: every campaign */
	struct lk_strv params;   /* -D names, by first appearance */
	struct lk_strv columns;  /* every column name, in order */
	char **values;           /* the current variant's -D values */
	char *name;              /* its lk_variant_name */
	int64_t variant;         /* whose values and name those are */
	struct cell *cells;
	struct lk_buf buf;
	size_t nrows;
};

static int bind_campaign(struct export *x, sqlite3_stmt *st)
{
	int rc = x->campaign ? sqlite3_bind_int64(st, 1, x->campaign)
			     : sqlite3_bind_null(st, 1);

	return rc ? store_fail(x->ctx, x->s, "cannot bind campaign") : 0;
}

/* "no campaign 'x' in dir; campaigns: a, b": the user mistyped a name. */
static int campaign_not_found(struct export *x, const char *name)
{
	struct lk_strv names = LK_STRV_INIT;
	sqlite3_stmt *st = NULL;
	char *list;
	int rc, ret = store_prepare(x->ctx, x->s,
				    "SELECT name FROM campaigns ORDER BY id",
				    &st);

	if (ret)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		lk_strv_push_take(&names, store_column_dup(st, 0));
	if (rc != SQLITE_DONE) {
		ret = store_fail(x->ctx, x->s, "cannot list campaigns");
		goto out;
	}
	list = lk_strv_join(&names, ", ");
	ret = lk_error(x->ctx, LK_ENOTFOUND, "no campaign '%s' in %s; %s%s",
		       name, x->s->dir, names.n ? "campaigns: " :
		       "the store has no campaigns", list);
	free(list);
out:
	sqlite3_finalize(st);
	lk_strv_release(&names);
	return ret;
}

static int find_campaign(struct export *x, const char *name)
{
	sqlite3_stmt *st = NULL;
	int ret = store_prepare(x->ctx, x->s, "SELECT id FROM campaigns"
				" WHERE name = ?1", &st);

	if (ret)
		goto out;
	if (store_bind_text(st, 1, name)) {
		ret = store_fail(x->ctx, x->s, "cannot bind campaign");
		goto out;
	}
	ret = store_step_id(x->ctx, x->s, st, "cannot look up the campaign",
			    &x->campaign);
	if (ret > 0)
		ret = campaign_not_found(x, name);
out:
	sqlite3_finalize(st);
	return ret;
}

static long param_index(const struct export *x, const char *name)
{
	size_t i;

	for (i = 0; i < x->params.n; i++)
		if (!strcmp(x->params.v[i], name))
			return (long)i;
	return -1;
}

static int is_fixed_column(const char *name)
{
	size_t i;

	for (i = 0; i < NHEAD; i++)
		if (!strcmp(head_columns[i], name))
			return 1;
	for (i = 0; i < NTAIL; i++)
		if (!strcmp(tail_columns[i], name))
			return 1;
	return 0;
}

/* The column list: fixed head, the -D names, fixed tail. */
static void build_columns(struct export *x)
{
	size_t i;

	for (i = 0; i < NHEAD; i++)
		lk_strv_push(&x->columns, head_columns[i]);
	for (i = 0; i < x->params.n; i++) {
		const char *name = x->params.v[i];

		if (is_fixed_column(name))
			lk_strv_pushf(&x->columns, "D_%s", name);
		else
			lk_strv_push(&x->columns, name);
	}
	for (i = 0; i < NTAIL; i++)
		lk_strv_push(&x->columns, tail_columns[i]);
	x->cells = lk_calloc(x->columns.n, sizeof(*x->cells));
	x->values = lk_calloc(x->params.n + 1, sizeof(*x->values));
}

/* The union of -D names over the exported variants, in export order. */
static int load_param_names(struct export *x)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = store_prepare(x->ctx, x->s, "SELECT p.name FROM"
				    " variant_params p JOIN variants v"
				    " ON v.id = p.variant_id"
				    " WHERE ?1 IS NULL OR v.campaign_id = ?1"
				    " ORDER BY v.campaign_id, v.id, p.position",
				    &st);

	if (!ret)
		ret = bind_campaign(x, st);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		if (name && param_index(x, name) < 0)
			lk_strv_push(&x->params, name);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(x->ctx, x->s, "cannot read parameter names");
out:
	sqlite3_finalize(st);
	return ret;
}

static void clear_values(struct export *x)
{
	size_t i;

	for (i = 0; i < x->params.n; i++) {
		free(x->values[i]);
		x->values[i] = NULL;
	}
	free(x->name);
	x->name = NULL;
}

static const char *row_text(sqlite3_stmt *rows, int col)
{
	const char *t = (const char *)sqlite3_column_text(rows, col);

	return t ? t : "";
}

/* The variant's name from its parameters, in order (names and values
 * alternate in both), and the current row's source, compiler and flag
 * set (columns col, col + 1, col + 2). */
static void name_variant(struct export *x, sqlite3_stmt *rows, int col,
			 const struct lk_strv *both)
{
	struct lk_param *p = lk_calloc(both->n / 2 + 1, sizeof(*p));
	size_t i;

	for (i = 0; i < both->n / 2; i++)
		p[i] = (struct lk_param){both->v[2 * i], both->v[2 * i + 1]};
	x->name = lk_variant_name(row_text(rows, col),
				  row_text(rows, col + 1),
				  row_text(rows, col + 2), p, both->n / 2);
	free(p);
}

/*
 * Read the parameters of x->variant (params bound to it, params_sql),
 * into x->values by column when x->values is there, and x->name from
 * them and rows' current row (source, compiler, flag set from col on).
 */
static int variant_name(struct export *x, sqlite3_stmt *params,
			sqlite3_stmt *rows, int col)
{
	struct lk_strv both = LK_STRV_INIT;
	int rc;

	while ((rc = sqlite3_step(params)) == SQLITE_ROW) {
		const char *name = row_text(params, 0);
		long i = x->values ? param_index(x, name) : -1;

		if (i >= 0 && sqlite3_column_type(params, 1) != SQLITE_NULL)
			x->values[i] = store_column_dup(params, 1);
		lk_strv_push(&both, name);
		lk_strv_push(&both, row_text(params, 1));
	}
	sqlite3_reset(params);
	if (rc == SQLITE_DONE)
		name_variant(x, rows, col, &both);
	lk_strv_release(&both);
	if (rc != SQLITE_DONE)
		return store_fail(x->ctx, x->s, "cannot read the parameters "
				  "of variant %lld", (long long)x->variant);
	return 0;
}

/* Fetch the -D values of the variant of the current row into x->values,
 * by column, and its name. */
static int load_values(struct export *x, sqlite3_stmt *params,
		       sqlite3_stmt *rows, int64_t variant)
{
	clear_values(x);
	x->variant = variant;
	if (sqlite3_bind_int64(params, 1, variant))
		return store_fail(x->ctx, x->s, "cannot bind variant");
	return variant_name(x, params, rows, COL_SOURCE);
}

static void cell_text(struct cell *c, const char *text)
{
	c->kind = text ? CELL_TEXT : CELL_NULL;
	c->text = text;
}

static void cell_column(struct cell *c, sqlite3_stmt *st, int col,
			enum cell_kind kind)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		c->kind = CELL_NULL;
	} else if (kind == CELL_REAL) {
		c->kind = CELL_REAL;
		c->real = sqlite3_column_double(st, col);
	} else if (kind == CELL_INT) {
		c->kind = CELL_INT;
		c->integer = sqlite3_column_int64(st, col);
	} else {
		cell_text(c, (const char *)sqlite3_column_text(st, col));
	}
}

/* Fill x->cells from the current row of rows_sql. */
static void fill_cells(struct export *x, sqlite3_stmt *st)
{
	static const struct { int col; enum cell_kind kind; } tail[NTAIL] = {
		{COL_REGION, CELL_TEXT}, {COL_METRIC, CELL_TEXT},
		{COL_VALUE, CELL_REAL}, {COL_UNIT, CELL_TEXT},
		{COL_METRIC_SOURCE, CELL_TEXT}, {COL_REDUCER, CELL_TEXT},
		{COL_SAMPLES, CELL_INT}, {COL_SPREAD, CELL_REAL},
		{COL_PRIMARY, CELL_INT}, {COL_STATUS, CELL_TEXT},
		{COL_FLAGS, CELL_TEXT}, {COL_REASON, CELL_TEXT},
	};
	struct cell *c = x->cells;
	size_t i;

	cell_column(c++, st, COL_CAMPAIGN, CELL_TEXT);
	cell_column(c++, st, COL_VARIANT, CELL_TEXT);
	cell_text(c++, x->name);
	for (i = COL_SOURCE; i <= COL_CFLAGS; i++)
		cell_column(c++, st, (int)i, CELL_TEXT);
	for (i = 0; i < x->params.n; i++, c++) {
		cell_text(c, x->values[i]);
		if (x->values[i])
			c->kind = CELL_PARAM;
	}
	for (i = 0; i < NTAIL; i++, c++) {
		cell_column(c, st, tail[i].col, tail[i].kind);
		/* No run at all: the variant is still to be measured. */
		if (tail[i].col == COL_STATUS && c->kind == CELL_NULL)
			cell_text(c, "pending");
	}
}

/* Shortest of %.15g..%.17g that reads back as the same double. */
static void add_real(struct lk_buf *b, double v)
{
	char num[48];
	int prec = 15;

	do
		snprintf(num, sizeof(num), "%.*g", prec, v);
	while (prec++ < 17 && strtod(num, NULL) != v);
	lk_buf_adds(b, num);
}

static int is_json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (isdigit((unsigned char)*p))
		while (isdigit((unsigned char)*p))
			p++;
	else
		return 0;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

static void csv_cell(struct lk_buf *b, const struct cell *c)
{
	switch (c->kind) {
	case CELL_NULL: break;
	case CELL_TEXT:
	case CELL_PARAM: lk_buf_add_csv_field(b, c->text); break;
	case CELL_REAL: add_real(b, c->real); break;
	case CELL_INT: lk_buf_addf(b, "%lld", c->integer); break;
	}
}

/* -D values that are JSON numbers as written stay numbers, verbatim. */
static void json_cell(struct lk_buf *b, const struct cell *c)
{
	switch (c->kind) {
	case CELL_NULL: lk_buf_adds(b, "null"); break;
	case CELL_TEXT: lk_buf_add_json_str(b, c->text); break;
	case CELL_PARAM:
		if (is_json_number(c->text))
			lk_buf_adds(b, c->text);
		else
			lk_buf_add_json_str(b, c->text);
		break;
	case CELL_REAL:
		if (isfinite(c->real))
			add_real(b, c->real);
		else
			lk_buf_adds(b, "null");
		break;
	case CELL_INT: lk_buf_addf(b, "%lld", c->integer); break;
	}
}

static void csv_header(struct export *x)
{
	size_t i;

	for (i = 0; i < x->columns.n; i++) {
		if (i)
			lk_buf_addch(&x->buf, ',');
		lk_buf_add_csv_field(&x->buf, x->columns.v[i]);
	}
	lk_buf_addch(&x->buf, '\n');
}

static void add_row(struct export *x)
{
	struct lk_buf *b = &x->buf;
	size_t i;

	if (x->fmt == LK_EXPORT_CSV) {
		for (i = 0; i < x->columns.n; i++) {
			if (i)
				lk_buf_addch(b, ',');
			csv_cell(b, &x->cells[i]);
		}
		lk_buf_addch(b, '\n');
		return;
	}
	lk_buf_adds(b, x->nrows ? ",\n{" : "[\n{");
	for (i = 0; i < x->columns.n; i++) {
		if (i)
			lk_buf_adds(b, ", ");
		lk_buf_add_json_str(b, x->columns.v[i]);
		lk_buf_adds(b, ": ");
		json_cell(b, &x->cells[i]);
	}
	lk_buf_addch(b, '}');
}

static int flush(struct export *x)
{
	if (x->buf.len && fwrite(x->buf.buf, 1, x->buf.len, x->out) !=
			  x->buf.len)
		return lk_error_errno(x->ctx, "cannot write the export");
	lk_buf_reset(&x->buf);
	return 0;
}

static int write_rows(struct export *x, sqlite3_stmt *rows,
		      sqlite3_stmt *values)
{
	int rc, ret = 0;

	while (!ret && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
		int64_t variant = sqlite3_column_int64(rows, COL_VARIANT_ID);

		if (variant != x->variant)
			ret = load_values(x, values, rows, variant);
		if (ret)
			break;
		fill_cells(x, rows);
		add_row(x);
		x->nrows++;
		if (x->buf.len >= FLUSH_AT)
			ret = flush(x);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(x->ctx, x->s, "cannot read the runs");
	return ret;
}

static int write_table(struct export *x)
{
	sqlite3_stmt *rows = NULL, *values = NULL;
	int ret = store_prepare(x->ctx, x->s, rows_sql, &rows);

	if (!ret)
		ret = store_prepare(x->ctx, x->s, params_sql, &values);
	if (!ret)
		ret = bind_campaign(x, rows);
	if (ret)
		goto out;
	if (x->fmt == LK_EXPORT_CSV)
		csv_header(x);
	ret = write_rows(x, rows, values);
	if (!ret && x->fmt == LK_EXPORT_JSON)
		lk_buf_adds(&x->buf, x->nrows ? "\n]\n" : "[]\n");
	if (!ret)
		ret = flush(x);
	if (!ret && fflush(x->out))
		ret = lk_error_errno(x->ctx, "cannot write the export");
out:
	sqlite3_finalize(rows);
	sqlite3_finalize(values);
	return ret;
}

int lk_store_export(struct lk_ctx *ctx, struct lk_store *s,
		    const char *campaign, enum lk_export_format fmt, FILE *out)
{
	struct export x = {
		.ctx = ctx, .s = s, .fmt = fmt, .out = out,
		.params = LK_STRV_INIT, .columns = LK_STRV_INIT,
		.buf = LK_BUF_INIT,
	};
	int ret = 0;

	/* One snapshot: rows written meanwhile do not tear the table. */
	ret = store_exec(ctx, s, "BEGIN");
	if (ret)
		return ret;
	if (campaign)
		ret = find_campaign(&x, campaign);
	if (!ret)
		ret = load_param_names(&x);
	if (!ret) {
		build_columns(&x);
		ret = write_table(&x);
	}
	store_rollback(s); /* ends the read transaction */
	if (x.values)
		clear_values(&x);
	free(x.values);
	free(x.cells);
	lk_strv_release(&x.params);
	lk_strv_release(&x.columns);
	lk_buf_release(&x.buf);
	return ret;
}

/* ---- The builds' optimisation reports. ---- */

static const char reports_sql[] =
	"SELECT substr(v.hash, 1, 12), v.source, v.compiler, v.flagset,"
	" v.id, b.ok, b.log"
	" FROM variants v"
	" LEFT JOIN runs r ON r.id = (SELECT id FROM runs"
	"  WHERE variant_id = v.id ORDER BY finished DESC, id DESC LIMIT 1)"
	" LEFT JOIN variant_builds vb ON vb.variant_id = v.id"
	" LEFT JOIN builds b ON b.id = coalesce(r.build_id, vb.build_id)"
	" WHERE ?1 IS NULL OR v.campaign_id = ?1 ORDER BY v.id";

/* "== 1a2b3c4d5e6f gemm original gcc O2 (objects/ab/cdef....c)", then
 * the build's report. */
static int write_report(struct export *x, sqlite3_stmt *st,
			sqlite3_stmt *params)
{
	const char *log = (const char *)sqlite3_column_text(st, 6);
	size_t n;
	int ret;

	x->variant = sqlite3_column_int64(st, 4);
	if (sqlite3_bind_int64(params, 1, x->variant))
		return store_fail(x->ctx, x->s, "cannot bind variant");
	ret = variant_name(x, params, st, 1);
	if (ret)
		return ret;
	fprintf(x->out, "== %s %s (%s)\n", row_text(st, 0), x->name,
		row_text(st, 1));
	free(x->name);
	x->name = NULL;
	if (sqlite3_column_type(st, 5) == SQLITE_NULL)
		fputs("(not built)\n", x->out);
	else if (!log || !*log)
		fputs("(empty: built without method.opt-report)\n", x->out);
	else {
		n = strlen(log);
		fputs(log, x->out);
		if (log[n - 1] != '\n')
			fputc('\n', x->out);
	}
	return 0;
}

int lk_store_export_opt_reports(struct lk_ctx *ctx, struct lk_store *s,
				const char *campaign, FILE *out)
{
	struct export x = {.ctx = ctx, .s = s, .out = out};
	sqlite3_stmt *st = NULL, *params = NULL;
	int ret, rc;

	ret = store_exec(ctx, s, "BEGIN");
	if (ret)
		return ret;
	if (campaign)
		ret = find_campaign(&x, campaign);
	if (!ret)
		ret = store_prepare(ctx, s, reports_sql, &st);
	if (!ret)
		ret = store_prepare(ctx, s, params_sql, &params);
	if (!ret)
		ret = bind_campaign(&x, st);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = write_report(&x, st, params);
	if (!ret && rc != SQLITE_DONE)
		ret = store_fail(ctx, s, "cannot read the builds' reports");
	sqlite3_finalize(st);
	sqlite3_finalize(params);
	store_rollback(s);
	return ret;
}
