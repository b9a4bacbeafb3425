/*
 * subprocess: the one way loopkit runs external programs (compilers,
 * benchmarks, llvm-mca, valgrind, ...). An argv array, fork and exec,
 * never a shell string; every call has a timeout, an optional memory
 * limit, captured output and an exit status, and nothing it started
 * outlives it.
 */
#ifndef LOOPKIT_SUBPROCESS_H
#define LOOPKIT_SUBPROCESS_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core.h"

enum {
	LK_PROC_NO_ASLR = 1 << 0,     /* personality(ADDR_NO_RANDOMIZE) */
	LK_PROC_MERGE_STDERR = 1 << 1 /* stderr goes to the stdout capture */
};

struct lk_proc_opts {
	const char *const *argv;  /* argv[0] is looked up in PATH */
	const char *const *envp;  /* NULL: inherit this process's environment;
				     either way LK_LAUNCH=<tag> is added */
	const char *cwd;          /* NULL: inherit */
	double timeout;           /* seconds; <= 0: none */
	int result_fd;            /* >= 3: a pipe at this fd in the child,
				     captured into lk_proc_result.res;
				     < 0: none */
	size_t max_capture;       /* per stream; 0: 16 MiB. Beyond: dropped,
				     flagged in *_truncated */
	unsigned flags;           /* LK_PROC_* */
	size_t memory_limit;      /* bytes of address space (RLIMIT_AS);
				     0: lk_proc_default_memory_limit(),
				     LK_PROC_UNLIMITED: none */
};

struct lk_proc_result {
	int exited;       /* normal exit ... */
	int exit_code;    /* ... with this code */
	int signaled;     /* killed by a signal ... */
	int signal;       /* ... this one */
	int timed_out;    /* killed by us after opts.timeout */
	double seconds;   /* wall time */
	size_t max_rss;   /* peak resident bytes of it and what it waited for */
	size_t memory_limit;  /* the limit applied, 0: none */
	int out_of_memory; /* failed under memory_limit, having used most of
			      it or saying it ran out of memory */
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
/* "exit 3", "killed by SIGSEGV", "timed out after 10 s", "out of memory
 * under the 64 MiB limit (60 MiB resident, then killed by SIGSEGV)" */
LK_GIVE char *lk_proc_describe(const struct lk_proc_result *res,
			       double timeout);

/* Convenience: run argv, capture stdout; 0 only if it exited with 0. */
int lk_proc_capture(struct lk_ctx *ctx, const char *const *argv,
		    double timeout, LK_GIVE char **out);

/* Same, keeping only the first line of stdout ("tool --version"). */
int lk_proc_first_line(struct lk_ctx *ctx, const char *const *argv,
		       double timeout, LK_GIVE char **line);

/* "12 GiB", "1.5 MiB", "100 bytes". */
LK_GIVE char *lk_proc_format_bytes(size_t bytes);

/* No memory limit, where one is asked for (opts, method, build spec). */
#define LK_PROC_UNLIMITED SIZE_MAX

/*
 * The RLIMIT_AS, soft and hard (a program must not raise it back), for a
 * memory_limit as in lk_proc_opts (0: the default, LK_PROC_UNLIMITED:
 * none), never above our own hard limit; RLIM_INFINITY when none. 1 when
 * a limit applies, 0 when not.
 */
int lk_proc_memory_rlimit(size_t bytes, struct rlimit *l);

/* Half of the physical memory: the default memory limit of every
 * program loopkit runs; 0 if unknown. */
size_t lk_proc_default_memory_limit(void);

/*
 * Launch hygiene (proc-reap.c), for the few callers that must fork
 * themselves (ptrace, sandboxes). loopkit is made a child subreaper, so
 * whatever a launch leaves behind comes back to it; a launch's processes
 * carry its tag in their environment.
 */
#define LK_PROC_TAG_VAR "LK_LAUNCH"
enum { LK_PROC_TAG_MAX = 64 };
/* A new launch tag, "LK_LAUNCH=<pid>.<n>", to add to its environment. */
void lk_proc_tag_new(char tag[LK_PROC_TAG_MAX]);
/* fork(), the child registered as ours until lk_proc_waitpid() (or
 * lk_proc_forget()) reaps it, so that no sweep reaps it first. The child
 * may only make async-signal-safe calls before exec. */
pid_t lk_proc_fork(void);
/* waitpid() (EINTR retried) that forgets the child once reaped. */
pid_t lk_proc_waitpid(pid_t pid, int *status, int flags);
void lk_proc_forget(pid_t pid);
/* Kill and reap every child of loopkit that carries tag (a whole
 * "LK_LAUNCH=..." string), their children in turn; reap stray zombies.
 * Never touches another launch's processes. Returns how many it killed. */
int lk_proc_sweep(const char *tag);

#endif
