/*
 * Micro-kernelification: the hottest innermost loop chosen by exact
 * counts, the representative iteration, the windows and their proved
 * extents (offset views only where C allows them), the working set
 * against l1, the facts recorded, and every error.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/env.h"
#include "../../src/gen/poly.h"

/* A kernel whose sizes come from main's call, in a temporary file. */
static char *write_kernel(const char *body, const char *call)
{
	char tmpl[] = "/tmp/test-kernelify-XXXXXX.c";
	int fd = mkstemps(tmpl, 2);
	char *text = lk_asprintf(
		"#include <stdio.h>\n"
		"double A[300][300], B[300][300], x[300], y[300];\n"
		"void kernel_t(int n, int m, double s)\n"
		"{\n"
		"\tint i, j;\n"
		"#pragma scop\n"
		"%s\n"
		"#pragma endscop\n"
		"}\n"
		"int main(int argc, char **argv)\n"
		"{\n"
		"\t%s;\n"
		"\tprintf(\"checksum %%f\\n\", A[1][1] + x[1]);\n"
		"\treturn 0;\n"
		"}\n", body, call);

	cr_assert(fd >= 0);
	cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	free(text);
	return lk_strdup(tmpl);
}

/* What a test looks at, kept after the scop (and its isl_ctx) is gone. */
struct micro {
	int kernelified;
	char *source;
	struct lk_strv param_names, param_values;
};

static void micro_free(struct micro *m)
{
	if (!m)
		return;
	free(m->source);
	lk_strv_release(&m->param_names);
	lk_strv_release(&m->param_values);
	free(m);
}

/* Kernelify with 'chain'; *msg gets the error (or NULL). */
static struct micro *kernelify(const char *body, const char *call,
				       const char *chain, int expect_ret,
				       char **msg)
{
	char *path = write_kernel(body, call);
	struct lk_gen_scop *s = NULL;
	struct lk_gen_result *r = NULL;
	struct micro *m = NULL;
	struct lk_gen_chain c;
	struct lk_ctx ctx;
	int ret;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_scop_parse(&ctx, path, NULL, &s), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_gen_chain_parse(&ctx, chain, NULL, &c), 0, "%s",
		     ctx.msg);
	ret = lk_gen_transform(&ctx, s, &c, &r);
	cr_assert_eq(ret, expect_ret, "%s: %d (%s)", chain, ret, ctx.msg);
	if (msg)
		*msg = lk_strdup(ctx.msg);
	if (r) {
		m = lk_calloc(1, sizeof(*m));
		m->kernelified = r->kernelified;
		m->source = lk_strdup(r->source);
		m->param_names = r->param_names;
		m->param_values = r->param_values;
		memset(&r->param_names, 0, sizeof(r->param_names));
		memset(&r->param_values, 0, sizeof(r->param_values));
	}
	/* The result's isl objects first: the scop owns their isl_ctx. */
	lk_gen_result_free(r);
	lk_gen_chain_release(&c);
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
	return m;
}

static const char *fact(const struct micro *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->param_names.n; i++)
		if (!strcmp(r->param_names.v[i], name))
			return r->param_values.v[i];
	cr_assert_fail("no fact %s", name);
	return NULL;
}

static long fact_long(const struct micro *r, const char *name)
{
	return strtol(fact(r, name), NULL, 10);
}

/* Compile the micro-kernel and run --checksum: it must not crash. */
static void runs(const struct micro *r)
{
	char tmpl[] = "/tmp/test-kernelify-XXXXXX";
	char *dir = mkdtemp(tmpl), *file, *sum = NULL;
	struct lk_ctx ctx;

	cr_assert(dir);
	file = lk_path_join(dir, "micro.c");
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_file_write_atomic(&ctx, file, r->source,
					  strlen(r->source)), 0);
	cr_assert_eq(lk_gen_checksum(&ctx, file, dir, NULL, NULL, &sum), 0,
		     "%s\n%s", ctx.msg, r->source);
	cr_assert(!strncmp(sum, "checksum ", 9), "%s", sum);
	unlink(file);
	rmdir(dir);
	free(file);
	free(sum);
}

#define TWO_LOOPS                                                              \
	"for (i = 0; i < n; i++)\n"                                            \
	"\tx[i] = x[i] + 1.0;\n"                                               \
	"for (i = 0; i < n; i++)\n"                                            \
	"\tfor (j = 0; j < m; j++)\n"                                          \
	"\t\tA[i][j] = A[i][j] * s + B[i][j] * x[j];"

Test(kernelify, hottest_loop_by_exact_counts)
{
	struct micro *r = kernelify(TWO_LOOPS, "kernel_t(100, 50, 1.5)",
					    "original+kernelify", 0, NULL);

	cr_assert(r->kernelified);
	/* 3 operations x 100 x 50 beat 1 x 100. */
	cr_assert_eq(fact_long(r, "kernel.hotness"), 15000);
	/* Each nest of the sequence is generated alone: c0 is i. */
	cr_assert_str_eq(fact(r, "kernel.loop"), "c1");
	/* The middle of 0..99. */
	cr_assert_eq(fact_long(r, "fixed.c0"), 49);
	cr_assert_str_eq(fact(r, "kernel.size"), "small");
	cr_assert(strstr(r->source, "static double s = 1.5;") ||
		  strstr(r->source, "static double lk_s = 1.5;"), "%s",
		  r->source);
	/* One loop, literal bounds, the statement's text kept. */
	cr_assert(strstr(r->source, "\tfor (c1 = 0; c1 <= "), "%s", r->source);
	cr_assert(strstr(r->source, "A[(49)][(c1)] = A[(49)][(c1)] * s + "
				    "B[(49)][(c1)] * x[(c1)];"),
		  "%s", r->source);
	runs(r);
	micro_free(r);
}

Test(kernelify, hotness_follows_the_sizes)
{
	/* With m = 0 the nest runs nothing: the first loop is hottest. */
	struct micro *r = kernelify(TWO_LOOPS, "kernel_t(100, 0, 1.5)",
					    "original+kernelify", 0, NULL);

	cr_assert_eq(fact_long(r, "kernel.hotness"), 100);
	cr_assert(strstr(r->source, "x[(c0)] = x[(c0)] + 1.0;"), "%s",
		  r->source);
	micro_free(r);
}

Test(kernelify, working_set_within_l1)
{
	struct micro *r;
	long l1[] = {8192, 16384, 32768}, trip, ws, lines;
	size_t i;

	for (i = 0; i < 3; i++) {
		char *chain = lk_asprintf("original+kernelify,l1=%ld,"
					  "granule=16", l1[i]);

		r = kernelify(TWO_LOOPS, "kernel_t(100, 50, 1.5)", chain, 0,
			      NULL);
		trip = fact_long(r, "kernel.trip");
		ws = fact_long(r, "working_set_bytes");
		/* A[49][*], B[49][*], x[*]: 3 x 8 bytes a step, and s. */
		cr_assert_eq(ws, 24 * trip + 8, "%ld bytes for %ld", ws, trip);
		/* Rows: about one 64-byte line per 8 doubles of each, plus
		 * the scalar's line and one straddled line per array. */
		lines = fact_long(r, "working_set_lines");
		cr_assert(lines * 64 >= ws && lines * 64 <= ws + 4 * 64,
			  "%ld lines for %ld bytes", lines, ws);
		/* The budget holds the lines, and 16 more steps (6 lines,
		 * give or take a straddled one) would not fit. */
		cr_assert_leq(lines * 64, l1[i]);
		cr_assert_gt((lines + 7) * 64, l1[i],
			     "trip %ld is not the longest", trip);
		cr_assert_eq(trip % 16, 0);
		cr_assert_eq(fact_long(r, "kernel.l1"), l1[i]);
		cr_assert_str_eq(fact(r, "kernel.l1.from"), "l1=");
		micro_free(r);
		free(chain);
	}
	/* 256 steps of the nest take 6 KiB: the next hottest loop fits. */
	r = kernelify(TWO_LOOPS, "kernel_t(100, 50, 1.5)",
		      "original+kernelify,l1=4096", 0, NULL);
	cr_assert_eq(fact_long(r, "kernel.hotness"), 100);
	cr_assert_leq(fact_long(r, "working_set_lines") * 64, 4096);
	cr_assert_geq(fact_long(r, "kernel.trip"), 256);
	micro_free(r);
}

Test(kernelify, column_walk_counts_a_line_per_element)
{
	/* A[i][j] with i inner: 8 bytes used of every 64-byte line. */
	struct micro *r = kernelify(
		"for (j = 0; j < m; j++)\n"
		"\tfor (i = 0; i < n; i++)\n"
		"\t\ty[j] = y[j] + A[i][j];",
		"kernel_t(100, 50, 1.5)", "original+kernelify", 0, NULL);
	long trip = fact_long(r, "kernel.trip");

	cr_assert_eq(fact_long(r, "working_set_bytes"), 8 * trip + 8);
	cr_assert_geq(fact_long(r, "working_set_lines"), trip);
	/* Sized by lines: the column's lines fit the budget. */
	cr_assert_leq(fact_long(r, "working_set_lines") * 64,
		      fact_long(r, "kernel.l1"));
	runs(r);
	micro_free(r);
}

Test(kernelify, column_walk_sized_by_lines)
{
	/* 256 steps down a column are 2 KiB of doubles but 16 KiB of
	 * lines: at l1=8192 the window is short (64..192), not 1024
	 * elements that bytes would allow. */
	struct micro *r = kernelify(
		"for (j = 0; j < m; j++)\n"
		"\tfor (i = 0; i < n; i++)\n"
		"\t\ty[j] = y[j] + A[i][j];",
		"kernel_t(300, 50, 1.5)", "original+kernelify,l1=8192", 0,
		NULL);
	long trip = fact_long(r, "kernel.trip");

	const char *decl = strstr(r->source, "static double lk_A[");
	long rows = 0, row = 0;

	cr_assert(trip >= 64 && trip < 256, "trip %ld", trip);
	cr_assert_leq(fact_long(r, "working_set_lines") * 64, 8192);
	cr_assert_gt((fact_long(r, "working_set_lines") + 64) * 64, 8192);
	/* Rows padded to an odd number of lines: the walk uses every set. */
	cr_assert(decl && sscanf(decl, "static double lk_A[%ld][%ld]", &rows,
				 &row) == 2, "%s", r->source);
	cr_assert_eq(row * 8 % 128, 64, "a row of %ld doubles", row);
	runs(r);
	micro_free(r);
}

Test(kernelify, default_budget_is_half_the_env_l1d)
{
	/* A fake sysfs with a 64 KiB L1D, then none: 32 KiB, then the
	 * 32 KiB fallback's half. */
	char dir[] = "/tmp/lk-kfy-sysXXXXXX", *idx, *cmd;
	struct micro *r;

	cr_assert(mkdtemp(dir));
	idx = lk_asprintf("%s/sys/devices/system/cpu/cpu0/cache/index0", dir);
	cmd = lk_asprintf("mkdir -p %s && echo 1 >%s/level && echo Data "
			  ">%s/type && echo 64K >%s/size", idx, idx, idx, idx);
	cr_assert_eq(system(cmd), 0);
	setenv("LOOPKIT_SYSROOT", dir, 1);
	cr_assert_eq(lk_env_l1d_bytes(), 65536);
	r = kernelify(TWO_LOOPS, "kernel_t(300, 300, 1.5)",
		      "original+kernelify", 0, NULL);
	cr_assert_eq(fact_long(r, "kernel.l1"), 32768);
	cr_assert_str_eq(fact(r, "kernel.l1.from"), "host L1D");
	cr_assert_leq(fact_long(r, "working_set_lines") * 64, 32768);
	micro_free(r);
	free(cmd);
	cmd = lk_asprintf("rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(lk_env_l1d_bytes(), 0);
	r = kernelify(TWO_LOOPS, "kernel_t(300, 300, 1.5)",
		      "original+kernelify", 0, NULL);
	cr_assert_eq(fact_long(r, "kernel.l1"), 16384);
	cr_assert_str_eq(fact(r, "kernel.l1.from"), "default L1D");
	micro_free(r);
	unsetenv("LOOPKIT_SYSROOT");
	free(cmd);
	free(idx);
}

Test(kernelify, tiled_nest)
{
	struct micro *r = kernelify(
		TWO_LOOPS, "kernel_t(200, 200, 1.5)",
		"isl+tile,sizes=32x32+kernelify,l1=16384", 0, NULL);

	cr_assert_leq(fact_long(r, "working_set_bytes"), 16384);
	runs(r);
	micro_free(r);
}

Test(kernelify, decreasing_subscript_ends_at_the_loop_end)
{
	/* j runs down: the window ending at the loop's end keeps every
	 * index >= 0, so no offset view is needed. */
	struct micro *r = kernelify(
		"for (i = 0; i < n; i++)\n"
		"\tfor (j = m - 1; j >= 0; j--)\n"
		"\t\tA[i][j] = A[i][j] + B[i][j];",
		"kernel_t(100, 50, 1.5)", "original+kernelify", 0, NULL);

	cr_assert(strstr(r->source, "#define A lk_A\n"), "%s", r->source);
	cr_assert(strstr(r->source, "#define B lk_B\n"), "%s", r->source);
	runs(r);
	micro_free(r);
}

Test(kernelify, negative_index_through_an_offset_view)
{
	/* x[i - j] goes below 0 past j = i: a 1-D offset view. */
	struct micro *r = kernelify(
		"for (i = 0; i < n; i++)\n"
		"\tfor (j = 0; j < i; j++)\n"
		"\t\ty[j] = y[j] + x[i - j];",
		"kernel_t(100, 50, 1.5)", "original+kernelify", 0, NULL);

	cr_assert(strstr(r->source, "#define x ((double *)lk_x + "), "%s",
		  r->source);
	runs(r);
	micro_free(r);
}

Test(kernelify, invariant_element_left_out_of_the_window)
{
	/* A[k][k] is read at every step and written at j = k: the window
	 * starts after it (floyd-warshall). */
	struct micro *r = kernelify(
		"for (i = 0; i < n; i++)\n"
		"\tfor (j = 0; j < n; j++)\n"
		"\t\tA[i][j] = A[i][j] + A[i][i];",
		"kernel_t(100, 50, 1.5)", "original+kernelify", 0, NULL);

	cr_assert(strstr(r->source, "for (c1 = 50; "), "%s", r->source);
	micro_free(r);
}

Test(kernelify, facts_read_back)
{
	struct micro *r = kernelify(TWO_LOOPS, "kernel_t(100, 50, 1.5)",
					    "original+kernelify", 0, NULL);
	struct lk_strv names = LK_STRV_INIT, values = LK_STRV_INIT;
	size_t i;

	cr_assert_eq(lk_gen_kernel_params(r->source, &names, &values),
		     r->param_names.n);
	for (i = 0; i < names.n; i++) {
		cr_assert_str_eq(names.v[i], r->param_names.v[i]);
		cr_assert_str_eq(values.v[i], r->param_values.v[i]);
	}
	cr_assert_eq(lk_gen_kernel_params("int main(void) { }", &names,
					  &values), 0);
	lk_strv_release(&names);
	lk_strv_release(&values);
	micro_free(r);
}

static void chain_fails(const char *chain, const char *what)
{
	struct lk_gen_chain c;
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_chain_parse(&ctx, chain, NULL, &c), LK_EINPUT,
		     "%s accepted", chain);
	cr_assert(strstr(ctx.msg, what), "%s: got '%s'", chain, ctx.msg);
}

Test(kernelify, chain_errors)
{
	chain_fails("kernelify+tile", "kernelify can only be the last step");
	chain_fails("original+kernelify+kernelify", "only be the last");
	chain_fails("kernelify,l2=1", "unknown parameter 'l2'");
	chain_fails("kernelify,l2=1", "did you mean 'l1'");
	chain_fails("kernelify,l1=1023", "bad value '1023' for l1");
	chain_fails("kernelify,l1=16777217", "bad value");
	chain_fails("kernelify,l1=32k", "bad value");
	chain_fails("kernelify,size=tiny", "bad value 'tiny' for size");
	chain_fails("kernelify,granule=0", "bad value '0' for granule");
	chain_fails("kernelify,granule=4097", "bad value");
}

Test(kernelify, step_errors)
{
	char *msg;
	struct micro *r;

	r = kernelify(TWO_LOOPS, "kernel_t(100, 50, 1.5)",
		      "original+kernelify,l1=1024", LK_EINPUT, &msg);
	cr_assert_null(r);
	cr_assert(strstr(msg, "even the smallest trip count"), "%s", msg);
	free(msg);
	/* No call gives the sizes. */
	r = kernelify(TWO_LOOPS, "(void)argv", "original+kernelify",
		      LK_EINPUT, &msg);
	cr_assert(strstr(msg, "no value for the size symbol 'n'"), "%s",
		  msg);
	free(msg);
	r = kernelify("x[0] = s;", "kernel_t(100, 50, 1.5)",
		      "original+kernelify", LK_EINPUT, &msg);
	cr_assert(strstr(msg, "the nest has no loop"), "%s", msg);
	free(msg);
}
