/*
 * loopkit mdl extract: the innermost loops of a function of a binary
 * (or of an assembly file, assembled first) as MDL (doc/loopkit-mdl.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "loopkit/binary.h"
#include "loopkit/mdl.h"
#include "loopkit/subprocess.h"
#include "loopkit/toolchain.h"

static const char usage[] =
	"BINARY|FILE.s [--function F] [--loop ADDR] [--json] [--canonical]\n\n"
	"Print each innermost loop of the function (default: the measured\n"
	"kernel; in a .s file, its first global symbol) as MDL, or as JSON\n"
	"with its status, streams and µkernels, or its canonical body alone.\n"
	"A refused loop says why ('refused: REASON'; exit 0).";

struct xargs {
	const char *function, *loop;
	int json, canonical;
	uint64_t addr;
};

static int is_asm(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && (!strcmp(path + n - 2, ".s") ||
			 !strcmp(path + n - 2, ".S"));
}

/* Assemble path into dir/loop.o with the C compiler. */
/* The assembler's first error line (gas opens with "Assembler
 * messages:"), else its first line. */
static char *first_error(const char *out)
{
	const char *e = strstr(out, "Error:");
	const char *c = strstr(out, "error:");
	const char *line;

	if (!e || (c && c < e))
		e = c;
	line = e ? e : out;
	while (e && line > out && line[-1] != '\n')
		line--;
	return lk_strndup(line, strcspn(line, "\n"));
}

static int assemble(struct lk_ctx *ctx, const char *path, const char *obj)
{
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	struct lk_cc_line line = {cc, NULL, &path, 1, obj, 1, 0};
	struct lk_strv argv = LK_STRV_INIT;
	struct lk_proc_opts o = {0};
	struct lk_proc_result res = {0};
	int ret;

	lk_cc_argv(&line, &argv);
	o.argv = (const char *const *)argv.v;
	o.timeout = 60;
	o.result_fd = -1;
	o.flags = LK_PROC_MERGE_STDERR;
	ret = lk_proc_run(ctx, &o, &res);
	if (!ret && !lk_proc_ok(&res)) {
		char *why = res.out && *res.out ? first_error(res.out) :
			lk_proc_describe(&res, 60);

		ret = lk_error(ctx, LK_EINPUT, "%s: does not assemble: %s",
			       path, why);
		free(why);
	}
	lk_proc_result_release(&res);
	lk_strv_release(&argv);
	return ret;
}

static int load(struct lk_ctx *ctx, const char *binary, const char *name,
		struct lk_function *fn)
{
	int inlined = 0;

	if (name)
		return lk_elf_function(ctx, binary, name, fn);
	return lk_elf_roi_function(ctx, binary, fn, &inlined);
}

/* With several loops, a comment line names each (MDL comments). */
static void print_one(const struct xargs *a, const struct lk_mdl_extraction *x,
		      int several, struct lk_buf *out)
{
	if (a->json) {
		lk_mdl_extraction_json(x, out);
		return;
	}
	if (several)
		lk_buf_addf(out, "# loop 0x%llx, nested %d deep\n",
			    (unsigned long long)x->loop, x->depth);
	if (x->refused) {
		lk_buf_addf(out, "refused: %s\n", x->reason);
		return;
	}
	if (a->canonical)
		lk_mdl_canonical_body(&x->mdl, out);
	else
		lk_mdl_print(&x->mdl, out);
}

static int extract(struct lk_ctx *ctx, const struct xargs *a,
		   const char *binary, const char *name)
{
	struct lk_buf out = LK_BUF_INIT;
	struct lk_function fn;
	struct lk_cfg cfg;
	size_t *heads = NULL, n = 0, i, shown = 0;
	int *depths;
	int ret = load(ctx, binary, name, &fn);

	if (ret)
		return ret;
	ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &cfg);
	if (ret)
		return ret;
	lk_mdl_loops(&cfg, &heads, &depths, &n);
	for (i = 0; !ret && i < n; i++) {
		struct lk_mdl_extraction x;

		if (a->loop && cfg.blocks[heads[i]].start != a->addr)
			continue;
		ret = lk_mdl_extract(ctx, &cfg, heads[i], &x);
		x.depth = depths[i];
		if (!ret)
			print_one(a, &x, !a->loop && n > 1, &out);
		lk_mdl_extraction_release(&x);
		shown++;
	}
	if (!ret && !shown)
		ret = lk_error(ctx, LK_ENOTFOUND, a->loop ?
			       "%s: no innermost loop at %s in %s" :
			       "%s: no loop in %s%s", cfg.fn.name,
			       a->loop ? a->loop : binary,
			       a->loop ? binary : "");
	if (!ret)
		fputs(lk_buf_str(&out), stdout);
	free(heads);
	free(depths);
	lk_buf_release(&out);
	lk_cfg_release(&cfg);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(ctx, "writing the output");
	return ret;
}

int cmd_mdl_input(struct lk_ctx *ctx, const char *path, const char *function,
		  struct mdl_input *in)
{
	char *text = NULL;
	size_t len;
	int ret;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (!is_asm(path)) {
		in->binary = lk_strdup(path);
		in->name = function ? lk_strdup(function) : NULL;
		return 0;
	}
	/* Unreadable, a directory, a device: said before the assembler
	 * runs, naming the file. */
	if ((ret = lk_file_read_input(ctx, path, &text, &len)))
		return ret;
	free(text);
	in->name = function ? lk_strdup(function) : NULL;
	snprintf(in->dir, sizeof(in->dir), "/tmp/loopkit-mdl-XXXXXX");
	if (!mkdtemp(in->dir)) {
		in->dir[0] = 0;
		return lk_error_errno(ctx, "creating a temporary directory");
	}
	in->binary = lk_asprintf("%s/loop.o", in->dir);
	/* What does not assemble says so first: no .globl is likely a
	 * consequence. */
	ret = assemble(ctx, path, in->binary);
	if (!ret && !in->name &&
	    (ret = lk_elf_first_global(ctx, in->binary, &in->name)) ==
		    LK_ENOTFOUND)
		ret = lk_error(ctx, LK_EINPUT, "%s: no .globl symbol (name "
			       "the function with --function)", path);
	return ret;
}

void cmd_mdl_input_error(struct lk_ctx *ctx, const struct mdl_input *in)
{
	size_t n = in->dir[0] && in->binary ? strlen(in->binary) : 0;
	char *at = n ? strstr(ctx->msg, in->binary) : NULL;

	if (at) {
		/* name the assembly file, not the temporary object */
		char *rest = lk_strdup(at + n);

		*at = '\0';
		snprintf(at, sizeof(ctx->msg) - (size_t)(at - ctx->msg),
			 "%s%s", in->path, rest);
		free(rest);
	}
}

void cmd_mdl_input_release(struct mdl_input *in)
{
	if (in->dir[0]) {
		if (in->binary)
			unlink(in->binary);
		rmdir(in->dir);
	}
	free(in->binary);
	free(in->name);
	memset(in, 0, sizeof(*in));
}

int cmd_mdl_extract(int argc, char **argv)
{
	struct xargs a = {0};
	struct mdl_input in;
	const struct lk_opt opts[] = {
		{'f', "function", LK_OPT_STRING, &a.function, "NAME",
		 "this function (default: the measured kernel)"},
		{0, "loop", LK_OPT_STRING, &a.loop, "ADDR",
		 "only the loop whose first instruction is at ADDR"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		{0, "canonical", LK_OPT_BOOL, &a.canonical, NULL,
		 "print the canonical body only"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl extract", usage, opts, argc, argv);
	struct lk_ctx ctx;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first >= argc)
		return lk_cli_usage_error("mdl extract", "name a BINARY");
	if (first + 1 < argc)
		return lk_cli_usage_error("mdl extract", "unexpected argument "
					  "'%s'", argv[first + 1]);
	if (a.json && a.canonical)
		return lk_cli_usage_error("mdl extract", "--json and "
					  "--canonical exclude each other");
	if ((ret = cmd_mdl_loop_addr("mdl extract", a.loop, &a.addr)))
		return ret;
	lk_ctx_init(&ctx);
	ret = cmd_mdl_input(&ctx, argv[first], a.function, &in);
	if (!ret)
		ret = extract(&ctx, &a, in.binary, in.name);
	if (ret)
		cmd_mdl_input_error(&ctx, &in);
	cmd_mdl_input_release(&in);
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
