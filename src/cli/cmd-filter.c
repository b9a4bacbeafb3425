/* loopkit filter: is the kernel's data in L1? (warm D1 miss ratio) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/filter.h"

static const char usage[] =
	"BINARY [--threshold R] [--l1d-size BYTES] [--proxy BINARY]\n"
	"       [--working-set BYTES]\n"
	"   or: loopkit filter [-c CAMPAIGN.yaml] [-o DIR] [-j N] [--redo]\n\n"
	"The L1-residency filter: the warm D1 miss ratio of the kernel\n"
	"function from two cachegrind runs (1 and 3 kernel calls by default,\n"
	"differenced so that cold misses cancel), against a threshold\n"
	"(default 1%). AVX-512 kernels, which valgrind cannot run, are\n"
	"judged by cachegrind on a build of the same source it can run\n"
	"(--proxy; a campaign builds one with -march=x86-64-v3), else by a\n"
	"proven working set (--working-set) or left 'unknown'. Without BINARY:\n"
	"every variant of the campaign (-c, else the store's only one),\n"
	"settings from its 'filter:' section, verdicts stored.";

struct filter_args {
	const char *config, *dir, *threshold, *l1d_size, *l1d_assoc;
	const char *line_size, *working_set, *proxy;
	long jobs, timeout;
	int redo, quiet, json;
};

static int parse_threshold(struct lk_ctx *ctx, const char *text,
			   struct lk_l1_filter_cfg *f)
{
	size_t len = strlen(text);
	char *num = lk_strdup(text);
	double t = -1;
	int pct = len > 1 && num[len - 1] == '%';

	if (pct)
		num[len - 1] = '\0';
	if (lk_parse_double(num, &t))
		t = -1;
	else if (pct)
		t /= 100;
	free(num);
	if (!(t >= 0 && t <= 1))
		return lk_error(ctx, LK_EINPUT, "--threshold: expected a "
				"fraction in [0, 1] such as 0.01 or 1%%, not "
				"'%s'", text);
	f->threshold = t;
	f->has_threshold = 1;
	return 0;
}

/* An optional positive number option: 0 when absent or valid. */
static int parse_positive(struct lk_ctx *ctx, const char *opt,
			  const char *unit, const char *text, long *out)
{
	if (!text)
		return 0;
	if (lk_parse_long(text, out) || *out <= 0)
		return lk_error(ctx, LK_EINPUT, "%s: expected %s, not '%s'",
				opt, unit, text);
	return 0;
}

static int settings_from_args(struct lk_ctx *ctx, const struct filter_args *a,
			      struct lk_l1_filter_cfg *f)
{
	memset(f, 0, sizeof(*f));
	if (a->threshold && parse_threshold(ctx, a->threshold, f))
		return LK_EINPUT;
	if (parse_positive(ctx, "--l1d-size", "bytes", a->l1d_size,
			   &f->l1d_size) ||
	    parse_positive(ctx, "--l1d-assoc", "ways", a->l1d_assoc,
			   &f->l1d_assoc) ||
	    parse_positive(ctx, "--line-size", "bytes", a->line_size,
			   &f->line_size))
		return LK_EINPUT;
	f->timeout = (double)a->timeout;
	return 0;
}

static void print_verdict(const char *binary, const struct lk_l1_verdict *v,
			  int json)
{
	if (!json) {
		printf("%s: %s (%s): %s\n", binary, v->verdict, v->source,
		       v->reason);
		return;
	}
	printf("{\"binary\":\"%s\",\"verdict\":\"%s\",\"source\":\"%s\"",
	       binary, v->verdict, v->source);
	if (v->has_value)
		printf(",\"ratio\":%.10g", v->value);
	if (v->read_ratio >= 0)
		printf(",\"read_ratio\":%.10g", v->read_ratio);
	printf(",\"ran_valgrind\":%s}\n", v->ran_valgrind ? "true" : "false");
}

static int one_binary(struct lk_ctx *ctx, const char *binary,
		      const struct filter_args *a)
{
	struct lk_l1_filter_cfg f;
	struct lk_l1_settings set;
	struct lk_l1_verdict v;
	struct lk_param ws = {"working_set_bytes", a->working_set};
	struct lk_l1_proxy proxy = {a->proxy, "--proxy", NULL,
				    "cachegrind-proxy", NULL};
	int ret = settings_from_args(ctx, a, &f);

	if (ret)
		return ret;
	lk_l1_settings_resolve(&f, &set);
	ret = lk_l1_check(ctx, binary, &set, &ws, a->working_set ? 1 : 0,
			  a->proxy ? &proxy : NULL, &v);
	if (!ret)
		print_verdict(binary, &v, a->json);
	lk_l1_verdict_release(&v);
	return ret;
}

static int campaign(struct lk_ctx *ctx, const struct filter_args *a)
{
	struct lk_stage_opts o = {.jobs = (int)a->jobs, .quiet = a->quiet};
	struct lk_stage_summary sum = {0};
	struct lk_sweep *sw;
	struct lk_store *s;
	int64_t id;
	int ret = lk_cli_campaign_open(ctx, a->config, a->dir, &sw, &s, &id);

	if (ret)
		return ret;
	if (!sw)
		sw = lk_sweep_new(); /* the store's campaign: defaults */
	sw->filter.redo = a->redo;
	if (a->threshold)
		ret = parse_threshold(ctx, a->threshold, &sw->filter);
	if (!ret)
		ret = lk_filter_stage(ctx, s, id, sw, &o, &sum);
	if (!ret)
		lk_cli_print_stage("filter", a->dir, &sum);
	lk_stage_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	return ret;
}

int cmd_filter(int argc, char **argv)
{
	struct filter_args a = {.dir = LK_STORE_DEFAULT_DIR};
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &a.config, "FILE",
		 "every variant of this campaign, verdicts stored"},
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		{0, "threshold", LK_OPT_STRING, &a.threshold, "R",
		 "warm D1 miss ratio above which a kernel is excluded "
		 "(default 1%)"},
		{0, "l1d-size", LK_OPT_STRING, &a.l1d_size, "BYTES",
		 "simulated L1D size (default: this host's)"},
		{0, "l1d-assoc", LK_OPT_STRING, &a.l1d_assoc, "WAYS",
		 "simulated L1D ways (default: the host's with its size, "
		 "else 8)"},
		{0, "line-size", LK_OPT_STRING, &a.line_size, "BYTES",
		 "simulated line size (default: the host's with its size, "
		 "else 64)"},
		{0, "proxy", LK_OPT_STRING, &a.proxy, "BINARY",
		 "for an AVX-512 kernel: a build of the same source valgrind "
		 "can run (-march=x86-64-v3), judged instead"},
		{0, "working-set", LK_OPT_STRING, &a.working_set, "BYTES",
		 "a proven working set, for AVX-512 kernels without --proxy"},
		{0, "timeout", LK_OPT_LONG, &a.timeout, "SECONDS",
		 "per cachegrind run (default 300)"},
		{'j', "jobs", LK_OPT_LONG, &a.jobs, "N",
		 "with -c: cachegrind runs in parallel (default: CPUs)"},
		{0, "redo", LK_OPT_BOOL, &a.redo, NULL,
		 "with -c: judge again variants that have a verdict"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL,
		 "one JSON object per binary"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	struct lk_ctx ctx;
	int first, ret;

	first = lk_opts_parse("filter", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (a.jobs < 0 || a.timeout < 0)
		return lk_cli_usage_error("filter", "negative number");
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	if (a.config || first >= argc) {
		if (first < argc || a.working_set || a.proxy || a.l1d_size ||
		    a.l1d_assoc || a.line_size || a.json || a.timeout)
			return lk_cli_usage_error(
				"filter", "on a campaign, no BINARY, "
				"--proxy, --working-set, --l1d-size, --l1d-assoc, "
				"--line-size, --timeout or --json: the "
				"campaign file's 'filter:' section says");
		ret = campaign(&ctx, &a);
	} else {
		ret = 0;
		for (int i = first; !ret && i < argc; i++)
			ret = one_binary(&ctx, argv[i], &a);
	}
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
