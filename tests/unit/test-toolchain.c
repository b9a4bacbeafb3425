/*
 * toolchain: the compile lines lk_cc_argv assembles for the build cache,
 * gen's verification and memprof (their exact shapes, which stored build
 * commands and keys depend on), and lk_compiler_error.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "loopkit/toolchain.h"

static char *joined(const struct lk_cc_line *line)
{
	struct lk_strv argv = LK_STRV_INIT;
	char *s;

	lk_cc_argv(line, &argv);
	cr_assert_null(argv.v[argv.n]);
	s = lk_strv_join(&argv, " ");
	lk_strv_release(&argv);
	return s;
}

static void flags_of(struct lk_strv *flags, const char *a, const char *b)
{
	lk_strv_push(flags, a);
	lk_strv_push(flags, b);
}

static void init(void)
{
	setenv("LOOPKIT_RT_DIR", "/rt", 1);
	unsetenv("LOOPKIT_PLUGIN");
}

Test(toolchain, build_line, .init = init)
{
	struct lk_strv flags = LK_STRV_INIT;
	const char *src = "k.c";
	struct lk_cc_line line = {.compiler = "clang", .flags = &flags,
				  .sources = &src, .nsources = 1,
				  .output = "out"};
	char *s;

	flags_of(&flags, "-O2", "-DN=4");
	s = joined(&line);
	cr_expect_str_eq(s, "clang -O2 -DN=4 -I/rt k.c -o out /rt/liblkrt.a "
			    "-lm");
	free(s);
	lk_strv_release(&flags);
}

Test(toolchain, verify_line_output_first, .init = init)
{
	struct lk_strv flags = LK_STRV_INIT;
	const char *src[] = {"k.c", "polybench.c"};
	struct lk_cc_line line = {.compiler = "gcc", .flags = &flags,
				  .sources = src, .nsources = 2,
				  .output = "bin", .output_first = 1};
	char *s;

	flags_of(&flags, "-O2", "-w");
	s = joined(&line);
	cr_expect_str_eq(s, "gcc -O2 -w -I/rt -o bin k.c polybench.c "
			    "/rt/liblkrt.a -lm");
	free(s);
	lk_strv_release(&flags);
}

Test(toolchain, compile_only_line, .init = init)
{
	const char *src = "k.c";
	struct lk_cc_line line = {.compiler = "gcc", .sources = &src,
				  .nsources = 1, .output = "/dev/null",
				  .compile_only = 1};
	char *s = joined(&line);

	cr_expect_str_eq(s, "gcc -I/rt k.c -c -o /dev/null");
	free(s);
}

Test(toolchain, paths_follow_the_environment, .init = init)
{
	cr_expect_str_eq(lk_rt_include_dir(), "/rt");
	cr_expect_str_eq(lk_rt_lib_dir(), "/rt");
	setenv("LOOPKIT_PLUGIN", "/p/lkmemprof.so", 1);
	cr_expect_str_eq(lk_plugin_path(), "/p/lkmemprof.so");
	unsetenv("LOOPKIT_PLUGIN");
	cr_expect_str_neq(lk_plugin_path(), "/p/lkmemprof.so");
}

Test(toolchain, compiler_error_line)
{
	char *e = lk_compiler_error("In function 'f':\nk.c:3:7: error: "
				    "'x' undeclared\nmore\n");

	cr_expect_str_eq(e, "k.c:3:7: error: 'x' undeclared");
	free(e);
	e = lk_compiler_error("/usr/bin/ld: k.o: undefined reference to "
			      "`g'\ncollect2: error: ld returned 1 exit "
			      "status\n");
	cr_expect_str_eq(e, "/usr/bin/ld: k.o: undefined reference to `g'");
	free(e);
	cr_expect_null(lk_compiler_error("warning: fine\n"));
}
