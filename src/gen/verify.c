/*
 * Verification: compile a kernel file at a small size without
 * floating-point contraction (so that sums come out in program order)
 * and read its --checksum.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/gen.h"
#include "loopkit/measure.h"
#include "loopkit/subprocess.h"

#define COMPILE_TIMEOUT 120.0
#define RUN_TIMEOUT 60.0

static void compile_argv(struct lk_strv *argv, const char *source,
			 const char *binary, const char *define,
			 const struct lk_strv *cflags)
{
	size_t i;

	lk_strv_push(argv, "gcc");
	lk_strv_push(argv, "-O2");
	lk_strv_push(argv, "-ffp-contract=off");
	lk_strv_push(argv, "-fno-fast-math");
	lk_strv_push(argv, "-w");
	if (define && *define)
		lk_strv_pushf(argv, "-D%s", define);
	for (i = 0; cflags && i < cflags->n; i++)
		if (!strncmp(cflags->v[i], "-D", 2) ||
		    !strncmp(cflags->v[i], "-I", 2) ||
		    !strncmp(cflags->v[i], "-std=", 5))
			lk_strv_push(argv, cflags->v[i]);
	lk_strv_pushf(argv, "-I%s", lk_rt_include_dir());
	lk_strv_push(argv, "-o");
	lk_strv_push(argv, binary);
	lk_strv_push(argv, source);
	lk_strv_pushf(argv, "%s/liblkrt.a", lk_rt_lib_dir());
	lk_strv_push(argv, "-lm");
}

static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return lk_strndup(s, n);
}

static int run_checksum(struct lk_ctx *ctx, const char *source,
			const char *binary, char **sum)
{
	const char *argv[] = {binary, "--checksum", NULL};
	struct lk_proc_opts po = {.argv = argv, .timeout = RUN_TIMEOUT,
				  .result_fd = -1};
	struct lk_proc_result res = {0};
	int ret = lk_proc_run(ctx, &po, &res);
	size_t n;

	if (ret)
		return ret;
	if (!lk_proc_ok(&res)) {
		char *why = lk_proc_describe(&res, RUN_TIMEOUT);

		ret = lk_error(ctx, LK_ECHILD, "%s --checksum: %s", source,
			       why);
		free(why);
	} else {
		n = res.out_len;
		while (n && strchr(" \t\r\n", res.out[n - 1]))
			n--;
		if (!n)
			ret = lk_error(ctx, LK_ECHILD, "%s --checksum printed "
				       "nothing", source);
		else
			*sum = lk_strndup(res.out, n);
	}
	lk_proc_result_release(&res);
	return ret;
}

int lk_gen_checksum(struct lk_ctx *ctx, const char *source,
		    const char *workdir, const char *define,
		    const struct lk_strv *cflags, char **sum)
{
	struct lk_strv argv = LK_STRV_INIT;
	struct lk_proc_opts po = {.timeout = COMPILE_TIMEOUT, .result_fd = -1,
				  .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result res = {0};
	char *binary = lk_path_join(workdir, "checksum.bin");
	int ret;

	*sum = NULL;
	compile_argv(&argv, source, binary, define, cflags);
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
	if (!ret)
		ret = run_checksum(ctx, source, binary, sum);
	unlink(binary);
	free(binary);
	lk_strv_release(&argv);
	return ret;
}

/* Write 'text' as workdir/name and read its checksum. */
static int checksum_text(struct lk_ctx *ctx, const char *text,
			 const char *workdir, const char *name,
			 const char *define, const struct lk_strv *cflags,
			 char **sum)
{
	char *file = lk_path_join(workdir, name);
	int ret = lk_file_write_atomic(ctx, file, text, strlen(text));

	if (!ret)
		ret = lk_gen_checksum(ctx, file, workdir, define, cflags, sum);
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
	int ret = checksum_text(ctx, same, workdir, name, define, cflags,
				&sum);

	if (!ret && strcmp(sum, ref))
		ret = lk_error(ctx, LK_ECHILD, "checksum mismatch after '%s'%s:"
			       " original %s, transformed %s", chain,
			       r->kernelified ? " (the nest kernelify starts "
			       "from)" : "", ref, sum);
	free(sum);
	sum = NULL;
	if (!ret && r->kernelified)
		ret = checksum_text(ctx, r->source, workdir, name, define,
				    cflags, &sum);
	free(sum);
	return ret;
}
