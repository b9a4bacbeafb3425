/* A declarative option table over getopt_long; it also prints -h. */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int lk_cli_verbose;

static size_t count_opts(const struct lk_opt *opts)
{
	size_t n = 0;

	while (opts[n].long_name)
		n++;
	return n;
}

static void build_tables(const struct lk_opt *opts, size_t n,
			 struct option *lo, struct lk_buf *shorts)
{
	size_t i;

	lk_buf_adds(shorts, "+:h");
	for (i = 0; i < n; i++) {
		int has_arg = opts[i].type != LK_OPT_BOOL;

		lo[i].name = opts[i].long_name;
		lo[i].has_arg = has_arg ? required_argument : no_argument;
		lo[i].flag = NULL;
		lo[i].val = 256 + (int)i;
		if (opts[i].short_name) {
			lk_buf_addch(shorts, opts[i].short_name);
			if (has_arg)
				lk_buf_addch(shorts, ':');
		}
	}
	lo[n].name = "help";
	lo[n].has_arg = no_argument;
	lo[n].flag = NULL;
	lo[n].val = 'h';
	memset(&lo[n + 1], 0, sizeof(lo[n + 1]));
}

static int find_short(const struct lk_opt *opts, size_t n, int c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (opts[i].short_name == c)
			return (int)i;
	return -1;
}

static int store_value(const char *cmd, const struct lk_opt *o,
		       const char *arg)
{
	switch (o->type) {
	case LK_OPT_BOOL:
		*(int *)o->value = 1;
		return 0;
	case LK_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case LK_OPT_LONG:
		if (lk_parse_long(arg, (long *)o->value))
			return lk_cli_usage_error(cmd, "--%s expects a number, "
						  "not '%s'", o->long_name,
						  arg);
		return 0;
	case LK_OPT_LIST:
		lk_strv_push((struct lk_strv *)o->value, arg);
		return 0;
	}
	return 0;
}

/*
 * Options anywhere, as git and perf take them: classify every argument
 * as one of ours (with the value it takes), an operand, or -- (the rest
 * are operands), then hand getopt_long the options alone.
 */
enum arg_kind { ARG_OPERAND, ARG_OPTION, ARG_END };

/* The option a "--name[=value]" names, as getopt_long would resolve it
 * (exact name, else a unique prefix); -1: none or ambiguous. */
static int find_long(const struct option *lo, const char *arg)
{
	size_t len = strcspn(arg, "=");
	int i, match = -1, prefixes = 0;

	for (i = 0; lo[i].name; i++) {
		if (strncmp(lo[i].name, arg, len))
			continue;
		if (strlen(lo[i].name) == len)
			return i;
		match = i;
		prefixes++;
	}
	return prefixes == 1 ? match : -1;
}

/* How many arguments from argv[i] on an option of ours spans (its value
 * may be the next one); 0: not one of ours. */
static int own_span(const struct option *lo, const char *shorts, int argc,
		    char **argv, int i)
{
	const char *a = argv[i], *p;
	int k;

	if (a[1] == '-') {
		k = find_long(lo, a + 2);
		if (k < 0)
			return 0;
		return lo[k].has_arg && !strchr(a, '=') && i + 1 < argc ? 2 : 1;
	}
	for (p = a + 1; *p; p++) {
		const char *s = strchr(shorts + 2, *p); /* past "+:" */

		if (!s)
			return p == a + 1 ? 0 : 1;
		if (s[1] == ':')
			return !p[1] && i + 1 < argc ? 2 : 1;
	}
	return 1;
}

/*
 * Put argv's options (and their values) first, then "--", then the
 * operands, into v; returns the index of that "--". Unknown options go
 * with the options (getopt names them), except after pass_after
 * operands, where they are operands (compiler flags). *had_end: argv
 * had a "--" of its own.
 */
static int partition(const struct option *lo, const char *shorts,
		     int pass_after, int argc, char **argv, char **v,
		     int *had_end)
{
	int i, span, nopt = 1, noper = 0;
	char **oper = lk_calloc((size_t)argc + 1, sizeof(*oper));

	v[0] = argv[0];
	for (i = 1; i < argc; i += span) {
		const char *a = argv[i];

		span = 1;
		if (!strcmp(a, "--")) {
			*had_end = 1;
			while (++i < argc)
				oper[noper++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			oper[noper++] = argv[i];
			continue;
		}
		span = own_span(lo, shorts, argc, argv, i);
		if (!span && pass_after && noper >= pass_after) {
			oper[noper++] = argv[i];
			span = 1;
			continue;
		}
		if (!span)
			span = 1;
		memcpy(&v[nopt], &argv[i], (size_t)span * sizeof(*v));
		nopt += span;
	}
	v[nopt] = "--";
	memcpy(&v[nopt + 1], oper, (size_t)noper * sizeof(*v));
	v[nopt + 1 + noper] = NULL;
	free(oper);
	return nopt;
}

/* getopt_long over v[0..nopt) (the options alone); 0, -1 (help) or -2. */
static int parse_options(const char *cmd, const char *usage,
			 const struct lk_opt *opts, const struct option *lo,
			 const char *shorts, int nopt, char **v)
{
	size_t n = count_opts(opts);
	int c, ret = 0;

	optind = 0; /* a full reset, for the '+' too */
	opterr = 0;
	while (!ret && (c = getopt_long(nopt + 1, v, shorts, lo, NULL)) != -1) {
		int i = c >= 256 ? c - 256 : find_short(opts, n, c);

		if (c == 'h') {
			lk_opts_usage(stdout, cmd, usage, opts);
			ret = -1;
		} else if (c == '?' || c == ':') {
			const char *bad = v[optind - 1];

			lk_cli_usage_error(cmd, c == ':' ?
					   "option '%s' needs a value" :
					   "unknown option '%s'", bad);
			ret = -2;
		} else if (i >= 0 && store_value(cmd, &opts[i], optarg)) {
			ret = -2;
		}
	}
	return ret;
}

int lk_opts_parse_pass(const char *cmd, const char *usage,
		       const struct lk_opt *opts, int pass_after, int argc,
		       char **argv)
{
	size_t n = count_opts(opts);
	struct option *lo = lk_calloc(n + 2, sizeof(*lo));
	char **v = lk_calloc((size_t)argc + 2, sizeof(*v));
	struct lk_buf shorts = LK_BUF_INIT;
	int nopt, first, ret, had_end = 0, i;

	build_tables(opts, n, lo, &shorts);
	nopt = partition(lo, lk_buf_str(&shorts), pass_after, argc, argv, v,
			 &had_end);
	ret = parse_options(cmd, usage, opts, lo, lk_buf_str(&shorts), nopt,
			    v);
	/* The operands last, after the "--" if there was one: argc stays. */
	memcpy(argv, v, (size_t)nopt * sizeof(*v));
	first = nopt;
	if (had_end)
		argv[first++] = "--";
	for (i = nopt + 1; v[i]; i++)
		argv[first + i - nopt - 1] = v[i];
	free(v);
	free(lo);
	lk_buf_release(&shorts);
	return ret ? ret : first;
}

int lk_opts_parse(const char *cmd, const char *usage, const struct lk_opt *opts,
		  int argc, char **argv)
{
	return lk_opts_parse_pass(cmd, usage, opts, 0, argc, argv);
}

void lk_opts_usage(FILE *out, const char *cmd, const char *usage,
		   const struct lk_opt *opts)
{
	size_t i;

	fprintf(out, "usage: loopkit %s %s\n\n", cmd, usage);
	for (i = 0; opts[i].long_name; i++) {
		char left[64];
		const struct lk_opt *o = &opts[i];

		snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
			 o->short_name ? "-" : " ",
			 o->short_name ? o->short_name : ' ',
			 o->short_name ? ", " : "  ", o->long_name,
			 o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
		fprintf(out, "    %-28s %s\n", left, o->help);
	}
	fprintf(out, "    %-28s %s\n", "-h, --help", "show this help");
}

int lk_cli_fail(const struct lk_ctx *ctx)
{
	fprintf(stderr, "loopkit: error: %s\n",
		ctx->msg[0] ? ctx->msg : "unknown failure");
	return ctx->code == LK_EINPUT ? 2 : 1;
}

int lk_cli_fail_named(const struct lk_ctx *ctx, int ret)
{
	int code = lk_cli_fail(ctx);

	return ret == LK_ENOTFOUND ? 2 : code;
}

int lk_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "loopkit: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'loopkit %s -h')\n", cmd);
	return 2;
}
