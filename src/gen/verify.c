/*
 * Verification: compile a program at a small size without
 * floating-point contraction (so that sums come out in program order)
 * and read what it computed. Two protocols: a PolyBench program (one
 * that includes polybench.h) is linked with the polybench.c found
 * beside a polybench.h on the include path and built with
 * -DPOLYBENCH_DUMP_ARRAYS, and its array dump (stderr) is compared;
 * any other program prints a checksum with --checksum.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "poly.h"
#include "loopkit/subprocess.h"
#include "loopkit/toolchain.h"

#define COMPILE_TIMEOUT 120.0
#define RUN_TIMEOUT 60.0

static const char no_verify[] = "--no-verify skips verification";

int lk_gen_uses_polybench(const char *text)
{
	const char *l;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p++ != '#')
			continue;
		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "include", 7))
			continue;
		p += 7;
		while (*p == ' ' || *p == '\t')
			p++;
		if ((*p == '"' || *p == '<') &&
		    !strncmp(p + 1, "polybench.h", 11) &&
		    (p[12] == '"' || p[12] == '>'))
			return 1;
	}
	return 0;
}

/* polybench.c beside the first polybench.h of cflags' -I directories. */
static int find_harness(struct lk_ctx *ctx, const char *source,
			const struct lk_strv *cflags, char **harness)
{
	size_t i;

	for (i = 0; cflags && i < cflags->n; i++) {
		char *h, *c;

		if (strncmp(cflags->v[i], "-I", 2) || !cflags->v[i][2])
			continue;
		h = lk_path_join(cflags->v[i] + 2, "polybench.h");
		c = lk_path_join(cflags->v[i] + 2, "polybench.c");
		if (lk_path_exists(h)) {
			free(h);
			if (lk_path_exists(c)) {
				*harness = c;
				return 0;
			}
			free(c);
			return lk_error(ctx, LK_EINPUT, "%s: cannot verify it: "
					"it includes polybench.h but %s has no "
					"polybench.c (the PolyBench harness); %s",
					source, cflags->v[i] + 2, no_verify);
		}
		free(h);
		free(c);
	}
	return lk_error(ctx, LK_EINPUT, "%s: cannot verify it: it includes "
			"polybench.h, which no -I directory holds (give -I "
			"with PolyBench's utilities, where polybench.c is); "
			"%s", source, no_verify);
}

static void compile_argv(struct lk_strv *argv, const char *source,
			 const char *binary, const char *define,
			 const struct lk_strv *cflags, const char *harness)
{
	struct lk_strv flags = LK_STRV_INIT;
	const char *sources[] = {source, harness};
	struct lk_cc_line line = {.compiler = "gcc", .flags = &flags,
				  .sources = sources,
				  .nsources = harness ? 2 : 1,
				  .output = binary, .output_first = 1};
	size_t i;

	lk_strv_push(&flags, "-O2");
	lk_strv_push(&flags, "-ffp-contract=off");
	lk_strv_push(&flags, "-fno-fast-math");
	lk_strv_push(&flags, "-w");
	if (define && *define)
		lk_strv_pushf(&flags, "-D%s", define);
	if (harness)
		lk_strv_push(&flags, "-DPOLYBENCH_DUMP_ARRAYS");
	for (i = 0; cflags && i < cflags->n; i++)
		if (!strncmp(cflags->v[i], "-D", 2) ||
		    !strncmp(cflags->v[i], "-I", 2) ||
		    !strncmp(cflags->v[i], "-std=", 5))
			lk_strv_push(&flags, cflags->v[i]);
	lk_cc_argv(&line, argv);
	lk_strv_release(&flags);
}

static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return lk_strndup(s, n);
}

/* PolyBench's dump between its markers, hashed. */
static int dump_sum(struct lk_ctx *ctx, const char *source,
		    const char *out, char **sum)
{
	const char *b = strstr(out, "==BEGIN DUMP_ARRAYS==");
	const char *e = b ? strstr(b, "==END   DUMP_ARRAYS==") : NULL;
	char hex[LK_HASH_HEX];

	if (!e)
		return lk_error(ctx, LK_EINPUT, "%s: cannot verify it: built "
				"with -DPOLYBENCH_DUMP_ARRAYS it printed no "
				"array dump (no polybench_prevent_dce(print_"
				"array(...)) in main?); %s", source,
				no_verify);
	lk_hash_buf(b, (size_t)(e - b), hex);
	*sum = lk_strdup(hex);
	return 0;
}

static int checksum_of(struct lk_ctx *ctx, const char *source,
		       const char *out, size_t n, char **sum)
{
	while (n && isspace((unsigned char)out[n - 1]))
		n--;
	if (!n)
		return lk_error(ctx, LK_EINPUT, "%s: cannot verify it: "
				"'--checksum' printed nothing (the program "
				"must print a checksum of its results with "
				"--checksum, or include polybench.h); %s",
				source, no_verify);
	*sum = lk_strndup(out, n);
	return 0;
}

static int run_program(struct lk_ctx *ctx, const char *source,
		       const char *binary, const char *harness, char **sum)
{
	const char *argv[] = {binary, harness ? NULL : "--checksum", NULL};
	struct lk_proc_opts po = {.argv = argv, .timeout = RUN_TIMEOUT,
				  .result_fd = -1};
	struct lk_proc_result res = {0};
	int ret;

	if (harness)
		po.flags = LK_PROC_MERGE_STDERR;
	ret = lk_proc_run(ctx, &po, &res);
	if (!ret && !lk_proc_ok(&res)) {
		char *why = lk_proc_describe(&res, RUN_TIMEOUT);

		ret = lk_error(ctx, LK_ECHILD, "%s%s: %s", source,
			       harness ? "" : " --checksum", why);
		free(why);
	} else if (!ret && harness) {
		ret = dump_sum(ctx, source, res.out, sum);
	} else if (!ret) {
		ret = checksum_of(ctx, source, res.out, res.out_len, sum);
	}
	lk_proc_result_release(&res);
	return ret;
}

static int compile(struct lk_ctx *ctx, const char *source,
		   const char *binary, const char *define,
		   const struct lk_strv *cflags, const char *harness)
{
	struct lk_strv argv = LK_STRV_INIT;
	struct lk_proc_opts po = {.timeout = COMPILE_TIMEOUT, .result_fd = -1,
				  .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result res = {0};
	int ret;

	compile_argv(&argv, source, binary, define, cflags, harness);
	po.argv = (const char *const *)argv.v;
	ret = lk_proc_run(ctx, &po, &res);
	if (!ret && !lk_proc_ok(&res)) {
		char *err = lk_compiler_error(res.out);
		char *line = err ? err : first_line(res.out);

		ret = lk_error(ctx, LK_ECHILD, "%s does not compile: %s",
			       source, line);
		free(line);
	}
	lk_proc_result_release(&res);
	lk_strv_release(&argv);
	return ret;
}

/* The result of 'source' (text 'text') under its protocol. */
static int program_sum(struct lk_ctx *ctx, const char *source,
		       const char *text, const char *workdir,
		       const char *define, const struct lk_strv *cflags,
		       char **sum)
{
	char *binary = lk_path_join(workdir, "checksum.bin");
	char *harness = NULL;
	int ret = 0;

	*sum = NULL;
	if (lk_gen_uses_polybench(text))
		ret = find_harness(ctx, source, cflags, &harness);
	if (!ret)
		ret = compile(ctx, source, binary, define, cflags, harness);
	if (!ret)
		ret = run_program(ctx, source, binary, harness, sum);
	unlink(binary);
	free(binary);
	free(harness);
	return ret;
}

int lk_gen_checksum(struct lk_ctx *ctx, const char *source,
		    const char *workdir, const char *define,
		    const struct lk_strv *cflags, char **sum)
{
	char *text = NULL;
	size_t len;
	int ret;

	*sum = NULL;
	ret = lk_file_read(ctx, source, &text, &len);
	if (!ret)
		ret = program_sum(ctx, source, text, workdir, define, cflags,
				  sum);
	/* The original must run for anything to be verified. */
	if (ret == LK_ECHILD && !strstr(ctx->msg, no_verify)) {
		char *why = lk_strdup(ctx->msg);

		lk_error(ctx, ret, "%s (the original: cannot verify against "
			 "it; %s)", why, no_verify);
		free(why);
	}
	free(text);
	return ret;
}

/* Write 'text' as workdir/name and read its result. */
static int sum_text(struct lk_ctx *ctx, const char *text,
		    const char *workdir, const char *name,
		    const char *define, const struct lk_strv *cflags,
		    char **sum)
{
	char *file = lk_path_join(workdir, name);
	int ret = lk_file_write_atomic(ctx, file, text, strlen(text));

	if (!ret)
		ret = program_sum(ctx, file, text, workdir, define, cflags,
				  sum);
	unlink(file);
	free(file);
	return ret;
}

int lk_gen_verify(struct lk_ctx *ctx, const struct lk_gen_result *r,
		  const char *chain, const char *ref, const char *workdir,
		  const char *name, const char *define,
		  const struct lk_strv *cflags)
{
	const char *same = r->kernelified ? r->transformed : r->source;
	char *sum = NULL;
	int ret = sum_text(ctx, same, workdir, name, define, cflags, &sum);

	if (!ret && strcmp(sum, ref))
		ret = lk_error(ctx, LK_ECHILD, "%s mismatch after '%s'%s:"
			       " original %s, transformed %s",
			       lk_gen_uses_polybench(same) ? "array dump"
							   : "checksum",
			       chain, r->kernelified ? " (the nest kernelify "
			       "starts from)" : "", ref, sum);
	free(sum);
	sum = NULL;
	if (!ret && r->kernelified)
		ret = sum_text(ctx, r->source, workdir, name, define, cflags,
			       &sum);
	free(sum);
	return ret;
}
