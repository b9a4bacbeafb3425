/*
 * The campaign store: schema and migrations, every put/get, failure paths,
 * the export format (golden strings), insert speed and crash safety.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loopkit/store.h"
#include "../../src/store/store-int.h"
#include "tmpdir.h"

static struct lk_ctx ctx;

static void setup(void)
{
	tmpdir_make("store");
	lk_ctx_init(&ctx);
}

static void teardown(void)
{
	tmpdir_remove();
}

TestSuite(store, .init = setup, .fini = teardown);

static char *sub(const char *name)
{
	return lk_path_join(tmpdir, name);
}

static struct lk_store *open_store(const char *name)
{
	struct lk_store *s = NULL;
	char *dir = sub(name);
	int ret = lk_store_open(&ctx, dir, 1, &s);

	cr_assert_eq(ret, 0, "open %s: %s", dir, ctx.msg);
	free(dir);
	return s;
}

static sqlite3 *raw_open(const char *name)
{
	char *dir = sub(name), *path = lk_path_join(dir, "store.db");
	sqlite3 *db = NULL;

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	free(dir);
	free(path);
	return db;
}

static long raw_long_db(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long v;

	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK,
		     "%s: %s", sql, sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	v = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static long raw_long(const char *name, const char *sql)
{
	sqlite3 *db = raw_open(name);
	long v = raw_long_db(db, sql);

	sqlite3_close(db);
	return v;
}

static void raw_exec(const char *name, const char *sql)
{
	sqlite3 *db = raw_open(name);

	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK,
		     "%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_close(db);
}

static void write_file(const char *name, const char *text)
{
	char *dir = sub(name), *path = lk_path_join(dir, "store.db");

	cr_assert_eq(lk_mkdir_p(&ctx, dir, 0777), 0);
	cr_assert_eq(lk_file_write_atomic(&ctx, path, text, strlen(text)), 0);
	free(dir);
	free(path);
}

/* Opening, schema, migrations. */

Test(store, create_fresh)
{
	struct lk_store *s = open_store("a/b/c");
	char *dir = sub("a/b/c");

	cr_assert_str_eq(lk_store_dir(s), dir);
	cr_assert_eq(lk_store_schema_version(s), lk_store_latest_version());
	cr_assert_geq(lk_store_latest_version(), 1);
	lk_store_close(s);
	cr_assert_eq(raw_long("a/b/c", "PRAGMA user_version"),
		     lk_store_latest_version());
	cr_assert_eq(raw_long("a/b/c", "PRAGMA application_id"),
		     LK_STORE_APP_ID);
	cr_assert_eq(raw_long("a/b/c", "SELECT count(*) FROM"
			      " pragma_journal_mode WHERE journal_mode = 'wal'"),
		     1);
	cr_assert_eq(raw_long("a/b/c", "SELECT count(*) FROM sqlite_schema"
			      " WHERE name IN ('campaigns', 'environments',"
			      " 'variants', 'variant_params', 'builds', 'runs',"
			      " 'samples', 'run_info', 'results')"), 9);
	free(dir);
}

Test(store, reopen_is_idempotent)
{
	struct lk_store *s = open_store("st");
	int64_t a, b;
	long n;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &a), 0);
	lk_store_close(s);
	s = open_store("st");
	cr_assert_eq(lk_store_schema_version(s), lk_store_latest_version());
	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &b), 0);
	cr_assert_eq(a, b);
	cr_assert_eq(lk_store_variant_count(&ctx, s, a, &n), 0);
	cr_assert_eq(n, 0);
	lk_store_close(s);
}

Test(store, missing_without_create)
{
	struct lk_store *s = (struct lk_store *)1;
	char *dir = sub("nope");

	cr_assert_eq(lk_store_open(&ctx, dir, 0, &s), LK_ENOTFOUND);
	cr_assert_null(s);
	cr_assert(strstr(ctx.msg, "no loopkit store in"), "%s", ctx.msg);
	cr_assert(!lk_path_exists(dir), "must not create %s", dir);
	free(dir);
}

Test(store, not_sqlite_is_refused)
{
	struct lk_store *s = NULL;
	char *dir = sub("junk");

	write_file("junk", "this is not a database, just some text that is "
		   "long enough to fill a page header and then some more.\n");
	cr_assert_eq(lk_store_open(&ctx, dir, 1, &s), LK_EINPUT);
	cr_assert_null(s);
	cr_assert(strstr(ctx.msg, "store.db: not a loopkit store (not an "
			 "SQLite database)"), "%s", ctx.msg);
	free(dir);
}

Test(store, foreign_sqlite_is_refused)
{
	struct lk_store *s = NULL;
	char *dir = sub("other");

	cr_assert_eq(lk_mkdir_p(&ctx, dir, 0777), 0);
	raw_exec("other", "CREATE TABLE photos (id INTEGER PRIMARY KEY)");
	cr_assert_eq(lk_store_open(&ctx, dir, 1, &s), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "not a loopkit store"), "%s", ctx.msg);
	/* Nothing of ours was added to it. */
	cr_assert_eq(raw_long("other", "SELECT count(*) FROM sqlite_schema"),
		     1);
	free(dir);
}

Test(store, too_new_schema_is_refused)
{
	struct lk_store *s = open_store("new");
	char *dir = sub("new"), sql[64];

	lk_store_close(s);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
		 lk_store_latest_version() + 1);
	raw_exec("new", sql);
	s = NULL;
	cr_assert_eq(lk_store_open(&ctx, dir, 0, &s), LK_EUNSUP);
	cr_assert_null(s);
	cr_assert(strstr(ctx.msg, "newer than this loopkit knows"), "%s",
		  ctx.msg);
	free(dir);
}

static long file_size(const char *name)
{
	char *dir = sub(name), *path = lk_path_join(dir, "store.db");
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	free(dir);
	free(path);
	return (long)st.st_size;
}

Test(store, empty_file_is_refused)
{
	struct lk_store *s = NULL;
	char *dir = sub("empty");

	/* SQLite would take it for an empty database and migrate it. */
	write_file("empty", "");
	cr_assert_eq(lk_store_open(&ctx, dir, 1, &s), LK_EINPUT);
	cr_assert_null(s);
	cr_assert(strstr(ctx.msg, "empty/store.db: not a loopkit store (an "
			 "empty file)"), "%s", ctx.msg);
	cr_assert_eq(lk_store_open(&ctx, dir, LK_STORE_READER, &s),
		     LK_EINPUT);
	cr_assert_eq(file_size("empty"), 0);
	free(dir);
}

Test(store, sqlite_without_our_id_is_refused)
{
	struct lk_store *s = NULL;
	char *dir = sub("plain");

	/* No tables, version 0: what the old check took for a new store. */
	cr_assert_eq(lk_mkdir_p(&ctx, dir, 0777), 0);
	raw_exec("plain", "VACUUM");
	cr_assert_gt(file_size("plain"), 0);
	cr_assert_eq(lk_store_open(&ctx, dir, 1, &s), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "plain/store.db: not a loopkit store (an "
			 "SQLite database without loopkit's "
			 "application_id)"), "%s", ctx.msg);
	cr_assert_eq(raw_long("plain", "SELECT count(*) FROM sqlite_schema"),
		     0);
	free(dir);
}

/* A creation killed half-way left store.db.new: the next one redoes it. */
Test(store, create_is_whole)
{
	char *dir = sub("half"), *db = lk_path_join(dir, "store.db");
	char *tmp = lk_asprintf("%s.new", db);
	struct lk_store *s;

	cr_assert_eq(lk_mkdir_p(&ctx, dir, 0777), 0);
	cr_assert_eq(lk_file_write_atomic(&ctx, tmp, "junk", 4), 0);
	s = open_store("half");
	cr_assert_eq(lk_store_schema_version(s), lk_store_latest_version());
	lk_store_close(s);
	cr_assert(!lk_path_exists(tmp), "%s left behind", tmp);
	free(tmp);
	free(db);
	free(dir);
}

static int table_exists(sqlite3 *db, const char *name)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM sqlite_schema"
		 " WHERE name = '%s'", name);
	return (int)raw_long_db(db, sql);
}

Test(store, migrations_apply_in_order_each_atomic)
{
	static const char *const scripts[] = {
		"CREATE TABLE one (x);",
		"CREATE TABLE two (y); INSERT INTO one VALUES (2);",
		/* Fails half-way: 'three' must not survive. */
		"CREATE TABLE three (z); CREATE TABLE one (x);",
	};
	sqlite3 *db;
	int v = -1;

	lk_mkdir_p(&ctx, tmpdir, 0777);
	db = raw_open(".");
	cr_assert_eq(lk_store_migrate_with(&ctx, db, "t.db", scripts, 1, &v),
		     0, "%s", ctx.msg);
	cr_assert_eq(v, 1);
	cr_assert(table_exists(db, "one") && !table_exists(db, "two"));
	/* An older build sees a newer schema. */
	cr_assert_eq(lk_store_migrate_with(&ctx, db, "t.db", scripts, 0, &v),
		     LK_EUNSUP);
	cr_assert_eq(lk_store_migrate_with(&ctx, db, "t.db", scripts, 2, &v),
		     0, "%s", ctx.msg);
	cr_assert_eq(v, 2);
	cr_assert_eq(raw_long_db(db, "SELECT count(*) FROM one"), 1);
	cr_assert_eq(lk_store_migrate_with(&ctx, db, "t.db", scripts, 3, &v),
		     LK_ESTORE);
	cr_assert(strstr(ctx.msg, "t.db: cannot migrate to schema 3: table "
			 "one already exists"), "%s", ctx.msg);
	cr_assert_eq(raw_long_db(db, "PRAGMA user_version"), 2);
	cr_assert(!table_exists(db, "three"));
	/* Rerunning what is applied changes nothing. */
	cr_assert_eq(lk_store_migrate_with(&ctx, db, "t.db", scripts, 2, &v),
		     0);
	cr_assert_eq(raw_long_db(db, "SELECT count(*) FROM one"), 1);
	sqlite3_close(db);
}

Test(store, object_path)
{
	struct lk_store *s = open_store("obj");
	char *p = lk_store_object_path(s, "abcdef0123", ".s");
	char *want = lk_asprintf("%s/obj/objects/ab/cdef0123.s", tmpdir);

	cr_assert_str_eq(p, want);
	cr_assert(!lk_path_exists(p));
	free(p);
	p = lk_store_object_path(s, "abcdef0123", NULL);
	cr_assert(strstr(p, "/objects/ab/cdef0123") &&
		  p[strlen(p) - 1] == '3');
	free(p);
	free(want);
	lk_store_close(s);
}

/* Campaigns, environments, variants, builds. */

Test(store, campaign_get_or_create)
{
	struct lk_store *s = open_store("st");
	int64_t a, b, c;

	cr_assert_eq(lk_store_campaign(&ctx, s, "x", "x.yaml", "h1", &a), 0);
	cr_assert_eq(lk_store_campaign(&ctx, s, "x", NULL, NULL, &b), 0);
	cr_assert_eq(lk_store_campaign(&ctx, s, "y", NULL, NULL, &c), 0);
	cr_assert_eq(a, b);
	cr_assert_neq(a, c);
	lk_store_close(s);
	/* NULL kept the config; a new one replaces it. */
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM campaigns WHERE"
			      " name = 'x' AND config_hash = 'h1'"), 1);
	s = open_store("st");
	cr_assert_eq(lk_store_campaign(&ctx, s, "x", "x.yaml", "h2", &b), 0);
	cr_assert_eq(a, b);
	lk_store_close(s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM campaigns WHERE"
			      " name = 'x' AND config_hash = 'h2'"), 1);
}

/* The memprof stage's key: found with its outcome, a put under the same
 * key replaces the run and its functions, other campaigns and unkeyed
 * runs ('memprof run PROG.c') untouched. */
Test(store, memprof_keyed_runs)
{
	static const struct lk_memprof_func_rec funcs[] = {
		{"main", 1, 10, 4, 4, 4, 4, "0", "0", 0, 0},
		{"f", 3, 6, 6, 2, 2, 2, "8", "1", 1, 0.5},
	};
	struct lk_memprof_rec ok = {
		.program = "a.c", .program_hash = "h", .cflags = "-O1",
		.calls = 4, .funcs = funcs, .nfuncs = 2, .stage_key = "k1",
		.status = "ok"};
	struct lk_memprof_rec failed = {
		.program = "a.c", .program_hash = "h", .cflags = "-O1",
		.stage_key = "k1", .status = "failed", .reason = "exit 3"};
	struct lk_memprof_rec plain = ok;
	struct lk_store *s = open_store("st");
	char *status = NULL, *reason = NULL;
	int64_t c1, c2, id;

	plain.stage_key = plain.status = NULL;
	cr_assert_eq(lk_store_campaign(&ctx, s, "c1", NULL, NULL, &c1), 0);
	cr_assert_eq(lk_store_campaign(&ctx, s, "c2", NULL, NULL, &c2), 0);
	cr_assert_eq(lk_store_memprof_find(&ctx, s, c1, "k1", &status,
					   &reason), 0);
	cr_assert_eq(lk_store_memprof_put(&ctx, s, c1, &failed, &id), 0,
		     "%s", ctx.msg);
	cr_assert_eq(lk_store_memprof_find(&ctx, s, c1, "k1", &status,
					   &reason), 1);
	cr_expect_str_eq(status, "failed");
	cr_expect_str_eq(reason, "exit 3");
	free(status);
	free(reason);
	cr_assert_eq(lk_store_memprof_put(&ctx, s, c1, &ok, &id), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_memprof_put(&ctx, s, c2, &ok, &id), 0);
	cr_assert_eq(lk_store_memprof_put(&ctx, s, c1, &plain, &id), 0);
	cr_assert_eq(lk_store_memprof_find(&ctx, s, c1, "k1", &status,
					   &reason), 1);
	cr_expect_str_eq(status, "ok");
	cr_expect_str_eq(reason, "");
	free(status);
	free(reason);
	cr_assert_eq(lk_store_memprof_find(&ctx, s, c2, "k2", &status,
					   &reason), 0);
	lk_store_close(s);
	cr_expect_eq(raw_long("st", "SELECT count(*) FROM memprof_runs"), 3);
	cr_expect_eq(raw_long("st", "SELECT count(*) FROM memprof_runs"
			      " WHERE stage_key IS NULL AND status IS NULL"),
		     1);
	cr_expect_eq(raw_long("st", "SELECT count(*) FROM"
			      " memprof_functions"), 6);
}

Test(store, env_once_per_content)
{
	struct lk_store *s = open_store("st");
	int64_t c1, c2, a, b, d, e;

	lk_store_campaign(&ctx, s, "c1", NULL, NULL, &c1);
	lk_store_campaign(&ctx, s, "c2", NULL, NULL, &c2);
	cr_assert_eq(lk_store_env_put(&ctx, s, c1, "{\"cpu\":1}", &a), 0);
	cr_assert_eq(lk_store_env_put(&ctx, s, c1, "{\"cpu\":1}", &b), 0);
	cr_assert_eq(lk_store_env_put(&ctx, s, c1, "{\"cpu\":2}", &d), 0);
	cr_assert_eq(lk_store_env_put(&ctx, s, c2, "{\"cpu\":1}", &e), 0);
	cr_assert_eq(a, b);
	cr_assert_neq(a, d);
	cr_assert_neq(a, e);
	/* An unknown campaign violates the foreign key. */
	cr_assert_eq(lk_store_env_put(&ctx, s, 999, "{}", &a), LK_ESTORE);
	cr_assert(strstr(ctx.msg, "FOREIGN KEY"), "%s", ctx.msg);
	lk_store_close(s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM environments"), 3);
}

static const struct lk_param axpy_params[] = {
	{"N", "1024"}, {"T", "float"},
};

static struct lk_variant_rec variant(const char *hash,
				     const struct lk_param *p, size_t n)
{
	struct lk_variant_rec v = {
		.hash = hash, .source = "k/axpy.c", .source_hash = "s1",
		.compiler = "gcc", .flagset = "O2",
		.cflags = "-O2 -march=native", .params = p, .nparams = n,
	};

	return v;
}

Test(store, variant_put_idempotent_params_ordered)
{
	static const struct lk_param zyx[] = {
		{"Z", "1"}, {"Y", "2"}, {"X", "3"},
	};
	struct lk_store *s = open_store("st");
	struct lk_variant_rec v = variant("h1", zyx, 3);
	int64_t c, a, b, d;
	long n;

	lk_store_campaign(&ctx, s, "c", NULL, NULL, &c);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v, &a), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v, &b), 0);
	cr_assert_eq(a, b);
	v.hash = "h2";
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v, &d), 0);
	cr_assert_neq(a, d);
	cr_assert_eq(lk_store_variant_count(&ctx, s, c, &n), 0);
	cr_assert_eq(n, 2);
	lk_store_close(s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM variant_params"), 6);
	/* The config's order, not the names' order. */
	cr_assert_eq(raw_long("st", "SELECT group_concat(name, '') = 'ZYX'"
			      " FROM (SELECT name FROM variant_params WHERE"
			      " variant_id = 1 ORDER BY position)"), 1);
}

Test(store, variant_params_rolled_back_with_variant)
{
	static const struct lk_param twice[] = {{"N", "1"}, {"N", "2"}};
	struct lk_store *s = open_store("st");
	struct lk_variant_rec v = variant("h1", twice, 2);
	int64_t c, id;
	long n;

	lk_store_campaign(&ctx, s, "c", NULL, NULL, &c);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v, &id), LK_ESTORE);
	cr_assert(strstr(ctx.msg, "cannot store parameter N of variant h1"),
		  "%s", ctx.msg);
	cr_assert_eq(lk_store_variant_count(&ctx, s, c, &n), 0);
	cr_assert_eq(n, 0, "the variant must go with its parameters");
	lk_store_close(s);
}

Test(store, build_get_put)
{
	struct lk_store *s = open_store("st");
	struct lk_build_rec b = {
		.hash = "bh", .compiler = "gcc", .compiler_version = "12.2",
		.command = "gcc -O2 x.c", .ok = 0, .reason = "error: x",
		.log = "x.c:1: error: x", .binary = NULL, .seconds = 0.25,
	};
	struct lk_build_rec got = {0};
	int64_t first;

	cr_assert_eq(lk_store_build_get(&ctx, s, "bh", &got), LK_ENOTFOUND);
	cr_assert_eq(lk_store_build_put(&ctx, s, &b), 0, "%s", ctx.msg);
	first = b.id;
	cr_assert_gt(first, 0);
	cr_assert_eq(lk_store_build_get(&ctx, s, "bh", &got), 0);
	cr_assert_eq(got.id, first);
	cr_assert_str_eq(got.compiler_version, "12.2");
	cr_assert_str_eq(got.reason, "error: x");
	cr_assert_str_eq(got.binary, "");
	cr_assert_eq(got.ok, 0);
	cr_assert_float_eq(got.seconds, 0.25, 1e-12);
	lk_build_rec_release(&got);
	/* Replace: same id, new content. */
	b.ok = 1;
	b.reason = "";
	b.binary = "objects/ab/cd";
	b.id = 0;
	cr_assert_eq(lk_store_build_put(&ctx, s, &b), 0);
	cr_assert_eq(b.id, first);
	cr_assert_eq(lk_store_build_get(&ctx, s, "bh", &got), 0);
	cr_assert_eq(got.ok, 1);
	cr_assert_str_eq(got.binary, "objects/ab/cd");
	lk_build_rec_release(&got);
	lk_build_rec_release(NULL);
	lk_store_close(s);
}

/* Runs. */

struct run_fixture {
	struct lk_store *s;
	int64_t campaign;
	int64_t variant;
};

static struct run_fixture run_fixture(const char *name)
{
	struct run_fixture f = {.s = open_store(name)};
	struct lk_variant_rec v = variant("vh", axpy_params, 2);

	cr_assert_eq(lk_store_campaign(&ctx, f.s, "c", NULL, NULL,
				       &f.campaign), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, f.s, f.campaign, &v,
					  &f.variant), 0);
	return f;
}

static struct lk_sample_rec *make_samples(size_t n)
{
	struct lk_sample_rec *x = lk_calloc(n ? n : 1, sizeof(*x));
	size_t i;

	for (i = 0; i < n; i++) {
		x[i].process = (int)(i % 3);
		x[i].attempt = 0;
		x[i].region = "roi";
		x[i].idx = (long)i;
		x[i].steps = 10;
		x[i].metric = i % 2 ? "ns" : "tsc";
		x[i].raw = 1000.0 + (double)i;
		x[i].value = 100.0 + (double)i / 10;
	}
	return x;
}

static const struct lk_info_rec two_infos[] = {
	{0, 0, "tsc_hz", "2000000000"}, {0, 0, "cpu", "3"},
};

static const struct lk_result_rec two_results[] = {
	{"roi", "tsc", "tsc", "ticks/step", 1, 12.5, "median", 100, 0.01, "",
	 1},
	{"roi", "cycles", "unsupported", "cycles/step", 0, 0, "median", 0, 0,
	 "unsupported:ENOENT", 0},
};

static struct lk_run_rec make_run(int64_t variant, const char *method_hash,
				  const char *status,
				  const struct lk_sample_rec *samples,
				  size_t nsamples)
{
	struct lk_run_rec r = {
		.variant_id = variant, .method_hash = method_hash,
		.method = "repetitions: 3", .status = status,
		.reason = strcmp(status, "ok") ? "it broke" : "",
		.attempts = 1, .started = 1700000000.5,
		.finished = 1700000001.25, .samples = samples,
		.nsamples = nsamples, .infos = two_infos, .ninfos = 2,
		.results = two_results, .nresults = 2,
	};

	return r;
}

Test(store, run_put_done_results_roundtrip)
{
	struct run_fixture f = run_fixture("st");
	struct lk_sample_rec *x = make_samples(50);
	struct lk_run_rec r = make_run(f.variant, "m1", "ok", x, 50);
	struct lk_result_row *rows;
	char *status = NULL;
	int64_t id = 0;
	size_t n;

	cr_assert_eq(lk_store_run_done(&ctx, f.s, f.variant, "m1", &status), 0);
	cr_assert_null(status);
	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, &id), 0, "%s", ctx.msg);
	cr_assert_gt(id, 0);
	cr_assert_eq(lk_store_run_done(&ctx, f.s, f.variant, "m1", &status), 1);
	cr_assert_str_eq(status, "ok");
	free(status);
	cr_assert_eq(lk_store_run_done(&ctx, f.s, f.variant, "m2", NULL), 0);
	cr_assert_eq(lk_store_results_get(&ctx, f.s, f.variant, "m1", &rows,
					  &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_str_eq(rows[0].metric, "tsc");
	cr_assert(rows[0].has_value && rows[0].primary);
	cr_assert_float_eq(rows[0].value, 12.5, 1e-12);
	cr_assert_eq(rows[0].n, 100);
	cr_assert_str_eq(rows[1].metric, "cycles");
	cr_assert(!rows[1].has_value && !rows[1].primary);
	cr_assert_str_eq(rows[1].flags, "unsupported:ENOENT");
	lk_result_rows_free(rows, n);
	cr_assert_eq(lk_store_results_get(&ctx, f.s, f.variant, "m2", &rows,
					  &n), 0);
	cr_assert_eq(n, 0);
	lk_result_rows_free(rows, n);
	lk_store_close(f.s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM samples"), 50);
	cr_assert_eq(raw_long("st", "SELECT sum(idx) FROM samples"), 49 * 25);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM run_info"), 2);
	cr_assert_eq(raw_long("st", "SELECT build_id IS NULL AND env_id IS"
			      " NULL FROM runs"), 1);
	free(x);
}

Test(store, run_put_replaces_whole_run)
{
	struct run_fixture f = run_fixture("st");
	struct lk_sample_rec *x = make_samples(100);
	struct lk_run_rec r = make_run(f.variant, "m1", "ok", x, 100);
	char *status;

	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), 0);
	r = make_run(f.variant, "m1", "crashed", x, 7);
	r.nresults = 0;
	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), 0);
	cr_assert_eq(lk_store_run_done(&ctx, f.s, f.variant, "m1", &status), 1);
	cr_assert_str_eq(status, "crashed");
	free(status);
	lk_store_close(f.s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM runs"), 1);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM samples"), 7);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM results"), 0);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM run_info"), 2);
	free(x);
}

Test(store, run_put_failure_leaves_nothing)
{
	struct run_fixture f = run_fixture("st");
	struct lk_sample_rec *x = make_samples(100);
	struct lk_run_rec r = make_run(f.variant, "m1", "ok", x, 100);
	struct lk_result_rec bad[2];
	long n;

	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), 0);
	/* A result without a metric fails after samples went in. */
	memcpy(bad, two_results, sizeof(bad));
	bad[1].metric = NULL;
	r.results = bad;
	r.nsamples = 30;
	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), LK_ESTORE);
	cr_assert(strstr(ctx.msg, "cannot store result (null) of run") &&
		  strstr(ctx.msg, "NOT NULL constraint failed"), "%s",
		  ctx.msg);
	/* An unknown variant breaks the foreign key. */
	r = make_run(424242, "m1", "ok", x, 10);
	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), LK_ESTORE);
	cr_assert(strstr(ctx.msg, "FOREIGN KEY"), "%s", ctx.msg);
	r.method_hash = NULL;
	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), LK_EINTERNAL);
	cr_assert_eq(lk_store_run_count(&ctx, f.s, f.campaign, &n), 0);
	cr_assert_eq(n, 1);
	lk_store_close(f.s);
	/* The first run is intact, the failed replacement left no trace. */
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM samples"), 100);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM results"), 2);
	free(x);
}

Test(store, forget_failed_runs)
{
	static const char *const statuses[] = {
		"ok", "unstable", "crashed", "build-failed", "timed-out",
	};
	struct run_fixture f = run_fixture("st");
	struct lk_sample_rec *x = make_samples(10);
	char method[8];
	int64_t other;
	size_t i;
	long n;

	for (i = 0; i < LK_ARRAY_SIZE(statuses); i++) {
		struct lk_run_rec r;

		snprintf(method, sizeof(method), "m%zu", i);
		r = make_run(f.variant, method, statuses[i], x, 10);
		cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), 0);
	}
	/* Another campaign's failures are not touched. */
	lk_store_campaign(&ctx, f.s, "other", NULL, NULL, &other);
	cr_assert_eq(lk_store_runs_forget_failed(&ctx, f.s, other, &n), 0);
	cr_assert_eq(n, 0);
	cr_assert_eq(lk_store_run_count(&ctx, f.s, f.campaign, &n), 0);
	cr_assert_eq(n, 5);
	cr_assert_eq(lk_store_runs_forget_failed(&ctx, f.s, f.campaign, &n),
		     0);
	cr_assert_eq(n, 3);
	cr_assert_eq(lk_store_run_count(&ctx, f.s, f.campaign, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(lk_store_run_done(&ctx, f.s, f.variant, "m2", NULL), 0);
	lk_store_close(f.s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM samples"), 20);
	free(x);
}

/* Insert speed: a property with a generous bound, and the figure logged. */
Test(store, run_put_speed)
{
	struct run_fixture f = run_fixture("st");
	enum { NSAMPLES = 10000, REPEAT = 5 };
	struct lk_sample_rec *x = make_samples(NSAMPLES);
	struct lk_run_rec r = make_run(f.variant, "m1", "ok", x, NSAMPLES);
	double best = 1e9;
	int i;

	for (i = 0; i < REPEAT; i++) {
		double t0 = lk_now();

		cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), 0);
		if (lk_now() - t0 < best)
			best = lk_now() - t0;
	}
	fprintf(stderr, "store: run_put of %d samples (replacing): %.1f ms, "
		"%.0f sample rows/s\n", NSAMPLES, best * 1e3,
		NSAMPLES / best);
	cr_assert_lt(best, 1.0, "10000 samples took %.3f s", best);
	lk_store_close(f.s);
	cr_assert_eq(raw_long("st", "SELECT count(*) FROM samples"), NSAMPLES);
	free(x);
}

/* Export. */

/*
 * Four variants: measured, unstable (a -D named like a fixed column and a
 * cflags needing quotes), never run, crashed (a -D that is not a JSON
 * number although it is all digits).
 */
static struct lk_store *export_fixture(void)
{
	static const struct lk_param p2[] = {{"N", "2048"}, {"metric", "x y"}};
	static const struct lk_param p3[] = {{"N", "4096"}};
	static const struct lk_param p4[] = {{"T", "double"}, {"N", "08"}};
	static const struct lk_result_rec unstable[] = {
		{"roi", "cycles", "tsc-calibrated", "cycles/step", 1,
		 3.0000000000000004, "median", 20, 0.25, "unstable", 1},
	};
	struct lk_store *s = open_store("st");
	struct lk_variant_rec v1 = variant("111111111111aaaa", axpy_params, 2);
	struct lk_variant_rec v2 = variant("222222222222bbbb", p2, 2);
	struct lk_variant_rec v3 = variant("333333333333cccc", p3, 1);
	struct lk_variant_rec v4 = variant("444444444444dddd", p4, 2);
	struct lk_sample_rec *x = make_samples(4);
	struct lk_run_rec r;
	int64_t c, other, id[4];

	v2.compiler = "clang";
	v2.cflags = "-O3 -DS=\"a,b\"";
	lk_store_campaign(&ctx, s, "demo", NULL, NULL, &c);
	lk_store_campaign(&ctx, s, "other", NULL, NULL, &other);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v1, &id[0]), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v2, &id[1]), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v3, &id[2]), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v4, &id[3]), 0);
	v1.params = p3;
	v1.nparams = 1;
	cr_assert_eq(lk_store_variant_put(&ctx, s, other, &v1, &id[2]), 0);
	r = make_run(id[0], "m", "ok", x, 4);
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0);
	/* An older run under another method is not the latest. */
	r = make_run(id[1], "old", "crashed", x, 4);
	r.finished -= 100;
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0);
	r = make_run(id[1], "m", "unstable", x, 4);
	r.reason = "";
	r.results = unstable;
	r.nresults = 1;
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0);
	r = make_run(id[3], "m", "crashed", x, 0);
	r.reason = "signal 11, \"SIGSEGV\"";
	r.nresults = 0;
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0);
	free(x);
	return s;
}

static char *export_to_string(struct lk_store *s, const char *campaign,
			      enum lk_export_format fmt, int expect)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cr_assert_eq(lk_store_export(&ctx, s, campaign, fmt, f), expect, "%s",
		     ctx.msg);
	fclose(f);
	return text;
}

Test(store, export_csv)
{
	static const char want[] =
		"campaign,variant,name,source,compiler,flagset,cflags,N,T,"
		"D_metric,region,metric,value,unit,metric_source,reducer,samples,spread,"
		"primary,status,flags,reason\n"
		"demo,111111111111,axpy.c gcc O2 N=1024 T=float,k/axpy.c,gcc,"
		"O2,-O2 -march=native,1024,float,,roi,tsc,12.5,ticks/step,tsc,median,100,0.01,1,ok,\"\","
		"\"\"\n"
		"demo,111111111111,axpy.c gcc O2 N=1024 T=float,k/axpy.c,gcc,"
		"O2,-O2 -march=native,1024,float,,roi,cycles,,cycles/step,unsupported,median,0,0,0,ok,"
		"unsupported:ENOENT,\"\"\n"
		"demo,222222222222,axpy.c clang O2 N=2048 metric=x y,k/axpy.c,"
		"clang,O2,\"-O3 -DS=\"\"a,b\"\"\","
		"2048,,x y,roi,cycles,3.0000000000000004,cycles/step,"
		"tsc-calibrated,median,20,0.25,1,unstable,unstable,\"\"\n"
		"demo,333333333333,axpy.c gcc O2 N=4096,k/axpy.c,gcc,O2,-O2 -march=native,4096,,,"
		",,,,,,,,,pending,,\n"
		"demo,444444444444,axpy.c gcc O2 T=double N=08,k/axpy.c,gcc,O2,-O2 -march=native,08,double,"
		",,,,,,,,,,crashed,,\"signal 11, \"\"SIGSEGV\"\"\"\n";
	struct lk_store *s = export_fixture();
	char *got = export_to_string(s, "demo", LK_EXPORT_CSV, 0);

	cr_assert_str_eq(got, want);
	free(got);
	lk_store_close(s);
}

Test(store, export_json)
{
	static const char want[] =
		"[\n"
		"{\"campaign\": \"demo\", \"variant\": \"111111111111\", "
		"\"name\": \"axpy.c gcc O2 N=1024 T=float\", \"source\": \"k/axpy.c\", \"compiler\": \"gcc\", "
		"\"flagset\": \"O2\", \"cflags\": \"-O2 -march=native\", "
		"\"N\": 1024, \"T\": \"float\", \"D_metric\": null, "
		"\"region\": \"roi\", \"metric\": \"tsc\", \"value\": 12.5, "
		"\"unit\": \"ticks/step\", \"metric_source\": \"tsc\", "
		"\"reducer\": \"median\", \"samples\": 100, \"spread\": 0.01, "
		"\"primary\": 1, \"status\": \"ok\", \"flags\": \"\", "
		"\"reason\": \"\"},\n"
		"{\"campaign\": \"demo\", \"variant\": \"111111111111\", "
		"\"name\": \"axpy.c gcc O2 N=1024 T=float\", \"source\": \"k/axpy.c\", \"compiler\": \"gcc\", "
		"\"flagset\": \"O2\", \"cflags\": \"-O2 -march=native\", "
		"\"N\": 1024, \"T\": \"float\", \"D_metric\": null, "
		"\"region\": \"roi\", \"metric\": \"cycles\", \"value\": null, "
		"\"unit\": \"cycles/step\", "
		"\"metric_source\": \"unsupported\", "
		"\"reducer\": \"median\", \"samples\": 0, \"spread\": 0, "
		"\"primary\": 0, \"status\": \"ok\", "
		"\"flags\": \"unsupported:ENOENT\", \"reason\": \"\"},\n"
		"{\"campaign\": \"demo\", \"variant\": \"222222222222\", "
		"\"name\": \"axpy.c clang O2 N=2048 metric=x y\", \"source\": \"k/axpy.c\", \"compiler\": \"clang\", "
		"\"flagset\": \"O2\", \"cflags\": \"-O3 -DS=\\\"a,b\\\"\", "
		"\"N\": 2048, \"T\": null, \"D_metric\": \"x y\", "
		"\"region\": \"roi\", \"metric\": \"cycles\", "
		"\"value\": 3.0000000000000004, \"unit\": \"cycles/step\", "
		"\"metric_source\": \"tsc-calibrated\", "
		"\"reducer\": \"median\", "
		"\"samples\": 20, \"spread\": 0.25, \"primary\": 1, "
		"\"status\": \"unstable\", \"flags\": \"unstable\", "
		"\"reason\": \"\"},\n"
		"{\"campaign\": \"demo\", \"variant\": \"333333333333\", "
		"\"name\": \"axpy.c gcc O2 N=4096\", \"source\": \"k/axpy.c\", \"compiler\": \"gcc\", "
		"\"flagset\": \"O2\", \"cflags\": \"-O2 -march=native\", "
		"\"N\": 4096, \"T\": null, \"D_metric\": null, "
		"\"region\": null, \"metric\": null, \"value\": null, "
		"\"unit\": null, \"metric_source\": null, \"reducer\": null, "
		"\"samples\": null, \"spread\": null, \"primary\": null, "
		"\"status\": \"pending\", \"flags\": null, \"reason\": null},\n"
		"{\"campaign\": \"demo\", \"variant\": \"444444444444\", "
		"\"name\": \"axpy.c gcc O2 T=double N=08\", \"source\": \"k/axpy.c\", \"compiler\": \"gcc\", "
		"\"flagset\": \"O2\", \"cflags\": \"-O2 -march=native\", "
		"\"N\": \"08\", \"T\": \"double\", \"D_metric\": null, "
		"\"region\": null, \"metric\": null, \"value\": null, "
		"\"unit\": null, \"metric_source\": null, \"reducer\": null, "
		"\"samples\": null, \"spread\": null, \"primary\": null, "
		"\"status\": \"crashed\", \"flags\": null, "
		"\"reason\": \"signal 11, \\\"SIGSEGV\\\"\"}\n"
		"]\n";
	struct lk_store *s = export_fixture();
	char *got = export_to_string(s, "demo", LK_EXPORT_JSON, 0);

	cr_assert_str_eq(got, want);
	free(got);
	lk_store_close(s);
}

Test(store, export_every_campaign)
{
	struct lk_store *s = export_fixture();
	char *got = export_to_string(s, NULL, LK_EXPORT_CSV, 0);
	const char *last = strrchr(got, '\n');
	size_t lines = 0;
	const char *p;

	for (p = got; *p; p++)
		lines += *p == '\n';
	/* Header, five rows of demo, one pending row of 'other'. */
	cr_assert_eq(lines, 7, "%s", got);
	cr_assert_not_null(last);
	cr_assert(strstr(got, "\nother,111111111111,axpy.c gcc O2 N=4096,"
			 "k/axpy.c,gcc,O2,"
			 "-O2 -march=native,4096,,,,,,,,,,,,pending,,\n"),
		  "%s", got);
	free(got);
	lk_store_close(s);
}

Test(store, export_empty_and_unknown)
{
	struct lk_store *s = open_store("st");
	char *got;
	int64_t c;

	got = export_to_string(s, NULL, LK_EXPORT_JSON, 0);
	cr_assert_str_eq(got, "[]\n");
	free(got);
	got = export_to_string(s, "x", LK_EXPORT_CSV, LK_ENOTFOUND);
	cr_assert_str_eq(got, "");
	cr_assert(strstr(ctx.msg, "no campaign 'x' in") &&
		  strstr(ctx.msg, "the store has no campaigns"), "%s", ctx.msg);
	free(got);
	lk_store_campaign(&ctx, s, "alpha", NULL, NULL, &c);
	lk_store_campaign(&ctx, s, "beta", NULL, NULL, &c);
	got = export_to_string(s, "gamma", LK_EXPORT_CSV, LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "; campaigns: alpha, beta"), "%s", ctx.msg);
	free(got);
	got = export_to_string(s, "beta", LK_EXPORT_CSV, 0);
	cr_assert_str_eq(got, "campaign,variant,name,source,compiler,"
			 "flagset,cflags,region,metric,value,unit,metric_source,"
			 "reducer,samples,spread,primary,status,flags,"
			 "reason\n");
	free(got);
	lk_store_close(s);
}

/* Crash safety. */

enum { CRASH_VARIANTS = 6, CRASH_MAX_SAMPLES = 4000 };

/*
 * Run k: its sizes follow from k and are written into its method text.
 * progress[0] counts run_put calls begun, progress[1] those returned, in
 * a page shared with the parent, which so learns where the kill landed.
 */
static void crash_writer(const char *dir, const int64_t *variants, int fd,
			 volatile long *progress)
{
	struct lk_sample_rec *x = make_samples(CRASH_MAX_SAMPLES);
	struct lk_result_rec results[4];
	struct lk_store *s;
	char method[64], hash[16];
	long k;

	if (lk_store_open(&ctx, dir, 0, &s))
		_exit(3);
	for (k = 0; k < 4; k++)
		results[k] = two_results[k % 2];
	if (write(fd, "x", 1) != 1)
		_exit(4);
	for (k = 0; k < 1000000; k++) {
		struct lk_run_rec r;
		size_t ns = 1 + (size_t)(k * 7919) % CRASH_MAX_SAMPLES;
		size_t nr = 1 + (size_t)k % 4;

		snprintf(hash, sizeof(hash), "m%ld", k / CRASH_VARIANTS % 3);
		snprintf(method, sizeof(method), "%zu %zu", ns, nr);
		r = make_run(variants[k % CRASH_VARIANTS], hash, "ok", x, ns);
		r.method = method;
		r.results = results;
		r.nresults = nr;
		progress[0] = k + 1;
		if (lk_store_run_put(&ctx, s, &r, NULL))
			_exit(2);
		progress[1] = k + 1;
	}
	_exit(0);
}

/* Every run holds exactly what its method text says, nothing dangles. */
static long check_runs(const char *name)
{
	sqlite3 *db = raw_open(name);
	sqlite3_stmt *st;
	long runs = 0;

	cr_assert_eq(raw_long_db(db, "SELECT count(*) FROM"
				 " pragma_integrity_check"
				 " WHERE integrity_check = 'ok'"), 1);
	cr_assert_eq(raw_long_db(db, "SELECT count(*) FROM samples WHERE"
				 " run_id NOT IN (SELECT id FROM runs)"), 0);
	cr_assert_eq(sqlite3_prepare_v2(db,
		"SELECT r.method, (SELECT count(*) FROM samples WHERE"
		" run_id = r.id), (SELECT sum(idx) FROM samples WHERE"
		" run_id = r.id), (SELECT count(*) FROM results WHERE"
		" run_id = r.id), (SELECT count(*) FROM run_info WHERE"
		" run_id = r.id) FROM runs r", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		long ns = 0, nr = 0;

		cr_assert_eq(sscanf((const char *)sqlite3_column_text(st, 0),
				    "%ld %ld", &ns, &nr), 2);
		cr_assert_eq(sqlite3_column_int64(st, 1), ns);
		cr_assert_eq(sqlite3_column_int64(st, 2), ns * (ns - 1) / 2);
		cr_assert_eq(sqlite3_column_int64(st, 3), nr);
		cr_assert_eq(sqlite3_column_int64(st, 4), 2);
		runs++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return runs;
}

/* Returns 1 when the writer died inside lk_store_run_put. */
static int kill_writer_once(const char *dir, const int64_t *variants,
			    volatile long *progress)
{
	int fds[2], status;
	char byte;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		crash_writer(dir, variants, fds[1], progress);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &byte, 1), 1, "writer did not start");
	close(fds[0]);
	usleep(5000 + (useconds_t)(rand() % 150) * 1000);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		  "writer ended on its own: status %#x", status);
	return progress[0] != progress[1];
}

Test(store, kill_9_leaves_whole_runs, .timeout = 120)
{
	struct lk_store *s = open_store("st");
	int64_t c, variants[CRASH_VARIANTS];
	char *dir = sub("st"), hash[16];
	long runs = 0, *progress;
	int i, inside = 0;

	progress = mmap(NULL, 2 * sizeof(long), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(progress, MAP_FAILED);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	lk_store_campaign(&ctx, s, "c", NULL, NULL, &c);
	for (i = 0; i < CRASH_VARIANTS; i++) {
		struct lk_variant_rec v = variant(hash, axpy_params, 2);

		snprintf(hash, sizeof(hash), "v%d", i);
		cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v,
						  &variants[i]), 0);
	}
	lk_store_close(s);
	for (i = 0; i < 8; i++) {
		progress[0] = progress[1] = 0;
		inside += kill_writer_once(dir, variants, progress);
		/* Reopening recovers the WAL; then check the properties. */
		s = open_store("st");
		lk_store_close(s);
		runs = check_runs("st");
	}
	cr_assert_gt(runs, 0, "no run was ever committed");
	/* Else the test proved nothing: the writer is mostly in run_put. */
	cr_assert_gt(inside, 0, "no kill landed inside lk_store_run_put");
	fprintf(stderr, "store: %d of 8 kills landed inside run_put, %ld "
		"whole runs after the last\n", inside, runs);
	munmap(progress, 2 * sizeof(long));
	free(dir);
}

/* The analysis stages' view: a variant, its latest run's build, its
 * parameters; a variant never run is "pending", with no binary unless
 * gen -c built it. */
Test(store, variant_binaries)
{
	struct run_fixture f = run_fixture("vb");
	struct lk_variant_rec v2 = variant("vh2", axpy_params, 1);
	struct lk_build_rec b = {
		.hash = "bh", .compiler = "gcc", .ok = 1, .reason = "",
		.binary = "objects/ab/cd",
	};
	struct lk_run_rec r = make_run(f.variant, "m1", "ok", NULL, 0);
	struct lk_variant_binary *rows;
	int64_t other;
	size_t n;

	cr_assert_eq(lk_store_variant_put(&ctx, f.s, f.campaign, &v2, &other),
		     0);
	cr_assert_eq(lk_store_build_put(&ctx, f.s, &b), 0, "%s", ctx.msg);
	r.build_id = b.id;
	cr_assert_eq(lk_store_run_put(&ctx, f.s, &r, NULL), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_variant_binaries(&ctx, f.s, f.campaign, &rows,
					       &n), 0, "%s", ctx.msg);
	cr_assert_eq(n, 2);
	cr_assert_eq(rows[0].variant_id, f.variant);
	cr_assert_eq(rows[0].build_id, b.id);
	cr_assert_str_eq(rows[0].run_status, "ok");
	cr_assert(strstr(rows[0].binary, "/objects/ab/cd"),
		  "%s", rows[0].binary);
	cr_assert_eq(rows[0].binary[0], '/');
	cr_assert_eq(rows[0].nparams, 2);
	cr_assert_str_eq(rows[0].params[0].name, axpy_params[0].name);
	cr_assert_eq(rows[1].variant_id, other);
	cr_assert_str_eq(rows[1].run_status, "pending");
	cr_assert_str_eq(rows[1].binary, "");
	cr_assert_eq(rows[1].nparams, 1);
	lk_variant_binaries_free(rows, n);
	/* Built by gen -c, never run: its build's binary, still pending. */
	cr_assert_eq(lk_store_variant_builds_set(&ctx, f.s, &other, &b.id,
						 1), 0, "%s", ctx.msg);
	cr_assert_eq(lk_store_variant_binaries(&ctx, f.s, f.campaign, &rows,
					       &n), 0, "%s", ctx.msg);
	cr_assert_eq(rows[1].build_id, b.id);
	cr_assert_str_eq(rows[1].run_status, "pending");
	cr_assert(strstr(rows[1].binary, "/objects/ab/cd"),
		  "%s", rows[1].binary);
	lk_variant_binaries_free(rows, n);
	lk_store_close(f.s);
}

/* Variant names. */

/* What gen stores: the sweep's axes, then its own parameters. */
static const struct lk_param gemm_tiled[] = {
	{"N", "400"}, {"MINI_DATASET", ""}, {"kernel", "gemm"},
	{"family", "kernels"},
	{"transformation", "isl+tile,sizes=32x32+kernelify"},
	{"tile.sizes", "32x32"}, {"working_set_bytes", "31760"},
	{"kernel.loop", "c5"}, {"fixed.c0", "32"},
};
static const char gemm_object[] =
	"loopkit.d/objects/ce/b4179ab0c3ccd28f61c8b22c36f7e1.c";

Test(store, variant_names)
{
	static const struct lk_param plain[] = {{"N", "1000"}, {"T", "f"}};
	static const struct lk_param half[] = {{"kernel", "x"}, {"N", "1"}};
	static const struct lk_param empty[] = {
		{"kernel", ""}, {"transformation", "original"}};
	char *name;

	name = lk_variant_name(gemm_object, "gcc", "O2", gemm_tiled,
			       LK_ARRAY_SIZE(gemm_tiled));
	cr_assert_str_eq(name, "gemm isl+tile,sizes=32x32+kernelify gcc O2 "
			       "N=400 MINI_DATASET");
	free(name);
	cr_assert(lk_variant_generated(gemm_tiled, LK_ARRAY_SIZE(gemm_tiled)));
	cr_assert_str_eq(lk_variant_source_name(gemm_object, gemm_tiled, 9),
			 "gemm");
	/* Only the axes before kernel=: none here. */
	name = lk_variant_name(gemm_object, "clang", "O3", gemm_tiled + 2, 3);
	cr_assert_str_eq(name, "gemm isl+tile,sizes=32x32+kernelify clang O3");
	free(name);
	/* A user's own kernel keeps its file name and every parameter. */
	name = lk_variant_name("/home/u/kernel.c", "gcc", "O2", plain, 2);
	cr_assert_str_eq(name, "kernel.c gcc O2 N=1000 T=f");
	free(name);
	name = lk_variant_name("kernel.c", "gcc", "O2", NULL, 0);
	cr_assert_str_eq(name, "kernel.c gcc O2");
	free(name);
	/* kernel= alone, or an empty one, is a parameter like any other. */
	name = lk_variant_name("a/k.c", "gcc", "O2", half, 2);
	cr_assert_str_eq(name, "k.c gcc O2 kernel=x N=1");
	free(name);
	cr_assert(!lk_variant_generated(empty, 2));
	cr_assert_str_eq(lk_variant_source_name("a/k.c", empty, 2), "k.c");
	cr_assert_null(lk_variant_param(plain, 2, "kernel"));
	cr_assert_str_eq(lk_variant_param(plain, 2, "T"), "f");
}

Test(store, export_names_generated_variants)
{
	struct lk_store *s = open_store("gen");
	struct lk_variant_rec v = variant("555555555555eeee", gemm_tiled,
					  LK_ARRAY_SIZE(gemm_tiled));
	char *got;
	int64_t c, id;

	v.source = gemm_object;
	lk_store_campaign(&ctx, s, "g", NULL, NULL, &c);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &v, &id), 0);
	got = export_to_string(s, "g", LK_EXPORT_CSV, 0);
	cr_assert(strstr(got, "\ng,555555555555,\"gemm isl+tile,sizes=32x32+"
			      "kernelify gcc O2 N=400 MINI_DATASET\","),
		  "%s", got);
	free(got);
	lk_store_close(s);
}

/* One writer at a time; damaged stores. */

/* A child holding dir as a writer until it is killed. */
static pid_t hold_in_child(const char *dir)
{
	int fds[2];
	char byte;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct lk_store *s;

		close(fds[0]);
		if (lk_store_open(&ctx, dir, 0, &s) ||
		    write(fds[1], "x", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &byte, 1), 1, "the holder did not start");
	close(fds[0]);
	return pid;
}

/* Criterion renames its workers: the holder is "boxfort-worker". */
Test(store, second_writer_is_refused)
{
	struct lk_store *s = open_store("w"), *r = NULL;
	char *dir = sub("w"), pid_text[32], msg[sizeof(ctx.msg)];
	int64_t c;
	pid_t pid;
	int status, as_writer, as_creator, as_reader;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &c), 0);
	lk_store_close(s);
	pid = hold_in_child(dir);
	s = NULL;
	as_writer = lk_store_open(&ctx, dir, 0, &s);
	strcpy(msg, ctx.msg);
	as_creator = lk_store_open(&ctx, dir, LK_STORE_CREATE, &s);
	/* A reader works beside the writer. */
	as_reader = lk_store_open(&ctx, dir, LK_STORE_READER, &r);
	lk_store_close(r);
	/* The kernel drops the lock of a killed holder. */
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(as_writer, LK_ESTORE);
	cr_assert_eq(as_creator, LK_ESTORE);
	cr_assert_null(s);
	snprintf(pid_text, sizeof(pid_text), " (pid %d); ", (int)pid);
	cr_assert(strstr(msg, "w/store.db: in use by ") &&
		  strstr(msg, pid_text) &&
		  strstr(msg, "wait for it to finish or use another -o DIR"),
		  "%s", msg);
	cr_assert_eq(as_reader, 0, "%s", ctx.msg);
	s = open_store("w");
	lk_store_close(s);
	free(dir);
}

/* 0 when another open file description could take the lock now. */
static int lock_is_free(const char *name)
{
	char *dir = sub(name), *path = lk_path_join(dir, "store.lock");
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	ret = flock(fd, LOCK_EX | LOCK_NB);
	close(fd);
	free(dir);
	free(path);
	return ret == 0;
}

/* A campaign opens the store, then each stage opens it again. */
Test(store, handles_of_one_process_share_the_lock)
{
	struct lk_store *a = open_store("p"), *b = open_store("p");

	lk_store_close(a);
	cr_assert(!lock_is_free("p"), "b no longer holds the lock");
	lk_store_close(b);
	cr_assert(lock_is_free("p"), "the lock outlived its last handle");
}

/* Fill d with one big run, then write 0xa5 over a page in the middle. */
static void damage_store(const char *name)
{
	struct lk_store *s = open_store(name);
	struct lk_sample_rec *x = make_samples(20000);
	struct lk_variant_rec vr = variant("v", axpy_params, 2);
	struct lk_run_rec r;
	char *dir = sub(name), *path = lk_path_join(dir, "store.db");
	char page[65536];
	long size = raw_long(name, "PRAGMA page_size"), pages;
	int64_t c, v;
	int fd;

	cr_assert_eq(lk_store_campaign(&ctx, s, "c", NULL, NULL, &c), 0);
	cr_assert_eq(lk_store_variant_put(&ctx, s, c, &vr, &v), 0);
	r = make_run(v, "m", "ok", x, 20000);
	cr_assert_eq(lk_store_run_put(&ctx, s, &r, NULL), 0, "%s", ctx.msg);
	lk_store_close(s); /* the last close folds the WAL into store.db */
	pages = file_size(name) / size;
	cr_assert_gt(pages, 20);
	memset(page, 0xa5, sizeof(page));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, page, (size_t)size, pages / 2 * size), size);
	close(fd);
	free(x);
	free(dir);
	free(path);
}

Test(store, damaged_page_is_refused)
{
	struct lk_store *s = NULL;
	char *dir = sub("d"), *path = lk_path_join(dir, "store.db");
	char *before, *after;
	size_t n_before, n_after;

	damage_store("d");
	cr_assert_eq(lk_file_read(&ctx, path, &before, &n_before), 0);
	cr_assert_eq(lk_store_open(&ctx, dir, 0, &s), LK_ESTORE);
	cr_assert_null(s);
	cr_assert(strstr(ctx.msg, "d/store.db: the store is damaged (") &&
		  strstr(ctx.msg, "nothing was written to it") &&
		  !strchr(ctx.msg, '\n'), "%s", ctx.msg);
	cr_assert_eq(lk_store_open(&ctx, dir, LK_STORE_READER, &s),
		     LK_ESTORE);
	cr_assert(strstr(ctx.msg, "the store is damaged"), "%s", ctx.msg);
	cr_assert_eq(lk_file_read(&ctx, path, &after, &n_after), 0);
	cr_assert(n_before == n_after && !memcmp(before, after, n_after),
		  "a refused open changed the file");
	free(before);
	free(after);
	free(path);
	free(dir);
}
