/* loopkit run: measure one kernel file, or a YAML sweep of variants. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/gen.h"
#include "loopkit/measure.h"

static const char usage[] =
	"[options] KERNEL.c\n"
	"   or: loopkit run [options] -c SWEEP.yaml\n\n"
	"Compile KERNEL.c (which uses lkrt.h) against the loopkit runtime,\n"
	"measure it and print every figure with its source. With -c, expand\n"
	"the sweep's sources x compilers x flags x -D axes, compile them in\n"
	"parallel and measure one at a time into the campaign store; a rerun\n"
	"skips what is done.";

struct run_args {
	const char *config, *cflags, *metrics_arg, *out_dir, *steps;
	const char *reducer, *cache, *cpu, *timeout, *memory_limit, *name;
	struct lk_strv defines, compilers, methods, metrics;
	long repetitions, processes, warmup, jobs;
	int json, quiet, fifo, retry_failed;
};

static int apply_method(struct lk_ctx *ctx, struct lk_sweep *sw,
			const struct run_args *a)
{
	char reps[32] = "", procs[32] = "", warmup[32] = "";
	const char *pairs[][2] = {
		{"repetitions", reps}, {"processes", procs},
		{"warmup", warmup},    {"steps", a->steps},
		{"reducer", a->reducer}, {"cache", a->cache},
		{"cpu", a->cpu},       {"timeout", a->timeout},
		{"memory-limit", a->memory_limit},
		{"fifo", a->fifo ? "true" : NULL}};
	size_t i;
	int ret = 0;

	if (a->repetitions != LONG_MIN)
		snprintf(reps, sizeof(reps), "%ld", a->repetitions);
	if (a->processes != LONG_MIN)
		snprintf(procs, sizeof(procs), "%ld", a->processes);
	if (a->warmup != LONG_MIN)
		snprintf(warmup, sizeof(warmup), "%ld", a->warmup);
	for (i = 0; !ret && i < LK_ARRAY_SIZE(pairs); i++)
		if (pairs[i][1] && *pairs[i][1])
			ret = lk_method_set(ctx, &sw->method, pairs[i][0],
					    pairs[i][1], "command line");
	if (!ret)
		ret = lk_cli_apply_methods(ctx, sw, &a->methods,
					   "command line");
	return ret;
}

static int apply_metrics(struct lk_ctx *ctx, struct lk_sweep *sw,
			 const struct run_args *a)
{
	struct lk_strv list = LK_STRV_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < a->metrics.n; i++) {
		char *copy = lk_strdup(a->metrics.v[i]), *save = NULL, *m;

		for (m = strtok_r(copy, ",", &save); m;
		     m = strtok_r(NULL, ",", &save))
			lk_strv_push(&list, m);
		free(copy);
	}
	for (i = 0; !ret && i < list.n; i++)
		if (!lk_metric_known(list.v[i]))
			ret = lk_error(ctx, LK_EINPUT, "unknown metric '%s'",
				       list.v[i]);
	if (!ret && list.n) {
		lk_strv_release(&sw->metrics);
		sw->metrics = list;
		return 0;
	}
	lk_strv_release(&list);
	return ret;
}

/* A one-variant sweep from the command line. */
static int sweep_from_args(struct lk_ctx *ctx, const struct run_args *a,
			   const char *kernel, struct lk_sweep **out)
{
	struct lk_sweep *sw = lk_sweep_new();
	char *abs = lk_path_real(kernel);
	const char *base = strrchr(kernel, '/');
	size_t i;
	int ret = 0;

	*out = NULL;
	if (!abs) {
		lk_sweep_free(sw);
		return lk_error(ctx, LK_EINPUT, "%s: %s", kernel,
				strerror(errno));
	}
	/* Before the store exists: a device or directory stores nothing. */
	if ((ret = lk_file_check_regular(ctx, kernel))) {
		free(abs);
		lk_sweep_free(sw);
		return ret;
	}
	lk_strv_push_take(&sw->sources, abs);
	free(sw->name);
	sw->name = lk_strdup(a->name ? a->name : base ? base + 1 : kernel);
	if (a->compilers.n) {
		lk_strv_release(&sw->compilers);
		for (i = 0; i < a->compilers.n; i++)
			lk_strv_push(&sw->compilers, a->compilers.v[i]);
	}
	if (a->cflags) {
		free(sw->flagsets[0].flags);
		sw->flagsets[0].flags = lk_strdup(a->cflags);
	}
	for (i = 0; !ret && i < a->defines.n; i++)
		ret = lk_sweep_add_define(ctx, sw, a->defines.v[i]);
	if (ret)
		lk_sweep_free(sw);
	else
		*out = sw;
	return ret;
}

static int load_sweep(struct lk_ctx *ctx, const struct run_args *a,
		      int argc, char **argv, int first, struct lk_sweep **sw)
{
	int ret;

	if (a->config) {
		if (first < argc || a->defines.n || a->compilers.n ||
		    a->cflags)
			return lk_error(ctx, LK_EINPUT, "with -c, sources, "
				       "compilers, flags and -D axes come "
				       "from the sweep file");
		ret = lk_sweep_load(ctx, a->config, sw);
	} else {
		if (first != argc - 1)
			return lk_error(ctx, LK_EINPUT, "expected one kernel "
				       "file or -c SWEEP.yaml (see 'loopkit "
				       "run -h')");
		ret = sweep_from_args(ctx, a, argv[first], sw);
	}
	if (!ret)
		ret = apply_method(ctx, *sw, a);
	if (!ret)
		ret = apply_metrics(ctx, *sw, a);
	return ret;
}

/* ---- Printing. ---- */

static void format_value(char *out, size_t size, double v)
{
	double a = fabs(v);

	if (a >= 1e7 || (a < 1e-3 && a > 0))
		snprintf(out, size, "%.4g", v);
	else if (a >= 100)
		snprintf(out, size, "%.1f", v);
	else
		snprintf(out, size, "%.3f", v);
}

static void print_result_row(const struct lk_result_row *r)
{
	char value[32] = "-", spread[32] = "";

	if (r->has_value) {
		format_value(value, sizeof(value), r->value);
		snprintf(spread, sizeof(spread), "%.2f%%", r->spread * 100);
	}
	printf("  %-14s %12s  %-12s %-20s %-9s %6ld %8s  %s%s%s\n",
	       r->metric, value, r->unit, r->source, r->reducer, r->n, spread,
	       r->primary ? "primary" : "",
	       r->primary && *r->flags ? "," : "", r->flags);
}

static void print_detail(const struct lk_run_report *r)
{
	size_t i;
	const char *region = NULL;

	printf("%s: %s%s%s%s\n", r->label, r->status,
	       r->skipped ? " (stored earlier)" : "", *r->reason ? ": " : "",
	       r->reason);
	if (!r->nresults)
		return;
	printf("  %-14s %12s  %-12s %-20s %-9s %6s %8s  %s\n", "metric",
	       "value", "unit", "source", "reducer", "n", "p90-p10",
	       "notes");
	for (i = 0; i < r->nresults; i++) {
		if (!region || strcmp(region, r->results[i].region)) {
			region = r->results[i].region;
			if (strcmp(region, "kernel") || i)
				printf(" region %s\n", region);
		}
		print_result_row(&r->results[i]);
	}
}

static const struct lk_result_row *find_result(const struct lk_run_report *r,
					       const char *metric)
{
	size_t i;

	for (i = 0; i < r->nresults; i++)
		if (!strcmp(r->results[i].metric, metric))
			return &r->results[i];
	return NULL;
}

/* A figure of one thread among several: starred, with a note below. */
static int one_thread_of_many(const struct lk_result_row *m)
{
	return m && m->has_value && strstr(m->flags, "multi-threaded");
}

static void print_table(const struct lk_run_summary *sum,
			const struct lk_sweep *sw)
{
	size_t i, j, width = 8;
	int starred = 0;

	for (i = 0; i < sum->n; i++)
		if (strlen(sum->reports[i].label) > width)
			width = strlen(sum->reports[i].label);
	printf("%-*s  %-12s", (int)width, "variant", "status");
	for (j = 0; j < sw->metrics.n; j++)
		printf(" %14s", sw->metrics.v[j]);
	printf("\n");
	for (i = 0; i < sum->n; i++) {
		const struct lk_run_report *r = &sum->reports[i];

		printf("%-*s  %-12s", (int)width, r->label, r->status);
		for (j = 0; j < sw->metrics.n; j++) {
			const struct lk_result_row *m =
				find_result(r, sw->metrics.v[j]);
			char v[32] = "-";

			if (m && m->has_value)
				format_value(v, sizeof(v), m->value);
			else if (m)
				snprintf(v, sizeof(v), "n/a");
			if (one_thread_of_many(m)) {
				strcat(v, "*");
				starred = 1;
			}
			printf(" %14s", v);
		}
		printf("%s%s\n", *r->reason ? "  " : "", r->reason);
	}
	if (starred)
		printf("* multi-threaded: the measuring thread's CPU clock or "
		       "events only (tsc and ns are wall time)\n");
}

static void json_result(struct lk_buf *b, const struct lk_result_row *r)
{
	lk_buf_adds(b, "{\"region\":");
	lk_buf_add_json_str(b, r->region);
	lk_buf_adds(b, ",\"metric\":");
	lk_buf_add_json_str(b, r->metric);
	if (r->has_value && isfinite(r->value))
		lk_buf_addf(b, ",\"value\":%.10g", r->value);
	else
		lk_buf_adds(b, ",\"value\":null");
	lk_buf_adds(b, ",\"unit\":");
	lk_buf_add_json_str(b, r->unit);
	lk_buf_adds(b, ",\"source\":");
	lk_buf_add_json_str(b, r->source);
	lk_buf_adds(b, ",\"reducer\":");
	lk_buf_add_json_str(b, r->reducer);
	lk_buf_addf(b, ",\"samples\":%ld,\"spread\":%.6g,\"primary\":%s",
		    r->n, isfinite(r->spread) ? r->spread : 0,
		    r->primary ? "true" : "false");
	lk_buf_adds(b, ",\"flags\":");
	lk_buf_add_json_str(b, r->flags);
	lk_buf_addch(b, '}');
}

static void json_report(struct lk_buf *b, const struct lk_run_report *r)
{
	size_t i;

	lk_buf_adds(b, "{\"variant\":");
	lk_buf_add_json_str(b, r->label);
	lk_buf_adds(b, ",\"source\":");
	lk_buf_add_json_str(b, r->source);
	lk_buf_adds(b, ",\"compiler\":");
	lk_buf_add_json_str(b, r->compiler);
	lk_buf_adds(b, ",\"flagset\":");
	lk_buf_add_json_str(b, r->flagset);
	lk_buf_adds(b, ",\"params\":{");
	for (i = 0; i < r->nparams; i++) {
		lk_buf_adds(b, i ? "," : "");
		lk_buf_add_json_str(b, r->param_names[i]);
		lk_buf_addch(b, ':');
		lk_buf_add_json_str(b, r->param_values[i]);
	}
	lk_buf_adds(b, "},\"status\":");
	lk_buf_add_json_str(b, r->status);
	lk_buf_adds(b, ",\"reason\":");
	lk_buf_add_json_str(b, r->reason);
	lk_buf_addf(b, ",\"stored_earlier\":%s,\"results\":[",
		    r->skipped ? "true" : "false");
	for (i = 0; i < r->nresults; i++) {
		lk_buf_adds(b, i ? "," : "");
		json_result(b, &r->results[i]);
	}
	lk_buf_adds(b, "]}");
}

static void print_json(const struct lk_run_summary *sum)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	lk_buf_addch(&b, '[');
	for (i = 0; i < sum->n; i++) {
		lk_buf_adds(&b, i ? ",\n" : "");
		json_report(&b, &sum->reports[i]);
	}
	lk_buf_adds(&b, "]\n");
	fputs(lk_buf_str(&b), stdout);
	lk_buf_release(&b);
}

static int count_failed(const struct lk_run_summary *sum)
{
	size_t i;
	int n = 0;

	for (i = 0; i < sum->n; i++)
		n += strcmp(sum->reports[i].status, "ok") &&
		     strcmp(sum->reports[i].status, "unstable");
	return n;
}

static void print_summary(const struct lk_run_summary *sum,
			  const struct lk_sweep *sw, const struct run_args *a)
{
	size_t i;
	int failed = count_failed(sum);

	if (a->json) {
		print_json(sum);
	} else if (sum->n == 1 || !a->config) {
		for (i = 0; i < sum->n; i++)
			print_detail(&sum->reports[i]);
	} else {
		print_table(sum, sw);
	}
	if (!a->quiet)
		fprintf(stderr, "loopkit: %zu variants: %ld measured now, "
				"%ld stored earlier, %d not ok; store: %s\n",
			sum->n, sum->measured, sum->skipped, failed,
			a->out_dir);
}

/* Load, measure into the store, print; the exit code. */
static int run(struct run_args *a, int argc, char **argv, int first)
{
	struct lk_run_opts ro = {0};
	struct lk_run_summary sum = {0};
	struct lk_asm_plan plan = {0};
	struct lk_cli_asm_mca mca = {0};
	struct lk_sweep *sw = NULL;
	struct lk_store *s = NULL;
	struct lk_ctx ctx;
	int64_t id = 0;
	int ret;

	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	ret = load_sweep(&ctx, a, argc, argv, first, &sw);
	if (!ret)
		ret = lk_measure_check_cpus(&ctx, &sw->method);
	if (!ret)
		ret = lk_cli_campaign_create(&ctx, a->out_dir, sw, &s, &id);
	/* An asm: sweep's variants, then measured as gen's. */
	if (!ret && sw->asm_body.given)
		ret = lk_asm_campaign(&ctx, s, id, sw, &plan);
	if (!ret) {
		ro = (struct lk_run_opts){.jobs = (int)a->jobs,
					  .quiet = a->quiet,
					  .retry_failed = a->retry_failed,
					  .verbose = lk_cli_verbose};
		ret = lk_run_sweep(&ctx, s, id, sw, &ro, &sum);
	}
	/* Their n/2n rows and llvm-mca's prediction of each body. */
	if (!ret && sw->asm_body.given)
		ret = lk_cli_asm_post(&ctx, s, id, sw, &plan, &sum, 1, &mca);
	lk_cli_asm_mca_release(&mca);
	lk_asm_plan_release(&plan);
	if (!ret)
		print_summary(&sum, sw, a);
	else
		ret = lk_cli_fail(&ctx);
	if (!ret && count_failed(&sum))
		ret = 1;
	lk_run_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = {.repetitions = LONG_MIN, .processes = LONG_MIN,
			     .warmup = LONG_MIN, .out_dir =
						   LK_STORE_DEFAULT_DIR};
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &a.config, "FILE",
		 "a YAML sweep (see doc/config.md)"},
		{'D', "define", LK_OPT_LIST, &a.defines, "NAME=VAL",
		 "define a macro (repeatable)"},
		{0, "cc", LK_OPT_LIST, &a.compilers, "CC",
		 "compiler (default gcc; repeatable)"},
		{0, "cflags", LK_OPT_STRING, &a.cflags, "FLAGS",
		 "compiler flags (default -O2)"},
		{'m', "metric", LK_OPT_LIST, &a.metrics, "LIST",
		 "tsc,ns,cycles,instructions,l1d-misses,... (default "
		 "tsc,cycles,ns)"},
		{'r', "repetitions", LK_OPT_LONG, &a.repetitions, "N",
		 "samples per process (default 30)"},
		{'p', "processes", LK_OPT_LONG, &a.processes, "N",
		 "separate launches (default 3)"},
		{0, "warmup", LK_OPT_LONG, &a.warmup, "N",
		 "kernel calls before sampling (default 10)"},
		{0, "steps", LK_OPT_STRING, &a.steps, "N|auto",
		 "kernel calls per sample (default auto)"},
		{0, "reducer", LK_OPT_STRING, &a.reducer, "R",
		 "min, median, mean, pNN, trimmed-mean (default p25)"},
		{0, "cache", LK_OPT_STRING, &a.cache, "hot|cold",
		 "flush caches before every sample when cold"},
		{0, "cpu", LK_OPT_STRING, &a.cpu, "LIST",
		 "pin to CPUs LIST (3, 0-3, 0-3,6)"},
		{0, "fifo", LK_OPT_BOOL, &a.fifo, NULL,
		 "run under SCHED_FIFO when permitted"},
		{0, "timeout", LK_OPT_STRING, &a.timeout, "SEC",
		 "per launch (default 60)"},
		{0, "memory-limit", LK_OPT_STRING, &a.memory_limit, "SIZE",
		 "address space per launch and compile: 64M, 12G, 50%, "
		 "none (default: half the memory)"},
		{0, "method", LK_OPT_LIST, &a.methods, "KEY=VAL",
		 "any method key, as in the sweep file"},
		{0, "name", LK_OPT_STRING, &a.name, "NAME",
		 "campaign name (default: the kernel's file name)"},
		{'j', "jobs", LK_OPT_LONG, &a.jobs, "N",
		 "parallel compiles (default: CPUs)"},
		{'o', "output", LK_OPT_STRING, &a.out_dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		{0, "retry-failed", LK_OPT_BOOL, &a.retry_failed, NULL,
		 "measure again variants whose run failed"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	int first, ret;

	first = lk_opts_parse("run", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	ret = run(&a, argc, argv, first);
	lk_strv_release(&a.defines);
	lk_strv_release(&a.compilers);
	lk_strv_release(&a.methods);
	lk_strv_release(&a.metrics);
	return ret;
}
