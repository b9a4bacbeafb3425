/* loopkit blocks: basic blocks and CFG of a function of an x86-64 binary. */
#include <stdio.h>

#include "cli.h"
#include "loopkit/binary.h"
#include "loopkit/config.h"
#include "loopkit/count.h"
#include "loopkit/store.h"

static const char usage[] =
	"BINARY [--function NAME] [--json] [--intel]\n"
	"   or: loopkit blocks -c CAMPAIGN.yaml | -o DIR\n\n"
	"Disassemble a function of an x86-64 ELF binary and split it into\n"
	"basic blocks with their successors. Without --function: the kernel\n"
	"the benchmark measures (called between lk_roi_begin and lk_roi_end).\n"
	"With -c (or -o DIR alone: its only campaign): do so for the kernel\n"
	"of every variant of the campaign and store the blocks (a binary\n"
	"already stored is skipped).";

static int load(struct lk_ctx *ctx, const char *binary, const char *name,
		struct lk_function *fn)
{
	int inlined = 0, ret;

	if (name)
		return lk_elf_function(ctx, binary, name, fn);
	ret = lk_elf_roi_function(ctx, binary, fn, &inlined);
	/* Said on stderr so that stdout stays the listing or the JSON. */
	if (!ret && inlined)
		fprintf(stderr, "loopkit: note: nothing is called between the "
				"region markers (the kernel was inlined); "
				"showing %s, which holds them\n",
			fn->name);
	return ret;
}

static int show(struct lk_ctx *ctx, const char *binary, const char *name,
		int json, int intel)
{
	struct lk_buf out = LK_BUF_INIT;
	struct lk_function fn;
	struct lk_cfg cfg;
	int ret = load(ctx, binary, name, &fn);

	if (ret)
		return ret;
	if (!json)
		lk_buf_addf(&out, "function %s [0x%llx, 0x%llx) in %s\n",
			    fn.name, (unsigned long long)fn.addr,
			    (unsigned long long)(fn.addr + fn.size), binary);
	ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &cfg);
	if (!ret) {
		if (json)
			lk_cfg_json(&cfg, &out);
		else
			lk_cfg_text_style(&cfg, intel, &out);
		fputs(lk_buf_str(&out), stdout);
		lk_cfg_release(&cfg);
	}
	lk_buf_release(&out);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(ctx, "writing the listing");
	return ret;
}

static int campaign(const char *config, const char *dir)
{
	struct lk_stage_opts o = {0};
	struct lk_stage_summary sum = {0};
	long failed;
	struct lk_sweep *sw;
	struct lk_store *s;
	struct lk_ctx ctx;
	int64_t id;
	int ret;

	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	ret = lk_cli_campaign_open(&ctx, config, dir, &sw, &s, &id);
	if (!ret)
		ret = lk_blocks_stage(&ctx, s, id, sw, &o, &sum);
	if (!ret)
		lk_cli_print_stage("blocks", dir, &sum);
	failed = sum.failed;
	lk_stage_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	if (ret)
		return lk_cli_fail(&ctx);
	return failed ? 1 : 0;
}

int cmd_blocks(int argc, char **argv)
{
	int json = 0, intel = 0, first, ret;
	const char *name = NULL, *config = NULL, *dir = NULL;
	const struct lk_opt opts[] = {
		{'f', "function", LK_OPT_STRING, &name, "NAME",
		 "this function (default: the measured kernel)"},
		{0, "json", LK_OPT_BOOL, &json, NULL,
		 "a JSON array of blocks instead of the listing"},
		{0, "intel", LK_OPT_BOOL, &intel, NULL,
		 "Intel syntax in the listing (the JSON has both)"},
		{'c', "config", LK_OPT_STRING, &config, "FILE",
		 "every variant of this campaign, into the store"},
		{'o', "output", LK_OPT_STRING, &dir, "DIR",
		 "campaign directory (default ./loopkit.d)"},
		LK_OPT_END};
	struct lk_ctx ctx;

	first = lk_opts_parse("blocks", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (config || dir) {
		if (first < argc || name || json || intel)
			return lk_cli_usage_error("blocks", "with -c, no "
						  "BINARY, --function, --json "
						  "or --intel");
		return campaign(config, dir ? dir : LK_STORE_DEFAULT_DIR);
	}
	if (first >= argc)
		return lk_cli_usage_error("blocks", "name a BINARY");
	if (first + 1 < argc)
		return lk_cli_usage_error("blocks", "unexpected argument '%s'",
					  argv[first + 1]);
	lk_ctx_init(&ctx);
	ret = show(&ctx, argv[first], name, json, intel);
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
