/* loopkit blocks: basic blocks and CFG of a function of an x86-64 binary. */
#include <stdio.h>

#include "cli.h"
#include "loopkit/bb.h"

static const char usage[] =
	"BINARY [--function NAME] [--json] [--intel]\n\n"
	"Disassemble a function of an x86-64 ELF binary and split it into\n"
	"basic blocks with their successors. Without --function: the kernel\n"
	"the benchmark measures (called between lk_roi_begin and lk_roi_end).";

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

int cmd_blocks(int argc, char **argv)
{
	int json = 0, intel = 0, first, ret;
	const char *name = NULL;
	const struct lk_opt opts[] = {
		{'f', "function", LK_OPT_STRING, &name, "NAME",
		 "this function (default: the measured kernel)"},
		{0, "json", LK_OPT_BOOL, &json, NULL,
		 "a JSON array of blocks instead of the listing"},
		{0, "intel", LK_OPT_BOOL, &intel, NULL,
		 "Intel syntax in the listing (the JSON has both)"},
		LK_OPT_END};
	struct lk_ctx ctx;

	first = lk_opts_parse("blocks", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first >= argc)
		return lk_cli_usage_error("blocks", "name a BINARY");
	if (first + 1 < argc)
		return lk_cli_usage_error("blocks", "unexpected argument '%s'",
					  argv[first + 1]);
	lk_ctx_init(&ctx);
	ret = show(&ctx, argv[first], name, json, intel);
	if (ret == LK_ENOTFOUND) {
		/* A missing function is the user's input, not a failure. */
		fprintf(stderr, "loopkit: error: %s%s\n", ctx.msg,
			name ? " (see 'nm BINARY' for the names)" : "");
		return 2;
	}
	return ret ? lk_cli_fail(&ctx) : 0;
}
