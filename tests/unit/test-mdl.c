/*
 * mdl: MDL text v1. Canonical printing is a fixed point
 * (print(parse(print(x))) == print(x)), expressions keep their structure
 * through printing, the canonical body forgets names, registers and
 * meta-data, and every malformed text is one error naming line and
 * column.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/mdl.h"

TestSuite(mdl);

static const char gemm[] =
	"MDL 1\n"
	"Meta:\n"
	"  unroll = 8   # lanes x copies\n"
	"  flop_per_byte = 0.08330\n"
	"  source = \"kernel_gemm@0x27b0\"\n"
	"Data:\n"
	"  flow A base=\"%rdx\"\n"
	"  flow C base=\"%rax\" align=64\n"
	"  scalar n = 1984\n"
	"Body:\n"
	"Trip: n I/O: In: A n * 8 C n*8 Out: C n*8\n"
	"LoopBody:\n"
	"  In: A Stride: 8 Offset: 0 Size: 8 C Stride: 8 Offset: 0 Size: 8\n"
	"  Out: C Stride: 8 Offset: 0 Size: 8\n"
	"  Add: 1 Mul: 1\n";

static const char gemm_canonical[] =
	"MDL 1\n"
	"Meta:\n"
	"  unroll = 8\n"
	"  flop_per_byte = 0.0833\n"
	"  source = \"kernel_gemm@0x27b0\"\n"
	"Data:\n"
	"  flow A base=\"%rdx\"\n"
	"  flow C base=\"%rax\" align=64\n"
	"  scalar n = 1984\n"
	"Body:\n"
	"Trip: n\n"
	"I/O: In: A n*8 C n*8 Out: C n*8\n"
	"LoopBody:\n"
	"  In:  A Stride: 8 Offset: 0 Size: 8\n"
	"       C Stride: 8 Offset: 0 Size: 8\n"
	"  Out: C Stride: 8 Offset: 0 Size: 8\n"
	"  Add: 1 Mul: 1\n";

/* print(parse(text)), asserting it parses. */
static char *reprint(const char *text)
{
	struct lk_buf b = LK_BUF_INIT;
	struct lk_ctx ctx;
	struct lk_mdl m;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", text, strlen(text), &m), 0,
		     "%s", ctx.msg);
	lk_mdl_print(&m, &b);
	lk_mdl_release(&m);
	return lk_buf_detach(&b);
}

static char *canonical_body(const char *text)
{
	struct lk_buf b = LK_BUF_INIT;
	struct lk_ctx ctx;
	struct lk_mdl m;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", text, strlen(text), &m), 0,
		     "%s", ctx.msg);
	lk_mdl_canonical_body(&m, &b);
	lk_mdl_release(&m);
	return lk_buf_detach(&b);
}

/* The error message of parsing text, which must fail with LK_EINPUT. */
static void expect_error(const char *text, const char *msg)
{
	struct lk_ctx ctx;
	struct lk_mdl m;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", text, strlen(text), &m),
		     LK_EINPUT, "accepted: %s", text);
	cr_assert_str_eq(ctx.msg, msg);
	cr_assert_eq(m.nflows, 0);
}

Test(mdl, prints_the_canonical_layout)
{
	char *once = reprint(gemm), *twice = reprint(once);

	cr_assert_str_eq(once, gemm_canonical);
	cr_assert_str_eq(twice, once);
	free(once);
	free(twice);
}

static const char nest[] =
	"MDL 1 Meta: Data: flow a flow b flow c flow t scalar n = 100 "
	"scalar m = -3\n"
	"Body: Trip: (n - 2) div 2 I/O: In: a n*n*8 Out: b n*n*8\n"
	"LoopBody: fixed c strided a n*8 switch t in a b\n"
	"  Trip: n I/O: In: a n*8 Out: b n*8 LoopBody:\n"
	"    In: a Stride: 8 Offset: -8 Size: 8 a Stride: 8 Offset: 8 "
	"Size: m\n"
	"    Out: b Stride: n Offset: 0 Size: 8 Add: 2 Mul: 1\n"
	"    In: Out: Add: 0 Mul: 3\n"
	"  Trip: 4 I/O: In: Out: LoopBody:\n";

Test(mdl, nests_bindings_and_empty_lists_are_a_fixed_point)
{
	char *once = reprint(nest), *twice = reprint(once);

	cr_assert_str_eq(twice, once);
	cr_assert(strstr(once, "Body:\nTrip: (n-2) div 2\n"), "%s", once);
	cr_assert(strstr(once, "  fixed c\n  strided a n*8\n  switch t in a "
			       "b\n  Trip: n\n"), "%s", once);
	cr_assert(strstr(once, "    In:  a Stride: 8 Offset: -8 Size: 8\n"
			       "         a Stride: 8 Offset: 8 Size: m\n"),
		  "%s", once);
	cr_assert(strstr(once, "    In:\n    Out:\n    Add: 0 Mul: 3\n"),
		  "%s", once);
	cr_assert(strstr(once, "  Trip: 4\n  I/O: In: Out:\n  LoopBody:\n"),
		  "%s", once);
	cr_assert(strstr(once, "  scalar m = -3\n"), "%s", once);
	free(once);
	free(twice);
}

static void expect_trip(const char *expr, const char *printed)
{
	char *text = lk_asprintf("MDL 1 Meta: Data: scalar n = 5 Body: "
				 "Trip: %s I/O: In: Out: LoopBody:", expr);
	char *once = reprint(text), *twice = reprint(once);
	char *want = lk_asprintf("Trip: %s\n", printed);

	cr_assert(strstr(once, want), "'%s' printed as %s", expr, once);
	cr_assert_str_eq(twice, once);
	free(text);
	free(once);
	free(twice);
	free(want);
}

Test(mdl, expressions_keep_their_structure)
{
	expect_trip("n + 1 * 8", "n+1*8");
	expect_trip("(n + 1) * 8", "(n+1)*8");
	expect_trip("n - 1 - 2", "n-1-2");
	expect_trip("n - (1 - 2)", "n-(1-2)");
	expect_trip("n * -1", "n*(-1)");
	expect_trip("n - -1", "n-(-1)");
	expect_trip("-1 + n", "-1+n");
	expect_trip("n mod 4 div 2", "n mod 4 div 2");
	expect_trip("n mod (4 div 2)", "n mod (4 div 2)");
	expect_trip("((n))", "n");
}

Test(mdl, canonical_body_forgets_names_registers_and_meta)
{
	static const char renamed[] =
		"MDL 1 Meta: unroll = 32 spill_fill = 2 Data:\n"
		"  flow x base=\"%r9\" flow y base=\"%r10\" scalar n = 7\n"
		"Body: Trip: n I/O: In: y n*8 x n*8 Out: x n*8 LoopBody:\n"
		"  In: y Stride: 8 Offset: 0 Size: 8 x Stride: 8 Offset: 0 "
		"Size: 8 Out: x Stride: 8 Offset: 0 Size: 8 Add: 1 Mul: 1\n";
	char *a = canonical_body(gemm), *b = canonical_body(renamed);

	cr_assert_str_eq(a, b);
	cr_assert_str_eq(a, "Trip: n\n"
			    "I/O: In: s0 n*8 s1 n*8 Out: s1 n*8\n"
			    "LoopBody:\n"
			    "  In:  s0 Stride: 8 Offset: 0 Size: 8\n"
			    "       s1 Stride: 8 Offset: 0 Size: 8\n"
			    "  Out: s1 Stride: 8 Offset: 0 Size: 8\n"
			    "  Add: 1 Mul: 1\n");
	free(a);
	free(b);
}

Test(mdl, canonical_body_tells_different_flows_apart)
{
	static const char other[] =
		"MDL 1 Meta: Data: flow A flow C scalar n = 1\n"
		"Body: Trip: n I/O: In: A n*8 C n*8 Out: A n*8 LoopBody:\n"
		"  In: A Stride: 8 Offset: 0 Size: 8 C Stride: 8 Offset: 0 "
		"Size: 8 Out: A Stride: 8 Offset: 0 Size: 8 Add: 1 Mul: 1\n";
	char *a = canonical_body(gemm), *b = canonical_body(other);

	cr_assert_str_neq(a, b);
	free(a);
	free(b);
}

Test(mdl, json_carries_the_same_content)
{
	struct lk_buf b = LK_BUF_INIT;
	struct lk_ctx ctx;
	struct lk_mdl m;

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", gemm, strlen(gemm), &m), 0);
	lk_mdl_json(&m, &b);
	cr_assert(strstr(b.buf, "\"meta\": {\"unroll\": 8, \"flop_per_byte\": "
				"0.0833, \"source\": \"kernel_gemm@0x27b0\"}"),
		  "%s", b.buf);
	cr_assert(strstr(b.buf, "{\"name\": \"C\", \"attrs\": {\"base\": "
				"\"%rax\", \"align\": 64}}"), "%s", b.buf);
	cr_assert(strstr(b.buf, "\"trip\": \"n\", \"in\": [{\"flow\": \"A\", "
				"\"bytes\": \"n*8\"}"), "%s", b.buf);
	cr_assert(strstr(b.buf, "\"out\": [{\"flow\": \"C\", \"stride\": 8, "
				"\"offset\": 0, \"size\": 8}], \"add\": 1, "
				"\"mul\": 1}"), "%s", b.buf);
	lk_mdl_release(&m);
	lk_buf_release(&b);
}

#define HEAD "MDL 1 Meta: Data: flow a scalar n = 4\nBody: "
#define LOOP "Trip: n I/O: In: Out: LoopBody: "

Test(mdl, errors_name_line_column_and_what)
{
	expect_error("", "t.mdl:1:1: expected 'MDL', found the end of the "
			 "file");
	expect_error("MDL 2", "t.mdl:1:5: MDL version 2: this loopkit reads "
			      "version 1");
	expect_error("MDL 1\nMeta: x = 1 x = 2",
		     "t.mdl:2:13: 'x' given twice");
	expect_error(HEAD LOOP "In: b Stride: 8",
		     "t.mdl:2:43: 'b' is not a declared flow");
	expect_error(HEAD LOOP "In: a Stride: k",
		     "t.mdl:2:53: 'k' is not a declared scalar");
	expect_error(HEAD LOOP "In: a Offset: 8",
		     "t.mdl:2:45: expected 'Stride:', found 'Offset:'");
	expect_error("MDL 1 Meta: Data: flow a scalar a = 1",
		     "t.mdl:1:33: 'a' declared twice");
	expect_error("MDL 1 Meta: s = \"abc\nx\"",
		     "t.mdl:1:17: unterminated string");
	expect_error("MDL 1 Meta: s = @",
		     "t.mdl:1:17: unexpected character '@'");
	expect_error("MDL 1 Meta: s = 1a",
		     "t.mdl:1:17: '1a' is not a keyword, a number or a name");
	expect_error(HEAD LOOP "In: Out: AST",
		     "t.mdl:2:48: 'AST' arithmetic is reserved; MDL 1 counts "
		     "'Add:' and 'Mul:'");
	expect_error(HEAD LOOP "fixed a In: Out: Add: 1 Mul: 1",
		     "t.mdl:2:47: expected 'Trip:' (a loop follows the "
		     "bindings), found 'In:'");
	expect_error(HEAD LOOP LOOP "In: Out: Add: 1 Mul: 1 Meta:",
		     "t.mdl:2:94: expected the end of the file (the body is "
		     "one loop nest), found 'Meta:'");
	expect_error(HEAD "Trip: 99999999999999999999",
		     "t.mdl:2:13: integer out of range");
}

Test(mdl, depth_and_size_are_bounded)
{
	struct lk_buf b = LK_BUF_INIT;
	struct lk_ctx ctx;
	struct lk_mdl m;
	int i;

	lk_buf_adds(&b, "MDL 1 Meta: Data: Body: ");
	for (i = 0; i < 70; i++)
		lk_buf_adds(&b, "Trip: 1 I/O: In: Out: LoopBody: ");
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", b.buf, b.len, &m),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "loops nested more than 64 deep"), "%s",
		  ctx.msg);
	lk_buf_reset(&b);
	lk_buf_adds(&b, "MDL 1 Meta: Data: Body: Trip: ");
	for (i = 0; i < 70; i++)
		lk_buf_addch(&b, '(');
	cr_assert_eq(lk_mdl_parse(&ctx, "t.mdl", b.buf, b.len, &m),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "parentheses nested more than 64 deep"),
		  "%s", ctx.msg);
	lk_buf_release(&b);
}
