/*
 * The generator: the front end's model of small scops (domains and
 * accesses compared as isl objects, not text), the error of every
 * unsupported construct with its file:line, legality checks, and the
 * transformation chain parser.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isl/map.h>
#include <isl/set.h>

#include "../../src/gen/poly.h"

static char *data_path(const char *name)
{
	const char *dir = getenv("LOOPKIT_TEST_DATA");

	return lk_asprintf("%s/gen/%s", dir ? dir : "tests/data", name);
}

/* A scop from text, in a temporary file named like the test. */
static char *write_kernel(const char *body)
{
	char tmpl[] = "/tmp/test-gen-XXXXXX.c";
	int fd = mkstemps(tmpl, 2);
	char *text = lk_asprintf(
		"#include <math.h>\n"
		"#define N 10\n"
		"double A[N][N], B[N][N], x[N];\n"
		"double foo(double);\n"
		"void kernel_t(int n, int m, double s)\n"
		"{\n"
		"\tint i, j, k;\n"
		"#pragma scop\n"
		"%s\n"
		"#pragma endscop\n"
		"}\n", body);

	cr_assert(fd >= 0);
	cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	free(text);
	return lk_strdup(tmpl);
}

static struct lk_gen_scop *parse_ok(const char *path)
{
	struct lk_ctx ctx;
	struct lk_gen_scop *s = NULL;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_scop_parse(&ctx, path, NULL, &s), 0, "%s",
		     ctx.msg);
	return s;
}

/* Expect a parse failure whose message is "<file>:<line>: <what>...". */
static void parse_fails(const char *body, long line, const char *what)
{
	char *path = write_kernel(body), *expect;
	struct lk_gen_scop *s = NULL;
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_scop_parse(&ctx, path, NULL, &s), LK_EINPUT,
		     "%s parsed", body);
	cr_assert_null(s);
	expect = lk_asprintf("%s:%ld: %s", path, line, what);
	cr_assert(!strncmp(ctx.msg, expect, strlen(expect)),
		  "got '%s', expected '%s...'", ctx.msg, expect);
	free(expect);
	unlink(path);
	free(path);
}

static void set_equal(isl_set *got, const char *want)
{
	isl_set *w = isl_set_read_from_str(isl_set_get_ctx(got), want);
	char *g = isl_set_to_str(got);

	cr_assert_eq(isl_set_is_equal(got, w), isl_bool_true,
		     "got %s, expected %s", g, want);
	free(g);
	isl_set_free(w);
}

static void umap_equal(isl_union_map *got, const char *want)
{
	isl_union_map *w = isl_union_map_read_from_str(
		isl_union_map_get_ctx(got), want);
	char *g = isl_union_map_to_str(got);

	cr_assert_eq(isl_union_map_is_equal(got, w), isl_bool_true,
		     "got %s, expected %s", g, want);
	free(g);
	isl_union_map_free(w);
}

Test(gen, gemm_model)
{
	char *path = data_path("gemm.c");
	struct lk_gen_scop *s = parse_ok(path);
	const char *dom;
	char *want;

	cr_assert_eq(s->nstmts, 2);
	cr_assert_str_eq(s->function, "kernel_gemm");
	set_equal(s->stmts[0].domain, "[ni, nj, nk] -> { S0[i, j] : "
		  "0 <= i < ni and 0 <= j < nj }");
	set_equal(s->stmts[1].domain, "[ni, nj, nk] -> { S1[i, k, j] : "
		  "0 <= i < ni and 0 <= k < nk and 0 <= j < nj }");
	dom = "0 <= i < ni and 0 <= k < nk and 0 <= j < nj";
	want = lk_asprintf("[ni, nj, nk] -> { S1[i, k, j] -> C[i, j] : %s; "
			   "S1[i, k, j] -> A[i, k] : %s; S1[i, k, j] -> "
			   "B[k, j] : %s; S1[i, k, j] -> alpha[] : %s }", dom,
			   dom, dom, dom);
	umap_equal(s->stmts[1].reads, want);
	free(want);
	umap_equal(s->stmts[0].writes, "[ni, nj, nk] -> { S0[i, j] -> "
		   "C[i, j] : 0 <= i < ni and 0 <= j < nj }");
	cr_assert_eq(s->stmts[1].iters.n, 3);
	cr_assert_str_eq(s->stmts[1].iters.v[1], "k");
	lk_gen_scop_free(s);
	free(path);
}

/* Size macros are parameters; decreasing loops and min/max bounds. */
Test(gen, macros_minmax_decreasing)
{
	char *path = write_kernel(
		"for (i = N - 1; i >= 1; i--)\n"
		"  for (j = (0 > i - 3 ? 0 : i - 3); j < (n < i + 2 ? n : "
		"i + 2); j++)\n"
		"    if (i + j != 4)\n"
		"      A[i][j] = A[i - 1][j] > 0 ? sqrt(s) : fabs(x[j]);");
	struct lk_gen_scop *s = parse_ok(path);

	cr_assert_eq(s->nstmts, 1);
	set_equal(s->stmts[0].domain, "[N, n] -> { S0[i, j] : 1 <= i <= N - 1 "
		  "and j >= max(0, i - 3) and j < min(n, i + 2) and "
		  "i + j != 4 }");
	umap_equal(s->stmts[0].reads, "[N, n] -> { S0[i, j] -> A[i - 1, j] : "
		   "1 <= i <= N - 1 and j >= max(0, i - 3) and j < min(n, "
		   "i + 2) and i + j != 4; S0[i, j] -> s[] : 1 <= i <= N - 1 "
		   "and j >= max(0, i - 3) and j < min(n, i + 2) and "
		   "i + j != 4; S0[i, j] -> x[j] : 1 <= i <= N - 1 "
		   "and j >= max(0, i - 3) and j < min(n, i + 2) and "
		   "i + j != 4 }");
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}

Test(gen, unsupported)
{
	parse_fails("for (i = 0; i < n; i++)\n  for (j = 0; j < n; j++)\n"
		    "    A[i * j][j] = 1.0;", 11,
		    "unsupported non-affine subscript A[i * j][j]");
	parse_fails("for (i = 0; i < n * m; i++)\n  x[i] = 0;", 9,
		    "unsupported non-affine product 'n * m'");
	parse_fails("for (i = 0; i < n; i++)\n  x[i] = foo(x[i]);", 10,
		    "unsupported call to 'foo'");
	parse_fails("while (n > 0)\n  n--;", 9, "unsupported statement");
	parse_fails("for (i = 0; i < n; i++) {\n  double t = 0;\n}", 10,
		    "unsupported declaration inside the scop");
	parse_fails("for (i = 0; i < n; i++)\n  if (x[i] > 0)\n    x[i] = 0;",
		    10, "unsupported non-affine expression 'x[i]'");
	parse_fails("for (i = 0; i < n; i++)\n  x[i]++;", 10,
		    "unsupported statement (UnaryOperator)");
	parse_fails("for (i = 0; i < n; i += s)\n  x[i] = 0;", 9,
		    "unsupported for loop increment");
	/* A size macro is a parameter: dividing by it is not affine. */
	parse_fails("for (i = 0; i < n / N; i++)\n  x[i] = 0;", 9,
		    "unsupported non-affine division 'n / N'");
	/* Texts ending in a macro call are quoted whole. */
	parse_fails("#define SV(x) x\n"
		    "for (i = 0; i < n * SV(m); i++)\n  x[i] = 0;", 10,
		    "unsupported non-affine product 'n * SV(m)'");
	parse_fails("#define LB(x, y) y\n#define MM LB(N, m)\n"
		    "for (i = 0; i < n * MM; i++)\n  x[i] = 0;", 11,
		    "unsupported non-affine product 'n * MM'");
}

Test(gen, unbalanced_pragma)
{
	char tmpl[] = "/tmp/test-gen-XXXXXX.c";
	int fd = mkstemps(tmpl, 2);
	const char *text = "void f(double *x)\n{\n#pragma scop\n"
			   "\tx[0] = 1;\n}\n";
	struct lk_gen_scop *s = NULL;
	struct lk_ctx ctx;
	char *expect;

	cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_scop_parse(&ctx, tmpl, NULL, &s), LK_EINPUT);
	expect = lk_asprintf("%s:3: unbalanced #pragma scop", tmpl);
	cr_assert(!strncmp(ctx.msg, expect, strlen(expect)), "%s", ctx.msg);
	free(expect);
	unlink(tmpl);
}

static int transform(struct lk_gen_scop *s, const char *text,
		     struct lk_ctx *ctx)
{
	struct lk_gen_chain c;
	struct lk_gen_result *r = NULL;
	int ret;

	cr_assert_eq(lk_gen_chain_parse(ctx, text, NULL, &c), 0, "%s",
		     ctx->msg);
	ret = lk_gen_transform(ctx, s, &c, &r);
	cr_assert_eq(!r, !!ret);
	if (r)
		cr_assert(strstr(r->source, "#pragma endscop"));
	lk_gen_result_free(r);
	lk_gen_chain_release(&c);
	return ret;
}

/* A (<, >) dependence: interchange and tiling are refused, naming it. */
Test(gen, legality)
{
	char *path = write_kernel(
		"for (i = 1; i < n; i++)\n"
		"  for (j = 0; j < n - 1; j++)\n"
		"    A[i][j] = A[i - 1][j + 1] + 1.0;");
	struct lk_gen_scop *s = parse_ok(path);
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(transform(s, "interchange", &ctx), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "interchange (step 1 of 'interchange') is "
			 "illegal: it violates the RAW (flow) dependence"),
		  "%s", ctx.msg);
	cr_assert(strstr(ctx.msg, "S0[i, j] -> S0[i' = 1 + i, j' = -1 + j]"),
		  "%s", ctx.msg);
	lk_ctx_clear(&ctx);
	cr_assert_eq(transform(s, "tile,sizes=4x4", &ctx), LK_EINPUT);
	lk_ctx_clear(&ctx);
	/* The scheduler skews it; then tiling is legal. */
	cr_assert_eq(transform(s, "isl+tile,sizes=4x4", &ctx), 0, "%s",
		     ctx.msg);
	cr_assert_eq(transform(s, "original", &ctx), 0, "%s", ctx.msg);
	/* The inner loop j is parallel: the hint is placed. */
	cr_assert_eq(transform(s, "vectorize", &ctx), 0, "%s", ctx.msg);
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}

/* A reduction's inner loop carries a dependence: no vectorize hint. */
Test(gen, vectorize_refused)
{
	char *path = write_kernel(
		"for (i = 0; i < n; i++)\n"
		"  for (j = 0; j < n; j++)\n"
		"    x[i] += A[i][j];");
	struct lk_gen_scop *s = parse_ok(path);
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_scop_deps(&ctx, s), 0);
	cr_assert_eq(isl_union_map_is_empty(s->raw), isl_bool_false);
	cr_assert_eq(transform(s, "vectorize", &ctx), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "no innermost loop is parallel"));
	lk_ctx_clear(&ctx);
	cr_assert_eq(transform(s, "interchange+vectorize", &ctx), 0, "%s",
		     ctx.msg);
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}

Test(gen, chains)
{
	struct lk_gen_chain c;
	struct lk_ctx ctx;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_gen_chain_parse(&ctx, "isl+tile,sizes=32x8+unroll,"
					"factor=full", NULL, &c), 0);
	cr_assert_eq(c.nsteps, 3);
	cr_assert_str_eq(lk_gen_step_get(&c.steps[1], "sizes"), "32x8");
	cr_assert_str_eq(c.text, "isl+tile,sizes=32x8+unroll,factor=full");
	lk_gen_chain_release(&c);
	cr_assert_eq(lk_gen_chain_parse(&ctx, "tlie", "c.yaml:3", &c),
		     LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "c.yaml:3: unknown transformation 'tlie' "
			 "(did you mean 'tile'?)");
	cr_assert_eq(lk_gen_chain_parse(&ctx, "tile,size=3", NULL, &c),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "did you mean 'sizes'"), "%s", ctx.msg);
	cr_assert_eq(lk_gen_chain_parse(&ctx, "tile,sizes=0", NULL, &c),
		     LK_EINPUT);
	cr_assert_eq(lk_gen_chain_parse(&ctx, "isl+", NULL, &c), LK_EINPUT);
	cr_assert_eq(lk_gen_chain_parse(&ctx, "unroll,factor=1", NULL, &c),
		     LK_EINPUT);
}

/* PolyBench's macros: _PB_N for the parameter n, a non-constant macro
 * read through its expansion, SCALAR_VAL in a statement. */
Test(gen, polybench_macros)
{
	char *path = write_kernel(
		"#define POLYBENCH_LOOP_BOUND(x, y) y\n"
		"#define _PB_N POLYBENCH_LOOP_BOUND(N, n)\n"
		"#define HALF (n / 2)\n"
		"#define SCALAR_VAL(x) x\n"
		"for (i = 0; i < _PB_N; i++)\n"
		"  for (j = 0; j < HALF; j++)\n"
		"    A[i][j] = SCALAR_VAL(0.5) * A[i][j];");
	struct lk_gen_scop *s = parse_ok(path);

	set_equal(s->stmts[0].domain, "[n] -> { S0[i, j] : 0 <= i < n and "
		  "0 <= j < floor(n / 2) }");
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
	/* Constant multiples in a linearised subscript are affine. */
	path = write_kernel("for (i = 0; i < n; i++)\n"
			    "  for (j = 1; j < n; j++)\n"
			    "    x[2 * i + 3 * (j - 1)] = x[i * 2];");
	s = parse_ok(path);
	umap_equal(s->stmts[0].writes, "[n] -> { S0[i, j] -> x[2i + 3j - 3] "
		   ": 0 <= i < n and 1 <= j < n }");
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}

/* A statement's text with each iterator piece as "<name>". */
static char *stmt_text(const struct lk_gen_stmt *st)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	for (i = 0; i < st->npieces; i++)
		if (st->pieces[i].text)
			lk_buf_adds(&b, st->pieces[i].text);
		else
			lk_buf_addf(&b, "<%s>", st->iters.v[st->pieces[i].iter]);
	return lk_buf_detach(&b);
}

/* Statements are printed from what the compiler sees: a macro ending a
 * statement, a macro naming another, a statement that is a macro call,
 * a macro naming the iterator; size macros keep their names. */
Test(gen, statement_text_macros)
{
	static const char *const want[] = {
		"s = 1.0 / (double)n;",
		"x[<i>] = 0.0;",
		"A[<i>][<j>] *= s + 0 * m;",
		"A[<i>][<j>] = ((A[<i>][<j>] + x[<j>]) * 0.5);",
		"x[<i>] += A[<i>][N - 1] / N;",
	};
	char *path = write_kernel(
		"#define SCALAR_VAL(x) x\n"
		"#define LB(x, y) y\n"
		"#define MJ LB(N, m)\n"
		"#define _PB_N LB(N, n)\n"
		"#define HALF(x) ((x) * SCALAR_VAL(0.5))\n"
		"#define ZERO(x) x = SCALAR_VAL(0.0)\n"
		"#define AT(x) A[i][x]\n"
		"s = SCALAR_VAL(1.0) / (double)_PB_N;\n"
		"for (i = 0; i < _PB_N; i++) {\n"
		"  ZERO(x[i]);\n"
		"  for (j = 0; j < MJ; j++) {\n"
		"    A[i][j] *= s + 0 * MJ;\n"
		"    AT(j) = HALF(AT(j) + x[j]);\n"
		"  }\n"
		"  x[i] += A[i][N - 1] / N;\n"
		"}");
	struct lk_gen_scop *s = parse_ok(path);
	size_t i;

	cr_assert_eq(s->nstmts, 5);
	for (i = 0; i < 5; i++) {
		char *got = stmt_text(&s->stmts[i]);

		cr_assert_str_eq(got, want[i], "statement %zu", i);
		free(got);
	}
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}

/* A chain of assignments is split, innermost first, each statement with
 * its own accesses. */
Test(gen, chained_assignments)
{
	char *path = write_kernel("for (i = 0; i < n; i++)\n"
				  "  x[i] = s = (A[i][0] += 2.0);");
	struct lk_gen_scop *s = parse_ok(path);
	static const char *const want[] = {
		"A[<i>][0] += 2.0;", "s = A[<i>][0];", "x[<i>] = s;"};
	size_t i;

	cr_assert_eq(s->nstmts, 3);
	for (i = 0; i < 3; i++) {
		char *got = stmt_text(&s->stmts[i]);

		cr_assert_str_eq(got, want[i], "statement %zu", i);
		free(got);
	}
	umap_equal(s->stmts[1].reads, "[n] -> { S1[i] -> A[i, 0] : "
		   "0 <= i < n }");
	umap_equal(s->stmts[2].writes, "[n] -> { S2[i] -> x[i] : "
		   "0 <= i < n }");
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}

/* Literals pasted by a macro (PolyBench's SCALAR_VAL(x) x##f for float
 * kernels) keep their type: a float literal stays one. */
Test(gen, pasted_literals)
{
	char *path = write_kernel("#define SV(x) x##f\n"
				  "#define UL(x) x##UL\n"
				  "for (i = 0; i < n; i++)\n"
				  "  x[i] = SV(1.0) * SV(2.5) + UL(3);");
	struct lk_gen_scop *s = parse_ok(path);
	char *got = stmt_text(&s->stmts[0]);

	cr_assert_str_eq(got, "x[<i>] = 1.0f * 2.5f + 3UL;");
	free(got);
	lk_gen_scop_free(s);
	unlink(path);
	free(path);
}
