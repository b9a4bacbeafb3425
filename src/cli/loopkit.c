/* loopkit: the command table and the dispatcher. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/env.h"
#include "loopkit/measure.h"

#define LOOPKIT_VERSION "0.1.0"

enum {
	NEED_CC = 1 << 0, /* a C compiler to build benchmarks */
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned needs;
	const char *summary;
};

static const struct command commands[] = {
	{"campaign", cmd_campaign, NEED_CC,
	 "every stage of a campaign: gen, measure, blocks, count, predict, "
	 "lift, filter, memprof, report"},
	{"run", cmd_run, NEED_CC,
	 "compile and measure a kernel, or a YAML sweep of variants"},
	{"env", cmd_env, 0,
	 "describe this machine; --tune / --restore it for measuring"},
	{"export", cmd_export, 0,
	 "write a campaign's results as a tidy CSV or JSON table"},
	{"memprof", cmd_memprof, NEED_CC,
	 "static load/store counts, entry/exit traces, latency fit"},
	{"blocks", cmd_blocks, 0,
	 "basic blocks and CFG of a function of an x86-64 binary"},
	{"count", cmd_count, 0,
	 "exact execution count of every basic block inside the measured "
	 "region"},
	{"report", cmd_report, 0,
	 "how well each analyzer predicts the measured kernels: tables, "
	 "plots, HTML"},
	{"predict", cmd_predict, 0,
	 "throughput prediction of every basic block by llvm-mca and "
	 "adapters"},
	{"gen", cmd_gen, 0,
	 "transform a kernel's scop (isl), or generate a campaign's "
	 "variants"},
	{"lift", cmd_lift, 0,
	 "kernel predictions: sum of block occurrences x block predictions"},
	{"filter", cmd_filter, 0,
	 "L1-residency filter: warm D1 miss ratio of the kernel "
	 "(cachegrind)"},
	{"mdl", cmd_mdl, 0,
	 "micro-kernel descriptions (MDL): canonical form, JSON"},
	{"analyze", cmd_analyze, 0,
	 "which parameters explain a metric: KDE categories, decision "
	 "tree, random forest, importance"},
	{"asm", cmd_asm, NEED_CC,
	 "instruction micro-benchmarks: K independent chains of {r} "
	 "templates, cycles and IPC"},
	{"check", cmd_check, 0,
	 "what this build and this machine can do"},
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: loopkit [-v] <command> [options] [args]\n\n"
		     "commands:\n");
	for (i = 0; i < LK_ARRAY_SIZE(commands); i++)
		fprintf(out, "    %-10s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\n'loopkit <command> -h' describes a command. A "
		     "command's options go before or after its arguments; "
		     "'--' ends them.\nCampaigns live in ./%s unless -o DIR "
		     "says otherwise.\n",
		LK_STORE_DEFAULT_DIR);
}

/* Refuse up front, with a hint, when the command cannot work here. */
static int check_needs(const struct command *c)
{
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	if ((c->needs & NEED_CC) && !lk_cap_available(&ctx, "cc")) {
		fprintf(stderr, "loopkit: error: '%s' needs a C compiler "
				"(gcc); install it with 'make deps'\n",
			c->name);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;
	long relaunches;
	int first = 1;

	while (first < argc && argv[first][0] == '-') {
		const char *a = argv[first];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("loopkit %s\n", LOOPKIT_VERSION);
			return 0;
		}
		if (strcmp(a, "-v") && strcmp(a, "--verbose")) {
			fprintf(stderr, "loopkit: error: unknown option '%s'\n",
				a);
			usage(stderr);
			return 2;
		}
		lk_cli_verbose++;
		first++;
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}
	if (lk_relaunches_env(&relaunches) < 0) {
		fprintf(stderr, "loopkit: error: LOOPKIT_RELAUNCHES: '%s' is "
				"not an integer from 0 to %d\n",
			getenv("LOOPKIT_RELAUNCHES"), LK_RELAUNCHES_MAX);
		return 2;
	}
	for (i = 0; i < LK_ARRAY_SIZE(commands); i++) {
		const struct command *c = &commands[i];

		if (strcmp(argv[first], c->name))
			continue;
		if (check_needs(c))
			return 1;
		return c->fn(argc - first, argv + first);
	}
	fprintf(stderr, "loopkit: error: unknown command '%s' "
			"(see 'loopkit --help')\n",
		argv[first]);
	return 2;
}
