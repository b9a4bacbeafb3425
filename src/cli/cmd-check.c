/* loopkit check: what this build and this machine can do. */
#include <stdio.h>

#include "cli.h"
#include "loopkit/env.h"

static const char usage[] =
	"\n\nProbe the compilers, the runtime, the PMU and software counters,\n"
	"ptrace, SCHED_FIFO, pinning, Zydis, llvm-mca, valgrind and the GCC\n"
	"plugin headers, and say which are usable here.";

int cmd_check(int argc, char **argv)
{
	const struct lk_opt opts[] = {LK_OPT_END};
	struct lk_cap *caps;
	struct lk_ctx ctx;
	size_t i, n;
	int first = lk_opts_parse("check", usage, opts, argc, argv);

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("check", "unexpected argument '%s'",
					  argv[first]);
	lk_ctx_init(&ctx);
	lk_caps_probe(&ctx, &caps, &n);
	for (i = 0; i < n; i++)
		printf("%-11s %-4s %s\n", caps[i].name,
		       caps[i].available ? "yes" : "no", caps[i].detail);
	lk_caps_free(caps, n);
	return 0;
}
