/*
 * Grouping: which keys the statistics are broken down by, the groups'
 * values, and one statistics row per (group, analyzer, basis). Also the
 * reason counts the tables list.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-int.h"

void report_count_reason(struct lk_report *r, const char *what,
			 long analyzer, const char *reason)
{
	struct lk_report_reason *x;
	size_t i;

	for (i = 0; i < r->nreasons; i++) {
		x = &r->reasons[i];
		if (!strcmp(x->what, what) && x->analyzer == analyzer &&
		    !strcmp(x->reason, reason)) {
			x->count++;
			return;
		}
	}
	r->reasons = lk_reallocarray(r->reasons, r->nreasons + 1,
				     sizeof(*r->reasons));
	x = &r->reasons[r->nreasons++];
	x->what = lk_strdup(what);
	x->analyzer = analyzer;
	x->reason = lk_strdup(reason);
	x->count = 1;
}

void report_add_param_name(struct lk_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->param_names.n; i++)
		if (!strcmp(r->param_names.v[i], name))
			return;
	lk_strv_push(&r->param_names, name);
}

/* A generated variant's kernel names its source, else the file's base
 * name; its long form (when two sources share a short one): family/kernel
 * or the path. */
static const char *short_name(const struct lk_report_variant *v)
{
	return lk_variant_source_name(v->source, v->params, v->nparams);
}

static char *long_name(const struct lk_report_variant *v)
{
	const char *family;

	if (!lk_variant_generated(v->params, v->nparams))
		return lk_strdup(v->source);
	family = lk_variant_param(v->params, v->nparams, "family");
	return family && *family ? lk_asprintf("%s/%s", family, short_name(v))
				 : lk_strdup(short_name(v));
}

/* Short names unless two different sources share one. */
void report_name_sources(struct lk_report *r)
{
	char **longs = lk_calloc(r->nvariants + 1, sizeof(*longs));
	int clash = 0;
	size_t i, j;

	for (i = 0; i < r->nvariants; i++)
		longs[i] = long_name(&r->variants[i]);
	for (i = 0; !clash && i < r->nvariants; i++)
		for (j = 0; !clash && j < i; j++)
			clash = strcmp(longs[i], longs[j]) &&
				!strcmp(short_name(&r->variants[i]),
					short_name(&r->variants[j]));
	for (i = 0; i < r->nvariants; i++) {
		struct lk_report_variant *v = &r->variants[i];

		free(v->source_name);
		v->source_name = clash ? longs[i] : lk_strdup(short_name(v));
		if (!clash)
			free(longs[i]);
		free(v->name);
		v->name = lk_variant_name(v->source, v->compiler, v->flagset,
					  v->params, v->nparams);
	}
	free(longs);
}

const char *report_key_value(const struct lk_report *r,
			     const struct lk_report_variant *v,
			     const char *key)
{
	size_t i;

	if (!strcmp(key, "compiler"))
		return v->compiler;
	if (!strcmp(key, "flagset"))
		return v->flagset;
	if (!strcmp(key, "source"))
		return v->source_name;
	for (i = 0; i < v->nparams; i++)
		if (!strcmp(v->params[i].name, key))
			return v->params[i].value;
	return "";
}

static const char *const fixed_keys[] = {"source", "compiler", "flagset",
					 NULL};
#define NFIXED (LK_ARRAY_SIZE(fixed_keys) - 1)

static int key_known(const struct lk_report *r, const char *key)
{
	size_t i;

	for (i = 0; fixed_keys[i]; i++)
		if (!strcmp(fixed_keys[i], key))
			return 1;
	for (i = 0; i < r->param_names.n; i++)
		if (!strcmp(r->param_names.v[i], key))
			return 1;
	return 0;
}

/* The distinct values of key over the variants, sorted (see below). */
static void key_values(const struct lk_report *r, const char *key,
		       struct lk_strv *values);

static int unknown_key(struct lk_ctx *ctx, const struct lk_report *r,
		       const struct lk_sweep *cfg, const char *key)
{
	struct lk_strv known = LK_STRV_INIT;
	char *list;
	size_t i;
	int ret;

	for (i = 0; fixed_keys[i]; i++)
		lk_strv_push(&known, fixed_keys[i]);
	for (i = 0; i < r->param_names.n; i++)
		lk_strv_push(&known, r->param_names.v[i]);
	list = lk_strv_join(&known, ", ");
	ret = lk_error_at(ctx, LK_EINPUT, cfg->path ? cfg->path : "report",
			  cfg->report.group_by_line,
			  "report.group-by: no variant of campaign '%s' has "
			  "a parameter '%s' (keys: %s)", r->campaign, key,
			  list);
	free(list);
	lk_strv_release(&known);
	return ret;
}

/* Whether key is a fact a generated variant of the campaign records
 * about its micro-kernel (a user's own axis of that name is not). */
static int generator_fact(const struct lk_report *r, const char *key)
{
	size_t i;

	if (!lk_variant_fact(key))
		return 0;
	for (i = 0; i < r->nvariants; i++)
		if (*report_key_value(r, &r->variants[i], key) &&
		    !lk_variant_generated(r->variants[i].params,
					  r->variants[i].nparams))
			return 0;
	return 1;
}

/* Whether a chosen key has key's value in every variant: the same
 * groups (a generated variant's source is named by its kernel). */
static int repeats_group(const struct lk_report *r, const char *key)
{
	size_t i, k;

	for (k = 0; k < r->group_by.n; k++) {
		for (i = 0; i < r->nvariants; i++)
			if (strcmp(report_key_value(r, &r->variants[i], key),
				   report_key_value(r, &r->variants[i],
						    r->group_by.v[k])))
				break;
		if (i == r->nvariants)
			return 1;
	}
	return 0;
}

int report_choose_groups(struct lk_ctx *ctx, struct lk_report *r,
			 const struct lk_sweep *cfg)
{
	size_t i;

	if (cfg && cfg->report.group_by_given) {
		for (i = 0; i < cfg->report.group_by.n; i++) {
			const char *key = cfg->report.group_by.v[i];

			if (!key_known(r, key))
				return unknown_key(ctx, r, cfg, key);
			lk_strv_push(&r->group_by, key);
		}
		return 0;
	}
	for (i = 0; i < NFIXED + r->param_names.n; i++) {
		const char *key = i < NFIXED ? fixed_keys[i]
					     : r->param_names.v[i - NFIXED];
		struct lk_strv values = LK_STRV_INIT;

		key_values(r, key, &values);
		if (values.n >= 2 && !repeats_group(r, key) &&
		    !generator_fact(r, key))
			lk_strv_push(&r->group_by, key);
		lk_strv_release(&values);
	}
	return 0;
}

/* Numbers in numeric order when every value is one, else by strcmp. */
static int cmp_values(const void *a, const void *b, void *numeric)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	if (*(int *)numeric) {
		double p = strtod(x, NULL), q = strtod(y, NULL);

		if (p != q)
			return (p > q) - (p < q);
	}
	return strcmp(x, y);
}

static int is_number(const char *s)
{
	double v;

	return *s && !lk_parse_double(s, &v) && isfinite(v);
}

static void key_values(const struct lk_report *r, const char *key,
		       struct lk_strv *values)
{
	size_t i, j;
	int all_numbers = 1;

	for (i = 0; i < r->nvariants; i++) {
		const char *v = report_key_value(r, &r->variants[i], key);

		for (j = 0; j < values->n && strcmp(values->v[j], v); j++)
			;
		if (j == values->n)
			lk_strv_push(values, v);
	}
	for (i = 0; i < values->n; i++)
		all_numbers &= is_number(values->v[i]);
	if (values->n > 1)
		qsort_r(values->v, values->n, sizeof(*values->v), cmp_values,
			&all_numbers);
}

/* ---- Rows. ---- */

static struct lk_report_row *new_row(struct lk_report *r, size_t *alloc,
				     size_t analyzer, size_t basis,
				     const char *key, const char *value)
{
	struct lk_report_row *row;

	LK_GROW(r->rows, r->nrows + 1, *alloc);
	row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	row->analyzer = analyzer;
	row->basis = basis;
	row->key = lk_strdup(key);
	row->value = lk_strdup(value);
	return row;
}

static int in_group(const struct lk_report *r,
		    const struct lk_report_variant *v, const char *key,
		    const char *value)
{
	return !*key || !strcmp(report_key_value(r, v, key), value);
}

/* Counts of one analyzer over a group, and the statistics of the pairs
 * compared, all in core cycles. */
static void fill_counts(const struct lk_report *r, struct lk_report_row *row,
			double *pred, double *meas)
{
	size_t i, n = 0;

	for (i = 0; i < r->nvariants; i++) {
		const struct lk_report_variant *v = &r->variants[i];
		const struct lk_report_pred *p = &v->preds[row->analyzer];

		if (!in_group(r, v, row->key, row->value))
			continue;
		row->variants++;
		switch (p->outcome) {
		case LK_OUT_EXCLUDED: row->excluded++; break;
		case LK_OUT_FAILED: row->failed++; break;
		case LK_OUT_MISSING: row->missing++; break;
		case LK_OUT_UNMEASURED: row->unmeasured++; break;
		case LK_OUT_NO_CYCLES: row->no_cycles++; break;
		case LK_OUT_COMPARED:
			row->compared++;
			row->unknown += v->unknown;
			pred[n] = p->value;
			meas[n++] = v->measured;
			break;
		}
	}
	lk_err_stats_compute(pred, meas, n, &row->st);
}

static void group_rows(struct lk_report *r, size_t *alloc, const char *key,
		       const char *value, double *pred, double *meas)
{
	size_t a;

	for (a = 0; a < r->nanalyzers; a++) {
		struct lk_report_row *row = new_row(r, alloc, a, 0, key,
						    value);

		fill_counts(r, row, pred, meas);
	}
}

void report_build_rows(struct lk_report *r)
{
	double *pred = lk_malloc((r->nvariants + 1) * sizeof(*pred));
	double *meas = lk_malloc((r->nvariants + 1) * sizeof(*meas));
	size_t alloc = 0, k, i;

	group_rows(r, &alloc, "", "", pred, meas);
	for (k = 0; k < r->group_by.n; k++) {
		struct lk_strv values = LK_STRV_INIT;

		key_values(r, r->group_by.v[k], &values);
		for (i = 0; i < values.n; i++)
			group_rows(r, &alloc, r->group_by.v[k], values.v[i],
				   pred, meas);
		lk_strv_release(&values);
	}
	free(pred);
	free(meas);
}
