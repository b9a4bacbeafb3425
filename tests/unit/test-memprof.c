/*
 * memprof: text traces (data-driven: tests/data/memprof-traces/, see its
 * README), binary traces and their every rejection, the call tree on
 * known nesting and on a million-deep recursion, the profile, static
 * .lkmem counts, and the latency fit on synthetic data.
 *
 * LOOPKIT_TEST_DATA points at tests/data (default: relative to the cwd).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/memprof.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

/* ---- text traces: the data-driven cases ------------------------------ */

static char *data_path(const char *file)
{
	const char *dir = getenv("LOOPKIT_TEST_DATA");

	return lk_asprintf("%s/memprof-traces/%s",
			   dir && *dir ? dir : "tests/data", file);
}

/* Tree and profile of a loaded trace, or "error: ..." */
static void render_tree(const struct lk_trace *t, struct lk_buf *out)
{
	struct lk_call_node *nodes;
	struct lk_func_profile *prof;
	size_t n;

	if (lk_calltree_build(&ctx, t, &nodes)) {
		lk_buf_addf(out, "error: %s\n", ctx.msg);
		return;
	}
	lk_buf_adds(out, "tree:\n");
	lk_calltree_print(t, nodes, 0, out);
	cr_assert_eq(lk_profile_build(&ctx, t, nodes, &prof, &n), 0);
	lk_buf_adds(out, "profile:\n");
	lk_profile_flat(prof, n, out);
	free(prof);
	free(nodes);
}

/* An error without where it was read: "error: NAME:4: call 2 ... call 1
 * (line 3) [...]" and "error: NAME: record 2: call 2 ... call 1 (record
 * 1) [...]" both become "error: call 2 ... call 1 [...]". */
static char *without_origin(const char *result)
{
	const char *call = strstr(result, ": call ");
	struct lk_buf b = LK_BUF_INIT;
	const char *p, *paren;

	if (strncmp(result, "error: ", 7) || !call)
		return lk_strdup(result);
	lk_buf_adds(&b, "error: ");
	for (p = call + 2; *p; p++) {
		if (*p == ' ' && (!strncmp(p, " (line ", 7) ||
				  !strncmp(p, " (record ", 9)) &&
		    (paren = strchr(p, ')')) != NULL) {
			p = paren;
			continue;
		}
		lk_buf_addch(&b, *p);
	}
	return lk_buf_detach(&b);
}

/* The same calls through the binary form must give the same result; an
 * error names the record instead of the line. */
static void check_binary_round_trip(const char *name, const struct lk_trace *t,
				    const char *text_result)
{
	struct lk_buf bin = LK_BUF_INIT, again = LK_BUF_INIT;
	struct lk_trace back;
	char *want = without_origin(text_result), *got, *at;

	lk_trace_write_binary(t, &bin);
	cr_assert_eq(lk_trace_read_binary(&ctx, name, bin.buf, bin.len, &back),
		     0, "%s: binary round trip: %s", name, ctx.msg);
	render_tree(&back, &again);
	got = without_origin(lk_buf_str(&again));
	cr_expect_str_eq(got, want, "%s: the binary form differs", name);
	at = lk_asprintf("error: %s: record ", name);
	if (!strncmp(text_result, "error: ", 7))
		cr_expect(!strncmp(lk_buf_str(&again), at, strlen(at)),
			  "%s: the binary error names the record: %s", name,
			  lk_buf_str(&again));
	free(at);
	free(got);
	free(want);
	lk_trace_release(&back);
	lk_buf_release(&bin);
	lk_buf_release(&again);
}

static char *run_case(const char *name, const char *text, size_t len)
{
	struct lk_buf out = LK_BUF_INIT, warnings = LK_BUF_INIT;
	struct lk_buf result = LK_BUF_INIT;
	struct lk_trace t;
	int strict = !strncmp(text, "# strict\n", 9);

	lk_ctx_clear(&ctx);
	if (lk_trace_parse_text(&ctx, name, text, len, strict, &t,
				&warnings)) {
		cr_expect_eq(ctx.code, LK_EINPUT);
		lk_buf_addf(&out, "warnings:\n%serror: %s\n",
			    lk_buf_str(&warnings), ctx.msg);
	} else {
		lk_buf_addf(&out, "warnings:\n%s", lk_buf_str(&warnings));
		render_tree(&t, &result);
		lk_buf_adds(&out, lk_buf_str(&result));
		check_binary_round_trip(name, &t, lk_buf_str(&result));
		lk_trace_release(&t);
	}
	lk_buf_release(&warnings);
	lk_buf_release(&result);
	return lk_buf_detach(&out);
}

static void check_case(const char *file)
{
	char *name = lk_strndup(file, strlen(file) - strlen(".trace"));
	char *expect_file = lk_asprintf("%s.expect", name);
	char *path = data_path(file), *epath = data_path(expect_file);
	char *text, *expect, *got;
	size_t len, elen;

	cr_assert_eq(lk_file_read(&ctx, path, &text, &len), 0, "%s", ctx.msg);
	got = run_case(name, text, len);
	if (getenv("LOOPKIT_UPDATE_EXPECT"))
		lk_file_write_atomic(&ctx, epath, got, strlen(got));
	cr_assert_eq(lk_file_read(&ctx, epath, &expect, &elen), 0,
		     "%s: no .expect: %s", name, ctx.msg);
	cr_expect_str_eq(got, expect, "%s.trace: got\n%s", name, got);
	free(got);
	free(expect);
	free(text);
	free(path);
	free(epath);
	free(expect_file);
	free(name);
}

Test(memprof_text, data_cases, .init = setup)
{
	char *dir = data_path("");
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len;
	int cases = 0;

	cr_assert_not_null(d, "cannot open %s", dir);
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len > 6 && !strcmp(e->d_name + len - 6, ".trace")) {
			check_case(e->d_name);
			cases++;
		}
	}
	closedir(d);
	free(dir);
	cr_expect_geq(cases, 10, "only %d cases found", cases);
}

/* ---- text traces: what the cases cannot show ------------------------- */

Test(memprof_text, warnings_are_capped_but_all_counted, .init = setup)
{
	struct lk_buf text = LK_BUF_INIT, warnings = LK_BUF_INIT;
	struct lk_trace t;
	int i;

	for (i = 0; i < 250; i++)
		lk_buf_adds(&text, "Call x\n");
	lk_buf_adds(&text, "Call 1 to function f enter cycle 1 exit cycle 2\n");
	cr_assert_eq(lk_trace_parse_text(&ctx, "many", text.buf, text.len, 0,
					 &t, &warnings),
		     0);
	cr_expect_eq(t.bad_lines, 250);
	cr_expect_eq(t.ncalls, 1);
	cr_expect_not_null(strstr(warnings.buf, "many:100: expected"));
	cr_expect_null(strstr(warnings.buf, "many:101:"));
	cr_expect_not_null(strstr(warnings.buf, "many: 150 more malformed"));
	lk_trace_release(&t);
	lk_buf_release(&text);
	lk_buf_release(&warnings);
}

Test(memprof_text, out_of_order_ids_are_sorted_and_checked, .init = setup)
{
	struct lk_buf text = LK_BUF_INIT, warnings = LK_BUF_INIT;
	struct lk_trace t;
	long i;

	/* Descending ids, then every one again: the id set must hold all. */
	for (i = 5000; i > 0; i--)
		lk_buf_addf(&text, "Call %ld to function f enter cycle %ld "
				   "exit cycle %ld\n",
			    i, 10 * i, 10 * i + 5);
	for (i = 1; i <= 5000; i++)
		lk_buf_addf(&text, "Call %ld to function g enter cycle 1 "
				   "exit cycle 2\n", i);
	cr_assert_eq(lk_trace_parse_text(&ctx, "desc", text.buf, text.len, 0,
					 &t, &warnings),
		     0);
	cr_expect_eq(t.ncalls, 5000);
	cr_expect_eq(t.bad_lines, 5000);
	for (i = 0; i < 5000; i++)
		cr_assert_eq(t.calls[i].id, (uint64_t)i + 1);
	lk_trace_release(&t);
	lk_buf_release(&text);
	lk_buf_release(&warnings);
}

Test(memprof_text, render_round_trip, .init = setup)
{
	const char *text = "Call 0 to function main enter cycle 1 exit cycle 9\n"
			   "Call 1 to function f enter cycle 2 exit cycle 0\n";
	struct lk_buf out = LK_BUF_INIT;
	struct lk_trace t;

	cr_assert_eq(lk_trace_parse_text(&ctx, "rt", text, strlen(text), 1, &t,
					 NULL),
		     0);
	lk_trace_text(&t, &out);
	cr_expect_str_eq(out.buf, text);
	lk_trace_release(&t);
	lk_buf_release(&out);
}

Test(memprof_text, load_detects_the_form, .init = setup)
{
	char dir[] = "/tmp/lk-memprof-XXXXXX";
	const char *text = "Call 0 to function main enter cycle 1 exit cycle 9\n";
	struct lk_buf bin = LK_BUF_INIT;
	struct lk_trace t;
	char *tpath, *bpath;

	cr_assert_not_null(mkdtemp(dir));
	tpath = lk_path_join(dir, "a.trace");
	bpath = lk_path_join(dir, "a.bin");
	cr_assert_eq(lk_file_write_atomic(&ctx, tpath, text, strlen(text)), 0);
	cr_assert_eq(lk_trace_load(&ctx, tpath, 1, &t, NULL), 0);
	t.tsc_hz = 3000000000ULL;
	lk_trace_write_binary(&t, &bin);
	lk_trace_release(&t);
	cr_assert_eq(lk_file_write_atomic(&ctx, bpath, bin.buf, bin.len), 0);
	cr_assert_eq(lk_trace_load(&ctx, bpath, 1, &t, NULL), 0);
	cr_expect_eq(t.tsc_hz, 3000000000ULL);
	cr_expect_str_eq(t.names.v[t.calls[0].func], "main");
	lk_trace_release(&t);
	unlink(tpath);
	unlink(bpath);
	rmdir(dir);
	cr_expect_eq(lk_trace_load(&ctx, tpath, 1, &t, NULL), LK_ESYS);
	cr_expect_eq(t.ncalls, 0);
	free(tpath);
	free(bpath);
	lk_buf_release(&bin);
}

/* ---- binary traces ---------------------------------------------------- */

/* A valid trace: main calls f once. Records start at offset 32+8+5. */
static void sample_binary(struct lk_buf *b)
{
	struct lk_trace t = {0};

	lk_strv_push(&t.names, "main");
	lk_strv_push(&t.names, "f");
	t.calls = lk_calloc(2, sizeof(*t.calls));
	t.calls[0] = (struct lk_call){0, 0, 0, 100, 900};
	t.calls[1] = (struct lk_call){1, 1, 1, 200, 300};
	t.ncalls = 2;
	lk_trace_write_binary(&t, b);
	lk_trace_release(&t);
}

#define REC0 (32 + 8 + 5)

static void put(struct lk_buf *b, size_t off, uint64_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		b->buf[off + i] = (char)(v >> (8 * i));
}

/* Read b, expect LK_EINPUT with 'what' in the message. */
static void expect_bad(const struct lk_buf *b, size_t len, const char *what)
{
	struct lk_trace t;
	char *copy = lk_malloc(len ? len : 1);

	/* An exact-size copy, so ASan sees a read past the length. */
	memcpy(copy, b->buf, len);
	lk_ctx_clear(&ctx);
	cr_expect_eq(lk_trace_read_binary(&ctx, "bin", copy, len, &t),
		     LK_EINPUT, "accepted, expected: %s", what);
	cr_expect_not_null(strstr(ctx.msg, what), "'%s' not in '%s'", what,
			   ctx.msg);
	cr_expect_eq(t.ncalls, 0);
	free(copy);
}

Test(memprof_binary, reads_what_was_written, .init = setup)
{
	struct lk_buf b = LK_BUF_INIT;
	struct lk_trace t;

	sample_binary(&b);
	cr_assert_eq(lk_trace_read_binary(&ctx, "bin", b.buf, b.len, &t), 0,
		     "%s", ctx.msg);
	cr_expect_eq(t.names.n, 2);
	cr_expect_eq(t.ncalls, 2);
	cr_expect_eq(t.calls[1].func, 1);
	cr_expect_eq(t.calls[1].depth, 1);
	cr_expect_eq(t.calls[1].enter, 200);
	cr_expect_eq(t.calls[1].exit, 300);
	lk_trace_release(&t);
	lk_buf_release(&b);
}

static void expect_bad_then_good(const struct lk_buf *b, size_t len)
{
	struct lk_trace t;

	cr_expect_eq(lk_trace_read_binary(&ctx, "bin", b->buf, len, &t), 0,
		     "%s", ctx.msg);
	lk_trace_release(&t);
}

Test(memprof_binary, rejects_duplicate_names, .init = setup)
{
	struct lk_trace t = {0};
	struct lk_buf b = LK_BUF_INIT;

	lk_strv_push(&t.names, "f");
	lk_strv_push(&t.names, "f");
	lk_trace_write_binary(&t, &b);
	lk_trace_release(&t);
	expect_bad(&b, b.len, "offset 41: duplicate function name");
	lk_buf_release(&b);
}

Test(memprof_binary, rejects_every_inconsistency, .init = setup)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t len;

	sample_binary(&b);
	len = b.len;
	expect_bad(&b, 31, "offset 31: truncated header");
	expect_bad(&b, len - 1, "offset 16: 2 records do not fit");
	b.buf[0] = 'X';
	expect_bad(&b, len, "offset 0: not a binary trace");
	b.buf[0] = 'L';
	put(&b, 8, 2, 4);
	expect_bad(&b, len, "offset 8: unsupported version 2");
	put(&b, 8, 1, 4);
	put(&b, 12, 0xffffffffu, 4);
	expect_bad(&b, len, "offset 12: 4294967295 functions do not fit");
	put(&b, 12, 2, 4);
	/* 2^59 records: R * 32 wraps to 0 in 64 bits. */
	put(&b, 16, 1ULL << 59, 8);
	expect_bad(&b, len, "records do not fit");
	put(&b, 16, UINT64_MAX, 8);
	expect_bad(&b, len, "records do not fit");
	put(&b, 16, 1, 8);
	expect_bad(&b, len, "offset 77: trailing bytes");
	put(&b, 16, 2, 8);
	put(&b, 32, 0, 4);
	expect_bad(&b, len, "offset 32: empty function name");
	put(&b, 32, 1000, 4);
	expect_bad(&b, len, "offset 32: function name runs past the end");
	put(&b, 32, 4, 4);
	b.buf[37] = '\0';
	expect_bad(&b, len, "offset 36: NUL byte in a function name");
	b.buf[37] = 'a';
	put(&b, REC0 + 32 + 8, 2, 4);
	expect_bad(&b, len, "offset 85: function 2 out of range");
	put(&b, REC0 + 32 + 8, 1, 4);
	put(&b, REC0 + 32, 0, 8);
	expect_bad(&b, len, "offset 77: call id 0 not above the previous 0");
	put(&b, REC0 + 32, 1, 8);
	put(&b, REC0 + 32 + 24, 150, 8);
	expect_bad(&b, len, "offset 101: call 1 exits (150) before");
	put(&b, REC0 + 32 + 24, 300, 8);
	/* Every field back as it was: the trace reads again. */
	expect_bad_then_good(&b, len);
	lk_buf_release(&b);
}

/* ---- call tree and profile -------------------------------------------- */

/* A chain of n nested calls of "rec", each 1 tick longer on both sides
 * than the next: every self is 2 ticks, the innermost's 1. */
static void deep_chain(struct lk_trace *t, size_t n)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	lk_strv_push(&t->names, "rec");
	t->calls = lk_calloc(n, sizeof(*t->calls));
	for (i = 0; i < n; i++)
		t->calls[i] = (struct lk_call){i, 0, 0, 1000 + i,
					       1000 + 2 * n - i};
	t->ncalls = t->alloc = n;
}

Test(memprof_tree, million_deep_recursion, .init = setup, .timeout = 60)
{
	const size_t n = 1000000;
	struct lk_trace t;
	struct lk_call_node *nodes;
	struct lk_func_profile *p;
	struct lk_buf out = LK_BUF_INIT;
	size_t np, i;

	deep_chain(&t, n);
	cr_assert_eq(lk_calltree_build(&ctx, &t, &nodes), 0, "%s", ctx.msg);
	for (i = 0; i + 1 < n; i++)
		cr_assert(nodes[i].self == 2 && nodes[i].depth == i &&
			  nodes[i + 1].parent == i,
			  "call %zu: self %llu depth %u", i,
			  (unsigned long long)nodes[i].self, nodes[i].depth);
	cr_expect_eq(nodes[n - 1].self, 2);
	cr_expect_eq(nodes[0].parent, LK_NO_PARENT);
	cr_assert_eq(lk_profile_build(&ctx, &t, nodes, &p, &np), 0);
	cr_assert_eq(np, 1);
	cr_expect_eq(p[0].calls, (long)n);
	cr_expect_eq(p[0].self, 2 * n);
	/* Only the outermost instance counts towards the total. */
	cr_expect_eq(p[0].total, 2 * n);
	cr_expect_eq(p[0].min_self, 2);
	cr_expect_eq(p[0].max_self, 2);
	lk_calltree_print(&t, nodes, 3, &out);
	cr_expect_str_eq(out.buf, "rec  2000000  2\n  rec  1999998  2\n"
				  "    rec  1999996  2\n"
				  "... 999997 more calls\n");
	lk_buf_reset(&out);
	lk_calltree_print(&t, nodes, 0, &out);
	cr_expect_not_null(strstr(out.buf, "[999999] rec  2  2\n"));
	lk_buf_release(&out);
	free(p);
	free(nodes);
	lk_trace_release(&t);
}

Test(memprof_tree, many_instances_under_many_parents, .init = setup)
{
	struct lk_trace t = {0};
	struct lk_call_node *nodes;
	struct lk_func_profile *p;
	size_t np, i, k = 0;

	/* main [0, 100000): 1000 'outer' of 100 ticks, each with two 'leaf'
	 * calls of 10 and 20 ticks. */
	lk_strv_push(&t.names, "main");
	lk_strv_push(&t.names, "outer");
	lk_strv_push(&t.names, "leaf");
	t.calls = lk_calloc(3001, sizeof(*t.calls));
	t.calls[k++] = (struct lk_call){0, 0, 0, 0, 100000};
	for (i = 0; i < 1000; i++) {
		uint64_t at = 100 * i;

		t.calls[k] = (struct lk_call){k, 1, 0, at, at + 100};
		k++;
		t.calls[k] = (struct lk_call){k, 2, 0, at + 10, at + 20};
		k++;
		t.calls[k] = (struct lk_call){k, 2, 0, at + 50, at + 70};
		k++;
	}
	t.ncalls = k;
	cr_assert_eq(lk_calltree_build(&ctx, &t, &nodes), 0, "%s", ctx.msg);
	cr_expect_eq(nodes[0].self, 0);
	cr_assert_eq(lk_profile_build(&ctx, &t, nodes, &p, &np), 0);
	cr_assert_eq(np, 3);
	cr_expect_str_eq(p[0].name, "outer");
	cr_expect_eq(p[0].self, 70000);
	cr_expect_eq(p[0].total, 100000);
	cr_expect_str_eq(p[1].name, "leaf");
	cr_expect_eq(p[1].calls, 2000);
	cr_expect_eq(p[1].self, 30000);
	cr_expect_eq(p[1].min_self, 10);
	cr_expect_eq(p[1].max_self, 20);
	cr_expect_float_eq(p[1].mean_self, 15.0, 1e-12);
	cr_expect_str_eq(p[2].name, "main");
	cr_expect_eq(p[2].total, 100000);
	free(p);
	free(nodes);
	lk_trace_release(&t);
}

Test(memprof_tree, unsorted_calls_are_refused, .init = setup)
{
	struct lk_trace t = {0};
	struct lk_call_node *nodes;

	lk_strv_push(&t.names, "f");
	t.calls = lk_calloc(2, sizeof(*t.calls));
	t.calls[0] = (struct lk_call){5, 0, 0, 1, 2};
	t.calls[1] = (struct lk_call){3, 0, 0, 3, 4};
	t.ncalls = 2;
	cr_expect_eq(lk_calltree_build(&ctx, &t, &nodes), LK_EINPUT);
	cr_expect_str_eq(ctx.msg, "calls not sorted by id (3 after 5)");
	cr_expect_null(nodes);
	/* Ids in order, TSCs not: the later call would contain the first. */
	t.calls[0] = (struct lk_call){1, 0, 0, 200, 300};
	t.calls[1] = (struct lk_call){2, 0, 0, 100, 400};
	cr_expect_eq(lk_calltree_build(&ctx, &t, &nodes), LK_EINPUT);
	cr_expect_not_null(strstr(ctx.msg, "call 2 [100, 400] overlaps "
					   "call 1 [200, 300]"), "%s", ctx.msg);
	lk_trace_release(&t);
}

/* An overlap names the trace and where the two calls were read: the
 * lines of a text trace, the record indexes of a binary one. */
Test(memprof_tree, overlap_names_file_and_line, .init = setup)
{
	const char *text = "# two calls that do not nest\n"
			   "Call 0 to function main enter cycle 0 exit cycle 1000\n"
			   "\n"
			   "Call 1 to function f enter cycle 100 exit cycle 500\n"
			   "Call 2 to function g enter cycle 400 exit cycle 600\n";
	struct lk_buf bin = LK_BUF_INIT;
	struct lk_trace t, b;
	struct lk_call_node *nodes;

	cr_assert_eq(lk_trace_parse_text(&ctx, "dir/bad.trace", text,
					 strlen(text), 1, &t, NULL), 0);
	cr_assert_eq(lk_calltree_build(&ctx, &t, &nodes), LK_EINPUT);
	cr_expect_str_eq(ctx.msg, "dir/bad.trace:5: call 2 [400, 600] "
				  "overlaps call 1 (line 4) [100, 500] "
				  "without nesting in it");
	lk_trace_write_binary(&t, &bin);
	cr_assert_eq(lk_trace_read_binary(&ctx, "bad.bin", bin.buf, bin.len,
					  &b), 0);
	cr_assert_eq(lk_calltree_build(&ctx, &b, &nodes), LK_EINPUT);
	cr_expect_str_eq(ctx.msg, "bad.bin: record 2: call 2 [400, 600] "
				  "overlaps call 1 (record 1) [100, 500] "
				  "without nesting in it");
	lk_trace_release(&t);
	lk_trace_release(&b);
	lk_buf_release(&bin);
}

/* Sorting calls by id carries their lines along. */
Test(memprof_tree, overlap_lines_survive_sorting, .init = setup)
{
	const char *text = "Call 2 to function g enter cycle 400 exit cycle 600\n"
			   "Call 1 to function f enter cycle 100 exit cycle 500\n"
			   "Call 0 to function main enter cycle 0 exit cycle 1000\n";
	struct lk_trace t;
	struct lk_call_node *nodes;

	cr_assert_eq(lk_trace_parse_text(&ctx, "rev", text, strlen(text), 1,
					 &t, NULL), 0);
	cr_assert_eq(t.calls[0].id, 0);
	cr_assert_eq(lk_calltree_build(&ctx, &t, &nodes), LK_EINPUT);
	cr_expect_str_eq(ctx.msg, "rev:1: call 2 [400, 600] overlaps call 1 "
				  "(line 2) [100, 500] without nesting in it");
	lk_trace_release(&t);
}

Test(memprof_tree, profile_json, .init = setup)
{
	const char *text = "Call 0 to function ma\"in enter cycle 0 exit cycle 10\n"
			   "Call 1 to function f enter cycle 2 exit cycle 5\n";
	struct lk_trace t;
	struct lk_call_node *nodes;
	struct lk_func_profile *p;
	struct lk_buf out = LK_BUF_INIT;
	size_t np;

	/* The quote is not a name character: that line is skipped. */
	cr_assert_eq(lk_trace_parse_text(&ctx, "j", text, strlen(text), 0, &t,
					 NULL),
		     0);
	cr_assert_eq(t.bad_lines, 1);
	cr_assert_eq(lk_calltree_build(&ctx, &t, &nodes), 0);
	cr_assert_eq(lk_profile_build(&ctx, &t, nodes, &p, &np), 0);
	lk_profile_json(p, np, &out);
	cr_expect_str_eq(out.buf,
			 "[\n {\"name\": \"f\", \"calls\": 1, \"total\": 3, "
			 "\"self\": 3, \"min_self\": 3, \"max_self\": 3, "
			 "\"mean_self\": 3}\n]\n");
	lk_buf_release(&out);
	free(p);
	free(nodes);
	lk_trace_release(&t);
}

/* ---- static counts ----------------------------------------------------- */

static const char lkmem_doc[] =
	"lkmem 1\n"
	"function\tf\tprog.c\t12\n"
	"block\t2\t3\t0\t\n"
	"block\t3\t2\t1\t10\n"
	"block\t4\t1\t0\t10;sym:n\n"
	"end\n";

Test(memprof_static, readable_form_is_the_documented_one, .init = setup)
{
	struct lk_mem_static s = {0};
	struct lk_buf out = LK_BUF_INIT;

	cr_assert_eq(lk_mem_static_parse(&ctx, "f.lkmem", lkmem_doc,
					 strlen(lkmem_doc), &s),
		     0, "%s", ctx.msg);
	lk_mem_static_readable(&s, &out);
	cr_expect_str_eq(out.buf, "function 'f'\n"
				  "3 load\n"
				  "2 * 10 load\n"
				  "1 * 10 store\n"
				  "1 * 10 * (n) load\n");
	lk_buf_release(&out);
	lk_mem_static_release(&s);
}

Test(memprof_static, totals_and_json, .init = setup)
{
	const char *two = "lkmem 1\n"
			  "function\tg\tg.c\t3\n"
			  "block\t0\t2\t1\t4;5\n"
			  "block\t1\t1\t0\t\n"
			  "end\n";
	struct lk_mem_static s = {0};
	struct lk_mem_totals tot;
	struct lk_buf out = LK_BUF_INIT;

	cr_assert_eq(lk_mem_static_parse(&ctx, "a", lkmem_doc,
					 strlen(lkmem_doc), &s), 0);
	/* Concatenated files append. */
	cr_assert_eq(lk_mem_static_parse(&ctx, "b", two, strlen(two), &s), 0);
	cr_assert_eq(s.nfuncs, 2);
	lk_mem_func_totals(&s.funcs[0], &tot);
	cr_expect_eq(tot.numeric, 0);
	cr_expect(isnan(tot.loads));
	cr_expect_str_eq(tot.sym_loads, "3 + 2*10 + 1*10*(n)");
	cr_expect_str_eq(tot.sym_stores, "1*10");
	lk_mem_totals_release(&tot);
	lk_mem_func_totals(&s.funcs[1], &tot);
	cr_expect_eq(tot.numeric, 1);
	cr_expect_float_eq(tot.loads, 41, 0);
	cr_expect_float_eq(tot.stores, 20, 0);
	cr_expect_null(tot.sym_loads);
	lk_mem_totals_release(&tot);
	lk_mem_static_json(&s, &out);
	cr_expect_str_eq(out.buf,
			 "[\n {\"name\": \"f\", \"file\": \"prog.c\", "
			 "\"line\": 12, \"loads\": \"3 + 2*10 + 1*10*(n)\", "
			 "\"stores\": \"1*10\", \"symbolic\": true},\n"
			 " {\"name\": \"g\", \"file\": \"g.c\", \"line\": 3, "
			 "\"loads\": 41, \"stores\": 20, "
			 "\"symbolic\": false}\n]\n");
	lk_buf_release(&out);
	lk_mem_static_release(&s);
}

/* Parse text, expect LK_EINPUT with exactly this message. */
static void lkmem_bad_len(const char *text, size_t len, const char *msg)
{
	struct lk_mem_static s = {0};

	lk_ctx_clear(&ctx);
	cr_expect_eq(lk_mem_static_parse(&ctx, "x.lkmem", text, len, &s),
		     LK_EINPUT, "accepted: %s", text);
	cr_expect_str_eq(ctx.msg, msg);
	lk_mem_static_release(&s);
}

static void lkmem_bad(const char *text, const char *msg)
{
	lkmem_bad_len(text, strlen(text), msg);
}

#define HEAD "lkmem 1\nfunction\tf\tf.c\t1\n"

Test(memprof_static, every_error_has_its_line, .init = setup)
{
	lkmem_bad("lkmem 2\n", "x.lkmem:1: unsupported lkmem version");
	lkmem_bad("\nfunction\tf\tf.c\t1\n", "x.lkmem:2: expected 'lkmem 1'");
	lkmem_bad(HEAD, "x.lkmem:2: missing 'end' at the end of the file");
	lkmem_bad("lkmem 1\nblock\t0\t1\t1\t\nend\n",
		  "x.lkmem:2: 'block' before any 'function'");
	lkmem_bad("lkmem 1\nfunction\tf\tf.c\nend\n",
		  "x.lkmem:2: 'function' needs NAME, FILE and LINE, "
		  "tab-separated");
	lkmem_bad("lkmem 1\nfunction\t\tf.c\t1\nend\n",
		  "x.lkmem:2: empty function name");
	lkmem_bad("lkmem 1\nfunction\tf\tf.c\t-1\nend\n",
		  "x.lkmem:2: bad line number: '-1'");
	lkmem_bad(HEAD "block\t0\t1\t1\nend\n",
		  "x.lkmem:3: 'block' needs INDEX, LOADS, STORES and FACTORS, "
		  "tab-separated");
	lkmem_bad(HEAD "block\t0\t1\t1\t\t\nend\n",
		  "x.lkmem:3: 'block' needs INDEX, LOADS, STORES and FACTORS, "
		  "tab-separated");
	lkmem_bad(HEAD "block\tx\t1\t1\t\nend\n",
		  "x.lkmem:3: bad block index: 'x'");
	lkmem_bad(HEAD "block\t0\t99999999999999999999\t1\t\nend\n",
		  "x.lkmem:3: bad load count: '99999999999999999999'");
	lkmem_bad(HEAD "block\t0\t1\t+1\t\nend\n",
		  "x.lkmem:3: bad store count: '+1'");
	lkmem_bad(HEAD "block\t0\t1\t1\t0\nend\n",
		  "x.lkmem:3: factor is neither a positive integer nor "
		  "sym:EXPR: '0'");
	lkmem_bad(HEAD "block\t0\t1\t1\t10;;2\nend\n",
		  "x.lkmem:3: factor is neither a positive integer nor "
		  "sym:EXPR: ''");
	lkmem_bad(HEAD "block\t0\t1\t1\tsym:\nend\n",
		  "x.lkmem:3: empty symbolic factor");
	lkmem_bad(HEAD "loop\t0\nend\n",
		  "x.lkmem:3: expected 'function', 'block' or 'end': 'loop'");
	lkmem_bad(HEAD "end\nfunction\tg\tg.c\t1\n",
		  "x.lkmem:4: expected 'lkmem 1'");
	lkmem_bad_len(HEAD "end\0\n", sizeof(HEAD "end\0\n") - 1,
		      "x.lkmem:3: NUL byte");
}

Test(memprof_static, blank_lines_and_empty_input, .init = setup)
{
	const char *text = "\n" HEAD "\nblock\t1\t0\t0\t\nend\n\n" HEAD "end";
	struct lk_mem_static s = {0};

	cr_expect_eq(lk_mem_static_parse(&ctx, "e", "", 0, &s), 0);
	cr_expect_eq(lk_mem_static_parse(&ctx, "b", text, strlen(text), &s),
		     0, "%s", ctx.msg);
	cr_expect_eq(s.nfuncs, 2);
	cr_expect_eq(s.funcs[0].nblocks, 1);
	cr_expect_eq(s.funcs[0].line, 1);
	lk_mem_static_release(&s);
}

/* ---- the latency fit ---------------------------------------------------- */

/* Deterministic noise in [-1, 1]. */
static double noise(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return ((*state >> 8) & 0xffff) / 32767.5 - 1.0;
}

static void synthetic(struct lk_mem_obs *o, size_t n, double a, double b,
		      double c, double amplitude)
{
	unsigned state = 42;
	size_t i;

	for (i = 0; i < n; i++) {
		o[i].name = "f";
		o[i].loads = 10.0 + 37.0 * (double)i;
		o[i].stores = 5.0 + (double)((i * 7919) % 101);
		o[i].self = a * o[i].loads + b * o[i].stores + c +
			    amplitude * noise(&state);
	}
}

Test(memprof_fit, exact_recovery_without_noise, .init = setup)
{
	struct lk_mem_obs o[12];
	struct lk_mem_fit fit;
	size_t i;

	synthetic(o, 12, 4.0, 11.0, 250.0, 0);
	cr_assert_eq(lk_mem_fit(&ctx, o, 12, &fit), 0, "%s", ctx.msg);
	cr_expect_float_eq(fit.lsq_load, 4.0, 1e-9);
	cr_expect_float_eq(fit.lsq_store, 11.0, 1e-9);
	cr_expect_float_eq(fit.lsq_const, 250.0, 1e-6);
	cr_expect_float_eq(fit.r2, 1.0, 1e-12);
	cr_expect_lt(fit.rmse, 1e-9);
	cr_expect_eq(fit.n, 12);
	for (i = 0; i < 12; i++)
		cr_expect_lt(fabs(fit.residuals[i]), 1e-8);
	cr_expect_eq(fit.pairs, 66);
	lk_mem_fit_release(&fit);
	/* Without an intercept Cramer's rule is exact too. */
	synthetic(o, 12, 4.0, 11.0, 0, 0);
	cr_assert_eq(lk_mem_fit(&ctx, o, 12, &fit), 0, "%s", ctx.msg);
	cr_expect_float_eq(fit.cramer_load, 4.0, 1e-9);
	cr_expect_float_eq(fit.cramer_store, 11.0, 1e-9);
	cr_expect_lt(fit.cramer_load_sd, 1e-9);
	lk_mem_fit_release(&fit);
}

Test(memprof_fit, noise_stays_within_the_error_bars, .init = setup)
{
	struct lk_mem_obs o[40];
	struct lk_mem_fit fit;

	synthetic(o, 40, 4.0, 11.0, 250.0, 30.0);
	cr_assert_eq(lk_mem_fit(&ctx, o, 40, &fit), 0, "%s", ctx.msg);
	cr_expect_lt(fabs(fit.lsq_load - 4.0), 4 * fit.lsq_load_se + 1e-3);
	cr_expect_lt(fabs(fit.lsq_store - 11.0), 4 * fit.lsq_store_se + 1e-3);
	cr_expect_lt(fabs(fit.lsq_load - 4.0), 0.2);
	cr_expect_lt(fabs(fit.lsq_store - 11.0), 0.5);
	cr_expect_gt(fit.lsq_load_se, 0);
	cr_expect_lt(fit.r2, 1.0);
	cr_expect_gt(fit.r2, 0.95);
	cr_expect_gt(fit.rmse, 5.0);
	cr_expect_lt(fit.rmse, 30.0);
	cr_expect_gt(fit.cramer_load_sd, 0);
	lk_mem_fit_release(&fit);
}

Test(memprof_fit, refusals, .init = setup)
{
	struct lk_mem_obs o[6];
	struct lk_mem_fit fit;
	size_t i;

	synthetic(o, 6, 4.0, 11.0, 0, 0);
	cr_expect_eq(lk_mem_fit(&ctx, o, 3, &fit), LK_EINPUT);
	cr_expect_str_eq(ctx.msg, "3 functions with both static counts and "
				  "measured time: Cramer's rule needs at "
				  "least 2, least squares with an intercept "
				  "at least 4");
	/* The same load/store ratio everywhere: singular both ways. */
	for (i = 0; i < 6; i++)
		o[i].stores = 2.5 * o[i].loads;
	cr_expect_eq(lk_mem_fit(&ctx, o, 6, &fit), LK_EINPUT);
	cr_expect_not_null(strstr(ctx.msg, "Cramer's rule is singular"),
			   "%s", ctx.msg);
	cr_expect_null(fit.residuals);
	/* Different ratios but affine (stores = loads + 7): only the
	 * intercept fit cannot separate them. */
	for (i = 0; i < 6; i++)
		o[i].stores = o[i].loads + 7;
	cr_expect_eq(lk_mem_fit(&ctx, o, 6, &fit), LK_EINPUT);
	cr_expect_not_null(strstr(ctx.msg, "collinear"), "%s", ctx.msg);
	cr_expect_null(fit.residuals);
	o[2].stores = NAN;
	o[2].name = "bad";
	cr_expect_eq(lk_mem_fit(&ctx, o, 6, &fit), LK_EINPUT);
	cr_expect_str_eq(ctx.msg, "function 'bad': counts and time must be "
				  "finite numbers");
}
