/*
 * The harness's stored facts and lift: a block's hash, blocks and counts
 * in the store (skip on rerun, replace), lifted = sum of occurrences x
 * prediction exactly, exclusions naming the first block, the campaign
 * round trip through the store, and verdicts.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/binary.h"
#include "loopkit/config.h"
#include "loopkit/predict.h"
#include "loopkit/store.h"
#include "tmpdir.h"

static struct lk_ctx ctx;

static void setup(void)
{
	tmpdir_make("lift");
	lk_ctx_init(&ctx);
}

static void teardown(void)
{
	tmpdir_remove();
}

TestSuite(lift, .init = setup, .fini = teardown);

static struct lk_store *open_store(void)
{
	struct lk_store *s = NULL;
	char *dir = lk_path_join(tmpdir, "st");

	cr_assert_eq(lk_store_open(&ctx, dir, 1, &s), 0, "%s", ctx.msg);
	free(dir);
	return s;
}

static void raw_exec(const char *sql)
{
	char *path = lk_asprintf("%s/st/store.db", tmpdir);
	sqlite3 *db;
	char *err = NULL;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK,
		     "%s: %s", sql, err);
	sqlite3_close(db);
	free(path);
}

/* A prediction row as the predict stage writes it. */
static void predict(const char *hash, const char *tool, const char *status,
		    double value, const char *unit)
{
	char *sql = sqlite3_mprintf(
		"INSERT INTO predictions (block_hash, tool, tool_version,"
		" params, status, value, unit, reason) VALUES"
		" (%Q, %Q, '1.0', '-mcpu=x', %Q, %.17g, %Q, %Q)",
		hash, tool, status, value, unit,
		strcmp(status, "ok") ? "it broke" : "");

	raw_exec(sql);
	sqlite3_free(sql);
}

/*
 *   0: b8 00 00 00 00    mov $0, %eax
 *   5: 48 83 c0 01       add $1, %rax       <- loop
 *   9: 48 83 f8 0a       cmp $10, %rax
 *   d: 75 f6             jne 5
 *   f: c3                ret
 */
static const uint8_t small_loop[] = {0xb8, 0x00, 0x00, 0x00, 0x00, 0x48,
				     0x83, 0xc0, 0x01, 0x48, 0x83, 0xf8,
				     0x0a, 0x75, 0xf6, 0xc3};

static void build_cfg(struct lk_cfg *cfg)
{
	struct lk_function fn = {.name = lk_strdup("f"), .addr = 0x401000,
				 .size = sizeof(small_loop),
				 .code = lk_malloc(sizeof(small_loop))};

	memcpy(fn.code, small_loop, sizeof(small_loop));
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, cfg), 0,
		     "%s", ctx.msg);
}

Test(lift, block_hash_is_the_att_lines)
{
	struct lk_cfg cfg;
	char hex[LK_HASH_HEX], *att, *hash;

	build_cfg(&cfg);
	cr_assert_eq(cfg.nblocks, 3);
	att = lk_block_att(&cfg, 1);
	cr_assert_str_eq(att, "add $0x01, %rax\ncmp $0x0a, %rax\n"
			      "jnz 0x401005\n");
	lk_hash_buf(att, strlen(att), hex);
	hash = lk_block_hash(&cfg, 1);
	cr_assert_str_eq(hash, hex);
	free(hash);
	hash = lk_block_hash(&cfg, 0);
	cr_assert_str_neq(hash, hex);
	free(hash);
	free(att);
	att = lk_block_succ(&cfg, 1);
	cr_assert_str_eq(att, "1 2");
	free(att);
	lk_cfg_release(&cfg);
}

/* The filter's question: would valgrind die on it, or crawl? */
Test(lift, evex_and_fma_instructions)
{
	static const uint8_t code[] = {
		0x62, 0xf1, 0xed, 0x48, 0x58, 0xd9,       /* vaddpd zmm */
		0x62, 0xf3, 0x7d, 0x28, 0x19, 0xca, 0x01, /* vextractf32x4 */
		0xc4, 0xe2, 0xe9, 0xb9, 0xc1,             /* vfmadd231sd */
		0xc5, 0xed, 0x58, 0xd9,                   /* vaddpd ymm (VEX) */
		0x48, 0x01, 0xd8,                         /* add */
		0xc3};
	const int evex[] = {1, 1, 0, 0, 0, 0}, fma[] = {0, 0, 1, 0, 0, 0};
	struct lk_function fn = {.name = lk_strdup("f"), .addr = 0x1000,
				 .size = sizeof(code),
				 .code = lk_malloc(sizeof(code))};
	struct lk_cfg cfg;

	memcpy(fn.code, code, sizeof(code));
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0,
		     "%s", ctx.msg);
	cr_assert_eq(cfg.ninsns, 6);
	for (size_t i = 0; i < cfg.ninsns; i++) {
		cr_assert_eq(lk_insn_evex(&cfg.insns[i]), evex[i], "%s",
			     cfg.insns[i].att);
		cr_assert_eq(lk_insn_fma(&cfg.insns[i]), fma[i], "%s",
			     cfg.insns[i].att);
	}
	lk_cfg_release(&cfg);
}

static const struct lk_bb_block_rec blocks3[] = {
	{0x1000, 0x1005, 1, "h0", "mov\n", "mov\n", "1"},
	{0x1005, 0x100f, 3, "h1", "add\ncmp\njnz\n", "add\ncmp\njnz\n", "1 2"},
	{0x100f, 0x1010, 1, "h2", "ret\n", "ret\n", ""},
};

static int64_t put_function(struct lk_store *s, const char *binary_hash)
{
	struct lk_bb_function_rec f = {binary_hash, "kernel", 0x1000, 16, 0,
				       blocks3, 3};
	int64_t id = 0, again = 0;

	cr_assert_eq(lk_store_bb_function_put(&ctx, s, &f, &id), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_bb_function_put(&ctx, s, &f, &again), 0);
	cr_assert_eq(id, again, "a stored function is not stored again");
	return id;
}

static void put_counts(struct lk_store *s, int64_t fid, const uint64_t *c)
{
	static const char *const via[] = {"derived", "int3", "derived"};
	struct lk_bb_count_rec rec = {"ok", "", 1, 10, 0.5, c, via, 3};

	cr_assert_eq(lk_store_bb_counts_put(&ctx, s, fid, &rec), 0, "%s",
		     ctx.msg);
}

Test(lift, blocks_and_counts_roundtrip)
{
	struct lk_store *s = open_store();
	const uint64_t c1[] = {1, 10, 1}, c2[] = {2, 20, 2};
	struct lk_bb_block_row *rows;
	uint64_t *counts;
	char *status = NULL, *reason = NULL;
	int64_t fid = put_function(s, "bin1"), found = 0;
	size_t n;

	cr_assert_eq(lk_store_bb_function_find(&ctx, s, "bin1", "kernel",
					       &found), 1);
	cr_assert_eq(found, fid);
	cr_assert_eq(lk_store_bb_function_find(&ctx, s, "bin2", NULL, &found),
		     0);
	cr_assert_eq(lk_store_bb_blocks_get(&ctx, s, fid, &rows, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(rows[1].att, "add\ncmp\njnz\n");
	cr_assert_str_eq(rows[1].succ, "1 2");
	cr_assert_eq(rows[2].start, 0x100f);
	lk_bb_block_rows_free(rows, n);
	cr_assert_eq(lk_store_bb_count_status(&ctx, s, fid, &status, NULL), 0);
	put_counts(s, fid, c1);
	put_counts(s, fid, c2);   /* replaces */
	cr_assert_eq(lk_store_bb_counts_get(&ctx, s, fid, &counts, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(counts[1], 20);
	free(counts);
	cr_assert_eq(lk_store_bb_count_status(&ctx, s, fid, &status,
					      &reason), 1);
	cr_assert_str_eq(status, "ok");
	free(status);
	free(reason);
	lk_store_close(s);
}

Test(lift, failed_count_has_no_counts)
{
	struct lk_store *s = open_store();
	struct lk_bb_count_rec rec = {"failed", "killed by SIGSEGV", 0, 0, 0,
				      NULL, NULL, 0};
	int64_t fid = put_function(s, "bin1");
	struct lk_lift_input in;
	char *status, *reason;

	cr_assert_eq(lk_store_bb_counts_put(&ctx, s, fid, &rec), 0);
	cr_assert_eq(lk_store_bb_count_status(&ctx, s, fid, &status,
					      &reason), 1);
	cr_assert_str_eq(status, "failed");
	cr_assert_str_eq(reason, "killed by SIGSEGV");
	cr_assert_eq(lk_store_lift_input(&ctx, s, fid, &in), 0);
	for (size_t b = 0; b < in.nblocks; b++)
		cr_assert_eq(in.blocks[b].count, 0);
	lk_lift_input_release(&in);
	free(status);
	free(reason);
	lk_store_close(s);
}

/* An input built by hand: nb blocks, counts, one key's predictions. */
static void fill_input(struct lk_lift_input *in, size_t nb,
		       const uint64_t *counts, const double *values)
{
	memset(in, 0, sizeof(*in));
	in->blocks = lk_calloc(nb, sizeof(*in->blocks));
	in->preds = lk_calloc(nb, sizeof(*in->preds));
	in->nblocks = nb;
	for (size_t b = 0; b < nb; b++) {
		in->blocks[b] = (struct lk_lift_block){
			(long)b, 0x1000 + 16 * b, counts[b],
			lk_asprintf("h%zu", b)};
		if (values[b] < 0)
			continue;
		in->preds[in->npreds++] = (struct lk_lift_prediction){
			b, lk_strdup("mca"), lk_strdup("19"), lk_strdup(""),
			lk_strdup("ok"), lk_strdup("cycles/iter"),
			lk_strdup(""), 1, values[b]};
	}
}

Test(lift, lifted_is_the_sum_exactly)
{
	enum { NB = 64 };
	uint64_t counts[NB];
	double values[NB], expect = 0;
	struct lk_lift_input in;
	struct lk_lift_result *r;
	size_t n;

	srand(7);
	for (size_t b = 0; b < NB; b++) {
		counts[b] = (uint64_t)(rand() % 100000);
		values[b] = (double)(rand() % 10000) / 37.0;
		expect += (double)counts[b] * values[b];
	}
	fill_input(&in, NB, counts, values);
	lk_lift_compute(&in, NULL, 0, &r, &n);
	cr_assert_eq(n, 1);
	cr_assert(r[0].ok, "%s", r[0].reason);
	cr_assert(r[0].value == expect, "%.17g != %.17g", r[0].value, expect);
	cr_assert_str_eq(r[0].unit, "cycles/call");
	cr_assert_eq(r[0].nblocks, NB - (long)(counts[0] == 0));
	cr_assert_eq(r[0].nfailed, 0);
	lk_lift_results_free(r, n);
	lk_lift_input_release(&in);
}

Test(lift, by_hand)
{
	const uint64_t counts[] = {1, 1000, 0, 1};
	/* Block 2 never ran: its missing prediction does not matter. */
	const double values[] = {2.5, 1.25, -1, 0.75};
	struct lk_lift_input in;
	struct lk_lift_result *r;
	size_t n;

	fill_input(&in, 4, counts, values);
	lk_lift_compute(&in, NULL, 0, &r, &n);
	cr_assert(r[0].ok, "%s", r[0].reason);
	cr_assert(r[0].value == 1253.25, "%.17g", r[0].value);
	cr_assert_eq(r[0].nblocks, 3);
	lk_lift_results_free(r, n);
	lk_lift_input_release(&in);
}

Test(lift, missing_prediction_excludes_naming_the_first_block)
{
	const uint64_t counts[] = {1, 1000, 5, 1};
	const double values[] = {2.5, -1, -1, 0.75};
	struct lk_lift_input in;
	struct lk_lift_result *r;
	size_t n;

	fill_input(&in, 4, counts, values);
	lk_lift_compute(&in, NULL, 0, &r, &n);
	cr_assert_not(r[0].ok);
	cr_assert_eq(r[0].nfailed, 2);
	cr_assert(strstr(r[0].reason, "block 1 at 0x1010 (1000 occurrences) "
				      "has no prediction"), "%s", r[0].reason);
	cr_assert_str_eq(r[0].unit, "");
	lk_lift_results_free(r, n);
	lk_lift_input_release(&in);
}

Test(lift, failed_prediction_and_mixed_units_exclude)
{
	const uint64_t counts[] = {1, 1000, 1};
	const double values[] = {2.5, 1.0, 0.75};
	struct lk_lift_input in;
	struct lk_lift_result *r;
	size_t n;

	fill_input(&in, 3, counts, values);
	free(in.preds[1].status);
	in.preds[1].status = lk_strdup("failed");
	free(in.preds[1].reason);
	in.preds[1].reason = lk_strdup("llvm-mca: bad operand");
	lk_lift_compute(&in, NULL, 0, &r, &n);
	cr_assert_not(r[0].ok);
	cr_assert(strstr(r[0].reason, "block 1 at 0x1010 (1000 occurrences): "
				      "failed: llvm-mca: bad operand"),
		  "%s", r[0].reason);
	lk_lift_results_free(r, n);
	free(in.preds[1].status);
	in.preds[1].status = lk_strdup("ok");
	free(in.preds[2].unit);
	in.preds[2].unit = lk_strdup("tsc/iter");
	lk_lift_compute(&in, NULL, 0, &r, &n);
	cr_assert_not(r[0].ok);
	cr_assert(strstr(r[0].reason, "block 2"), "%s", r[0].reason);
	cr_assert(strstr(r[0].reason, "tsc/iter"), "%s", r[0].reason);
	lk_lift_results_free(r, n);
	lk_lift_input_release(&in);
}

Test(lift, a_key_without_any_prediction_excludes)
{
	const uint64_t counts[] = {1, 2};
	const double values[] = {1, 2};
	const struct lk_prediction_key keys[] = {{"mca", "19", ""},
					   {"uica", "1", ""}};
	struct lk_lift_input in;
	struct lk_lift_result *r;
	size_t n;

	fill_input(&in, 2, counts, values);
	lk_lift_compute(&in, keys, 2, &r, &n);
	cr_assert_eq(n, 2);
	cr_assert(r[0].ok);
	cr_assert(r[0].value == 5.0);
	cr_assert_not(r[1].ok);
	cr_assert_str_eq(r[1].key.tool, "uica");
	cr_assert(strstr(r[1].reason, "block 0"), "%s", r[1].reason);
	lk_lift_results_free(r, n);
	lk_lift_input_release(&in);
}

/* A campaign with one variant whose "binary" is a file in the store. */
static int64_t campaign_fixture(struct lk_store *s, char hash[LK_HASH_HEX])
{
	static const struct lk_param p[] = {{"N", "10"}};
	struct lk_variant_rec v = {"vh", "k/triad.c", "sh", "gcc", "O2",
				   "-O2", p, 1};
	struct lk_build_rec b = {.hash = "bh", .compiler = "gcc", .ok = 1,
				 .reason = "", .binary = "objects/bi/nary"};
	struct lk_run_rec r = {.method_hash = "m", .method = "m",
			       .status = "ok", .reason = "", .attempts = 1};
	char *path = lk_asprintf("%s/st/objects/bi/nary", tmpdir), *dir;
	int64_t c;

	dir = lk_path_dirname(path);
	cr_assert_eq(lk_mkdir_p(&ctx, dir, 0755), 0);
	cr_assert_eq(lk_file_write_atomic(&ctx, path, "\177ELF fake", 9), 0);
	cr_assert_eq(lk_binary_hash(&ctx, path, hash), 0);
	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &c), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v, &r.variant_id), 0);
	cr_assert_eq(lk_store_build_put(&ctx, s, &b), 0, "%s", ctx.msg);
	r.build_id = b.id;
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
	free(dir);
	free(path);
	return c;
}

Test(lift, campaign_roundtrip)
{
	struct lk_store *s = open_store();
	char hash[LK_HASH_HEX];
	int64_t c = campaign_fixture(s, hash), fid;
	const uint64_t counts[] = {1, 10, 1};
	struct lk_lift_summary sum;
	struct lk_lifted_row *rows;
	size_t n;

	fid = put_function(s, hash);
	put_counts(s, fid, counts);
	predict("h0", "mca", "ok", 1.5, "cycles/iter");
	predict("h1", "mca", "ok", 2.25, "cycles/iter");
	predict("h2", "mca", "ok", 3.0, "cycles/iter");
	predict("h0", "bprof", "ok", 1.0, "cycles/iter");
	predict("h1", "bprof", "failed", 0, "cycles/iter");
	cr_assert_eq(lk_lift_campaign(&ctx, s, c, NULL, &sum), 0, "%s",
		     ctx.msg);
	cr_assert_eq(sum.stage.done, 1);
	cr_assert_eq(sum.ntools, 2);
	cr_assert_eq(lk_store_lifted_get(&ctx, s, c, &rows, &n), 0);
	cr_assert_eq(n, 2);
	/* Ordered by tool: bprof, then mca. */
	cr_assert_str_eq(rows[0].tool, "bprof");
	cr_assert_str_eq(rows[0].status, "excluded");
	cr_assert_not(rows[0].has_value);
	cr_assert_eq(rows[0].nfailed, 2);
	cr_assert(strstr(rows[0].reason, "block 1"), "%s", rows[0].reason);
	cr_assert_str_eq(rows[1].status, "ok");
	cr_assert(rows[1].value == 1.5 + 10 * 2.25 + 3.0, "%g",
		  rows[1].value);
	cr_assert_str_eq(rows[1].unit, "cycles/call");
	cr_assert_eq(rows[1].function_id, fid);
	lk_lifted_rows_free(rows, n);
	for (size_t i = 0; i < sum.ntools; i++) {
		int mca = !strcmp(sum.tools[i].tool, "mca");

		cr_assert_eq(sum.tools[i].lifted, mca);
		cr_assert_eq(sum.tools[i].excluded, !mca);
	}
	lk_lift_summary_release(&sum);
	/* Lifting again replaces, never duplicates. */
	cr_assert_eq(lk_lift_campaign(&ctx, s, c, NULL, &sum), 0);
	lk_lift_summary_release(&sum);
	cr_assert_eq(lk_store_lifted_get(&ctx, s, c, &rows, &n), 0);
	cr_assert_eq(n, 2);
	lk_lifted_rows_free(rows, n);
	lk_store_close(s);
}

Test(lift, uncounted_variant_is_skipped)
{
	struct lk_store *s = open_store();
	char hash[LK_HASH_HEX];
	int64_t c = campaign_fixture(s, hash);
	struct lk_lift_summary sum;

	put_function(s, hash);
	cr_assert_eq(lk_lift_campaign(&ctx, s, c, NULL, &sum), 0);
	cr_assert_eq(sum.stage.skipped, 1);
	cr_assert_str_eq(sum.stage.items[0].status, "skipped");
	cr_assert(strstr(sum.stage.items[0].reason, "not counted"), "%s",
		  sum.stage.items[0].reason);
	lk_lift_summary_release(&sum);
	lk_store_close(s);
}

Test(lift, verdicts)
{
	struct lk_store *s = open_store();
	char hash[LK_HASH_HEX];
	int64_t c = campaign_fixture(s, hash);
	struct lk_verdict_rec v = {"l1", "exclude", 1, 0.125, "cachegrind",
				   "above"};
	struct lk_verdict_row got;

	(void)c;
	cr_assert_eq(lk_store_verdict_get(&ctx, s, 1, "l1", &got), 0);
	cr_assert_eq(lk_store_verdict_put(&ctx, s, 1, &v), 0, "%s", ctx.msg);
	v.verdict = "pass";
	v.value = 0.0;
	cr_assert_eq(lk_store_verdict_put(&ctx, s, 1, &v), 0);
	cr_assert_eq(lk_store_verdict_get(&ctx, s, 1, "l1", &got), 1);
	cr_assert_str_eq(got.verdict, "pass");
	cr_assert(got.has_value && got.value == 0.0);
	lk_verdict_row_release(&got);
	v.has_value = 0;
	v.verdict = "unknown";
	cr_assert_eq(lk_store_verdict_put(&ctx, s, 1, &v), 0);
	cr_assert_eq(lk_store_verdict_get(&ctx, s, 1, "l1", &got), 1);
	cr_assert_not(got.has_value);
	lk_verdict_row_release(&got);
	lk_store_close(s);
}
