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

	lk_buf_adds(shorts, ":h");
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

int lk_opts_parse(const char *cmd, const char *usage, const struct lk_opt *opts,
		  int argc, char **argv)
{
	size_t n = count_opts(opts);
	struct option *lo = lk_calloc(n + 2, sizeof(*lo));
	struct lk_buf shorts = LK_BUF_INIT;
	int c, ret = 0;

	build_tables(opts, n, lo, &shorts);
	optind = 1;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, lk_buf_str(&shorts), lo,
					NULL)) != -1) {
		int i = c >= 256 ? c - 256 : find_short(opts, n, c);

		if (c == 'h') {
			lk_opts_usage(stdout, cmd, usage, opts);
			ret = -1;
		} else if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];

			lk_cli_usage_error(cmd, c == ':' ?
					   "option '%s' needs a value" :
					   "unknown option '%s'", bad);
			ret = -2;
		} else if (i >= 0 && store_value(cmd, &opts[i], optarg)) {
			ret = -2;
		}
	}
	free(lo);
	lk_buf_release(&shorts);
	return ret ? ret : optind;
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
			 o->short_name ? "-" : "  ",
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
