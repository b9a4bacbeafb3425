/*
 * The report's model: from the store's rows to each variant's measured
 * figure, each analyzer's outcome on it, and the statistics rows per
 * analyzer and per group of variants.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopkit/report.h"
#include "loopkit/store.h"
#include "report-int.h"

/* ---- Analyzers. ---- */

static int same_analyzer(const struct lk_report_analyzer *a,
			 const struct lk_report_lifted *l)
{
	return !strcmp(a->tool, l->tool) && !strcmp(a->version, l->version) &&
	       !strcmp(a->params, l->params);
}

static void add_unit(struct lk_report_analyzer *a, const char *unit)
{
	char *joined;

	if (!*unit || !strcmp(a->unit, unit) || strstr(a->unit, unit))
		return;
	joined = *a->unit ? lk_asprintf("%s | %s", a->unit, unit)
			  : lk_strdup(unit);
	free(a->unit);
	a->unit = joined;
}

/* The lifted rows come ordered by tool, version, params. */
static int same_tool(const struct lk_report_analyzer *a,
		     const struct lk_report_analyzer *b)
{
	return !strcmp(a->tool, b->tool) && !strcmp(a->version, b->version);
}

/* "tool version" for people; the parameters (long: a method's whole
 * description) join the label only to tell apart two configurations of
 * one tool. The page lists every analyzer's parameters. */
static void label_analyzers(struct lk_report *r)
{
	size_t i, j;

	for (i = 0; i < r->nanalyzers; i++) {
		struct lk_report_analyzer *a = &r->analyzers[i];
		int clash = 0;

		for (j = 0; j < r->nanalyzers; j++)
			clash |= j != i && same_tool(a, &r->analyzers[j]);
		a->label = lk_asprintf("%s%s%s%s%s", a->tool,
				       *a->version ? " " : "", a->version,
				       clash && *a->params ? " " : "",
				       clash ? a->params : "");
	}
}

static void collect_analyzers(struct lk_report *r,
			      const struct lk_report_input *in)
{
	size_t i, alloc = 0;

	for (i = 0; i < in->nlifted; i++) {
		const struct lk_report_lifted *l = &in->lifted[i];
		struct lk_report_analyzer *a;

		if (r->nanalyzers &&
		    same_analyzer(&r->analyzers[r->nanalyzers - 1], l)) {
			add_unit(&r->analyzers[r->nanalyzers - 1], l->unit);
			continue;
		}
		LK_GROW(r->analyzers, r->nanalyzers + 1, alloc);
		a = &r->analyzers[r->nanalyzers++];
		a->tool = lk_strdup(l->tool);
		a->version = lk_strdup(l->version);
		a->params = lk_strdup(l->params);
		a->unit = lk_strdup(l->unit);
	}
	label_analyzers(r);
}

/* ---- Measured figures. ---- */

static size_t basis_find(struct lk_report *r, const char *metric,
			 const char *source, const char *unit)
{
	size_t i;

	for (i = 1; i < r->nbases; i++)
		if (!strcmp(r->bases[i].metric, metric) &&
		    !strcmp(r->bases[i].sources, source) &&
		    !strcmp(r->bases[i].unit, unit))
			return i;
	r->bases = lk_reallocarray(r->bases, r->nbases + 1,
				   sizeof(*r->bases));
	r->bases[i].metric = lk_strdup(metric);
	r->bases[i].sources = lk_strdup(source);
	r->bases[i].unit = lk_strdup(unit);
	r->bases[i].nvariants = 0;
	r->nbases++;
	return i;
}

/* Basis 0 lists every cycles source it holds, sorted, comma-separated. */
static void basis0_add_source(struct lk_report_basis *b, const char *src)
{
	struct lk_strv parts = LK_STRV_INIT;
	char *copy = lk_strdup(b->sources), *save = NULL, *p;
	size_t i;

	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		lk_strv_push(&parts, p + (*p == ' '));
	free(copy);
	for (i = 0; i < parts.n && strcmp(parts.v[i], src); i++)
		;
	if (i == parts.n) {
		lk_strv_push(&parts, src);
		for (i = parts.n - 1; i > 0 && strcmp(parts.v[i - 1],
						      parts.v[i]) > 0; i--) {
			char *t = parts.v[i];

			parts.v[i] = parts.v[i - 1];
			parts.v[i - 1] = t;
		}
		free(b->sources);
		b->sources = lk_strv_join(&parts, ", ");
	}
	lk_strv_release(&parts);
}

static const struct lk_result_row *find_metric(
	const struct lk_variant_measure *m, const char *region,
	const char *metric)
{
	size_t i;

	for (i = 0; i < m->nresults; i++)
		if (!strcmp(m->results[i].region, region) &&
		    !strcmp(m->results[i].metric, metric))
			return &m->results[i];
	return NULL;
}

/* The region compared: the first with a cycles figure, else the first. */
static const char *pick_region(const struct lk_variant_measure *m)
{
	size_t i;

	for (i = 0; i < m->nresults; i++)
		if (!strcmp(m->results[i].metric, "cycles"))
			return m->results[i].region;
	return m->nresults ? m->results[0].region : NULL;
}

static int usable(const struct lk_result_row *x)
{
	return x && x->has_value && isfinite(x->value) && x->value > 0;
}

/* Why the cycles figure cannot be compared; NULL when it can. */
static const char *cycles_problem(const struct lk_result_row *c)
{
	if (!c)
		return "cycles not measured";
	if (!c->has_value)
		return "cycles unsupported";
	if (!usable(c))
		return "cycles not positive";
	if (strstr(c->flags, "calibration-unreliable"))
		return "calibration unreliable";
	/* The wall time in the measuring thread's CPU clock: no thread's
	 * cycles, nothing a one-thread prediction describes. */
	if (strstr(c->flags, "multi-threaded"))
		return "several threads ran (cycles are one CPU's clock)";
	return NULL;
}

static const struct lk_result_row *find_primary(
	const struct lk_variant_measure *m, const char *region)
{
	size_t i;

	for (i = 0; i < m->nresults; i++)
		if (m->results[i].primary &&
		    !strcmp(m->results[i].region, region))
			return &m->results[i];
	return NULL;
}

static void measure_variant(struct lk_report *r,
			    const struct lk_variant_measure *m,
			    struct lk_report_variant *v)
{
	const struct lk_result_row *c, *p;
	const char *region, *why;

	v->meas = LK_MEAS_NONE;
	v->region = lk_strdup("");
	v->measured_source = lk_strdup("");
	if (strcmp(m->status, "ok")) {
		v->note = !strcmp(m->status, "pending")
				  ? lk_strdup("never run")
				  : lk_asprintf("run %s", m->status);
		return;
	}
	region = pick_region(m);
	if (!region) {
		v->note = lk_strdup("run has no results");
		return;
	}
	free(v->region);
	v->region = lk_strdup(region);
	c = find_metric(m, region, "cycles");
	why = cycles_problem(c);
	if (!why) {
		v->meas = LK_MEAS_CYCLES;
		v->basis = 0;
		v->measured = c->value;
		free(v->measured_source);
		v->measured_source = lk_strdup(c->source);
		v->note = lk_strdup("");
		basis0_add_source(&r->bases[0], c->source);
		r->bases[0].nvariants++;
		return;
	}
	v->no_cycles = 1;
	v->note = lk_asprintf("no trustworthy core-cycle figure: %s", why);
	p = find_primary(m, region);
	if (!usable(p) || !strcmp(p->metric, "cycles"))
		return;
	/* Shown in its own unit, never compared with a prediction. */
	v->meas = LK_MEAS_FALLBACK;
	v->basis = basis_find(r, p->metric, p->source, p->unit);
	v->measured = p->value;
	free(v->measured_source);
	v->measured_source = lk_strdup(p->source);
	r->bases[v->basis].nvariants++;
}

/* ---- Verdicts and predictions. ---- */

static struct lk_report_variant *variant_by_id(struct lk_report *r,
					       int64_t id)
{
	size_t lo = 0, hi = r->nvariants;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->variants[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nvariants && r->variants[lo].id == id
		       ? &r->variants[lo]
		       : NULL;
}

static void append_verdict(struct lk_report_variant *v,
			   const struct lk_report_verdict *d)
{
	char *text = lk_asprintf("%s%s%s: %s%s%s", v->verdict,
				 *v->verdict ? "; " : "", d->filter,
				 d->verdict, *d->reason ? ", " : "",
				 d->reason);

	free(v->verdict);
	v->verdict = text;
}

static void apply_verdicts(struct lk_report *r,
			   const struct lk_report_input *in)
{
	size_t i;

	for (i = 0; i < in->nverdicts; i++) {
		const struct lk_report_verdict *d = &in->verdicts[i];
		struct lk_report_variant *v = variant_by_id(r, d->variant_id);
		char *why;

		if (!v || (strcmp(d->verdict, "exclude") &&
			   strcmp(d->verdict, "unknown")))
			continue;
		append_verdict(v, d);
		why = lk_asprintf("%s: %s", d->filter,
				  *d->reason ? d->reason : "(no reason)");
		if (!strcmp(d->verdict, "exclude")) {
			v->excluded = 1;
			report_count_reason(r, "exclude", -1, why);
		} else {
			v->unknown = 1;
			report_count_reason(r, "unknown", -1, why);
		}
		free(why);
	}
}

/* A lifted row's value, or why it cannot be used (an owned string). */
static char *lifted_problem(const struct lk_report_lifted *l)
{
	if (!strcmp(l->status, "excluded"))
		return lk_strdup(*l->reason ? l->reason : "excluded");
	if (strcmp(l->status, "ok"))
		return lk_asprintf("status %s%s%s", l->status,
				   *l->reason ? ": " : "", l->reason);
	if (!l->has_value || !isfinite(l->value))
		return lk_strdup("ok but no value");
	if (l->value < 0)
		return lk_strdup("negative lifted value");
	return NULL;
}

static void apply_lifted(struct lk_report *r, const struct lk_report_input *in)
{
	size_t i, a = 0;

	for (i = 0; i < in->nlifted; i++) {
		const struct lk_report_lifted *l = &in->lifted[i];
		struct lk_report_variant *v = variant_by_id(r, l->variant_id);
		struct lk_report_pred *p;

		while (!same_analyzer(&r->analyzers[a], l))
			a++;
		if (!v)
			continue;
		p = &v->preds[a];
		free(p->reason);
		p->reason = lifted_problem(l);
		p->has_value = l->has_value && isfinite(l->value);
		p->value = l->value;
		p->outcome = p->reason ? LK_OUT_FAILED : LK_OUT_COMPARED;
		if (!p->reason)
			p->reason = lk_strdup("");
	}
}

/* Precedence: excluded, failed, missing, unmeasured, no trustworthy
 * cycles, compared. */
static void settle_outcomes(struct lk_report *r)
{
	size_t i, a;

	for (i = 0; i < r->nvariants; i++) {
		struct lk_report_variant *v = &r->variants[i];

		for (a = 0; a < r->nanalyzers; a++) {
			struct lk_report_pred *p = &v->preds[a];

			if (v->excluded)
				p->outcome = LK_OUT_EXCLUDED;
			else if (p->outcome == LK_OUT_FAILED)
				report_count_reason(r, "failed", (long)a,
						    p->reason);
			else if (p->outcome == LK_OUT_MISSING)
				;
			else if (v->no_cycles)
				p->outcome = LK_OUT_NO_CYCLES;
			else if (v->meas == LK_MEAS_NONE)
				p->outcome = LK_OUT_UNMEASURED;
			if (p->outcome != LK_OUT_COMPARED)
				continue;
			p->rel_error = (p->value - v->measured) / v->measured;
			r->compared++;
		}
		if (v->no_cycles && !v->excluded)
			report_count_reason(r, "no-cycles", -1, v->note);
		else if (v->meas == LK_MEAS_NONE && !v->excluded)
			report_count_reason(r, "unmeasured", -1, v->note);
	}
}

static void load_variants(struct lk_report *r,
			  const struct lk_report_input *in)
{
	size_t i, j, a;

	r->nvariants = in->nvariants;
	r->variants = lk_calloc(in->nvariants ? in->nvariants : 1,
				sizeof(*r->variants));
	for (i = 0; i < in->nvariants; i++) {
		const struct lk_variant_measure *m = &in->variants[i];
		struct lk_report_variant *v = &r->variants[i];

		v->id = m->id;
		v->hash = lk_strdup(m->hash);
		v->source = lk_strdup(m->source);
		v->compiler = lk_strdup(m->compiler);
		v->flagset = lk_strdup(m->flagset);
		v->verdict = lk_strdup("");
		v->nparams = m->nparams;
		v->params = lk_calloc(m->nparams + 1, sizeof(*v->params));
		for (j = 0; j < m->nparams; j++) {
			v->params[j].name = lk_strdup(m->params[j].name);
			v->params[j].value = lk_strdup(m->params[j].value);
			report_add_param_name(r, m->params[j].name);
		}
		measure_variant(r, m, v);
		v->preds = lk_calloc(r->nanalyzers + 1, sizeof(*v->preds));
		for (a = 0; a < r->nanalyzers; a++) {
			v->preds[a].outcome = LK_OUT_MISSING;
			v->preds[a].reason = lk_strdup("");
		}
	}
}

/* ---- Building and freeing. ---- */

static void init_report(struct lk_report *r, const struct lk_report_input *in,
			const struct lk_sweep *cfg, const char *store_dir)
{
	r->campaign = lk_strdup(in->campaign);
	r->title = cfg && cfg->report.title
			   ? lk_strdup(cfg->report.title)
			   : lk_asprintf("loopkit report: %s", in->campaign);
	r->store_dir = lk_strdup(store_dir);
	r->generated = (double)time(NULL);
	r->bases = lk_calloc(1, sizeof(*r->bases));
	r->bases[0].metric = lk_strdup("cycles");
	r->bases[0].sources = lk_strdup("");
	r->bases[0].unit = lk_strdup("cycles/step");
	r->nbases = 1;
}

int report_from_input(struct lk_ctx *ctx, const struct lk_report_input *in,
		      const struct lk_sweep *cfg, const char *store_dir,
		      struct lk_report **out)
{
	struct lk_report *r = lk_calloc(1, sizeof(*r));
	int ret;

	init_report(r, in, cfg, store_dir);
	collect_analyzers(r, in);
	load_variants(r, in);
	apply_verdicts(r, in);
	apply_lifted(r, in);
	settle_outcomes(r);
	report_name_sources(r);
	/* With nothing compared, say so rather than fault a group-by key
	 * whose parameter the later stages have not stored yet. */
	ret = r->compared ? report_choose_groups(ctx, r, cfg) : 0;
	if (!ret)
		report_build_rows(r);
	if (ret) {
		lk_report_free(r);
		r = NULL;
	}
	*out = r;
	return ret;
}

int lk_report_build(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *cfg, struct lk_report **out)
{
	struct lk_report_input in;
	int ret;

	*out = NULL;
	ret = lk_store_report_read(ctx, s, campaign, &in);
	if (!ret)
		ret = report_from_input(ctx, &in, cfg, lk_store_dir(s), out);
	lk_report_input_release(&in);
	return ret;
}

static void free_variant(struct lk_report_variant *v, size_t nanalyzers)
{
	size_t j;

	free(v->hash);
	free(v->source);
	free(v->source_name);
	free(v->name);
	free(v->compiler);
	free(v->flagset);
	for (j = 0; j < v->nparams; j++) {
		free((char *)v->params[j].name);
		free((char *)v->params[j].value);
	}
	free(v->params);
	free(v->region);
	free(v->measured_source);
	free(v->note);
	free(v->verdict);
	for (j = 0; v->preds && j < nanalyzers; j++)
		free(v->preds[j].reason);
	free(v->preds);
}

void lk_report_free(struct lk_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nvariants; i++)
		free_variant(&r->variants[i], r->nanalyzers);
	free(r->variants);
	for (i = 0; i < r->nanalyzers; i++) {
		free(r->analyzers[i].tool);
		free(r->analyzers[i].version);
		free(r->analyzers[i].params);
		free(r->analyzers[i].unit);
		free(r->analyzers[i].label);
	}
	free(r->analyzers);
	for (i = 0; i < r->nbases; i++) {
		free(r->bases[i].metric);
		free(r->bases[i].sources);
		free(r->bases[i].unit);
	}
	free(r->bases);
	for (i = 0; i < r->nrows; i++) {
		free(r->rows[i].key);
		free(r->rows[i].value);
	}
	free(r->rows);
	for (i = 0; i < r->nreasons; i++) {
		free(r->reasons[i].what);
		free(r->reasons[i].reason);
	}
	free(r->reasons);
	lk_strv_release(&r->group_by);
	lk_strv_release(&r->param_names);
	free(r->campaign);
	free(r->title);
	free(r->store_dir);
	free(r);
}
