/*
 * Parser of the runtime's result stream (doc/rt-protocol.md). It reads
 * text that a crashing or hostile benchmark may have cut or mangled, so
 * every field is checked and nothing is trusted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/measure.h"

#define MAX_FIELDS 64

struct line {
	const char *name;  /* stream name for messages */
	long number;
	char *kind;
	char *keys[MAX_FIELDS];
	char *values[MAX_FIELDS];
	int n;
};

static int split_line(struct lk_ctx *ctx, struct line *l, char *text)
{
	char *save = NULL, *tok;

	l->n = 0;
	l->kind = strtok_r(text, " \t", &save);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok)
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "field '%.40s' is not key=value",
					   tok);
		if (l->n == MAX_FIELDS)
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "too many fields");
		*eq = '\0';
		l->keys[l->n] = tok;
		l->values[l->n++] = eq + 1;
	}
	return 0;
}

static const char *field(const struct line *l, const char *key)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->keys[i], key))
			return l->values[i];
	return NULL;
}

static int need_num(struct lk_ctx *ctx, const struct line *l, const char *key,
		    double *out)
{
	const char *v = field(l, key);

	if (!v)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "%s line lacks %s=", l->kind, key);
	/* strtod takes "nan" and "inf": no measurement is either. */
	if (lk_parse_double(v, out) || !isfinite(*out))
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "%s=%.40s is not a number", key, v);
	return 0;
}

static int need_long(struct lk_ctx *ctx, const struct line *l,
		     const char *key, long *out)
{
	double d;
	int ret = need_num(ctx, l, key, &d);

	if (ret)
		return ret;
	if (d < 0 || d > 1e15 || d != (double)(long)d)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "%s must be a whole number", key);
	*out = (long)d;
	return 0;
}

static struct lk_rt_region *find_region(struct lk_rt_output *out,
					const char *name, int create)
{
	size_t i;

	for (i = 0; i < out->nregions; i++)
		if (!strcmp(out->regions[i].name, name))
			return &out->regions[i];
	if (!create)
		return NULL;
	out->regions = lk_reallocarray(out->regions, out->nregions + 1,
				       sizeof(*out->regions));
	memset(&out->regions[out->nregions], 0, sizeof(*out->regions));
	out->regions[out->nregions].name = lk_strdup(name);
	return &out->regions[out->nregions++];
}

static struct lk_rt_region *line_region(struct lk_ctx *ctx,
					struct lk_rt_output *out,
					const struct line *l)
{
	const char *name = field(l, "region");

	if (!name) {
		lk_error_at(ctx, LK_EINPUT, l->name, l->number,
			    "%s line lacks region=", l->kind);
		return NULL;
	}
	return find_region(out, name, 1);
}

#define WORK_UNIT_MAX 32

/* A work.<unit>=<v> field: a unit of [a-z0-9_], declared once, v > 0. */
static int on_work(struct lk_ctx *ctx, const struct line *l,
		   struct lk_rt_region *r, const char *key)
{
	const char *unit = key + strlen("work.");
	size_t n = strspn(unit, "abcdefghijklmnopqrstuvwxyz0123456789_"), i;
	double v;

	if (n < 1 || n > WORK_UNIT_MAX || unit[n])
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "work unit '%.40s' is not 1 to %d "
				   "characters of [a-z0-9_]", unit,
				   WORK_UNIT_MAX);
	if (need_num(ctx, l, key, &v))
		return LK_EINPUT;
	if (v <= 0)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "%s must be above 0", key);
	for (i = 0; i < r->nwork; i++)
		if (!strcmp(r->work[i].unit, unit))
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "%s declared twice for region %.40s",
					   key, r->name);
	if (r->nwork == LK_RT_MAX_WORK)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "more than %d work units in region %.40s",
				   LK_RT_MAX_WORK, r->name);
	r->work = lk_reallocarray(r->work, r->nwork + 1, sizeof(*r->work));
	r->work[r->nwork].unit = lk_strdup(unit);
	r->work[r->nwork++].per_call = v;
	return 0;
}

static int on_info(struct lk_ctx *ctx, struct lk_rt_output *out,
		   const struct line *l)
{
	struct lk_rt_region *r;
	const char *v;
	int i;

	if (!field(l, "region")) {
		for (i = 0; i < l->n; i++)
			if (!strncmp(l->keys[i], "work.", 5))
				return lk_error_at(ctx, LK_EINPUT, l->name,
						   l->number, "%.40s without "
						   "region=", l->keys[i]);
		for (i = 0; i < l->n; i++) {
			lk_strv_push(&out->info_keys, l->keys[i]);
			lk_strv_push(&out->info_values, l->values[i]);
		}
		return 0;
	}
	if (!(r = line_region(ctx, out, l)))
		return LK_EINPUT;
	if ((v = field(l, "steps")) && need_long(ctx, l, "steps", &r->steps))
		return LK_EINPUT;
	if ((v = field(l, "threads")) &&
	    need_long(ctx, l, "threads", &r->threads))
		return LK_EINPUT;
	if ((v = field(l, "roi_addr"))) {
		free(r->roi_addr);
		r->roi_addr = lk_strdup(v);
	}
	for (i = 0; i < l->n; i++)
		if (!strncmp(l->keys[i], "work.", 5) &&
		    on_work(ctx, l, r, l->keys[i]))
			return LK_EINPUT;
	return 0;
}

static int on_event(struct lk_ctx *ctx, struct lk_rt_output *out,
		    const struct line *l)
{
	const char *name = field(l, "name"), *status = field(l, "status");
	struct lk_rt_event *e;
	long err = 0;

	if (!name || !status)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "event line needs name= and status=");
	if (out->nevents == LK_RT_MAX_EVENTS)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "more than %d events", LK_RT_MAX_EVENTS);
	if (strcmp(status, "ok") && strcmp(status, "unsupported"))
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "event status '%.20s' is neither ok nor "
				   "unsupported", status);
	if (!strcmp(status, "unsupported") && field(l, "errno") &&
	    need_long(ctx, l, "errno", &err))
		return LK_EINPUT;
	if (err > 4095)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "errno=%ld is out of range", err);
	out->events = lk_reallocarray(out->events, out->nevents + 1,
				      sizeof(*out->events));
	e = &out->events[out->nevents++];
	e->name = lk_strdup(name);
	e->ok = !strcmp(status, "ok");
	e->err = (int)err;
	e->reason = lk_strdup(field(l, "reason") ? field(l, "reason") : "");
	return 0;
}

static int on_overhead(struct lk_ctx *ctx, struct lk_rt_output *out,
		       const struct line *l)
{
	struct lk_rt_region *r = line_region(ctx, out, l);

	if (!r || need_num(ctx, l, "tsc_min", &r->ovh_tsc_min) ||
	    need_num(ctx, l, "tsc_median", &r->ovh_tsc_median) ||
	    need_num(ctx, l, "ns_min", &r->ovh_ns_min) ||
	    need_num(ctx, l, "ns_median", &r->ovh_ns_median))
		return LK_EINPUT;
	r->has_overhead = 1;
	return 0;
}

static int event_index(const struct lk_rt_output *out, const char *name)
{
	size_t i;

	for (i = 0; i < out->nevents; i++)
		if (!strcmp(out->events[i].name, name))
			return (int)i;
	return -1;
}

static int sample_events(struct lk_ctx *ctx, const struct lk_rt_output *out,
			 const struct line *l, struct lk_rt_sample *s)
{
	static const char *const fixed[] = {"region", "idx", "steps", "tsc",
					    "ns", "ref_tsc", "ref_cycles",
					    "issue_tsc", "issue_cycles",
					    "window_tsc", "mux"};
	int i;
	size_t k;

	for (i = 0; i < l->n; i++) {
		int e;

		for (k = 0; k < LK_ARRAY_SIZE(fixed); k++)
			if (!strcmp(l->keys[i], fixed[k]))
				break;
		if (k < LK_ARRAY_SIZE(fixed))
			continue;
		e = event_index(out, l->keys[i]);
		if (e < 0 || !out->events[e].ok)
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "value for unopened event '%.40s'",
					   l->keys[i]);
		if (need_num(ctx, l, l->keys[i], &s->ev[e]))
			return LK_EINPUT;
		s->ev_mask |= 1u << e;
	}
	return 0;
}

static int on_sample(struct lk_ctx *ctx, struct lk_rt_output *out,
		     const struct line *l)
{
	struct lk_rt_region *r = line_region(ctx, out, l);
	struct lk_rt_sample s;

	memset(&s, 0, sizeof(s));
	if (!r || need_long(ctx, l, "idx", &s.idx) ||
	    need_long(ctx, l, "steps", &s.steps) ||
	    need_num(ctx, l, "tsc", &s.tsc) || need_num(ctx, l, "ns", &s.ns))
		return LK_EINPUT;
	if (s.steps < 1)
		return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
				   "steps must be at least 1");
	if (field(l, "ref_tsc")) {
		if (need_num(ctx, l, "ref_tsc", &s.ref_tsc) ||
		    need_num(ctx, l, "ref_cycles", &s.ref_cycles))
			return LK_EINPUT;
		s.has_ref = s.ref_tsc > 0 && s.ref_cycles > 0;
	}
	if (field(l, "issue_tsc") || field(l, "issue_cycles")) {
		if (need_num(ctx, l, "issue_tsc", &s.issue_tsc) ||
		    need_num(ctx, l, "issue_cycles", &s.issue_cycles))
			return LK_EINPUT;
		s.has_issue = s.issue_tsc > 0 && s.issue_cycles > 0;
	}
	if (field(l, "window_tsc")) {
		if (need_num(ctx, l, "window_tsc", &s.window_tsc))
			return LK_EINPUT;
		s.has_window = s.window_tsc > 0;
	}
	s.mux = field(l, "mux") && !strcmp(field(l, "mux"), "1");
	if (sample_events(ctx, out, l, &s))
		return LK_EINPUT;
	LK_GROW(r->samples, r->nsamples + 1, r->alloc);
	r->samples[r->nsamples++] = s;
	return 0;
}

static int on_line(struct lk_ctx *ctx, struct lk_rt_output *out,
		   struct line *l)
{
	const char *msg;

	if (!strcmp(l->kind, "lkrt")) {
		const char *v = field(l, "version");

		if (!v || strcmp(v, "1"))
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "unsupported protocol version");
		return 0;
	}
	if (!strcmp(l->kind, "info"))
		return on_info(ctx, out, l);
	if (!strcmp(l->kind, "event"))
		return on_event(ctx, out, l);
	if (!strcmp(l->kind, "overhead"))
		return on_overhead(ctx, out, l);
	if (!strcmp(l->kind, "calib"))
		return 0;
	if (!strcmp(l->kind, "sample"))
		return on_sample(ctx, out, l);
	if (!strcmp(l->kind, "error")) {
		msg = field(l, "msg");
		free(out->error);
		out->error = lk_strdup(msg ? msg : "unspecified");
		return 0;
	}
	if (!strcmp(l->kind, "end")) {
		out->complete = 1;
		return field(l, "samples") ?
			       need_long(ctx, l, "samples", &out->end_samples) :
			       0;
	}
	return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
			   "unknown record '%.40s'", l->kind);
}

/*
 * The runtime writes printable text and '\n' only. Any other control byte
 * (a NUL, the '\r' of CRLF line ends) means the stream was mangled, and
 * would otherwise end up silently inside a value.
 */
static int check_bytes(struct lk_ctx *ctx, const struct line *l,
		       const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\0')
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "NUL byte in line");
		if (c == '\r')
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "carriage return in line");
		if (c < 0x20 && c != '\t')
			return lk_error_at(ctx, LK_EINPUT, l->name, l->number,
					   "control character 0x%02x in line",
					   c);
	}
	return 0;
}

int lk_rt_parse(struct lk_ctx *ctx, const char *name, const char *text,
		size_t len, struct lk_rt_output *out)
{
	const char *p = text, *end = text + len;
	struct line l = {.name = name};
	int ret = 0;

	memset(out, 0, sizeof(*out));
	while (!ret && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *copy;

		l.number++;
		/* The runtime ends every line: an unterminated tail is one cut
		 * short by a dying benchmark, not a record (after 'end' it is
		 * foreign data, refused below). */
		if (!nl && !out->complete)
			break;
		if ((ret = check_bytes(ctx, &l, p, n)))
			break;
		copy = lk_strndup(p, n);
		ret = split_line(ctx, &l, copy);
		/* Nothing follows 'end': whatever does is not the runtime's. */
		if (!ret && l.kind && out->complete)
			ret = lk_error_at(ctx, LK_EINPUT, name, l.number,
					  "'%.40s' record after end", l.kind);
		else if (!ret && l.kind)
			ret = on_line(ctx, out, &l);
		free(copy);
		p += n + 1;
	}
	return ret;
}

void lk_rt_output_release(struct lk_rt_output *out)
{
	size_t i, j;

	lk_strv_release(&out->info_keys);
	lk_strv_release(&out->info_values);
	for (i = 0; i < out->nevents; i++) {
		free(out->events[i].name);
		free(out->events[i].reason);
	}
	free(out->events);
	for (i = 0; i < out->nregions; i++) {
		free(out->regions[i].name);
		free(out->regions[i].roi_addr);
		free(out->regions[i].samples);
		for (j = 0; j < out->regions[i].nwork; j++)
			free(out->regions[i].work[j].unit);
		free(out->regions[i].work);
	}
	free(out->regions);
	free(out->error);
	memset(out, 0, sizeof(*out));
}

const char *lk_rt_info(const struct lk_rt_output *out, const char *key)
{
	size_t i;

	for (i = out->info_keys.n; i-- > 0;)
		if (!strcmp(out->info_keys.v[i], key))
			return out->info_values.v[i];
	return NULL;
}
