/*
 * From a variant's kept samples to its labelled figures: one result per
 * region x metric, the reducer of the method, the calibration check, and
 * the choice of the headline figure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure-int.h"

enum pick { PICK_TSC, PICK_NS, PICK_CAL, PICK_RATIO, PICK_EVENT };

/* Values of the kept samples of region r; *procs gets their process. */
static size_t gather(const struct acc *a, int r, enum pick what, int ev,
		     double *v, int *procs, int *mux)
{
	size_t i, n = 0;

	for (i = 0; i < a->nconv; i++) {
		const struct conv *c = &a->conv[i];
		double x;

		if (!c->kept || c->region != r ||
		    (a->uncontended_only && c->contended))
			continue;
		if (what == PICK_EVENT && !(c->ev_mask & (1u << ev)))
			continue;
		x = what == PICK_TSC ? c->tsc : what == PICK_NS ? c->ns :
		    what == PICK_CAL ? c->cal : what == PICK_RATIO ? c->ratio :
		    c->ev[ev];
		if (isnan(x))
			continue;
		if (mux && c->mux)
			*mux = 1;
		procs[n] = c->process;
		v[n++] = x;
	}
	return n;
}

/* The rule's figure is the mean over processes of each one's trimmed
 * mean; every other reducer pools the samples of all processes. */
static double reduce(const struct lk_method *m, const double *v,
		     const int *procs, size_t n)
{
	double *one, sum = 0, mean, dev;
	size_t i, k;
	int p, count = 0;

	if (m->reducer != LK_REDUCE_TRIMMED)
		return lk_reduce(m, v, n);
	one = lk_malloc((n + 1) * sizeof(*one));
	for (p = 0; p < m->processes; p++) {
		for (i = k = 0; i < n; i++)
			if (procs[i] == p)
				one[k++] = v[i];
		if (!k)
			continue;
		lk_trimmed_mean(one, k, 1, &mean, &dev);
		sum += mean;
		count++;
	}
	free(one);
	return count ? sum / count : NAN;
}

static double spread(const double *v, size_t n, double value)
{
	if (n < 2 || value == 0)
		return 0;
	return (lk_quantile(v, n, 0.9) - lk_quantile(v, n, 0.1)) /
	       fabs(value);
}

static struct lk_result_rec *new_result(struct acc *a, int region,
					const char *metric, const char *source,
					const char *unit)
{
	struct lk_result_rec *r;

	LK_GROW(a->rrec, a->nrrec + 1, a->arrec);
	r = &a->rrec[a->nrrec++];
	memset(r, 0, sizeof(*r));
	r->region = a->regions.v[region];
	r->metric = lk__acc_keep(a, metric);
	r->source = lk__acc_keep(a, source);
	r->unit = lk__acc_keep(a, unit);
	r->flags = "";
	r->reducer = "";
	return r;
}

static void set_value(struct acc *a, struct lk_result_rec *res,
		      const struct lk_method *m, const double *v,
		      const int *procs, size_t n)
{
	char *name = lk_reducer_name(m);

	res->reducer = lk__acc_keep(a, name);
	free(name);
	res->n = (long)n;
	if (!n)
		return;
	res->has_value = 1;
	res->value = reduce(m, v, procs, n);
	res->spread = spread(v, n, res->value);
}

static void add_flag(struct acc *a, struct lk_result_rec *res,
		     const char *flag)
{
	char *s;

	if (!*res->flags) {
		res->flags = lk__acc_keep(a, flag);
		return;
	}
	s = lk_asprintf("%s,%s", res->flags, flag);
	res->flags = lk__acc_keep(a, s);
	free(s);
}

static const char *const hw_events[] = {"cycles", "instructions",
					"l1d-misses", "llc-misses",
					"branch-misses", NULL};

static int is_hw_event(const char *name)
{
	size_t i;

	for (i = 0; hw_events[i]; i++)
		if (!strcmp(hw_events[i], name))
			return 1;
	return 0;
}

static void result_unsupported(struct acc *a, int region, const char *metric,
			       int ev)
{
	struct lk_result_rec *res = new_result(a, region, metric,
					       "unsupported", "");
	char *flag = lk_asprintf("unsupported:%s",
				 ev >= 0 && *a->ev_reason[ev] ?
					 a->ev_reason[ev] : "not-opened");

	add_flag(a, res, flag);
	free(flag);
}

static void result_event(struct acc *a, const struct lk_method *m,
			 int region, const char *metric, double *v,
			 int *procs)
{
	int ev = lk__index_of(&a->events, metric, 0), mux = 0;
	struct lk_result_rec *res;
	char unit[64];
	size_t n;

	if (ev < 0 || !a->ev_ok[ev]) {
		result_unsupported(a, region, metric, ev);
		return;
	}
	n = gather(a, region, PICK_EVENT, ev, v, procs, &mux);
	snprintf(unit, sizeof(unit), "%s/step",
		 strcmp(metric, "task-clock") ? "events" : "ns");
	res = new_result(a, region, metric,
			 is_hw_event(metric) ? "pmu" : "perf-sw", unit);
	set_value(a, res, m, v, procs, n);
	if (mux)
		add_flag(a, res, "multiplexed");
}

static void result_calibrated(struct acc *a, const struct lk_method *m,
			      int region, double *v, int *procs)
{
	double *ratio = lk_malloc((a->nconv + 1) * sizeof(*ratio));
	struct lk_result_rec *res;
	size_t n, nr;
	int moved, reliable;

	n = gather(a, region, PICK_TSC, 0, v, procs, NULL);
	nr = gather(a, region, PICK_RATIO, 0, ratio, procs, NULL);
	if (!nr) {
		free(ratio);
		result_unsupported(a, region, "cycles", -1);
		return;
	}
	reliable = nr == n ? lk_calibration_reliable(v, ratio, n, &moved) : 0;
	n = gather(a, region, PICK_CAL, 0, v, procs, NULL);
	res = new_result(a, region, "cycles", "tsc-calibrated", "cycles/step");
	set_value(a, res, m, v, procs, n);
	if (!reliable)
		add_flag(a, res, "calibration-unreliable");
	else if (!moved)
		add_flag(a, res, "clock-steady");
	free(ratio);
}

static void result_metric(struct acc *a, const struct lk_method *m,
			  int region, const char *metric, double *v,
			  int *procs)
{
	struct lk_result_rec *res;
	int ev = lk__index_of(&a->events, metric, 0);
	size_t n;

	if (!strcmp(metric, "tsc") || !strcmp(metric, "ns")) {
		int tsc = !strcmp(metric, "tsc");

		n = gather(a, region, tsc ? PICK_TSC : PICK_NS, 0, v, procs,
			   NULL);
		res = new_result(a, region, metric,
				 tsc ? "tsc" : "clock_monotonic_raw",
				 tsc ? "ticks/step" : "ns/step");
		set_value(a, res, m, v, procs, n);
	} else if (!strcmp(metric, "cycles") && (ev < 0 || !a->ev_ok[ev])) {
		result_calibrated(a, m, region, v, procs);
	} else {
		result_event(a, m, region, metric, v, procs);
	}
}

/*
 * Several threads ran the region. The reference chain timed the
 * measuring thread's CPU and events count the measuring thread: cycles
 * are the wall time in that one CPU's clock, not the threads' cycles,
 * and an event is one thread's share. Say so on every such row.
 */
static void flag_threads(struct acc *a, size_t first, int region)
{
	long seen = (size_t)region < a->aregion_threads
			    ? a->region_threads[region] : 0;
	size_t i;

	if (a->threads <= 1 && seen <= 1)
		return;
	for (i = first; i < a->nrrec; i++) {
		struct lk_result_rec *r = &a->rrec[i];

		if (strcmp(r->metric, "tsc") && strcmp(r->metric, "ns") &&
		    strcmp(r->source, "unsupported"))
			add_flag(a, r, "multi-threaded");
	}
}

/* The headline: PMU or trustworthy calibrated cycles, else TSC ticks.
 * A multi-threaded region's cycles are one CPU's: TSC ticks then. */
static void choose_primary(struct acc *a, size_t first)
{
	size_t i, best = SIZE_MAX;

	for (i = first; i < a->nrrec; i++) {
		struct lk_result_rec *r = &a->rrec[i];

		if (!r->has_value)
			continue;
		if (!strcmp(r->metric, "cycles") &&
		    !strstr(r->flags, "unreliable") &&
		    !strstr(r->flags, "multi-threaded")) {
			best = i;
			break;
		}
		if (!strcmp(r->metric, "tsc") ||
		    (best == SIZE_MAX && strcmp(r->metric, "cycles")))
			best = i;
	}
	if (best != SIZE_MAX)
		a->rrec[best].primary = 1;
}

/*
 * Declared work over one of the region's measured figures: unit/cycle
 * from its cycles row, unit/s from its ns row (scale 1e9), none without
 * that row or its value. The work per call is a constant, so the figure's
 * reducer, sample count, relative spread and flags carry over; the source
 * names both: work/cycles:tsc-calibrated, work/ns:clock_monotonic_raw.
 */
static void derive(struct acc *a, size_t first, int region,
		   const struct acc_work *w, const char *figure,
		   const char *per, double scale)
{
	struct lk_result_rec fig, *res;
	char metric[64], source[96];
	size_t i;

	for (i = first; i < a->nrrec; i++)
		if (!strcmp(a->rrec[i].metric, figure) && a->rrec[i].has_value)
			break;
	if (i == a->nrrec)
		return;
	fig = a->rrec[i]; /* new_result may move the array */
	snprintf(metric, sizeof(metric), "%s/%s", w->unit, per);
	snprintf(source, sizeof(source), "work/%s:%s", figure, fig.source);
	res = new_result(a, region, metric, source, metric);
	res->reducer = fig.reducer;
	res->n = fig.n;
	res->flags = fig.flags;
	if (fig.value > 0) {
		res->has_value = 1;
		res->value = w->per_call / fig.value * scale;
		res->spread = fig.spread;
	}
	if (w->differs)
		add_flag(a, res, "work-differs");
}

static void derive_work(struct acc *a, size_t first, int region)
{
	size_t i;

	for (i = 0; i < a->nwork; i++) {
		if (a->work[i].region != region)
			continue;
		derive(a, first, region, &a->work[i], "cycles", "cycle", 1);
		derive(a, first, region, &a->work[i], "ns", "s", 1e9);
	}
}

/*
 * Contended samples (measure-int.h) are left out of every figure of the
 * region when enough uncontended ones remain, so that its figures all
 * rest on the same samples. Returns 1 when the figures keep contended
 * samples after all: they are flagged.
 */
static int choose_samples(struct acc *a, int region)
{
	size_t n, clean;

	lk__count_clean(a, region, -1, 0, &n, &clean);
	a->uncontended_only = clean >= LK_MIN_UNCONTENDED;
	return clean < n && !a->uncontended_only;
}

void lk__compute_results(struct acc *a, const struct lk_sweep *sw)
{
	double *v = lk_malloc((a->nconv + 1) * sizeof(*v));
	int *procs = lk_malloc((a->nconv + 1) * sizeof(*procs));
	size_t r, i, first;
	int contended;

	for (r = 0; r < a->regions.n; r++) {
		first = a->nrrec;
		contended = choose_samples(a, (int)r);
		for (i = 0; i < sw->metrics.n; i++)
			result_metric(a, &sw->method, (int)r,
				      sw->metrics.v[i], v, procs);
		for (i = first; i < a->nrrec; i++) {
			if (a->unstable)
				add_flag(a, &a->rrec[i], "unstable");
			if (contended && a->rrec[i].has_value)
				add_flag(a, &a->rrec[i], "contended");
		}
		flag_threads(a, first, (int)r);
		choose_primary(a, first);
		derive_work(a, first, (int)r);
	}
	free(v);
	free(procs);
}
