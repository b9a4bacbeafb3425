/*
 * core: error context, allocation, strings, hashing, files and paths,
 * thread pool, progress reporting. Every other module of the library
 * builds on this header; it depends on nothing but libc (and xxhash,
 * hidden behind lk_hash_*).
 */
#ifndef LOOPKIT_CORE_H
#define LOOPKIT_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Ownership annotations on public pointers (see STYLE.md). */
#define LK_GIVE /* caller owns the result */
#define LK_TAKE /* callee consumes the argument, even on failure */
#define LK_KEEP /* borrowed */

#define LK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define LK_NORETURN __attribute__((noreturn))

/*
 * Error codes. Library functions return 0 or one of these; the message,
 * with file/line context when there is one, is in the lk_ctx.
 * LK_EINPUT is the user's fault (bad config, bad option): exit 2.
 */
enum {
	LK_OK = 0,
	LK_EINPUT = -1,    /* malformed input: config, options, files */
	LK_ESYS = -2,      /* a system call failed */
	LK_ESTORE = -3,    /* the SQLite store failed */
	LK_EUNSUP = -4,    /* not supported on this machine or build */
	LK_ECHILD = -5,    /* a child process failed */
	LK_ENOTFOUND = -6, /* a named thing does not exist */
	LK_EINTERNAL = -7, /* a bug */
};

/*
 * The context every library call gets. It carries the last error message
 * and how chatty to be. Not shared between threads: give each worker its
 * own and copy the message back.
 */
struct lk_ctx {
	int code;          /* last error code, 0 if none */
	char msg[1024];    /* last error message, "" if none */
	int verbose;       /* 0 quiet, 1 info, 2 debug */
	FILE *log;         /* where lk_info/lk_warn go; stderr by default */
};

void lk_ctx_init(struct lk_ctx *ctx);
void lk_ctx_clear(struct lk_ctx *ctx);

/* Record an error; returns code so callers can 'return lk_error(...)'. */
int lk_error(struct lk_ctx *ctx, int code, const char *fmt, ...) LK_PRINTF(3, 4);
/* Same, as "file:line: message" (line 0: "file: message"). */
int lk_error_at(struct lk_ctx *ctx, int code, const char *file, long line,
		const char *fmt, ...) LK_PRINTF(5, 6);
/* Same as lk_error(ctx, LK_ESYS, ...) with ": strerror(errno)" appended. */
int lk_error_errno(struct lk_ctx *ctx, const char *fmt, ...) LK_PRINTF(2, 3);
void lk_warn(struct lk_ctx *ctx, const char *fmt, ...) LK_PRINTF(2, 3);
void lk_info(struct lk_ctx *ctx, const char *fmt, ...) LK_PRINTF(2, 3);
void lk_debug(struct lk_ctx *ctx, const char *fmt, ...) LK_PRINTF(2, 3);

/* Allocation: these abort on out-of-memory, the only exit in the library. */
LK_GIVE void *lk_malloc(size_t size);
LK_GIVE void *lk_calloc(size_t n, size_t size);
LK_GIVE void *lk_realloc(void *p, size_t size);
LK_GIVE void *lk_reallocarray(void *p, size_t n, size_t size);
LK_GIVE char *lk_strdup(const char *s);
LK_GIVE char *lk_strndup(const char *s, size_t n);
LK_GIVE char *lk_asprintf(const char *fmt, ...) LK_PRINTF(1, 2);
LK_GIVE char *lk_vasprintf(const char *fmt, va_list ap);

/* Grow array 'a' (with capacity 'alloc') to hold at least 'n' elements. */
#define LK_GROW(a, n, alloc)                                                  \
	do {                                                                  \
		if ((size_t)(n) > (alloc)) {                                  \
			(alloc) = (alloc) ? (alloc) * 2 : 8;                  \
			if ((alloc) < (size_t)(n))                            \
				(alloc) = (n);                                \
			(a) = lk_reallocarray((a), (alloc), sizeof(*(a)));    \
		}                                                             \
	} while (0)

LK_NORETURN void lk_bug(const char *file, int line, const char *what);
#define LK_BUG(what) lk_bug(__FILE__, __LINE__, (what))

/* Growable string buffer; buf is always NUL-terminated once used. */
struct lk_buf {
	char *buf;
	size_t len, alloc;
};
#define LK_BUF_INIT {NULL, 0, 0}
void lk_buf_init(struct lk_buf *b);
void lk_buf_release(struct lk_buf *b);
void lk_buf_reset(struct lk_buf *b);
void lk_buf_add(struct lk_buf *b, const void *data, size_t len);
void lk_buf_adds(struct lk_buf *b, const char *s);
void lk_buf_addch(struct lk_buf *b, int c);
void lk_buf_addf(struct lk_buf *b, const char *fmt, ...) LK_PRINTF(2, 3);
void lk_buf_vaddf(struct lk_buf *b, const char *fmt, va_list ap);
/* Append s as a JSON string literal, quotes included. */
void lk_buf_add_json_str(struct lk_buf *b, const char *s);
/* Append s as a CSV field (quoted when it needs to be). */
void lk_buf_add_csv_field(struct lk_buf *b, const char *s);
/* The string, "" when nothing was added. Valid until the next change. */
const char *lk_buf_str(const struct lk_buf *b);
/* Hand the string to the caller and reset b. */
LK_GIVE char *lk_buf_detach(struct lk_buf *b);

/* NULL-terminated vector of owned strings (an argv). */
struct lk_strv {
	char **v;   /* v[n] == NULL once anything was pushed */
	size_t n, alloc;
};
#define LK_STRV_INIT {NULL, 0, 0}
void lk_strv_push(struct lk_strv *sv, const char *s);
void lk_strv_pushf(struct lk_strv *sv, const char *fmt, ...) LK_PRINTF(2, 3);
void lk_strv_push_take(struct lk_strv *sv, LK_TAKE char *s);
void lk_strv_release(struct lk_strv *sv);
/*
 * Split a flags string into words the way a shell would for plain words:
 * whitespace separates, '...' and "..." group, backslash escapes. No
 * expansion of any kind. Returns LK_EINPUT on an unbalanced quote.
 */
int lk_strv_split(struct lk_ctx *ctx, struct lk_strv *sv, const char *s);
/* Join with single spaces (no quoting). */
LK_GIVE char *lk_strv_join(const struct lk_strv *sv, const char *sep);

/* Parse helpers: the whole string must be consumed. 0 or LK_EINPUT. */
int lk_parse_long(const char *s, long *out);
int lk_parse_double(const char *s, double *out);

/* Content hashing (XXH3 128-bit), printed as 32 hex digits. */
struct lk_hash {
	void *state;
};
#define LK_HASH_HEX 33
void lk_hash_init(struct lk_hash *h);
void lk_hash_add(struct lk_hash *h, const void *data, size_t len);
/* Adds the length first, so ("ab","c") and ("a","bc") differ. */
void lk_hash_add_str(struct lk_hash *h, const char *s);
void lk_hash_final(struct lk_hash *h, char out[LK_HASH_HEX]);
void lk_hash_buf(const void *data, size_t len, char out[LK_HASH_HEX]);

/* Files and paths. */
/*
 * The most lk_file_read takes: sources, configs, static counts, logs
 * (64 MiB), and memprof traces (1 GiB, about 40 million calls); a
 * benchmark binary, hashed whole, up to 1 GiB (debug information grows
 * it; its arrays in .bss do not).
 */
#define LK_FILE_MAX_TEXT ((size_t)64 << 20)
#define LK_FILE_MAX_TRACE ((size_t)1 << 30)
#define LK_FILE_MAX_BINARY ((size_t)1 << 30)
/*
 * Read the whole regular file path into *data (NUL-terminated, LK_GIVE)
 * and its length into *len (when len is not NULL), at most max bytes.
 * A directory, device or fifo ("PATH: not a regular file") and a file
 * over max ("PATH: larger than N MiB") are refused before anything is
 * read, with LK_EINPUT; open or read failures give LK_ESYS. On failure
 * *data is NULL.
 */
int lk_file_read_max(struct lk_ctx *ctx, const char *path, size_t max,
		     LK_GIVE char **data, size_t *len);
/*
 * 0 when path is a regular file (after symbolic links); else LK_EINPUT
 * with "PATH: not a regular file (a directory)" and the like, or with
 * "cannot open PATH: No such file or directory" when it names nothing
 * (LK_ESYS when stat fails otherwise). For inputs read by others (gcc,
 * libelf), before they block on a fifo or read a device.
 */
int lk_file_check_regular(struct lk_ctx *ctx, const char *path);
/* lk_file_read_max at LK_FILE_MAX_TEXT. */
int lk_file_read(struct lk_ctx *ctx, const char *path, LK_GIVE char **data,
		 size_t *len);
/* The same for a file the user named: a path that names nothing is
 * LK_EINPUT, as with lk_file_check_regular. */
int lk_file_read_input(struct lk_ctx *ctx, const char *path,
		       LK_GIVE char **data, size_t *len);
/* The bytes of a UTF-8 byte order mark at the start of text (3), or 0:
 * an editor's mark that text parsers skip. */
size_t lk_text_bom(const char *text, size_t len);
/* Write through a temporary file and rename(2): readers never see half. */
int lk_file_write_atomic(struct lk_ctx *ctx, const char *path,
			 const void *data, size_t len);
int lk_file_copy_atomic(struct lk_ctx *ctx, const char *from, const char *to,
			int mode);
int lk_mkdir_p(struct lk_ctx *ctx, const char *path, int mode);
int lk_path_exists(const char *path);
LK_GIVE char *lk_path_join(const char *dir, const char *name);
LK_GIVE char *lk_path_dirname(const char *path);
/* Absolute, normalised path of an existing file; NULL on failure. */
LK_GIVE char *lk_path_real(const char *path);
/* Search PATH for an executable; NULL if absent. */
LK_GIVE char *lk_which(const char *name);

/* Monotonic wall clock in seconds. */
double lk_now(void);

/*
 * Run fn(arg, i) for i in [0, n) on up to 'jobs' threads (jobs <= 0: the
 * number of online CPUs). Returns when all are done.
 */
void lk_pool_run(int jobs, size_t n, void (*fn)(void *arg, size_t i), void *arg);
int lk_cpu_count(void);

/*
 * A set of CPUs 0..LK_CPUS_MAX-1 (glibc's CPU_SETSIZE), a plain value:
 * copy it, compare it with memcmp. Empty: no CPU (for method.cpu, no
 * pinning).
 */
#define LK_CPUS_MAX 1024
struct lk_cpuset {
	uint64_t bits[LK_CPUS_MAX / 64];
};

void lk_cpuset_clear(struct lk_cpuset *s);
/* Add cpu; one outside 0..LK_CPUS_MAX-1 is ignored. */
void lk_cpuset_add(struct lk_cpuset *s, int cpu);
int lk_cpuset_has(const struct lk_cpuset *s, int cpu);
int lk_cpuset_count(const struct lk_cpuset *s);
/* The lowest CPU above 'after' (-1: the lowest of all), -1 if none. */
int lk_cpuset_next(const struct lk_cpuset *s, int after);
/*
 * Parse the kernel's cpulist form: CPU numbers and low-high ranges
 * separated by commas ("3", "0-3", "0-3,6", spaces allowed around
 * them). 0 and *out set, or -1 with *why saying what was expected
 * (*out unchanged): an empty text, a sign, a range going down, a CPU
 * above LK_CPUS_MAX - 1.
 */
int lk_cpuset_parse(const char *text, struct lk_cpuset *out,
		    const char **why);
/* The canonical cpulist, ranges merged: "0-3,6"; "" for the empty set. */
LK_GIVE char *lk_cpuset_format(const struct lk_cpuset *s);
/* The CPUs online (/sys/devices/system/cpu/online, else 0..n-1 by
 * sysconf). 0, or -1 when neither says. */
int lk_cpus_online(struct lk_cpuset *out);
/* The CPUs this process may run on (sched_getaffinity). 0 or -1. */
int lk_cpus_allowed(struct lk_cpuset *out);

/*
 * Progress on stderr: a bar with ETA redrawn in place on a terminal,
 * one plain line per finished unit otherwise.
 */
struct lk_progress {
	const char *label;
	size_t total, done;
	double start;
	int tty;
	int quiet;
	FILE *out;
};
void lk_progress_init(struct lk_progress *p, const char *label, size_t total,
		      int quiet);
/* One unit finished; 'what' names it, 'status' says how ("ok", ...). */
void lk_progress_step(struct lk_progress *p, const char *what,
		      const char *status);
void lk_progress_end(struct lk_progress *p);

#endif
