/*
 * libclang parses in our own process: a kernel that includes "/dev/zero"
 * (or any endless input) would grow loopkit's memory without bound inside
 * libclang, where nothing can stop it. The compiler's preprocessor, with
 * the same include directories and defines, goes first, in a child under
 * a memory limit and a timeout; only a source it reads to the end reaches
 * libclang. A preprocessor that merely reports errors (a missing header)
 * is let through: libclang reports those with their file and line.
 */
#include <stdlib.h>
#include <string.h>

#include "gen-int.h"
#include "loopkit/toolchain.h"
#include "loopkit/subprocess.h"

/* Preprocessing a kernel needs a few MiB; an endless include is stopped
 * long before it costs the machine anything. */
#define PREPROCESS_MEMORY ((size_t)1 << 30)
#define PREPROCESS_TIMEOUT 60.0

void gen_frontend_args(const struct lk_strv *cflags, struct lk_strv *args)
{
	size_t i;

	lk_strv_push(args, "-xc");
	lk_strv_push(args, "-std=gnu11");
	lk_strv_pushf(args, "-I%s", lk_rt_include_dir());
	for (i = 0; cflags && i < cflags->n; i++)
		if (!strncmp(cflags->v[i], "-D", 2) ||
		    !strncmp(cflags->v[i], "-U", 2) ||
		    !strncmp(cflags->v[i], "-I", 2) ||
		    !strncmp(cflags->v[i], "-std=", 5))
			lk_strv_push(args, cflags->v[i]);
}

static void preprocess_argv(const char *path, const struct lk_strv *cflags,
			    struct lk_strv *argv)
{
	lk_strv_push(argv, "cc");
	lk_strv_push(argv, "-E");
	gen_frontend_args(cflags, argv);
	lk_strv_push(argv, path);
	lk_strv_push(argv, "-o");
	lk_strv_push(argv, "/dev/null");
}

int gen_preprocess_check(struct lk_ctx *ctx, const char *path,
			 const struct lk_strv *cflags)
{
	size_t limit = lk_proc_default_memory_limit();
	struct lk_strv argv = LK_STRV_INIT;
	struct lk_proc_opts o = {.timeout = PREPROCESS_TIMEOUT,
				 .result_fd = -1, .max_capture = 1 << 16,
				 .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result r;
	int ret;

	o.memory_limit = limit && limit < PREPROCESS_MEMORY ? limit
							    : PREPROCESS_MEMORY;
	preprocess_argv(path, cflags, &argv);
	o.argv = (const char *const *)argv.v;
	ret = lk_proc_run(ctx, &o, &r);
	if (ret == LK_ENOTFOUND) {
		/* No cc: libclang alone, as before. */
		lk_ctx_clear(ctx);
		ret = 0;
	} else if (!ret && (r.timed_out || r.signaled || r.out_of_memory)) {
		char *how = lk_proc_describe(&r, o.timeout);

		ret = lk_error(ctx, LK_EINPUT, "%s: the preprocessor (cc -E) "
			       "did not finish: %s; an endless #include?",
			       path, how);
		free(how);
	}
	lk_proc_result_release(&r);
	lk_strv_release(&argv);
	return ret;
}
