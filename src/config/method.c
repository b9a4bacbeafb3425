/* struct lk_method: defaults, KEY=VALUE parsing, canonical text; metrics. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config-int.h"
#include "loopkit/subprocess.h"

#define STR_(x) #x
#define STR(x) STR_(x)     /* a macro's value as a string */

const char *const lk_metric_names[] = {
	"tsc", "ns", "cycles", "instructions", "l1d-misses", "llc-misses",
	"branch-misses", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", NULL,
};

int lk_metric_known(const char *name)
{
	const char *const *m;

	for (m = lk_metric_names; *m; m++)
		if (!strcmp(*m, name))
			return 1;
	return 0;
}

void lk_method_init(struct lk_method *m)
{
	memset(m, 0, sizeof(*m));
	m->warmup = 10;
	m->steps = 0;
	m->min_sample_ticks = 20000;
	/*
	 * Three launches, the 25th percentile of their pooled samples. On
	 * shared VMs whole launches run a few % slow (co-tenants, host
	 * placement); interference only ever adds time, so a low
	 * percentile over several launches is reproducible where one
	 * launch's median is not, and unlike the minimum it is not set by
	 * one unlucky reference timing (bench/run.sh, doc/method.md).
	 */
	m->repetitions = 30;
	m->processes = 3;
	m->reducer = LK_REDUCE_PERCENTILE;
	m->percentile = 25;
	m->trim_runs = 5;
	m->trim_tolerance = 0.02;
	m->trim_retries = 3;
	/* The environment's budget, checked by lk_relaunches_env() when
	 * the command started. */
	if (lk_relaunches_env(&m->relaunches) <= 0)
		m->relaunches = LK_RELAUNCHES_DEFAULT;
	m->cold_cache = 0;
	lk_cpuset_clear(&m->cpus);
	m->fifo = 0;
	m->calibrate = 1;
	m->no_aslr = 1;
	m->align_functions = 64;
	m->timeout = 60;
	m->memory_limit = lk_proc_default_memory_limit();
}

static int parse_count(const char *v, long min, long *out, const char **why)
{
	long n;

	if (lk_parse_decimal(v, &n) || n < min) {
		*why = min ? "expected an integer >= 1"
			   : "expected an integer >= 0";
		return -1;
	}
	*out = n;
	return 0;
}

static int parse_bool(const char *v, int *out, const char **why)
{
	if (!lk_parse_bool(v, out))
		return 0;
	*why = "expected true or false (yes/no, on/off, 1/0)";
	return -1;
}

static int set_warmup(struct lk_method *m, const char *v, const char **why)
{
	return parse_count(v, 0, &m->warmup, why);
}

static int set_steps(struct lk_method *m, const char *v, const char **why)
{
	if (!strcmp(v, "auto")) {
		m->steps = 0;
		return 0;
	}
	if (!parse_count(v, 1, &m->steps, why))
		return 0;
	*why = "expected an integer >= 1 or auto";
	return -1;
}

static int set_min_ticks(struct lk_method *m, const char *v, const char **why)
{
	return parse_count(v, 1, &m->min_sample_ticks, why);
}

static int set_repetitions(struct lk_method *m, const char *v,
			   const char **why)
{
	return parse_count(v, 1, &m->repetitions, why);
}

static int set_processes(struct lk_method *m, const char *v, const char **why)
{
	return parse_count(v, 1, &m->processes, why);
}

/* "pNN" with NN in 0..100, decimals allowed (p99.9). */
static int parse_percentile(const char *v, double *out)
{
	size_t digits = strspn(v + 1, "0123456789."), dots = 0;
	const char *p;

	if (v[0] != 'p' || !digits || v[1 + digits])
		return -1;
	for (p = v + 1; *p; p++)
		dots += *p == '.';
	if (dots > 1 || lk_parse_double(v + 1, out) || *out > 100)
		return -1;
	return 0;
}

static int set_reducer(struct lk_method *m, const char *v, const char **why)
{
	double pct = 50;

	/* Other reducers reset the percentile so equal methods hash equal. */
	if (!strcmp(v, "median"))
		m->reducer = LK_REDUCE_MEDIAN;
	else if (!strcmp(v, "min"))
		m->reducer = LK_REDUCE_MIN;
	else if (!strcmp(v, "mean"))
		m->reducer = LK_REDUCE_MEAN;
	else if (!strcmp(v, "trimmed-mean"))
		m->reducer = LK_REDUCE_TRIMMED;
	else if (!parse_percentile(v, &pct))
		m->reducer = pct == 50 ? LK_REDUCE_MEDIAN
				       : LK_REDUCE_PERCENTILE;
	else {
		*why = "expected min, median, mean, trimmed-mean or pNN "
		       "(NN in 0..100)";
		return -1;
	}
	m->percentile = pct;
	return 0;
}

static int set_runs(struct lk_method *m, const char *v, const char **why)
{
	return parse_count(v, 1, &m->trim_runs, why);
}

/* strtod alone would also take " 1", "0x1p-4", "nan" and "inf". */
static int parse_plain_number(const char *v, double *out)
{
	if (!*v || strspn(v, "0123456789.") != strlen(v))
		return -1;
	return lk_parse_double(v, out) ? -1 : 0;
}

static int set_tolerance(struct lk_method *m, const char *v, const char **why)
{
	size_t len = strlen(v);
	char *num = lk_strdup(v);
	double t = 0;
	int ret = 0;

	if (len && v[len - 1] == '%') {
		num[len - 1] = '\0';
		if (!parse_plain_number(num, &t))
			t /= 100;
	} else {
		parse_plain_number(num, &t);
	}
	if (t > 0 && t < 1) {
		m->trim_tolerance = t;
	} else {
		*why = "expected a fraction in (0, 1) such as 0.02 or 2%";
		ret = -1;
	}
	free(num);
	return ret;
}

static int set_retries(struct lk_method *m, const char *v, const char **why)
{
	return parse_count(v, 0, &m->trim_retries, why);
}

/* A relaunch budget, 0 to LK_RELAUNCHES_MAX: 0, or -1. */
static int parse_relaunches(const char *v, long *out)
{
	long n;

	if (lk_parse_decimal(v, &n) || n < 0 || n > LK_RELAUNCHES_MAX)
		return -1;
	*out = n;
	return 0;
}

int lk_relaunches_env(long *out)
{
	const char *v = getenv("LOOPKIT_RELAUNCHES");

	if (!v || !*v)          /* empty is unset, as for LANG= */
		return 0;
	return parse_relaunches(v, out) ? -1 : 1;
}

static int set_relaunches(struct lk_method *m, const char *v,
			  const char **why)
{
	if (!parse_relaunches(v, &m->relaunches))
		return 0;
	*why = "expected an integer from 0 to " STR(LK_RELAUNCHES_MAX);
	return -1;
}

static int set_round(struct lk_method *m, const char *v, const char **why)
{
	long n;

	if (lk_parse_decimal(v, &n) || n < 0 || n > 1000) {
		*why = "expected an integer from 0 to 1000";
		return -1;
	}
	m->round = n;
	return 0;
}

static int set_cache(struct lk_method *m, const char *v, const char **why)
{
	if (strcmp(v, "hot") && strcmp(v, "cold")) {
		*why = "expected hot or cold";
		return -1;
	}
	m->cold_cache = !strcmp(v, "cold");
	return 0;
}

/* none, or a cpulist; whether those CPUs exist here is checked when a
 * sweep runs (lk_run_sweep), not when a file is read. */
static int set_cpu(struct lk_method *m, const char *v, const char **why)
{
	struct lk_cpuset set;

	if (!strcmp(v, "none")) {
		lk_cpuset_clear(&m->cpus);
		return 0;
	}
	if (!lk_cpuset_parse(v, &set, why)) {
		m->cpus = set;
		return 0;
	}
	if (!strncmp(*why, "expected", 8))
		*why = "expected none or a CPU list such as 3, 0-3 or 0-3,6";
	return -1;
}

static int set_fifo(struct lk_method *m, const char *v, const char **why)
{
	return parse_bool(v, &m->fifo, why);
}

static int set_calibrate(struct lk_method *m, const char *v, const char **why)
{
	return parse_bool(v, &m->calibrate, why);
}

static int set_aslr(struct lk_method *m, const char *v, const char **why)
{
	int aslr;

	if (parse_bool(v, &aslr, why))
		return -1;
	m->no_aslr = !aslr;
	return 0;
}

static int set_align(struct lk_method *m, const char *v, const char **why)
{
	long a;

	if (lk_parse_decimal(v, &a) || a < 0 || a > 65536 || (a & (a - 1))) {
		*why = "expected 0 or a power of two up to 65536";
		return -1;
	}
	m->align_functions = a;
	return 0;
}

static int set_opt_report(struct lk_method *m, const char *v,
			  const char **why)
{
	return parse_bool(v, &m->opt_report, why);
}

static int set_timeout(struct lk_method *m, const char *v, const char **why)
{
	double t;

	if (parse_plain_number(v, &t) || !(t > 0) || !isfinite(t)) {
		*why = "expected a number of seconds > 0";
		return -1;
	}
	m->timeout = t;
	return 0;
}

/* N with an optional binary suffix (K, M, G, T, with or without "iB"),
 * or a percentage of the physical memory; "none" or 0: no limit. */
static int set_memory_limit(struct lk_method *m, const char *v,
			    const char **why)
{
	static const char suffixes[] = "KMGT";
	double n, scale = 1;
	char *end;
	const char *s;

	*why = "expected a size (64M, 12G, 50%, a number of bytes) or none";
	if (!strcmp(v, "none")) {
		m->memory_limit = LK_PROC_UNLIMITED;
		return 0;
	}
	n = strtod(v, &end);
	if (end == v || !isfinite(n) || n < 0)
		return -1;
	if (*end == '%') {
		if (end[1] || n > 100)
			return -1;
		scale = (double)lk_proc_default_memory_limit() * 2 / 100;
	} else if (*end && (s = strchr(suffixes, toupper((unsigned char)*end)))) {
		scale = (double)(1ull << (10 * (s - suffixes + 1)));
		end++;
		if (*end && strcasecmp(end, "iB") && strcasecmp(end, "B"))
			return -1;
	} else if (*end) {
		return -1;
	}
	if (n * scale >= (double)SIZE_MAX)
		return -1;
	m->memory_limit = (size_t)(n * scale);
	if (!m->memory_limit)
		m->memory_limit = LK_PROC_UNLIMITED;
	return 0;
}

/* min-of-N: N processes of one sample each, keep the fastest. */
static int set_mode(struct lk_method *m, const char *v, const char **why)
{
	long n;

	if (strncmp(v, "min-of-", 7) || lk_parse_decimal(v + 7, &n) ||
	    n < 1) {
		*why = "expected min-of-N (e.g. min-of-4)";
		return -1;
	}
	m->processes = n;
	m->repetitions = 1;
	m->reducer = LK_REDUCE_MIN;
	m->percentile = 50;
	return 0;
}

static const struct method_key {
	const char *name;
	/* 0, or -1 with *why saying what was expected */
	int (*set)(struct lk_method *m, const char *v, const char **why);
} method_keys[] = {
	{"warmup", set_warmup},
	{"steps", set_steps},
	{"min-sample-ticks", set_min_ticks},
	{"repetitions", set_repetitions},
	{"processes", set_processes},
	{"reducer", set_reducer},
	{"stability.runs", set_runs},
	{"stability.tolerance", set_tolerance},
	{"stability.retries", set_retries},
	{"relaunches", set_relaunches},
	{"round", set_round},
	{"cache", set_cache},
	{"cpu", set_cpu},
	{"fifo", set_fifo},
	{"calibrate", set_calibrate},
	{"aslr", set_aslr},
	{"align-functions", set_align},
	{"opt-report", set_opt_report},
	{"timeout", set_timeout},
	{"memory-limit", set_memory_limit},
	{"mode", set_mode},
};

static int unknown_method_key(struct lk_ctx *ctx, const char *key,
			      const char *where)
{
	const char *names[LK_ARRAY_SIZE(method_keys) + 1];
	struct lk_buf hint = LK_BUF_INIT;
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(method_keys); i++)
		names[i] = method_keys[i].name;
	names[i] = NULL;
	lk_suggest_hint(&hint, key, names);
	lk_error(ctx, LK_EINPUT, "%s%sunknown key '%s' in method %s",
		 where ? where : "", where ? ": " : "", key,
		 lk_buf_str(&hint));
	lk_buf_release(&hint);
	return LK_EINPUT;
}

int lk_method_set(struct lk_ctx *ctx, struct lk_method *m, const char *key,
		  const char *value, const char *where)
{
	const char *why = NULL;
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(method_keys); i++)
		if (!strcmp(key, method_keys[i].name))
			break;
	if (i == LK_ARRAY_SIZE(method_keys))
		return unknown_method_key(ctx, key, where);
	if (!method_keys[i].set(m, value, &why)) {
		if (!strcmp(key, "cpu"))
			snprintf(m->cpu_where, sizeof(m->cpu_where), "%s",
				 where ? where : "");
		return 0;
	}
	return lk_error(ctx, LK_EINPUT, "%s%sbad value '%s' for method.%s: %s",
			where ? where : "", where ? ": " : "", value, key, why);
}

/* Shortest text that reads back as the same double. */
static void add_double(struct lk_buf *b, double d)
{
	char text[64];

	snprintf(text, sizeof(text), "%.15g", d);
	if (strtod(text, NULL) != d)
		snprintf(text, sizeof(text), "%.17g", d);
	lk_buf_adds(b, text);
}

static const char *reducer_kind(enum lk_reducer r)
{
	switch (r) {
	case LK_REDUCE_MEDIAN: return "median";
	case LK_REDUCE_MIN: return "min";
	case LK_REDUCE_MEAN: return "mean";
	case LK_REDUCE_PERCENTILE: return "percentile";
	case LK_REDUCE_TRIMMED: return "trimmed-mean";
	}
	LK_BUG("bad reducer");
}

char *lk_method_canonical(const struct lk_method *m)
{
	struct lk_buf b = LK_BUF_INIT;
	char *cpus;

	lk_buf_addf(&b, "warmup=%ld;steps=%ld;min-sample-ticks=%ld;"
		    "repetitions=%ld;processes=%ld;reducer=%s;percentile=",
		    m->warmup, m->steps, m->min_sample_ticks,
		    m->repetitions, m->processes, reducer_kind(m->reducer));
	add_double(&b, m->percentile);
	lk_buf_addf(&b, ";trim-runs=%ld;trim-tolerance=", m->trim_runs);
	add_double(&b, m->trim_tolerance);
	cpus = lk_cpuset_format(&m->cpus);
	/* -1 and N as before lists, so earlier runs keep their keys. */
	lk_buf_addf(&b, ";trim-retries=%ld;cold-cache=%d;cpu=%s;fifo=%d;"
		    "calibrate=%d;no-aslr=%d;align-functions=%ld;timeout=",
		    m->trim_retries, m->cold_cache, *cpus ? cpus : "-1",
		    m->fifo, m->calibrate, m->no_aslr, m->align_functions);
	free(cpus);
	add_double(&b, m->timeout);
	/* Only when set, so that earlier campaigns keep their run keys. */
	if (m->opt_report)
		lk_buf_adds(&b, ";opt-report=1");
	if (m->relaunches != LK_RELAUNCHES_DEFAULT)
		lk_buf_addf(&b, ";relaunches=%ld", m->relaunches);
	if (m->round)
		lk_buf_addf(&b, ";round=%ld", m->round);
	return lk_buf_detach(&b);
}

char *lk_reducer_name(const struct lk_method *m)
{
	struct lk_buf b = LK_BUF_INIT;

	if (m->reducer != LK_REDUCE_PERCENTILE)
		return lk_strdup(reducer_kind(m->reducer));
	lk_buf_adds(&b, "p");
	add_double(&b, m->percentile);
	return lk_buf_detach(&b);
}
