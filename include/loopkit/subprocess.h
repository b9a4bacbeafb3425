/*
 * subprocess: the one way loopkit runs external programs (compilers,
 * benchmarks, llvm-mca, valgrind, ...). An argv array, posix_spawn, never
 * a shell string; every call has a timeout, captured output and an exit
 * status.
 */
#ifndef LOOPKIT_SUBPROCESS_H
#define LOOPKIT_SUBPROCESS_H

#include <stddef.h>

#include "core.h"

enum {
	LK_PROC_NO_ASLR = 1 << 0,     /* personality(ADDR_NO_RANDOMIZE) */
	LK_PROC_MERGE_STDERR = 1 << 1 /* stderr goes to the stdout capture */
};

struct lk_proc_opts {
	const char *const *argv;  /* argv[0] is looked up in PATH */
	const char *const *envp;  /* NULL: inherit this process's environment */
	const char *cwd;          /* NULL: inherit */
	double timeout;           /* seconds; <= 0: none */
	int result_fd;            /* >= 3: a pipe at this fd in the child,
				     captured into lk_proc_result.res;
				     < 0: none */
	size_t max_capture;       /* per stream; 0: 16 MiB. Beyond: dropped,
				     flagged in *_truncated */
	unsigned flags;           /* LK_PROC_* */
};

struct lk_proc_result {
	int exited;       /* normal exit ... */
	int exit_code;    /* ... with this code */
	int signaled;     /* killed by a signal ... */
	int signal;       /* ... this one */
	int timed_out;    /* killed by us after opts.timeout */
	double seconds;   /* wall time */
	char *out, *err, *res;           /* captured streams, NUL-terminated */
	size_t out_len, err_len, res_len;
	int out_truncated, err_truncated, res_truncated;
};

/*
 * Run a program to completion. Returns 0 when it could be started and
 * waited for (whatever its exit status: look at *res), LK_ESYS or
 * LK_ENOTFOUND when it could not be started. *res must be released with
 * lk_proc_result_release() in both cases. Safe to call from several
 * threads at once.
 */
int lk_proc_run(struct lk_ctx *ctx, const struct lk_proc_opts *opts,
		struct lk_proc_result *res);
void lk_proc_result_release(struct lk_proc_result *res);
/* True when the program exited with status 0 and was not timed out. */
int lk_proc_ok(const struct lk_proc_result *res);
/* "exit 3", "killed by SIGSEGV", "timed out after 10 s", ... */
LK_GIVE char *lk_proc_describe(const struct lk_proc_result *res,
			       double timeout);

/* Convenience: run argv, capture stdout; 0 only if it exited with 0. */
int lk_proc_capture(struct lk_ctx *ctx, const char *const *argv,
		    double timeout, LK_GIVE char **out);

/* Same, keeping only the first line of stdout ("tool --version"). */
int lk_proc_first_line(struct lk_ctx *ctx, const char *const *argv,
		       double timeout, LK_GIVE char **line);

#endif
