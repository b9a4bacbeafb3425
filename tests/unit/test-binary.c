/*
 * binary: the decoder on hand-assembled bytes (checked against GNU as and
 * objdump), blocks and edges of a hand-made function, the ELF lookup on
 * this test binary itself, kernels read back from a store's block code
 * (and from a schema-5 store, which has none), and the failure paths.
 * The data-driven block
 * cases (tests/data/blocks) run in tests/e2e/t0600-blocks.sh, which needs
 * an assembler.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
#include "loopkit/store.h"
#include "tmpdir.h"

static struct lk_ctx ctx;

static void setup(void)
{
	lk_ctx_init(&ctx);
}

TestSuite(binary, .init = setup);

static void decode_one(const uint8_t *bytes, size_t len, uint64_t addr,
		       struct lk_insn *insn)
{
	int ret = lk_decoder_x86_64()->decode(&ctx, bytes, len, addr, insn);

	cr_assert_eq(ret, 0, "decode: %s", ctx.msg);
}

/* FACTS.md: Capstone 4 stops here; gcc -march=native emits it. */
Test(binary, avx512_vextractf32x4)
{
	static const uint8_t bytes[] = {0x62, 0xf3, 0x7d, 0x28,
					0x19, 0xca, 0x01};
	struct lk_insn insn;

	decode_one(bytes, sizeof(bytes), 0x1000, &insn);
	cr_assert_eq(insn.len, 7);
	cr_assert_eq(insn.kind, LK_INSN_PLAIN);
	cr_assert_str_eq(insn.att, "vextractf32x4 $0x01, %ymm1, %xmm2");
	cr_assert_str_eq(insn.intel, "vextractf32x4 xmm2, ymm1, 0x01");
	lk_insn_release(&insn);
}

Test(binary, avx512_masked_zmm)
{
	static const uint8_t bytes[] = {0x62, 0xf1, 0xed, 0x49, 0x58, 0xd9};
	struct lk_insn insn;

	decode_one(bytes, sizeof(bytes), 0x1000, &insn);
	cr_assert_eq(insn.len, 6);
	cr_assert(strstr(insn.att, "vaddpd") && strstr(insn.att, "%zmm3"),
		  "%s", insn.att);
	cr_assert(strstr(insn.att, "{%k1}"), "%s", insn.att);
	lk_insn_release(&insn);
}

/* The facts the runner names a SIGILL with: the ISA set and encoding. */
Test(binary, facts_name_the_isa_set)
{
	static const uint8_t zmm_fma[] = {0x62, 0xf2, 0xfd, 0x48, 0xb8, 0xc1};
	static const uint8_t ymm_fma[] = {0xc4, 0xe2, 0xf5, 0xb8, 0xc2};
	static const uint8_t ud2[] = {0x0f, 0x0b};
	struct lk_insn_facts f;

	cr_assert_eq(lk_insn_facts(zmm_fma, sizeof(zmm_fma), &f), 0);
	cr_assert_str_eq(f.mnemonic, "vfmadd231pd");
	cr_assert_str_eq(f.isa_set, "AVX512F_512");
	cr_assert_eq(f.encoding, LK_ENCODING_EVEX);
	cr_assert_eq(lk_insn_facts(ymm_fma, sizeof(ymm_fma), &f), 0);
	cr_assert_str_eq(f.mnemonic, "vfmadd231pd");
	cr_assert_str_eq(f.isa_set, "FMA");
	cr_assert(f.fma && f.encoding == LK_ENCODING_VEX);
	cr_assert_eq(lk_insn_facts(ud2, sizeof(ud2), &f), 0);
	cr_assert_str_eq(f.mnemonic, "ud2");
}

Test(binary, kinds_and_targets)
{
	static const struct {
		uint8_t bytes[8];
		size_t len;
		enum lk_insn_kind kind;
		int has_target;
		uint64_t target;
	} cases[] = {
		{{0xeb, 0xfe}, 2, LK_INSN_JUMP, 1, 0x1000},
		{{0xe9, 0x00, 0x01, 0x00, 0x00}, 5, LK_INSN_JUMP, 1, 0x1105},
		{{0x74, 0x10}, 2, LK_INSN_CJUMP, 1, 0x1012},
		{{0xe2, 0xfe}, 2, LK_INSN_CJUMP, 1, 0x1000}, /* loop */
		{{0xe3, 0x00}, 2, LK_INSN_CJUMP, 1, 0x1002}, /* jrcxz */
		{{0xff, 0xe0}, 2, LK_INSN_IJUMP, 0, 0}, /* jmp *%rax */
		{{0xe8, 0xfb, 0xff, 0xff, 0xff}, 5, LK_INSN_CALL, 1, 0x1000},
		{{0xff, 0xd0}, 2, LK_INSN_ICALL, 0, 0}, /* call *%rax */
		{{0xc3}, 1, LK_INSN_RET, 0, 0},
		{{0x0f, 0x05}, 2, LK_INSN_SYSCALL, 0, 0},
		{{0xcd, 0x80}, 2, LK_INSN_SYSCALL, 0, 0}, /* int $0x80 */
		{{0x0f, 0x0b}, 2, LK_INSN_HALT, 0, 0}, /* ud2 */
		{{0xf4}, 1, LK_INSN_HALT, 0, 0}, /* hlt */
		{{0xcc}, 1, LK_INSN_HALT, 0, 0}, /* int3 */
		{{0x48, 0x01, 0xd8}, 3, LK_INSN_PLAIN, 0, 0}, /* add */
	};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		struct lk_insn insn;

		decode_one(cases[i].bytes, cases[i].len, 0x1000, &insn);
		cr_expect_eq(insn.len, cases[i].len, "case %zu", i);
		cr_expect_eq(insn.kind, cases[i].kind, "case %zu: %s", i,
			     insn.att);
		cr_expect_eq(insn.has_target, cases[i].has_target, "case %zu",
			     i);
		if (cases[i].has_target)
			cr_expect_eq(insn.target, cases[i].target,
				     "case %zu: 0x%llx", i,
				     (unsigned long long)insn.target);
		lk_insn_release(&insn);
	}
}

Test(binary, undecodable_bytes)
{
	static const uint8_t bytes[] = {0x0f, 0xff, 0xff}; /* truncated */
	struct lk_insn insn;

	cr_assert_eq(lk_decoder_x86_64()->decode(&ctx, bytes, 1, 0x40, &insn),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "0x40"), "%s", ctx.msg);
}

static void function(struct lk_function *fn, const uint8_t *code,
		     size_t size, uint64_t addr)
{
	memset(fn, 0, sizeof(*fn));
	fn->name = lk_strdup("f");
	fn->addr = addr;
	fn->size = size;
	fn->code = lk_malloc(size);
	memcpy(fn->code, code, size);
}

static void expect_block(const struct lk_cfg *cfg, size_t n, uint64_t start,
			 uint64_t end, size_t ninsns, int exits,
			 const size_t *succ, size_t nsucc)
{
	const struct lk_block *b = &cfg->blocks[n];
	size_t i;

	cr_expect_eq(b->start, start, "block %zu start 0x%llx", n,
		     (unsigned long long)b->start);
	cr_expect_eq(b->end, end, "block %zu end 0x%llx", n,
		     (unsigned long long)b->end);
	cr_expect_eq(b->ninsns, ninsns, "block %zu: %zu insns", n, b->ninsns);
	cr_expect_eq(b->exits, exits, "block %zu exits", n);
	cr_assert_eq(b->nsucc, nsucc, "block %zu: %zu successors", n,
		     b->nsucc);
	for (i = 0; i < nsucc; i++)
		cr_expect_eq(b->succ[i], succ[i], "block %zu succ %zu", n, i);
}

/*
 *   0: b8 00 00 00 00    mov $0, %eax
 *   5: 48 83 c0 01       add $1, %rax       <- loop
 *   9: 48 83 f8 0a       cmp $10, %rax
 *   d: 75 f6             jne 5
 *   f: e8 ec 0f 00 00    call 0x402000      (outside)
 *  14: c3                ret
 */
static const uint8_t small_loop[] = {
	0xb8, 0x00, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83,
	0xf8, 0x0a, 0x75, 0xf6, 0xe8, 0xec, 0x0f, 0x00, 0x00, 0xc3};

Test(binary, small_loop_blocks_and_edges)
{
	struct lk_function fn;
	struct lk_cfg cfg;
	const size_t s0[] = {1}, s1[] = {1, 2}, s2[] = {3};

	function(&fn, small_loop, sizeof(small_loop), 0x401000);
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0,
		     "%s", ctx.msg);
	cr_assert_null(fn.code, "lk_cfg_build takes the function");
	cr_assert_eq(cfg.ninsns, 6);
	cr_assert_eq(cfg.nblocks, 4);
	expect_block(&cfg, 0, 0x401000, 0x401005, 1, 0, s0, 1);
	expect_block(&cfg, 1, 0x401005, 0x40100f, 3, 0, s1, 2);
	expect_block(&cfg, 2, 0x40100f, 0x401014, 1, 0, s2, 1);
	expect_block(&cfg, 3, 0x401014, 0x401015, 1, 1, NULL, 0);
	cr_expect_eq(cfg.insns[3].target, 0x401005);
	cr_expect_eq(cfg.insns[4].target, 0x402000);
	cr_expect_eq(lk_cfg_find(&cfg, 0x40100d), 1);
	cr_expect_eq(lk_cfg_find(&cfg, 0x401015), -1);
	cr_expect_eq(lk_cfg_find(&cfg, 0x400fff), -1);
	lk_cfg_release(&cfg);
}

Test(binary, small_loop_output)
{
	struct lk_buf text = LK_BUF_INIT, json = LK_BUF_INIT;
	struct lk_function fn;
	struct lk_cfg cfg;

	function(&fn, small_loop, sizeof(small_loop), 0x401000);
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0);
	lk_cfg_text(&cfg, &text);
	lk_cfg_json(&cfg, &json);
	cr_expect(strstr(lk_buf_str(&text),
			 "block 1 [0x401005, 0x40100f) -> 1, 2\n"),
		  "%s", lk_buf_str(&text));
	cr_expect(strstr(lk_buf_str(&text), "block 3 [0x401014, 0x401015) "
					    "-> exit\n  401014:  ret\n"));
	cr_expect(strstr(lk_buf_str(&json),
			 "\"start\": \"0x401005\", \"end\": \"0x40100f\""),
		  "%s", lk_buf_str(&json));
	cr_expect(strstr(lk_buf_str(&json),
			 "\"successors\": [\"0x401005\", \"0x40100f\"]"));
	cr_expect(strstr(lk_buf_str(&json), "\"jnz 0x401005\""));
	lk_buf_release(&text);
	lk_buf_release(&json);
	lk_cfg_release(&cfg);
}

/* A jump out of the function is a tail call; one into the middle of an
 * instruction has no block to go to. Both leave. */
Test(binary, jumps_out_and_into_instructions)
{
	/* 0: 74 03 je 5 (mid-insn)  2: e9 f9 0f 00 00 jmp 0x1000+... */
	static const uint8_t code[] = {0x74, 0x03, 0xe9, 0xf9, 0x0f,
				       0x00, 0x00};
	struct lk_function fn;
	struct lk_cfg cfg;
	const size_t s0[] = {1};

	function(&fn, code, sizeof(code), 0x1000);
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0);
	cr_assert_eq(cfg.nblocks, 2);
	expect_block(&cfg, 0, 0x1000, 0x1002, 1, 1, s0, 1);
	expect_block(&cfg, 1, 0x1002, 0x1007, 1, 1, NULL, 0);
	lk_cfg_release(&cfg);
}

Test(binary, undecodable_function_fails_cleanly)
{
	static const uint8_t code[] = {0x90, 0x48}; /* nop, lone REX */
	struct lk_function fn;
	struct lk_cfg cfg;

	function(&fn, code, sizeof(code), 0x1000);
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, "f+0x1"), "%s", ctx.msg);
	cr_assert_null(cfg.insns);
}

/* This test binary is an x86-64 ELF with a symbol table. */
__attribute__((noinline)) int lk_test_bb_probe(int x);
__attribute__((noinline)) int lk_test_bb_probe(int x)
{
	return x * 3 + 1;
}

Test(binary, elf_function_of_this_binary)
{
	struct lk_function fn;
	uint64_t addr = (uint64_t)(uintptr_t)lk_test_bb_probe;
	int ret = lk_elf_function(&ctx, "/proc/self/exe", "lk_test_bb_probe",
				  &fn);

	cr_assert_eq(ret, 0, "%s", ctx.msg);
	cr_expect_str_eq(fn.name, "lk_test_bb_probe");
	cr_assert_gt(fn.size, 0);
	/* The bytes are the ones the process runs (PIE: addresses are
	 * link-time, so only the low page offset must agree). */
	cr_expect_eq(fn.addr & 0xfff, addr & 0xfff);
	cr_expect_eq(memcmp(fn.code, (const void *)(uintptr_t)addr, fn.size),
		     0);
	lk_function_release(&fn);
	lk_function_release(NULL);
}

/* Data of this binary at known places: constant (.rodata), initialised
 * (.data), zero (.bss, not in the file). */
static const uint64_t lk_test_rodata[4] = {7, 0, 1, 0x0123456789abcdefull};
uint64_t lk_test_data[2] = {42, 43};
uint64_t lk_test_bss[2];

/* The link-time address of an object of this binary: its distance from
 * lk_test_bb_probe, whose link-time address the symbol table gives. */
static uint64_t link_addr(const void *p)
{
	struct lk_function fn;
	uint64_t a;

	cr_assert_eq(lk_elf_function(&ctx, "/proc/self/exe",
				     "lk_test_bb_probe", &fn), 0, "%s", ctx.msg);
	a = fn.addr + ((uint64_t)(uintptr_t)p -
		       (uint64_t)(uintptr_t)lk_test_bb_probe);
	cr_expect_str_eq(fn.binary, "/proc/self/exe");
	lk_function_release(&fn);
	return a;
}

Test(binary, elf_read_data)
{
	uint64_t got[4] = {0}, one = 99;

	cr_assert_eq(lk_elf_read(&ctx, "/proc/self/exe",
				 link_addr(lk_test_rodata), got, sizeof(got)),
		     0, "%s", ctx.msg);
	cr_expect_eq(memcmp(got, lk_test_rodata, sizeof(got)), 0);
	cr_assert_eq(lk_elf_read(&ctx, "/proc/self/exe",
				 link_addr(&lk_test_rodata[3]) + 4, &one, 4),
		     0, "%s", ctx.msg);
	cr_expect_eq(one & 0xffffffff, 0x01234567);
	cr_assert_eq(lk_elf_read(&ctx, "/proc/self/exe",
				 link_addr(lk_test_data), got, 16), 0, "%s",
		     ctx.msg);
	cr_expect(got[0] == 42 && got[1] == 43);
	/* .bss has no bytes in the file; nothing is at address 0 */
	one = 99;
	cr_expect_eq(lk_elf_read(&ctx, "/proc/self/exe",
				 link_addr(lk_test_bss), &one, 8),
		     LK_ENOTFOUND);
	cr_expect(strstr(ctx.msg, "no initialised data at 0x"), "%s", ctx.msg);
	cr_expect_eq(one, 99);
	cr_expect_eq(lk_elf_read(&ctx, "/proc/self/exe", 0, &one, 8),
		     LK_ENOTFOUND);
	cr_expect_eq(lk_elf_read(&ctx, "/proc/self/cmdline", 0, &one, 8),
		     LK_EINPUT);
}

Test(binary, elf_failures)
{
	struct lk_function fn;
	int inlined;

	cr_expect_eq(lk_elf_function(&ctx, "/nonexistent", "f", &fn),
		     LK_EINPUT);
	cr_expect(strstr(ctx.msg, "/nonexistent: not an x86-64 ELF"), "%s",
		  ctx.msg);
	cr_expect_eq(lk_elf_function(&ctx, "/proc/self/cmdline", "f", &fn),
		     LK_EINPUT);
	cr_expect_eq(lk_elf_function(&ctx, "/proc/self/exe", "no_such_fn",
				     &fn),
		     LK_ENOTFOUND);
	cr_expect(strstr(ctx.msg, "no_such_fn"), "%s", ctx.msg);
	/* This binary links the runtime but never calls lk_roi_begin. */
	cr_expect_lt(lk_elf_roi_function(&ctx, "/proc/self/exe", &fn,
					 &inlined),
		     0);
	cr_expect(strstr(ctx.msg, "lk_roi_begin"), "%s", ctx.msg);
}

/* ---- Kernels from the store (stored.c). ---- */

static void store_setup(void)
{
	lk_ctx_init(&ctx);
	tmpdir_make("binary");
}

static void store_teardown(void)
{
	tmpdir_remove();
}

TestSuite(binary_store, .init = store_setup, .fini = store_teardown);

static struct lk_store *open_store(void)
{
	struct lk_store *s = NULL;
	char *dir = lk_path_join(tmpdir, "st");

	cr_assert_eq(lk_store_open(&ctx, dir, 1, &s), 0, "%s", ctx.msg);
	free(dir);
	return s;
}

/*
 * A file that is no ELF, its content hash in *hash: a kernel found for
 * it can only have come from the store.
 */
static char *not_elf(char hash[LK_HASH_HEX])
{
	char *path = lk_path_join(tmpdir, "kernel.bin");
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs("not an ELF file\n", f);
	fclose(f);
	cr_assert_eq(lk_binary_hash(&ctx, path, hash), 0, "%s", ctx.msg);
	return path;
}

/* small_loop's CFG stored for hash as the blocks stage stores it. */
static void put_small_loop(struct lk_store *s, const char *hash, int code)
{
	struct lk_bb_block_rec rec[8];
	struct lk_function fn;
	struct lk_cfg cfg;
	int64_t id;
	size_t b;

	function(&fn, small_loop, sizeof(small_loop), 0x401000);
	cr_assert_eq(lk_cfg_build(&ctx, lk_decoder_x86_64(), &fn, &cfg), 0);
	cr_assert_leq(cfg.nblocks, 8);
	for (b = 0; b < cfg.nblocks; b++) {
		rec[b].start = cfg.blocks[b].start;
		rec[b].end = cfg.blocks[b].end;
		rec[b].ninsns = (long)cfg.blocks[b].ninsns;
		rec[b].hash = lk_block_hash(&cfg, b);
		rec[b].att = lk_block_att(&cfg, b);
		rec[b].intel = lk_block_intel(&cfg, b);
		rec[b].succ = lk_block_succ(&cfg, b);
	}
	{
		struct lk_bb_function_rec f = {hash, cfg.fn.name, cfg.fn.addr,
					       cfg.fn.size, 0, rec,
					       cfg.nblocks};

		cr_assert_eq(lk_store_bb_function_put_code(
				     &ctx, s, &f, code ? cfg.fn.code : NULL,
				     &id),
			     0, "%s", ctx.msg);
	}
	for (b = 0; b < cfg.nblocks; b++) {
		free((char *)rec[b].hash);
		free((char *)rec[b].att);
		free((char *)rec[b].intel);
		free((char *)rec[b].succ);
	}
	lk_cfg_release(&cfg);
}

static void expect_small_loop(const struct lk_cfg *cfg)
{
	const size_t s0[] = {1}, s1[] = {1, 2}, s2[] = {3};

	cr_expect_str_eq(cfg->fn.name, "f");
	cr_expect_eq(cfg->fn.addr, 0x401000);
	cr_expect_eq(cfg->fn.size, sizeof(small_loop));
	cr_expect_eq(memcmp(cfg->fn.code, small_loop, sizeof(small_loop)), 0);
	cr_assert_eq(cfg->ninsns, 6);
	cr_expect_str_eq(cfg->insns[2].att, "cmp $0x0a, %rax");
	cr_assert_eq(cfg->nblocks, 4);
	expect_block(cfg, 0, 0x401000, 0x401005, 1, 0, s0, 1);
	expect_block(cfg, 1, 0x401005, 0x40100f, 3, 0, s1, 2);
	expect_block(cfg, 2, 0x40100f, 0x401014, 1, 0, s2, 1);
	expect_block(cfg, 3, 0x401014, 0x401015, 1, 1, NULL, 0);
}

Test(binary_store, kernel_read_back_from_its_code)
{
	struct lk_store *s = open_store();
	struct lk_bb_block_row *rows;
	char hash[LK_HASH_HEX];
	char *path = not_elf(hash);
	struct lk_cfg cfg;
	int64_t id;
	int from = -1;
	size_t n, i;

	cr_expect_eq(lk_cfg_read_stored(&ctx, s, hash, &cfg), 0,
		     "nothing stored yet");
	put_small_loop(s, hash, 1);
	cr_assert_eq(lk_store_bb_function_find(&ctx, s, hash, NULL, &id), 1);
	cr_assert_eq(lk_store_bb_blocks_get(&ctx, s, id, &rows, &n), 0);
	cr_assert_eq(n, 4);
	for (i = 0; i < n; i++) {
		cr_assert_not_null(rows[i].code, "block %zu has code", i);
		cr_expect_eq(rows[i].code_len, rows[i].end - rows[i].start);
		cr_expect_eq(memcmp(rows[i].code,
				    small_loop + (rows[i].start - 0x401000),
				    rows[i].code_len),
			     0);
	}
	lk_bb_block_rows_free(rows, n);

	cr_assert_eq(lk_cfg_read_stored(&ctx, s, hash, &cfg), 1, "%s",
		     ctx.msg);
	expect_small_loop(&cfg);
	lk_cfg_release(&cfg);
	/* The file is no ELF: only the store can give its kernel. */
	cr_assert_eq(lk_cfg_kernel(&ctx, s, path, &cfg, &from), 0, "%s",
		     ctx.msg);
	cr_expect_eq(from, 1);
	expect_small_loop(&cfg);
	lk_cfg_release(&cfg);
	cr_expect_lt(lk_cfg_kernel(&ctx, NULL, path, &cfg, &from), 0);
	cr_expect_eq(from, 0);
	cr_expect(strstr(ctx.msg, "not an x86-64 ELF"), "%s", ctx.msg);
	lk_store_close(s);
	free(path);
}

static void raw_exec(const char *sql)
{
	char *path = lk_asprintf("%s/st/store.db", tmpdir);
	sqlite3 *db;
	char *err = NULL;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK,
		     "%s: %s", sql, err);
	sqlite3_close(db);
	free(path);
}

/* A store a loopkit of schema 6 wrote: its blocks have no code. It
 * migrates, its blocks read back without code, and the kernel comes
 * from the binary again (here a file that is no ELF: that error). */
Test(binary_store, schema_6_blocks_have_no_code)
{
	struct lk_store *s = open_store();
	struct lk_bb_block_row *rows;
	char hash[LK_HASH_HEX];
	char *path = not_elf(hash);
	struct lk_cfg cfg;
	int64_t id;
	int from = -1;
	size_t n, i;

	put_small_loop(s, hash, 1);
	lk_store_close(s);
	/* Schema 6: no code column, and none of what later migrations
	 * add (each adds its undo here). */
	raw_exec("ALTER TABLE bb_blocks DROP COLUMN code;"
		 "DROP TABLE variant_predictions;"
		 "ALTER TABLE variants DROP COLUMN current;"
		 "DROP TABLE mdl_evals;"
		 "DROP TABLE mdl_seed_perf; DROP TABLE mdl_seeds;"
		 "DROP TABLE mdl_dbs;"
		 "PRAGMA user_version = 6;");
	s = open_store();
	cr_assert_geq(lk_store_schema_version(s), 7, "migrated");
	cr_assert_eq(lk_store_bb_function_find(&ctx, s, hash, NULL, &id), 1);
	cr_assert_eq(lk_store_bb_blocks_get(&ctx, s, id, &rows, &n), 0);
	cr_assert_eq(n, 4, "the blocks are kept");
	for (i = 0; i < n; i++) {
		cr_expect_null(rows[i].code);
		cr_expect_eq(rows[i].code_len, 0);
	}
	cr_expect_str_eq(rows[1].att, "add $0x01, %rax\ncmp $0x0a, %rax\n"
				      "jnz 0x401005\n");
	lk_bb_block_rows_free(rows, n);
	cr_expect_eq(lk_cfg_read_stored(&ctx, s, hash, &cfg), 0);
	cr_expect_lt(lk_cfg_kernel(&ctx, s, path, &cfg, &from), 0);
	cr_expect_eq(from, 0);
	cr_expect(strstr(ctx.msg, "not an x86-64 ELF"), "%s", ctx.msg);
	lk_store_close(s);
	free(path);
}

/* Blocks stored without code, or whose code does not tile the
 * function, are no kernel: the caller reads the binary. */
Test(binary_store, blocks_without_code_are_no_kernel)
{
	struct lk_store *s = open_store();
	char hash[LK_HASH_HEX];
	char *path = not_elf(hash);
	struct lk_cfg cfg;

	put_small_loop(s, hash, 0);
	cr_expect_eq(lk_cfg_read_stored(&ctx, s, hash, &cfg), 0);
	lk_store_close(s);
	free(path);
}
