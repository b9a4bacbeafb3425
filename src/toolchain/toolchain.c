/*
 * The runtime's and the plugin's paths, compile command lines against
 * the runtime, and the line of a compiler's log that says what failed.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/toolchain.h"

#ifndef LK_RT_INCLUDE_DIR
#define LK_RT_INCLUDE_DIR "rt"
#endif
#ifndef LK_RT_LIB_DIR
#define LK_RT_LIB_DIR "build/lib"
#endif
#ifndef LK_SHARE_DIR
#define LK_SHARE_DIR "share"
#endif
#ifndef LK_PLUGIN_PATH
#define LK_PLUGIN_PATH "build/plugin/lkmemprof.so"
#endif

const char *lk_rt_include_dir(void)
{
	const char *d = getenv("LOOPKIT_RT_DIR");

	return d && *d ? d : LK_RT_INCLUDE_DIR;
}

const char *lk_rt_lib_dir(void)
{
	const char *d = getenv("LOOPKIT_RT_DIR");

	return d && *d ? d : LK_RT_LIB_DIR;
}

const char *lk_share_dir(void)
{
	const char *d = getenv("LOOPKIT_SHARE_DIR");

	return d && *d ? d : LK_SHARE_DIR;
}

const char *lk_plugin_path(void)
{
	const char *p = getenv("LOOPKIT_PLUGIN");

	return p && *p ? p : LK_PLUGIN_PATH;
}

static void push_output(const struct lk_cc_line *line, struct lk_strv *argv)
{
	lk_strv_push(argv, "-o");
	lk_strv_push(argv, line->output);
}

void lk_cc_argv(const struct lk_cc_line *line, struct lk_strv *argv)
{
	size_t i;

	lk_strv_push(argv, line->compiler);
	for (i = 0; line->flags && i < line->flags->n; i++)
		lk_strv_push(argv, line->flags->v[i]);
	lk_strv_pushf(argv, "-I%s", lk_rt_include_dir());
	if (line->output_first)
		push_output(line, argv);
	for (i = 0; i < line->nsources; i++)
		lk_strv_push(argv, line->sources[i]);
	if (line->compile_only)
		lk_strv_push(argv, "-c");
	if (!line->output_first)
		push_output(line, argv);
	if (line->compile_only)
		return;
	lk_strv_pushf(argv, "%s/liblkrt.a", lk_rt_lib_dir());
	lk_strv_push(argv, "-lm");
}

char *lk_compiler_error(const char *log)
{
	const char *err = strstr(log, "error:");
	const char *gas = strstr(log, "Error:");   /* the assembler's */
	const char *undef = strstr(log, "undefined reference");
	const char *line;
	size_t n;

	/* The linker's first undefined symbol says more than "ld returned
	 * 1 exit status". */
	if (gas && (!err || gas < err))
		err = gas;
	if (undef && (!err || undef < err || strstr(err, "ld returned")))
		err = undef;
	if (!err)
		return NULL;
	/* Back to the start of the line: "file.c:3:7: error: ..." */
	for (line = err; line > log && line[-1] != '\n'; line--)
		;
	n = strcspn(line, "\n");
	return lk_strndup(line, n > 300 ? 300 : n);
}
