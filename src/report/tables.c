/*
 * The report's tables as CSV and JSON: the statistics rows, one row per
 * variant and analyzer, and the whole model as one JSON document.
 * Relative errors are printed in percent; undefined figures are empty
 * cells in CSV and null in JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report-int.h"

void report_add_real(struct lk_buf *b, double v)
{
	char num[48];
	int prec = 15;

	do
		snprintf(num, sizeof(num), "%.*g", prec, v);
	while (prec++ < 17 && strtod(num, NULL) != v);
	lk_buf_adds(b, num);
}

const char *report_outcome_name(enum lk_report_outcome o)
{
	static const char *const names[] = {
		[LK_OUT_EXCLUDED] = "excluded",
		[LK_OUT_FAILED] = "failed",
		[LK_OUT_MISSING] = "missing",
		[LK_OUT_UNMEASURED] = "unmeasured",
		[LK_OUT_NO_CYCLES] = "no-cycles",
		[LK_OUT_COMPARED] = "compared",
	};

	return names[o];
}

/* One output format: how cells are written. */
struct fmt {
	int json;
	struct lk_buf *b;
	size_t ncells;       /* in the current row */
	const char *const *keys; /* JSON keys, by cell */
};

static void cell_start(struct fmt *f)
{
	if (f->ncells)
		lk_buf_adds(f->b, f->json ? ", " : ",");
	if (f->json) {
		lk_buf_add_json_str(f->b, f->keys[f->ncells]);
		lk_buf_adds(f->b, ": ");
	}
	f->ncells++;
}

static void cell_text(struct fmt *f, const char *s)
{
	cell_start(f);
	if (f->json)
		lk_buf_add_json_str(f->b, s);
	else
		lk_buf_add_csv_field(f->b, s);
}

static void cell_null(struct fmt *f)
{
	cell_start(f);
	if (f->json)
		lk_buf_adds(f->b, "null");
}

static void cell_real(struct fmt *f, double v)
{
	if (!isfinite(v)) {
		cell_null(f);
		return;
	}
	cell_start(f);
	report_add_real(f->b, v);
}

static void cell_count(struct fmt *f, long n)
{
	if (n < 0) {
		cell_null(f);
		return;
	}
	cell_start(f);
	lk_buf_addf(f->b, "%ld", n);
}

static void row_start(struct fmt *f)
{
	f->ncells = 0;
	if (f->json)
		lk_buf_addch(f->b, '{');
}

static void row_end(struct fmt *f)
{
	lk_buf_adds(f->b, f->json ? "}" : "\n");
}

static const char *const stats_columns[] = {
	"analyzer", "tool", "tool_version", "params", "unit", "group_by",
	"group", "basis_metric", "basis_source", "basis_unit", "variants",
	"excluded", "failed", "no_prediction", "not_measured", "no_cycles",
	"compared",
	"unknown", "mape_pct", "mean_rel_err_pct", "rel_err_q1_pct",
	"rel_err_median_pct", "rel_err_q3_pct", "abs_rel_err_q1_pct",
	"abs_rel_err_median_pct", "abs_rel_err_q3_pct", "rmse",
	"kendall_tau_b",
};

static void stats_row(struct fmt *f, const struct lk_report *r,
		      const struct lk_report_row *row)
{
	const struct lk_report_analyzer *a = &r->analyzers[row->analyzer];
	const struct lk_report_basis *b = &r->bases[row->basis];
	const struct lk_err_stats *st = &row->st;

	row_start(f);
	cell_text(f, a->label);
	cell_text(f, a->tool);
	cell_text(f, a->version);
	cell_text(f, a->params);
	cell_text(f, a->unit);
	if (*row->key) {
		cell_text(f, row->key);
		cell_text(f, row->value);
	} else {
		cell_null(f);
		cell_null(f);
	}
	cell_text(f, b->metric);
	cell_text(f, b->sources);
	cell_text(f, b->unit);
	cell_count(f, row->variants);
	cell_count(f, row->excluded);
	cell_count(f, row->failed);
	cell_count(f, row->missing);
	cell_count(f, row->unmeasured);
	cell_count(f, row->no_cycles);
	cell_count(f, row->compared);
	cell_count(f, row->unknown);
	cell_real(f, st->mape);
	cell_real(f, 100 * st->mean);
	cell_real(f, 100 * st->q1);
	cell_real(f, 100 * st->median);
	cell_real(f, 100 * st->q3);
	cell_real(f, 100 * st->abs_q1);
	cell_real(f, 100 * st->abs_median);
	cell_real(f, 100 * st->abs_q3);
	cell_real(f, st->rmse);
	cell_real(f, st->tau_b);
	row_end(f);
}

static void csv_header(struct lk_buf *b, const char *const *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			lk_buf_addch(b, ',');
		lk_buf_add_csv_field(b, cols[i]);
	}
	lk_buf_addch(b, '\n');
}

void lk_report_csv(const struct lk_report *r, struct lk_buf *out)
{
	struct fmt f = {0, out, 0, stats_columns};
	size_t i;

	csv_header(out, stats_columns, LK_ARRAY_SIZE(stats_columns));
	for (i = 0; i < r->nrows; i++)
		stats_row(&f, r, &r->rows[i]);
}

/* ---- One row per variant and analyzer. ---- */

static const char *const variant_head[] = {
	"variant", "name", "source", "compiler", "flagset",
};
static const char *const variant_tail[] = {
	"region", "measured", "measured_metric", "measured_source",
	"measured_unit", "measure_note", "verdict", "analyzer", "outcome",
	"predicted", "rel_err_pct", "reason",
};

static int is_fixed_column(const char *name)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(variant_head); i++)
		if (!strcmp(variant_head[i], name))
			return 1;
	for (i = 0; i < LK_ARRAY_SIZE(variant_tail); i++)
		if (!strcmp(variant_tail[i], name))
			return 1;
	return 0;
}

static const char *param_value(const struct lk_report_variant *v,
			       const char *name)
{
	size_t i;

	for (i = 0; i < v->nparams; i++)
		if (!strcmp(v->params[i].name, name))
			return v->params[i].value;
	return NULL;
}

static void variant_measure_cells(struct fmt *f, const struct lk_report *r,
				  const struct lk_report_variant *v)
{
	const struct lk_report_basis *b = &r->bases[v->basis];

	cell_text(f, v->region);
	if (v->meas == LK_MEAS_NONE) {
		cell_null(f);
		cell_null(f);
		cell_null(f);
		cell_null(f);
	} else {
		cell_real(f, v->measured);
		cell_text(f, b->metric);
		cell_text(f, v->measured_source);
		cell_text(f, b->unit);
	}
	cell_text(f, v->note);
	cell_text(f, v->verdict);
}

static void prediction_cells(struct fmt *f, const struct lk_report *r,
			     const struct lk_report_pred *p, size_t a)
{
	cell_text(f, r->analyzers[a].label);
	cell_text(f, report_outcome_name(p->outcome));
	if (p->has_value)
		cell_real(f, p->value);
	else
		cell_null(f);
	if (p->outcome == LK_OUT_COMPARED)
		cell_real(f, 100 * p->rel_error);
	else
		cell_null(f);
	cell_text(f, p->reason);
}

static void variant_cells(struct fmt *f, const struct lk_report_variant *v)
{
	char hash[13];

	snprintf(hash, sizeof(hash), "%s", v->hash);
	cell_text(f, hash);
	cell_text(f, v->name);
	cell_text(f, v->source_name);
	cell_text(f, v->compiler);
	cell_text(f, v->flagset);
}

void lk_report_variants_csv(const struct lk_report *r, struct lk_buf *out)
{
	struct lk_strv cols = LK_STRV_INIT;
	struct fmt f = {0, out, 0, NULL};
	size_t i, j, a;

	for (i = 0; i < LK_ARRAY_SIZE(variant_head); i++)
		lk_strv_push(&cols, variant_head[i]);
	for (i = 0; i < r->param_names.n; i++)
		lk_strv_pushf(&cols, "%s%s",
			      is_fixed_column(r->param_names.v[i]) ? "param_"
								  : "",
			      r->param_names.v[i]);
	for (i = 0; i < LK_ARRAY_SIZE(variant_tail); i++)
		lk_strv_push(&cols, variant_tail[i]);
	csv_header(out, (const char *const *)cols.v, cols.n);
	for (i = 0; i < r->nvariants; i++) {
		const struct lk_report_variant *v = &r->variants[i];

		for (a = 0; a < r->nanalyzers; a++) {
			row_start(&f);
			variant_cells(&f, v);
			for (j = 0; j < r->param_names.n; j++) {
				const char *pv =
					param_value(v, r->param_names.v[j]);

				if (pv)
					cell_text(&f, pv);
				else
					cell_null(&f);
			}
			variant_measure_cells(&f, r, v);
			prediction_cells(&f, r, &v->preds[a], a);
			row_end(&f);
		}
	}
	lk_strv_release(&cols);
}

/* ---- JSON: the whole model. ---- */

static void json_key(struct lk_buf *b, const char *key)
{
	lk_buf_add_json_str(b, key);
	lk_buf_adds(b, ": ");
}

static void json_analyzers(struct lk_buf *b, const struct lk_report *r)
{
	size_t i;

	json_key(b, "analyzers");
	lk_buf_addch(b, '[');
	for (i = 0; i < r->nanalyzers; i++) {
		const struct lk_report_analyzer *a = &r->analyzers[i];

		lk_buf_adds(b, i ? ",\n  {" : "\n  {");
		json_key(b, "label");
		lk_buf_add_json_str(b, a->label);
		lk_buf_adds(b, ", ");
		json_key(b, "tool");
		lk_buf_add_json_str(b, a->tool);
		lk_buf_adds(b, ", ");
		json_key(b, "version");
		lk_buf_add_json_str(b, a->version);
		lk_buf_adds(b, ", ");
		json_key(b, "params");
		lk_buf_add_json_str(b, a->params);
		lk_buf_adds(b, ", ");
		json_key(b, "unit");
		lk_buf_add_json_str(b, a->unit);
		lk_buf_addch(b, '}');
	}
	lk_buf_adds(b, "],\n");
}

static void json_bases(struct lk_buf *b, const struct lk_report *r)
{
	size_t i;

	json_key(b, "bases");
	lk_buf_addch(b, '[');
	for (i = 0; i < r->nbases; i++) {
		const struct lk_report_basis *x = &r->bases[i];

		lk_buf_adds(b, i ? ",\n  {" : "\n  {");
		json_key(b, "metric");
		lk_buf_add_json_str(b, x->metric);
		lk_buf_adds(b, ", ");
		json_key(b, "sources");
		lk_buf_add_json_str(b, x->sources);
		lk_buf_adds(b, ", ");
		json_key(b, "unit");
		lk_buf_add_json_str(b, x->unit);
		lk_buf_addf(b, ", \"variants\": %zu}", x->nvariants);
	}
	lk_buf_adds(b, "],\n");
}

static void json_strv(struct lk_buf *b, const char *key,
		      const struct lk_strv *sv)
{
	size_t i;

	json_key(b, key);
	lk_buf_addch(b, '[');
	for (i = 0; i < sv->n; i++) {
		lk_buf_adds(b, i ? ", " : "");
		lk_buf_add_json_str(b, sv->v[i]);
	}
	lk_buf_adds(b, "],\n");
}

static void json_rows(struct lk_buf *b, const struct lk_report *r)
{
	struct fmt f = {1, b, 0, stats_columns};
	size_t i;

	json_key(b, "rows");
	lk_buf_addch(b, '[');
	for (i = 0; i < r->nrows; i++) {
		lk_buf_adds(b, i ? ",\n  " : "\n  ");
		stats_row(&f, r, &r->rows[i]);
	}
	lk_buf_adds(b, "],\n");
}

static void json_reasons(struct lk_buf *b, const struct lk_report *r)
{
	size_t i;

	json_key(b, "reasons");
	lk_buf_addch(b, '[');
	for (i = 0; i < r->nreasons; i++) {
		const struct lk_report_reason *x = &r->reasons[i];

		lk_buf_adds(b, i ? ",\n  {" : "\n  {");
		json_key(b, "what");
		lk_buf_add_json_str(b, x->what);
		lk_buf_adds(b, ", ");
		json_key(b, "analyzer");
		if (x->analyzer >= 0)
			lk_buf_add_json_str(b, r->analyzers[x->analyzer].label);
		else
			lk_buf_adds(b, "null");
		lk_buf_adds(b, ", ");
		json_key(b, "reason");
		lk_buf_add_json_str(b, x->reason);
		lk_buf_addf(b, ", \"count\": %ld}", x->count);
	}
	lk_buf_adds(b, "],\n");
}

static const char *const variant_keys[] = {
	"variant", "name", "source", "compiler", "flagset", "region",
	"measured", "measured_metric", "measured_source", "measured_unit",
	"measure_note", "verdict",
};
static const char *const pred_keys[] = {
	"analyzer", "outcome", "predicted", "rel_err_pct", "reason",
};

static void json_variant(struct lk_buf *b, const struct lk_report *r,
			 const struct lk_report_variant *v)
{
	struct fmt f = {1, b, 0, variant_keys};
	size_t i;

	row_start(&f);
	variant_cells(&f, v);
	variant_measure_cells(&f, r, v);
	lk_buf_adds(b, ", \"params\": {");
	for (i = 0; i < v->nparams; i++) {
		lk_buf_adds(b, i ? ", " : "");
		json_key(b, v->params[i].name);
		lk_buf_add_json_str(b, v->params[i].value);
	}
	lk_buf_addf(b, "}, \"excluded\": %s, \"unknown\": %s, "
		       "\"predictions\": [",
		    v->excluded ? "true" : "false",
		    v->unknown ? "true" : "false");
	for (i = 0; i < r->nanalyzers; i++) {
		struct fmt pf = {1, b, 0, pred_keys};

		lk_buf_adds(b, i ? ", " : "");
		row_start(&pf);
		prediction_cells(&pf, r, &v->preds[i], i);
		row_end(&pf);
	}
	lk_buf_adds(b, "]}");
}

static void json_variants(struct lk_buf *b, const struct lk_report *r)
{
	size_t i;

	json_key(b, "variants");
	lk_buf_addch(b, '[');
	for (i = 0; i < r->nvariants; i++) {
		lk_buf_adds(b, i ? ",\n  " : "\n  ");
		json_variant(b, r, &r->variants[i]);
	}
	lk_buf_adds(b, "]\n");
}

void report_time_text(double t, char *out, size_t size)
{
	time_t secs = (time_t)t;
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void lk_report_json(const struct lk_report *r, struct lk_buf *out)
{
	char when[64];

	report_time_text(r->generated, when, sizeof(when));
	lk_buf_adds(out, "{");
	json_key(out, "campaign");
	lk_buf_add_json_str(out, r->campaign);
	lk_buf_adds(out, ",\n");
	json_key(out, "title");
	lk_buf_add_json_str(out, r->title);
	lk_buf_adds(out, ",\n");
	json_key(out, "store");
	lk_buf_add_json_str(out, r->store_dir);
	lk_buf_adds(out, ",\n");
	json_key(out, "generated");
	lk_buf_add_json_str(out, when);
	lk_buf_addf(out, ",\n\"compared\": %ld,\n", r->compared);
	json_analyzers(out, r);
	json_bases(out, r);
	json_strv(out, "group_by", &r->group_by);
	json_rows(out, r);
	json_reasons(out, r);
	json_variants(out, r);
	lk_buf_adds(out, "}\n");
}
