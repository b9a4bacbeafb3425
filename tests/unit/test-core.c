/*
 * core: strings, parsing, hashing, files and paths, the thread pool, the
 * error context, and the one subprocess module.
 *
 * Tests that touch the file system get their own mkdtemp directory (the
 * "files" and "proc" suites' fixtures), so they run in parallel. Timing is
 * checked as bounds, never as exact values.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loopkit/core.h"
#include "loopkit/subprocess.h"

static struct lk_ctx ctx;
static char tmpdir[64];

static void setup(void)
{
	lk_ctx_init(&ctx);
}

static void setup_tmpdir(void)
{
	lk_ctx_init(&ctx);
	strcpy(tmpdir, "/tmp/lk-test-core.XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	return remove(path);
}

static void remove_tmpdir(void)
{
	nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A path inside this test's directory; the caller frees it. */
static char *tmp_path(const char *name)
{
	return lk_path_join(tmpdir, name);
}

static void write_file(const char *path, const char *text, int mode)
{
	cr_assert_eq(lk_file_write_atomic(&ctx, path, text, strlen(text)), 0,
		     "%s", ctx.msg);
	cr_assert_eq(chmod(path, (mode_t)mode), 0);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* ---- lk_buf ---------------------------------------------------------- */

TestSuite(buf, .init = setup);

Test(buf, empty_buffer_reads_as_empty_string)
{
	struct lk_buf b = LK_BUF_INIT;
	char *s;

	cr_assert_str_eq(lk_buf_str(&b), "");
	s = lk_buf_detach(&b);
	cr_assert_str_eq(s, "");
	free(s);
}

Test(buf, add_appends_exactly_len_bytes)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_add(&b, "abcdef", 3);
	lk_buf_adds(&b, "xy");
	lk_buf_addch(&b, '!');
	cr_assert_str_eq(lk_buf_str(&b), "abcxy!");
	cr_assert_eq(b.len, 6);
	lk_buf_release(&b);
	cr_assert_null(b.buf);
	cr_assert_eq(b.len, 0);
}

Test(buf, add_keeps_embedded_nul_bytes)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_add(&b, "a\0b", 3);
	cr_assert_eq(b.len, 3);
	cr_assert_eq(memcmp(b.buf, "a\0b", 4), 0);
	lk_buf_release(&b);
}

Test(buf, reset_empties_but_keeps_working)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_adds(&b, "hello");
	lk_buf_reset(&b);
	cr_assert_str_eq(lk_buf_str(&b), "");
	cr_assert_eq(b.len, 0);
	lk_buf_adds(&b, "again");
	cr_assert_str_eq(lk_buf_str(&b), "again");
	lk_buf_release(&b);
}

Test(buf, addf_grows_past_many_kib)
{
	struct lk_buf b = LK_BUF_INIT;
	char expect[16];
	int i;

	for (i = 0; i < 20000; i++)
		lk_buf_addf(&b, "%05d,", i);
	cr_assert_eq(b.len, 20000 * 6);
	cr_assert_eq(strlen(lk_buf_str(&b)), b.len);
	for (i = 0; i < 20000; i += 997) {
		snprintf(expect, sizeof(expect), "%05d,", i);
		cr_assert_eq(memcmp(b.buf + i * 6, expect, 6), 0, "at %d", i);
	}
	lk_buf_release(&b);
}

Test(buf, addf_of_one_long_argument)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t n = 100000;
	char *big = lk_malloc(n + 1);

	memset(big, 'x', n);
	big[n] = '\0';
	lk_buf_adds(&b, "<");
	lk_buf_addf(&b, "%s>%d", big, 42);
	cr_assert_eq(b.len, n + 4);
	cr_assert_eq(b.buf[0], '<');
	cr_assert_str_eq(b.buf + n + 1, ">42");
	free(big);
	lk_buf_release(&b);
}

static void check_json(const char *in, const char *expect)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_add_json_str(&b, in);
	cr_assert_str_eq(lk_buf_str(&b), expect);
	lk_buf_release(&b);
}

Test(buf, json_plain_string_is_quoted)
{
	check_json("", "\"\"");
	check_json("triad", "\"triad\"");
}

Test(buf, json_escapes_quote_and_backslash)
{
	check_json("say \"hi\"", "\"say \\\"hi\\\"\"");
	check_json("C:\\dir\\", "\"C:\\\\dir\\\\\"");
}

Test(buf, json_escapes_control_characters)
{
	check_json("a\nb\rc\td", "\"a\\nb\\rc\\td\"");
	check_json("\x01\x1f", "\"\\u0001\\u001f\"");
}

Test(buf, json_passes_utf8_and_del_through)
{
	check_json("caf\xc3\xa9 \x7f", "\"caf\xc3\xa9 \x7f\"");
}

static void check_csv(const char *in, const char *expect)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_add_csv_field(&b, in);
	cr_assert_str_eq(lk_buf_str(&b), expect, "field '%s'", in);
	lk_buf_release(&b);
}

Test(buf, csv_plain_field_is_bare)
{
	check_csv("triad.c", "triad.c");
	check_csv("-O2 -march=native", "-O2 -march=native");
}

Test(buf, csv_quotes_when_needed)
{
	check_csv("a,b", "\"a,b\"");
	check_csv("line\nbreak", "\"line\nbreak\"");
	check_csv("cr\r", "\"cr\r\"");
	check_csv(" leading", "\" leading\"");
	check_csv("", "\"\"");
}

Test(buf, csv_doubles_quotes)
{
	check_csv("say \"hi\"", "\"say \"\"hi\"\"\"");
}

/* ---- lk_strv --------------------------------------------------------- */

TestSuite(strv, .init = setup);

/* Split s, check the words against the NULL-terminated list. */
static void check_split(const char *s, const char *const *words)
{
	struct lk_strv sv = LK_STRV_INIT;
	size_t i;

	cr_assert_eq(lk_strv_split(&ctx, &sv, s), 0, "'%s': %s", s, ctx.msg);
	for (i = 0; words[i]; i++) {
		cr_assert_lt(i, sv.n, "'%s': only %zu words", s, sv.n);
		cr_assert_str_eq(sv.v[i], words[i], "'%s' word %zu", s, i);
	}
	cr_assert_eq(sv.n, i, "'%s': %zu words, expected %zu", s, sv.n, i);
	if (sv.n)
		cr_assert_null(sv.v[sv.n]);
	lk_strv_release(&sv);
}

Test(strv, split_plain_words)
{
	check_split("-O2 -march=native", (const char *[]){"-O2",
		    "-march=native", NULL});
	check_split("  a \t b\n c  ", (const char *[]){"a", "b", "c", NULL});
}

Test(strv, split_empty_and_blank_give_no_words)
{
	struct lk_strv sv = LK_STRV_INIT;

	cr_assert_eq(lk_strv_split(&ctx, &sv, ""), 0);
	cr_assert_eq(sv.n, 0);
	cr_assert_eq(lk_strv_split(&ctx, &sv, " \t\n "), 0);
	cr_assert_eq(sv.n, 0);
	lk_strv_release(&sv);
}

Test(strv, split_single_quotes_are_literal)
{
	check_split("'a b' '\\n' 'x\"y'", (const char *[]){"a b", "\\n",
		    "x\"y", NULL});
}

Test(strv, split_double_quotes_group_and_escape)
{
	check_split("\"a b\" \"say \\\"hi\\\"\"", (const char *[]){"a b",
		    "say \"hi\"", NULL});
}

Test(strv, split_quotes_join_adjacent_text)
{
	check_split("-DMSG=\"hello world\"!", (const char *[]){
		    "-DMSG=hello world!", NULL});
	check_split("a'b'\"c\"d", (const char *[]){"abcd", NULL});
}

Test(strv, split_empty_quotes_make_an_empty_word)
{
	check_split("a '' \"\" b", (const char *[]){"a", "", "", "b", NULL});
}

Test(strv, split_backslash_escapes_outside_quotes)
{
	check_split("a\\ b c\\'d \\\\", (const char *[]){"a b", "c'd", "\\",
		    NULL});
}

Test(strv, split_appends_to_existing_words)
{
	struct lk_strv sv = LK_STRV_INIT;

	lk_strv_push(&sv, "gcc");
	cr_assert_eq(lk_strv_split(&ctx, &sv, "-O2 -g"), 0);
	cr_assert_eq(sv.n, 3);
	cr_assert_str_eq(sv.v[0], "gcc");
	cr_assert_str_eq(sv.v[2], "-g");
	lk_strv_release(&sv);
}

Test(strv, split_unbalanced_single_quote_is_input_error)
{
	struct lk_strv sv = LK_STRV_INIT;

	cr_assert_eq(lk_strv_split(&ctx, &sv, "-O2 'oops"), LK_EINPUT);
	cr_assert_eq(ctx.code, LK_EINPUT);
	cr_assert(strstr(ctx.msg, "unbalanced"), "msg: %s", ctx.msg);
	cr_assert(strchr(ctx.msg, '\''), "msg: %s", ctx.msg);
	lk_strv_release(&sv);
}

Test(strv, split_unbalanced_double_quote_is_input_error)
{
	struct lk_strv sv = LK_STRV_INIT;

	cr_assert_eq(lk_strv_split(&ctx, &sv, "\"a 'b' c"), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "unbalanced \""), "msg: %s", ctx.msg);
	lk_strv_release(&sv);
}

Test(strv, join_with_separator)
{
	struct lk_strv sv = LK_STRV_INIT;
	char *s;

	s = lk_strv_join(&sv, " ");
	cr_assert_str_eq(s, "");
	free(s);
	lk_strv_push(&sv, "one");
	s = lk_strv_join(&sv, ", ");
	cr_assert_str_eq(s, "one");
	free(s);
	lk_strv_push(&sv, "two words");
	lk_strv_pushf(&sv, "%d", 3);
	s = lk_strv_join(&sv, ", ");
	cr_assert_str_eq(s, "one, two words, 3");
	free(s);
	lk_strv_release(&sv);
	cr_assert_null(sv.v);
	cr_assert_eq(sv.n, 0);
}

Test(strv, push_take_keeps_pointer_and_null_terminates)
{
	struct lk_strv sv = LK_STRV_INIT;
	char *s = lk_strdup("owned");
	int i;

	lk_strv_push_take(&sv, s);
	cr_assert_eq(sv.v[0], s);
	for (i = 0; i < 100; i++)
		lk_strv_pushf(&sv, "w%d", i);
	cr_assert_eq(sv.n, 101);
	cr_assert_str_eq(sv.v[100], "w99");
	cr_assert_null(sv.v[101]);
	lk_strv_release(&sv);
}

/* ---- parse helpers --------------------------------------------------- */

TestSuite(parse, .init = setup);

Test(parse, long_accepts_whole_numbers)
{
	long v;

	cr_assert_eq(lk_parse_long("42", &v), 0);
	cr_assert_eq(v, 42);
	cr_assert_eq(lk_parse_long("-7", &v), 0);
	cr_assert_eq(v, -7);
	cr_assert_eq(lk_parse_long("0x10", &v), 0);
	cr_assert_eq(v, 16);
}

Test(parse, long_rejects_junk_and_leaves_output_alone)
{
	static const char *const bad[] = {"", "12abc", "1.5", "abc", "4 ",
					  "99999999999999999999999"};
	size_t i;
	long v = 123;

	for (i = 0; i < LK_ARRAY_SIZE(bad); i++)
		cr_assert_eq(lk_parse_long(bad[i], &v), LK_EINPUT, "'%s'",
			     bad[i]);
	cr_assert_eq(lk_parse_long(NULL, &v), LK_EINPUT);
	cr_assert_eq(v, 123);
}

Test(parse, double_accepts_numbers)
{
	double v;

	cr_assert_eq(lk_parse_double("1.5", &v), 0);
	cr_assert_float_eq(v, 1.5, 1e-15);
	cr_assert_eq(lk_parse_double("-2e3", &v), 0);
	cr_assert_float_eq(v, -2000, 1e-12);
	cr_assert_eq(lk_parse_double("7", &v), 0);
	cr_assert_float_eq(v, 7, 1e-15);
}

Test(parse, double_rejects_junk_and_overflow)
{
	static const char *const bad[] = {"", "1.5x", "abc", "1e999", "1,5",
					  "2.0 "};
	size_t i;
	double v = 9;

	for (i = 0; i < LK_ARRAY_SIZE(bad); i++)
		cr_assert_eq(lk_parse_double(bad[i], &v), LK_EINPUT, "'%s'",
			     bad[i]);
	cr_assert_eq(lk_parse_double(NULL, &v), LK_EINPUT);
	cr_assert_float_eq(v, 9, 1e-15);
}

/* ---- lk_hash --------------------------------------------------------- */

TestSuite(hash, .init = setup);

static void hash_strs(const char *a, const char *b, char out[LK_HASH_HEX])
{
	struct lk_hash h;

	lk_hash_init(&h);
	lk_hash_add_str(&h, a);
	lk_hash_add_str(&h, b);
	lk_hash_final(&h, out);
}

Test(hash, is_32_lower_case_hex_digits)
{
	char key[LK_HASH_HEX];

	lk_hash_buf("loopkit", 7, key);
	cr_assert_eq(strlen(key), 32);
	cr_assert_eq(strspn(key, "0123456789abcdef"), 32, "key %s", key);
}

Test(hash, equal_inputs_give_equal_keys)
{
	char a[LK_HASH_HEX], b[LK_HASH_HEX];

	hash_strs("gcc", "-O2", a);
	hash_strs("gcc", "-O2", b);
	cr_assert_str_eq(a, b);
	lk_hash_buf("abc", 3, a);
	lk_hash_buf("abc", 3, b);
	cr_assert_str_eq(a, b);
}

Test(hash, different_inputs_give_different_keys)
{
	char a[LK_HASH_HEX], b[LK_HASH_HEX];

	lk_hash_buf("abc", 3, a);
	lk_hash_buf("abd", 3, b);
	cr_assert_str_neq(a, b);
	lk_hash_buf("", 0, a);
	lk_hash_buf("\0", 1, b);
	cr_assert_str_neq(a, b);
}

Test(hash, incremental_equals_one_shot)
{
	char a[LK_HASH_HEX], b[LK_HASH_HEX];
	struct lk_hash h;

	lk_hash_init(&h);
	lk_hash_add(&h, "ab", 2);
	lk_hash_add(&h, "c", 1);
	lk_hash_final(&h, a);
	lk_hash_buf("abc", 3, b);
	cr_assert_str_eq(a, b);
}

Test(hash, strings_are_length_prefixed)
{
	char a[LK_HASH_HEX], b[LK_HASH_HEX];

	hash_strs("ab", "c", a);
	hash_strs("a", "bc", b);
	cr_assert_str_neq(a, b);
	hash_strs("", "abc", a);
	hash_strs("abc", "", b);
	cr_assert_str_neq(a, b);
}

Test(hash, null_string_differs_from_empty)
{
	char a[LK_HASH_HEX], b[LK_HASH_HEX];

	hash_strs(NULL, "x", a);
	hash_strs("", "x", b);
	cr_assert_str_neq(a, b);
}

/* ---- files and paths ------------------------------------------------- */

TestSuite(files, .init = setup_tmpdir, .fini = remove_tmpdir);

Test(files, write_atomic_then_read_round_trips)
{
	static const char data[] = "line one\n\0binary\xff\nend";
	char *path = tmp_path("out.bin"), *back;
	size_t len;

	cr_assert_eq(lk_file_write_atomic(&ctx, path, data, sizeof(data)), 0,
		     "%s", ctx.msg);
	cr_assert_eq(lk_file_read(&ctx, path, &back, &len), 0, "%s", ctx.msg);
	cr_assert_eq(len, sizeof(data));
	cr_assert_eq(memcmp(back, data, len), 0);
	cr_assert_eq(back[len], '\0');
	free(back);
	free(path);
}

Test(files, write_atomic_leaves_no_temporary_behind)
{
	char *path = tmp_path("result.txt");

	cr_assert_eq(lk_file_write_atomic(&ctx, path, "one", 3), 0);
	cr_assert_eq(lk_file_write_atomic(&ctx, path, "two", 3), 0);
	cr_assert_eq(count_entries(tmpdir), 1);
	free(path);
}

Test(files, write_atomic_replaces_contents)
{
	char *path = tmp_path("f"), *back;
	size_t len;

	cr_assert_eq(lk_file_write_atomic(&ctx, path, "a longer text", 13), 0);
	cr_assert_eq(lk_file_write_atomic(&ctx, path, "short", 5), 0);
	cr_assert_eq(lk_file_read(&ctx, path, &back, &len), 0);
	cr_assert_eq(len, 5);
	cr_assert_str_eq(back, "short");
	free(back);
	free(path);
}

Test(files, write_atomic_into_missing_directory_fails)
{
	char *path = tmp_path("no/such/dir/f");

	cr_assert_eq(lk_file_write_atomic(&ctx, path, "x", 1), LK_ESYS);
	cr_assert(strstr(ctx.msg, "No such file or directory"), "msg: %s",
		  ctx.msg);
	cr_assert_eq(count_entries(tmpdir), 0);
	free(path);
}

Test(files, read_empty_file)
{
	char *path = tmp_path("empty"), *back;
	size_t len = 99;

	cr_assert_eq(lk_file_write_atomic(&ctx, path, "", 0), 0);
	cr_assert_eq(lk_file_read(&ctx, path, &back, &len), 0);
	cr_assert_eq(len, 0);
	cr_assert_str_eq(back, "");
	free(back);
	free(path);
}

Test(files, read_missing_file_names_it)
{
	char *path = tmp_path("absent"), *back = NULL;
	size_t len;

	cr_assert_eq(lk_file_read(&ctx, path, &back, &len), LK_ESYS);
	cr_assert_eq(ctx.code, LK_ESYS);
	cr_assert(strstr(ctx.msg, path), "msg: %s", ctx.msg);
	cr_assert(strstr(ctx.msg, "No such file"), "msg: %s", ctx.msg);
	cr_assert_null(back);
	free(path);
}

/* A sentinel: a failed read must set *data to NULL (memprof freed it). */
static char sentinel[] = "not read";

Test(files, read_directory_refused)
{
	char *back = sentinel;

	cr_assert_eq(lk_file_read(&ctx, tmpdir, &back, NULL), LK_EINPUT);
	cr_assert(strstr(ctx.msg, tmpdir), "msg: %s", ctx.msg);
	cr_assert(strstr(ctx.msg, ": not a regular file (a directory)"),
		  "msg: %s", ctx.msg);
	cr_assert_null(back);
}

/* Without the check these read (or wait) forever: the timeout fails it. */
Test(files, read_device_refused, .timeout = 20)
{
	char *back = sentinel;

	cr_assert_eq(lk_file_read(&ctx, "/dev/zero", &back, NULL), LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "/dev/zero: not a regular file (a "
				  "character device)");
	cr_assert_null(back);
	cr_assert_eq(lk_file_read_max(&ctx, "/dev/zero", LK_FILE_MAX_TRACE,
				      &back, NULL), LK_EINPUT);
}

Test(files, read_fifo_refused_without_waiting, .timeout = 20)
{
	char *path = tmp_path("fifo"), *back = sentinel;

	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(lk_file_read(&ctx, path, &back, NULL), LK_EINPUT);
	cr_assert(strstr(ctx.msg, ": not a regular file (a fifo)"), "msg: %s",
		  ctx.msg);
	cr_assert_null(back);
	free(path);
}

Test(files, read_max_refuses_a_larger_file)
{
	char *path = tmp_path("hundred"), *back = sentinel, text[101];
	size_t len = 0;

	memset(text, 'x', 100);
	text[100] = '\0';
	write_file(path, text, 0644);
	cr_assert_eq(lk_file_read_max(&ctx, path, 99, &back, &len),
		     LK_EINPUT);
	cr_assert(strstr(ctx.msg, ": larger than 99 bytes"), "msg: %s",
		  ctx.msg);
	cr_assert_null(back);
	cr_assert_eq(lk_file_read_max(&ctx, path, 100, &back, &len), 0);
	cr_assert_eq(len, 100);
	free(back);
	free(path);
}

/* /proc files say size 0 and then give more: the limit holds while
 * reading, not only by the size stat reports. */
Test(files, read_max_holds_while_reading)
{
	char *back = sentinel;

	cr_assert_eq(lk_file_read_max(&ctx, "/proc/self/maps", 64, &back,
				      NULL), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "/proc/self/maps: larger than 64 bytes"),
		  "msg: %s", ctx.msg);
	cr_assert_null(back);
	cr_assert_eq(lk_file_read(&ctx, "/proc/self/maps", &back, NULL), 0);
	cr_assert(strlen(back) > 64);
	free(back);
}

Test(files, check_regular)
{
	char *path = tmp_path("plain"), *absent = tmp_path("absent");

	write_file(path, "x", 0644);
	cr_assert_eq(lk_file_check_regular(&ctx, path), 0);
	cr_assert_eq(lk_file_check_regular(&ctx, tmpdir), LK_EINPUT);
	cr_assert(strstr(ctx.msg, ": not a regular file (a directory)"),
		  "msg: %s", ctx.msg);
	cr_assert_eq(lk_file_check_regular(&ctx, "/dev/null"), LK_EINPUT);
	cr_assert_eq(lk_file_check_regular(&ctx, absent), LK_EINPUT);
	cr_assert(strstr(ctx.msg, "No such file or directory"), "msg: %s",
		  ctx.msg);
	free(path);
	free(absent);
}

Test(files, copy_atomic_copies_and_sets_mode)
{
	char *from = tmp_path("from"), *to = tmp_path("to"), *back;
	struct stat st;
	size_t len;

	write_file(from, "payload", 0644);
	cr_assert_eq(lk_file_copy_atomic(&ctx, from, to, 0750), 0, "%s",
		     ctx.msg);
	cr_assert_eq(lk_file_read(&ctx, to, &back, &len), 0);
	cr_assert_str_eq(back, "payload");
	cr_assert_eq(stat(to, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0750);
	free(back);
	free(from);
	free(to);
}

Test(files, mkdir_p_creates_nested_directories)
{
	char *path = tmp_path("a/b/c/d");

	cr_assert_eq(lk_mkdir_p(&ctx, path, 0755), 0, "%s", ctx.msg);
	cr_assert(is_dir(path));
	free(path);
}

Test(files, mkdir_p_is_idempotent_and_takes_trailing_slash)
{
	char *path = tmp_path("x/y/");

	cr_assert_eq(lk_mkdir_p(&ctx, path, 0755), 0, "%s", ctx.msg);
	cr_assert_eq(lk_mkdir_p(&ctx, path, 0755), 0, "%s", ctx.msg);
	cr_assert(is_dir(path));
	free(path);
}

Test(files, mkdir_p_through_a_file_fails)
{
	char *file = tmp_path("plain"), *path = tmp_path("plain/sub");

	write_file(file, "x", 0644);
	cr_assert_eq(lk_mkdir_p(&ctx, path, 0755), LK_ESYS);
	cr_assert(strstr(ctx.msg, "plain"), "msg: %s", ctx.msg);
	free(file);
	free(path);
}

Test(files, mkdir_p_onto_an_existing_file_fails)
{
	char *file = tmp_path("plain");

	write_file(file, "x", 0644);
	cr_assert_eq(lk_mkdir_p(&ctx, file, 0755), LK_ESYS,
		     "a regular file is not a directory");
	free(file);
}

Test(files, mkdir_p_of_empty_path_fails)
{
	cr_assert_eq(lk_mkdir_p(&ctx, "", 0755), LK_ESYS);
}

Test(files, path_exists)
{
	char *path = tmp_path("here");

	cr_assert_not(lk_path_exists(path));
	write_file(path, "", 0644);
	cr_assert(lk_path_exists(path));
	cr_assert(lk_path_exists(tmpdir));
	free(path);
}

Test(files, path_real_resolves_dots_and_fails_on_missing)
{
	char *dotted = lk_asprintf("%s/./sub/..", tmpdir);
	char *sub = tmp_path("sub"), *missing = tmp_path("missing");
	char *real_dir = realpath(tmpdir, NULL), *real;

	cr_assert_eq(mkdir(sub, 0755), 0);
	real = lk_path_real(dotted);
	cr_assert_not_null(real);
	cr_assert_str_eq(real, real_dir);
	cr_assert_null(lk_path_real(missing));
	free(real);
	free(real_dir);
	free(dotted);
	free(sub);
	free(missing);
}

static void check_join(const char *dir, const char *name, const char *expect)
{
	char *s = lk_path_join(dir, name);

	cr_assert_str_eq(s, expect, "join('%s', '%s')", dir, name);
	free(s);
}

Test(files, path_join_edge_cases)
{
	check_join("a", "b", "a/b");
	check_join("a/", "b", "a/b");
	check_join("/", "b", "/b");
	check_join("", "b", "b");
	check_join("a", "/abs/b", "/abs/b");
	check_join("a/b", "c/d", "a/b/c/d");
}

static void check_dirname(const char *path, const char *expect)
{
	char *s = lk_path_dirname(path);

	cr_assert_str_eq(s, expect, "dirname('%s')", path);
	free(s);
}

Test(files, path_dirname_edge_cases)
{
	check_dirname("a/b/c", "a/b");
	check_dirname("file", ".");
	check_dirname("", ".");
	check_dirname("/file", "/");
	check_dirname("/", "/");
	check_dirname("./x", ".");
}

Test(files, path_dirname_ignores_trailing_and_repeated_slashes)
{
	/* As dirname(3) does. */
	check_dirname("a/b/", "a");
	check_dirname("a//b", "a");
	check_dirname("/a//", "/");
	check_dirname("//", "/");
}

Test(files, which_finds_sh)
{
	char *sh = lk_which("sh");

	cr_assert_not_null(sh);
	cr_assert_eq(sh[0], '/', "%s", sh);
	cr_assert_eq(access(sh, X_OK), 0);
	free(sh);
}

Test(files, which_misses_a_nonsense_name)
{
	cr_assert_null(lk_which("loopkit-no-such-program-4f2a"));
	cr_assert_null(lk_which("/no/such/dir/sh"));
}

Test(files, which_takes_a_path_as_is)
{
	char *sh = lk_which("/bin/sh");

	cr_assert_str_eq(sh, "/bin/sh");
	free(sh);
}

Test(files, which_skips_directories_and_non_executables)
{
	char *sub = tmp_path("notaprog"), *text = tmp_path("text");
	char *prog = tmp_path("prog"), *found;

	cr_assert_eq(mkdir(sub, 0755), 0);
	write_file(text, "data", 0644);
	write_file(prog, "#!/bin/sh\n", 0755);
	setenv("PATH", tmpdir, 1);
	cr_assert_null(lk_which("notaprog"));
	cr_assert_null(lk_which("text"));
	found = lk_which("prog");
	cr_assert_str_eq(found, prog);
	free(found);
	free(sub);
	free(text);
	free(prog);
}

/* ---- lk_pool --------------------------------------------------------- */

TestSuite(pool, .init = setup);

#define POOL_N 1000

struct pool_counts {
	atomic_int runs[POOL_N];
	atomic_int total;
};

static void count_index(void *arg, size_t i)
{
	struct pool_counts *c = arg;

	atomic_fetch_add(&c->runs[i], 1);
	atomic_fetch_add(&c->total, 1);
}

static void check_pool(int jobs, size_t n)
{
	struct pool_counts *c = lk_calloc(1, sizeof(*c));
	size_t i;

	lk_pool_run(jobs, n, count_index, c);
	cr_assert_eq(atomic_load(&c->total), (int)n, "jobs %d", jobs);
	for (i = 0; i < n; i++)
		cr_assert_eq(atomic_load(&c->runs[i]), 1, "jobs %d index %zu",
			     jobs, i);
	for (; i < POOL_N; i++)
		cr_assert_eq(atomic_load(&c->runs[i]), 0);
	free(c);
}

Test(pool, runs_each_index_once_with_one_job)
{
	check_pool(1, POOL_N);
}

Test(pool, runs_each_index_once_with_two_jobs)
{
	check_pool(2, POOL_N);
}

Test(pool, runs_each_index_once_with_eight_jobs)
{
	check_pool(8, POOL_N);
}

Test(pool, more_jobs_than_work_and_no_work)
{
	check_pool(8, 3);
	check_pool(4, 0);
	check_pool(0, 17);
}

Test(pool, cpu_count_is_positive)
{
	cr_assert_geq(lk_cpu_count(), 1);
}

/* ---- lk_ctx ---------------------------------------------------------- */

TestSuite(ctx, .init = setup);

Test(ctx, error_records_code_and_message)
{
	cr_assert_eq(lk_error(&ctx, LK_EUNSUP, "no %s here", "pmu"),
		     LK_EUNSUP);
	cr_assert_eq(ctx.code, LK_EUNSUP);
	cr_assert_str_eq(ctx.msg, "no pmu here");
	lk_ctx_clear(&ctx);
	cr_assert_eq(ctx.code, 0);
	cr_assert_str_eq(ctx.msg, "");
}

Test(ctx, error_without_ctx_still_returns_code)
{
	cr_assert_eq(lk_error(NULL, LK_EINPUT, "x"), LK_EINPUT);
	cr_assert_eq(lk_error_at(NULL, LK_EINPUT, "f", 1, "x"), LK_EINPUT);
	cr_assert_eq(lk_error_errno(NULL, "x"), LK_ESYS);
}

Test(ctx, error_at_prefixes_file_and_line)
{
	cr_assert_eq(lk_error_at(&ctx, LK_EINPUT, "sweep.yaml", 12,
				 "unknown key '%s'", "foo"), LK_EINPUT);
	cr_assert_str_eq(ctx.msg, "sweep.yaml:12: unknown key 'foo'");
}

Test(ctx, error_at_line_zero_has_no_line)
{
	lk_error_at(&ctx, LK_EINPUT, "sweep.yaml", 0, "empty");
	cr_assert_str_eq(ctx.msg, "sweep.yaml: empty");
}

Test(ctx, error_errno_appends_strerror_and_keeps_errno)
{
	errno = ENOENT;
	cr_assert_eq(lk_error_errno(&ctx, "cannot open %s", "x.c"), LK_ESYS);
	cr_assert_eq(ctx.code, LK_ESYS);
	cr_assert_str_eq(ctx.msg, "cannot open x.c: No such file or directory");
	cr_assert_eq(errno, ENOENT);
}

Test(ctx, long_message_is_truncated_not_overflowed)
{
	char file[2000];

	memset(file, 'f', sizeof(file) - 1);
	file[sizeof(file) - 1] = '\0';
	lk_error_at(&ctx, LK_EINPUT, file, 3, "%s", file);
	cr_assert_lt(strlen(ctx.msg), sizeof(ctx.msg));
	cr_assert_eq(ctx.msg[0], 'f');
	errno = EACCES;
	lk_error_errno(&ctx, "%s", file);
	cr_assert_lt(strlen(ctx.msg), sizeof(ctx.msg));
}

Test(ctx, warn_goes_to_the_log)
{
	char *text = NULL;
	size_t size = 0;
	FILE *log = open_memstream(&text, &size);

	ctx.log = log;
	lk_warn(&ctx, "disk %d%% full", 90);
	lk_info(&ctx, "quiet by default");
	ctx.verbose = 1;
	lk_info(&ctx, "now shown");
	lk_debug(&ctx, "still hidden");
	fclose(log);
	cr_assert_str_eq(text, "loopkit: warning: disk 90% full\n"
			       "loopkit: now shown\n");
	free(text);
}

/* ---- subprocess ------------------------------------------------------ */

TestSuite(proc, .init = setup_tmpdir, .fini = remove_tmpdir, .timeout = 30);

#define SH(script) ((const char *const[]){"/bin/sh", "-c", (script), NULL})

/* Run a shell script; 0 or the failure, *r filled either way. */
static int run_sh(const char *script, struct lk_proc_opts *o,
		  struct lk_proc_result *r)
{
	o->argv = SH(script);
	return lk_proc_run(&ctx, o, r);
}

Test(proc, captures_stdout_and_stderr_separately)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("echo out; echo err >&2", &o, &r), 0, "%s",
		     ctx.msg);
	cr_assert_str_eq(r.out, "out\n");
	cr_assert_eq(r.out_len, 4);
	cr_assert_str_eq(r.err, "err\n");
	cr_assert_eq(r.err_len, 4);
	cr_assert_str_eq(r.res, "");
	cr_assert(lk_proc_ok(&r));
	cr_assert_geq(r.seconds, 0);
	lk_proc_result_release(&r);
}

Test(proc, reports_exit_code)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("exit 3", &o, &r), 0);
	cr_assert(r.exited);
	cr_assert_eq(r.exit_code, 3);
	cr_assert_not(r.signaled);
	cr_assert_not(r.timed_out);
	cr_assert_not(lk_proc_ok(&r));
	lk_proc_result_release(&r);
}

Test(proc, reports_signal)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("kill -SEGV $$", &o, &r), 0);
	cr_assert_not(r.exited);
	cr_assert(r.signaled);
	cr_assert_eq(r.signal, SIGSEGV);
	cr_assert_not(r.timed_out);
	cr_assert_not(lk_proc_ok(&r));
	lk_proc_result_release(&r);
}

Test(proc, timeout_kills_a_sleeper)
{
	struct lk_proc_opts o = {.result_fd = -1, .timeout = 0.3};
	struct lk_proc_result r;
	double start = lk_now();

	o.argv = (const char *const[]){"sleep", "10", NULL};
	cr_assert_eq(lk_proc_run(&ctx, &o, &r), 0, "%s", ctx.msg);
	cr_assert(r.timed_out);
	cr_assert(r.signaled);
	cr_assert_eq(r.signal, SIGKILL);
	cr_assert_not(lk_proc_ok(&r));
	cr_assert_geq(r.seconds, 0.3);
	cr_assert_lt(lk_now() - start, 5);
	lk_proc_result_release(&r);
}

Test(proc, timeout_holds_after_the_child_wrote_output)
{
	struct lk_proc_opts o = {.result_fd = -1, .timeout = 0.3};
	struct lk_proc_result r;
	double start = lk_now();

	cr_assert_eq(run_sh("echo started; echo warn >&2; sleep 10", &o, &r),
		     0);
	cr_assert(r.timed_out);
	cr_assert_lt(lk_now() - start, 5);
	cr_assert_str_eq(r.out, "started\n");
	cr_assert_str_eq(r.err, "warn\n");
	lk_proc_result_release(&r);
}

/* Is this process gone (or a zombie nobody has reaped yet)? */
static int process_gone(pid_t pid)
{
	char path[64], *stat = NULL, *paren;
	size_t len;
	int gone;

	if (kill(pid, 0) && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (lk_file_read(NULL, path, &stat, &len))
		return 1;
	paren = strrchr(stat, ')');
	gone = paren && paren[1] == ' ' && paren[2] == 'Z';
	free(stat);
	return gone;
}

static void wait_gone(pid_t pid)
{
	double start = lk_now();

	while (!process_gone(pid) && lk_now() - start < 3)
		usleep(10000);
	if (!process_gone(pid)) {
		kill(pid, SIGKILL);
		cr_assert_fail("process %ld outlived its group's timeout",
			       (long)pid);
	}
}

Test(proc, timeout_kills_the_whole_process_group)
{
	struct lk_proc_opts o = {.result_fd = -1, .timeout = 0.3};
	struct lk_proc_result r;
	double start = lk_now();
	long background;

	cr_assert_eq(run_sh("sleep 30 & echo $!; sleep 30", &o, &r), 0);
	cr_assert(r.timed_out);
	cr_assert_lt(lk_now() - start, 5);
	cr_assert_eq(lk_parse_long(strtok(r.out, "\n"), &background), 0,
		     "out: %s", r.out);
	wait_gone((pid_t)background);
	lk_proc_result_release(&r);
}

Test(proc, does_not_wait_for_a_grandchild_holding_the_pipes)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;
	double start = lk_now();
	long background;

	cr_assert_eq(run_sh("sleep 30 & echo $!", &o, &r), 0);
	cr_assert_lt(lk_now() - start, 5);
	cr_assert(lk_proc_ok(&r));
	cr_assert_eq(lk_parse_long(strtok(r.out, "\n"), &background), 0,
		     "out: %s", r.out);
	/* ... and kills it: nothing a launch started survives it. */
	wait_gone((pid_t)background);
	lk_proc_result_release(&r);
}

Test(proc, a_grandchild_that_left_the_session_is_killed)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;
	long escaped;

	/* setsid: its own session and group, out of reach of kill(-pgid);
	 * the subshell exits, so it is re-parented (to us, the reaper). */
	cr_assert_eq(run_sh("(setsid sleep 30 </dev/null >/dev/null 2>&1 & "
			    "echo $!)", &o, &r), 0);
	cr_assert(lk_proc_ok(&r));
	cr_assert_eq(lk_parse_long(strtok(r.out, "\n"), &escaped), 0,
		     "out: %s", r.out);
	wait_gone((pid_t)escaped);
	lk_proc_result_release(&r);
}

struct long_launch {
	char pidfile[PATH_MAX];
	struct lk_ctx ctx;
	struct lk_proc_result r;
	int ret;
};

static void *run_long_launch(void *arg)
{
	struct long_launch *l = arg;
	char *script = lk_asprintf("(setsid sleep 30 </dev/null >/dev/null "
				   "2>&1 & echo $! >%s.tmp; mv %s.tmp %s); "
				   "sleep 2", l->pidfile, l->pidfile,
				   l->pidfile);
	struct lk_proc_opts o = {.result_fd = -1, .argv = SH(script)};

	lk_ctx_init(&l->ctx);
	l->ret = lk_proc_run(&l->ctx, &o, &l->r);
	free(script);
	return NULL;
}

Test(proc, a_sweep_spares_another_live_launch)
{
	struct long_launch l;
	pthread_t th;
	char *text = NULL;
	size_t len;
	long escaped;
	int i;

	memset(&l, 0, sizeof(l));
	snprintf(l.pidfile, sizeof(l.pidfile), "%s/escaped.pid", tmpdir);
	cr_assert_eq(pthread_create(&th, NULL, run_long_launch, &l), 0);
	for (i = 0; i < 300 && lk_file_read(NULL, l.pidfile, &text, &len);
	     i++)
		usleep(10000);
	cr_assert_not_null(text, "the long launch wrote no pid");
	cr_assert_eq(lk_parse_long(strtok(text, "\n"), &escaped), 0);
	/* Other launches end (and sweep) while it runs: its orphan, ours
	 * by re-parenting but tagged with its launch, is left alone. */
	for (i = 0; i < 5; i++) {
		struct lk_proc_opts o = {.result_fd = -1};
		struct lk_proc_result r;

		cr_assert_eq(run_sh("true", &o, &r), 0);
		lk_proc_result_release(&r);
	}
	cr_assert(!process_gone((pid_t)escaped),
		  "another launch's sweep killed it");
	pthread_join(th, NULL);
	cr_assert_eq(l.ret, 0, "%s", l.ctx.msg);
	wait_gone((pid_t)escaped);
	lk_proc_result_release(&l.r);
	free(text);
}

Test(proc, memory_limit_is_the_address_space_limit)
{
	struct lk_proc_opts o = {.result_fd = -1,
				 .memory_limit = (size_t)64 << 20};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("ulimit -H -v; ulimit -v", &o, &r), 0);
	cr_assert_str_eq(r.out, "65536\n65536\n");
	cr_assert_eq(r.memory_limit, (size_t)64 << 20);
	lk_proc_result_release(&r);
	/* Every program runs limited unless asked otherwise: 0 is half
	 * the physical memory. */
	o.memory_limit = 0;
	cr_assert_eq(run_sh("ulimit -v", &o, &r), 0);
	cr_assert_eq(strtoull(r.out, NULL, 10) * 1024,
		     lk_proc_default_memory_limit(), "%s", r.out);
	cr_assert_eq(r.memory_limit, lk_proc_default_memory_limit());
	lk_proc_result_release(&r);
	o.memory_limit = LK_PROC_UNLIMITED;
	cr_assert_eq(run_sh("ulimit -v", &o, &r), 0);
	cr_assert_str_eq(r.out, "unlimited\n");
	cr_assert_eq(r.memory_limit, 0);
	lk_proc_result_release(&r);
}

Test(proc, running_out_of_memory_is_said_so)
{
	struct lk_proc_opts o = {.result_fd = -1,
				 .memory_limit = (size_t)32 << 20};
	struct lk_proc_result r;
	char *why;

	/* A shell whose allocation fails says so (dash: "Out of space";
	 * the awk string grows past the limit and awk complains). */
	cr_assert_eq(run_sh("awk 'BEGIN { s = \"x\"; for (;;) s = s s }'",
			    &o, &r), 0);
	cr_assert(!lk_proc_ok(&r));
	cr_assert(r.out_of_memory, "err: %s, rss %zu", r.err, r.max_rss);
	why = lk_proc_describe(&r, 0);
	cr_assert(!strncmp(why, "out of memory under the 32 MiB limit (", 38),
		  "%s", why);
	free(why);
	lk_proc_result_release(&r);
	o.memory_limit = 0;
	cr_assert_eq(run_sh("exit 3", &o, &r), 0);
	cr_assert(!r.out_of_memory);
	lk_proc_result_release(&r);
}

Test(proc, full_pipes_on_both_streams_do_not_deadlock)
{
	struct lk_proc_opts o = {.result_fd = -1, .timeout = 20};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("head -c 300000 /dev/zero >&2;"
			    "head -c 300000 /dev/zero;"
			    "head -c 300000 /dev/zero >&2", &o, &r), 0);
	cr_assert_not(r.timed_out, "deadlocked until the timeout");
	cr_assert(lk_proc_ok(&r));
	cr_assert_eq(r.out_len, 300000);
	cr_assert_eq(r.err_len, 600000);
	lk_proc_result_release(&r);
}

Test(proc, result_fd_captures_fd_3)
{
	struct lk_proc_opts o = {.result_fd = 3};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("echo hello >&3; echo out", &o, &r), 0);
	cr_assert(lk_proc_ok(&r), "err: %s", r.err);
	cr_assert_str_eq(r.res, "hello\n");
	cr_assert_eq(r.res_len, 6);
	cr_assert_str_eq(r.out, "out\n");
	lk_proc_result_release(&r);
}

Test(proc, merge_stderr_into_stdout)
{
	struct lk_proc_opts o = {.result_fd = -1,
				 .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("echo out; echo err >&2; echo out2", &o, &r), 0);
	cr_assert_str_eq(r.out, "out\nerr\nout2\n");
	cr_assert_str_eq(r.err, "");
	lk_proc_result_release(&r);
}

Test(proc, envp_replaces_the_environment)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;

	setenv("LK_TEST_PARENT_ONLY", "1", 1);
	o.argv = (const char *const[]){"/usr/bin/env", NULL};
	o.envp = (const char *const[]){"LK_TEST_CHILD=42", NULL};
	cr_assert_eq(lk_proc_run(&ctx, &o, &r), 0, "%s", ctx.msg);
	/* Plus the launch's tag, by which its leftovers are found. */
	cr_assert(!strncmp(r.out, "LK_TEST_CHILD=42\nLK_LAUNCH=", 27),
		  "%s", r.out);
	cr_assert_eq(strchr(r.out + 27, '\n'), r.out + r.out_len - 1,
		     "%s", r.out);
	lk_proc_result_release(&r);
}

Test(proc, null_envp_inherits_the_environment)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;

	setenv("LK_TEST_INHERITED", "yes", 1);
	cr_assert_eq(run_sh("echo \"$LK_TEST_INHERITED\"", &o, &r), 0);
	cr_assert_str_eq(r.out, "yes\n");
	lk_proc_result_release(&r);
}

Test(proc, cwd_sets_the_working_directory)
{
	struct lk_proc_opts o = {.result_fd = -1, .cwd = tmpdir};
	struct lk_proc_result r;
	char *real = lk_path_real(tmpdir), *expect = lk_asprintf("%s\n", real);

	cr_assert_eq(run_sh("pwd -P", &o, &r), 0);
	cr_assert_str_eq(r.out, expect);
	lk_proc_result_release(&r);
	free(real);
	free(expect);
}

Test(proc, missing_cwd_fails_to_start)
{
	char *missing = tmp_path("missing");
	struct lk_proc_opts o = {.result_fd = -1, .cwd = missing};
	struct lk_proc_result r;

	cr_assert_lt(run_sh("true", &o, &r), 0);
	cr_assert_neq(ctx.msg[0], '\0');
	lk_proc_result_release(&r);
	free(missing);
}

Test(proc, missing_program_is_not_found)
{
	struct lk_proc_opts o = {.result_fd = -1};
	struct lk_proc_result r;

	o.argv = (const char *const[]){"loopkit-no-such-program-4f2a", NULL};
	cr_assert_eq(lk_proc_run(&ctx, &o, &r), LK_ENOTFOUND);
	cr_assert_eq(ctx.code, LK_ENOTFOUND);
	cr_assert(strstr(ctx.msg, "loopkit-no-such-program-4f2a"), "msg: %s",
		  ctx.msg);
	lk_proc_result_release(&r);
}

Test(proc, max_capture_truncates_and_flags)
{
	struct lk_proc_opts o = {.result_fd = 3, .max_capture = 1000};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("head -c 200000 /dev/zero;"
			    "head -c 5000 /dev/zero >&3; echo small >&2",
			    &o, &r), 0);
	cr_assert(lk_proc_ok(&r), "the child must not block on a full pipe");
	cr_assert_eq(r.out_len, 1000);
	cr_assert(r.out_truncated);
	cr_assert_eq(r.res_len, 1000);
	cr_assert(r.res_truncated);
	cr_assert_str_eq(r.err, "small\n");
	cr_assert_not(r.err_truncated);
	lk_proc_result_release(&r);
}

Test(proc, output_of_exactly_max_capture_is_not_truncated)
{
	struct lk_proc_opts o = {.result_fd = -1, .max_capture = 4};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("printf abcd", &o, &r), 0);
	cr_assert_str_eq(r.out, "abcd");
	cr_assert_not(r.out_truncated);
	lk_proc_result_release(&r);
}

Test(proc, stdin_is_dev_null)
{
	struct lk_proc_opts o = {.result_fd = -1, .timeout = 10};
	struct lk_proc_result r;

	cr_assert_eq(run_sh("cat", &o, &r), 0);
	cr_assert_not(r.timed_out, "cat waited for input");
	cr_assert(lk_proc_ok(&r));
	cr_assert_str_eq(r.out, "");
	lk_proc_result_release(&r);
}

static unsigned long child_personality(unsigned flags)
{
	struct lk_proc_opts o = {.result_fd = -1, .flags = flags};
	struct lk_proc_result r;
	unsigned long pers;
	char *end;

	o.argv = (const char *const[]){"cat", "/proc/self/personality", NULL};
	cr_assert_eq(lk_proc_run(&ctx, &o, &r), 0, "%s", ctx.msg);
	cr_assert(lk_proc_ok(&r), "err: %s", r.err);
	pers = strtoul(r.out, &end, 16);
	cr_assert_eq(*end, '\n', "out: %s", r.out);
	lk_proc_result_release(&r);
	return pers;
}

Test(proc, no_aslr_sets_the_child_personality_only)
{
	int before = personality(0xffffffff);

	cr_assert_neq(before, -1);
	cr_assert(child_personality(LK_PROC_NO_ASLR) & ADDR_NO_RANDOMIZE);
	cr_assert_eq(personality(0xffffffff), before);
}

Test(proc, without_no_aslr_the_child_inherits_the_personality)
{
	unsigned long parent = (unsigned long)personality(0xffffffff);

	cr_assert_eq(child_personality(0) & ADDR_NO_RANDOMIZE,
		     parent & ADDR_NO_RANDOMIZE);
}

struct parallel_runs {
	struct lk_ctx ctx[8];
	char *out[8];
};

static void run_numbered(void *arg, size_t i)
{
	struct parallel_runs *p = arg;
	struct lk_proc_opts o = {.result_fd = 3};
	struct lk_proc_result r;
	char n[8];

	snprintf(n, sizeof(n), "%zu", i);
	o.argv = (const char *const[]){"/bin/sh", "-c", "echo $0 >&3", n,
				       NULL};
	lk_ctx_init(&p->ctx[i]);
	if (!lk_proc_run(&p->ctx[i], &o, &r))
		p->out[i] = lk_strdup(r.res);
	lk_proc_result_release(&r);
}

Test(proc, concurrent_runs_keep_their_output_apart)
{
	struct parallel_runs p;
	char expect[8];
	size_t i;

	memset(&p, 0, sizeof(p));
	lk_pool_run(4, 8, run_numbered, &p);
	for (i = 0; i < 8; i++) {
		snprintf(expect, sizeof(expect), "%zu\n", i);
		cr_assert_not_null(p.out[i], "run %zu: %s", i, p.ctx[i].msg);
		cr_assert_str_eq(p.out[i], expect);
		free(p.out[i]);
	}
}

Test(proc, capture_returns_stdout_on_success)
{
	char *out = NULL;

	cr_assert_eq(lk_proc_capture(&ctx, SH("echo captured; echo x >&2"), 10,
				     &out), 0, "%s", ctx.msg);
	cr_assert_str_eq(out, "captured\n");
	free(out);
}

Test(proc, capture_fails_on_nonzero_exit)
{
	char *out = (char *)"unchanged";

	cr_assert_eq(lk_proc_capture(&ctx, SH("echo partial; exit 4"), 10,
				     &out), LK_ECHILD);
	cr_assert_null(out);
	cr_assert(strstr(ctx.msg, "exit 4"), "msg: %s", ctx.msg);
}

Test(proc, capture_of_missing_program_is_not_found)
{
	char *out = (char *)"unchanged";

	cr_assert_eq(lk_proc_capture(&ctx, (const char *const[]){
		     "loopkit-no-such-program-4f2a", NULL}, 10, &out),
		     LK_ENOTFOUND);
	cr_assert_null(out);
}

static void check_describe(const struct lk_proc_result *r, double timeout,
			   const char *expect)
{
	char *s = lk_proc_describe(r, timeout);

	cr_assert_str_eq(s, expect);
	free(s);
}

Test(proc, describe_texts)
{
	struct lk_proc_result r;

	memset(&r, 0, sizeof(r));
	r.exited = 1;
	check_describe(&r, 0, "exit 0");
	r.exit_code = 3;
	check_describe(&r, 0, "exit 3");
	memset(&r, 0, sizeof(r));
	r.signaled = 1;
	r.signal = SIGSEGV;
	check_describe(&r, 0, "killed by SIGSEGV");
	r.timed_out = 1;
	r.signal = SIGKILL;
	check_describe(&r, 2.5, "timed out after 2.5 s");
	memset(&r, 0, sizeof(r));
	r.signaled = 1;
	r.signal = SIGSEGV;
	r.out_of_memory = 1;
	r.memory_limit = (size_t)12 << 30;
	r.max_rss = (size_t)23 << 29;
	check_describe(&r, 0, "out of memory under the 12 GiB limit "
			      "(11.5 GiB resident, then killed by SIGSEGV)");
}

Test(proc, default_memory_limit_is_half_the_memory)
{
	size_t half = (size_t)sysconf(_SC_PHYS_PAGES) *
		      (size_t)sysconf(_SC_PAGESIZE) / 2;

	cr_assert_eq(lk_proc_default_memory_limit(), half);
}
