/*
 * loopkit mdl: the Micro-kernel Description Language (doc/loopkit-mdl.md).
 * 'fmt' parses MDL text and prints it in canonical form, or as JSON;
 * 'concretize' turns a description into a C micro-benchmark.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "loopkit/mdl.h"
#include "loopkit/toolchain.h"

static const char usage[] =
	"<subcommand> [options] ...\n\n"
	"  fmt FILE.mdl...      print each description in canonical form\n"
	"                       ('-' reads stdin); --check: say which files\n"
	"                       are not canonical (exit 1), print nothing;\n"
	"                       --write: rewrite them in place; --json: the\n"
	"                       same content as JSON\n"
	"  concretize FILE.mdl  print a C micro-benchmark of its innermost\n"
	"                       µkernels (seed:NAME: a seed of\n"
	"                       share/mdl/seeds); run it with loopkit run\n"
	"  extract BINARY|FILE.s  innermost loops as MDL ('mdl extract -h')\n"
	"  db build|show|export the seed database, measured per ISA class\n"
	"                       and memory level into the store\n"
	"  predict FILE.mdl|BINARY  the iterative k-NN against that\n"
	"                       database (a binary's loop extracted first)\n"
	"  replay BINARY --level L  the loop's own bytes re-run on the\n"
	"                       level's working set, measured\n"
	"  eval -c CAMPAIGN.yaml  predict and replay every variant's loops\n"
	"                       per level; error beside llvm-mca's\n\n"
	"Errors name the file, line and column (exit 2). The language:\n"
	"doc/mdl.md.";

struct fmt_args {
	int check, write, json;
};

static int read_input(struct lk_ctx *ctx, const char *path, char **text,
		      size_t *len)
{
	struct lk_buf b = LK_BUF_INIT;
	char chunk[65536];
	size_t n;

	if (strcmp(path, "-"))
		return lk_file_read_input(ctx, path, text, len);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		if (b.len + n > LK_FILE_MAX_TEXT) {
			lk_buf_release(&b);
			return lk_error(ctx, LK_EINPUT, "<stdin>: larger than "
					"%zu MiB", LK_FILE_MAX_TEXT >> 20);
		}
		lk_buf_add(&b, chunk, n);
	}
	*len = b.len;
	*text = lk_buf_detach(&b);
	if (!*text)
		*text = lk_strdup("");
	return 0;
}

/* 0 done, 1 not canonical (--check), < 0 an error in ctx. */
static int fmt_one(struct lk_ctx *ctx, const struct fmt_args *a,
		   const char *path)
{
	const char *name = strcmp(path, "-") ? path : "<stdin>";
	struct lk_buf out = LK_BUF_INIT;
	struct lk_mdl m;
	char *text = NULL;
	size_t len = 0;
	int ret = read_input(ctx, path, &text, &len);

	if (!ret)
		ret = lk_mdl_parse(ctx, name, text, len, &m);
	if (ret)
		goto out;
	if (a->json)
		lk_mdl_json(&m, &out);
	else
		lk_mdl_print(&m, &out);
	lk_mdl_release(&m);
	if (a->check && (out.len != len || memcmp(out.buf, text, len))) {
		printf("%s\n", name);
		ret = 1;
	} else if (a->write && strcmp(path, "-") &&
		   (out.len != len || memcmp(out.buf, text, len))) {
		ret = lk_file_write_atomic(ctx, path, out.buf, out.len);
	} else if (!a->check && !a->write) {
		fwrite(out.buf, 1, out.len, stdout);
	}
out:
	lk_buf_release(&out);
	free(text);
	return ret;
}

static int cmd_fmt(int argc, char **argv)
{
	struct fmt_args a = {0};
	const struct lk_opt opts[] = {
		{0, "check", LK_OPT_BOOL, &a.check, NULL,
		 "list the files not in canonical form (exit 1 if any)"},
		{'w', "write", LK_OPT_BOOL, &a.write, NULL,
		 "rewrite the files in canonical form"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl fmt", usage, opts, argc, argv);
	int i, ret = 0, differ = 0;
	struct lk_ctx ctx;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first >= argc)
		return lk_cli_usage_error("mdl fmt", "expected FILE.mdl");
	if (a.check + a.write + a.json > 1)
		return lk_cli_usage_error("mdl fmt", "--check, --write and "
					  "--json exclude each other");
	lk_ctx_init(&ctx);
	for (i = first; !ret && i < argc; i++) {
		ret = fmt_one(&ctx, &a, argv[i]);
		differ |= ret == 1;
		ret = ret == 1 ? 0 : ret;
	}
	if (ret)
		return lk_cli_fail(&ctx);
	if (fflush(stdout)) {
		lk_error_errno(&ctx, "writing the output");
		return lk_cli_fail(&ctx);
	}
	return differ;
}

#define UNROLL_UNSET LONG_MIN

struct concretize_args {
	const char *isa, *level, *first, *output;
	long bytes, unroll, bundles;
};

/* Options to opts; a usage error's exit code (2) or 0. */
static int concretize_opts(const struct concretize_args *a,
			   struct lk_mdl_concrete_opts *o)
{
	const char *cmd = "mdl concretize";

	if (lk_mdl_level_parse(a->level, &o->level))
		return lk_cli_usage_error(cmd, "--level: '%s' is not L1, L2, "
					  "L3 or RAM", a->level);
	if (!strcmp(a->first, "add") || !strcmp(a->first, "mul"))
		o->first = a->first[0] == 'a' ? LK_MDL_FIRST_ADD
					      : LK_MDL_FIRST_MUL;
	else
		return lk_cli_usage_error(cmd, "--first: '%s' is not add or "
					  "mul", a->first);
	if (a->bytes < 0 || (a->bytes > 0 && a->bytes < 64) ||
	    a->bytes > (1L << 40))
		return lk_cli_usage_error(cmd, "--bytes: %ld is not between "
					  "64 and 1 TiB", a->bytes);
	if (a->unroll != UNROLL_UNSET && (a->unroll < 1 || a->unroll > 4096))
		return lk_cli_usage_error(cmd, "--unroll: %ld is not between "
					  "1 and 4096", a->unroll);
	if (a->bundles < 1 || a->bundles > 4096)
		return lk_cli_usage_error(cmd, "--bundles: %ld is not between "
					  "1 and 4096", a->bundles);
	o->bytes = a->bytes;
	if (a->unroll != UNROLL_UNSET)
		o->unroll = (int)a->unroll;
	o->bundles = (int)a->bundles;
	return 0;
}

static int concretize_one(struct lk_ctx *ctx, const char *path,
			  const struct concretize_args *a,
			  struct lk_mdl_concrete_opts *o)
{
	const struct lk_mdl_machine *machine;
	struct lk_buf c = LK_BUF_INIT;
	struct lk_mdl m;
	int ret = lk_mdl_load(ctx, path, &m);

	if (ret)
		return ret;
	/* A class named is emitted whatever this CPU runs: the source
	 * may be meant for another machine. */
	ret = lk_mdl_machine_host(ctx, a->isa, LK_MDL_MACHINE_EMIT, &machine);
	o->source = path;
	/* Unset: 8 vectors of the class, as the database's exploration
	 * counts them (fewer would run arithmetic at its latency). */
	if (!ret && a->unroll == UNROLL_UNSET)
		o->unroll = 8 * lk_mdl_machine_lanes(machine);
	if (!ret)
		ret = lk_mdl_concretize(ctx, &m, machine, o, &c);
	lk_mdl_release(&m);
	if (!ret && a->output)
		ret = lk_file_write_atomic(ctx, a->output, c.buf, c.len);
	else if (!ret && (fwrite(c.buf, 1, c.len, stdout) != c.len ||
			  fflush(stdout)))
		ret = lk_error_errno(ctx, "writing the output");
	lk_buf_release(&c);
	return ret;
}

static int cmd_concretize(int argc, char **argv)
{
	struct concretize_args a = {"auto", "L1", "mul", NULL,
				    0,      UNROLL_UNSET, 1};
	const struct lk_opt opts[] = {
		{0, "isa", LK_OPT_STRING, &a.isa, "CLASS",
		 "scalar, sse, avx2, avx512 or auto (the widest here)"},
		{0, "level", LK_OPT_STRING, &a.level, "L",
		 "working set for L1, L2, L3 or RAM (default L1)"},
		{0, "bytes", LK_OPT_LONG, &a.bytes, "N",
		 "working set in bytes (overrides --level's size)"},
		{0, "unroll", LK_OPT_LONG, &a.unroll, "U",
		 "canonical iterations per asm iteration (default 8 "
		 "vectors: 8 scalar, 16 sse, 32 avx2, 64 avx512)"},
		{0, "bundles", LK_OPT_LONG, &a.bundles, "B",
		 "load/arithmetic/store bundles (default 1)"},
		{0, "first", LK_OPT_STRING, &a.first, "OP",
		 "add or mul: the arithmetic's first group (default mul)"},
		{'o', "output", LK_OPT_STRING, &a.output, "FILE.c",
		 "write the C file there (default stdout)"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl concretize", usage, opts, argc, argv);
	struct lk_mdl_concrete_opts o;
	struct lk_ctx ctx;
	char *path;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first != argc - 1)
		return lk_cli_usage_error("mdl concretize", "expected one "
					  "FILE.mdl");
	lk_mdl_concrete_opts_init(&o);
	ret = concretize_opts(&a, &o);
	if (ret)
		return ret;
	lk_ctx_init(&ctx);
	if (!(ret = lk_mdl_path(&ctx, argv[first], &path)))
		ret = concretize_one(&ctx, path, &a, &o);
	free(path);
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}

void cmd_mdl_pick_note(const struct lk_mdl_pick *p, const char *fn)
{
	if (p->nloops < 2)
		return;
	fprintf(stderr, "loopkit: note: %s: %zu innermost loops; taking "
		"0x%llx, nested %d deep (the deepest %s); --loop ADDR "
		"takes another ('loopkit mdl extract' lists them)\n", fn,
		p->nloops, (unsigned long long)p->x.loop, p->x.depth,
		p->x.refused ? "loop: extraction refuses every one"
			     : "one extraction accepts");
}

int cmd_mdl_loop_addr(const char *cmd, const char *text, uint64_t *addr)
{
	char *end;

	*addr = 0;
	if (!text)
		return 0;
	*addr = strtoull(text, &end, 0);
	if (!*text || *end)
		return lk_cli_usage_error(cmd, "--loop: '%s' is not an address",
					  text);
	return 0;
}

int cmd_mdl(int argc, char **argv)
{
	static const struct lk_opt none[] = {LK_OPT_END};

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		if (argc < 2)
			return lk_cli_usage_error("mdl", "expected a "
						  "subcommand (fmt, "
						  "concretize, extract, db, "
						  "predict, replay, eval)");
		lk_opts_usage(stdout, "mdl", usage, none);
		return 0;
	}
	if (!strcmp(argv[1], "fmt"))
		return cmd_fmt(argc - 1, argv + 1);
	if (!strcmp(argv[1], "concretize"))
		return cmd_concretize(argc - 1, argv + 1);
	if (!strcmp(argv[1], "extract"))
		return cmd_mdl_extract(argc - 1, argv + 1);
	if (!strcmp(argv[1], "db"))
		return cmd_mdl_db(argc - 1, argv + 1);
	if (!strcmp(argv[1], "predict"))
		return cmd_mdl_predict(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_mdl_replay(argc - 1, argv + 1);
	if (!strcmp(argv[1], "eval"))
		return cmd_mdl_eval(argc - 1, argv + 1);
	return lk_cli_usage_error("mdl", "unknown subcommand '%s' (fmt, "
				  "concretize, extract, db, predict, replay, eval)",
				  argv[1]);
}
