/*
 * The one subprocess module: fork and exec with an argv array, pipes for
 * stdout, stderr and an optional result fd, a memory limit, a deadline
 * enforced by killing the child's whole process group, and, whatever the
 * way the launch ends, everything it started killed (proc-reap.c).
 *
 * fork rather than posix_spawn: posix_spawn cannot set an rlimit. The
 * child, a copy of a multi-threaded process, makes only async-signal-safe
 * calls between fork and exec (as git's run-command does): everything it
 * needs (the program's path, the environment, the fds, the limit) is
 * prepared before the fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopkit/subprocess.h"

extern char **environ;

enum { OUT, ERR, RES, NSTREAMS };

struct stream {
	int fd;              /* read end, -1 when closed */
	struct lk_buf buf;
	int truncated;
};

/* Everything the child needs, ready before the fork. */
struct child_plan {
	const char *path;        /* argv[0] resolved in PATH */
	char *const *argv, *const *envp;
	const char *cwd;
	int null_fd, out_fd, err_fd, res_fd, result_fd;
	int report_fd;           /* exec failure: errno written here */
	int no_aslr, limit_set;
	struct rlimit limit;
};

static void close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* Move fd above 'floor' (close-on-exec), so that the child's dup2 onto
 * 0..floor never clobbers a source it has yet to use. */
static int lift_fd(int *fd, int floor)
{
	int hi;

	if (*fd < 0 || *fd > floor)
		return 0;
	hi = fcntl(*fd, F_DUPFD_CLOEXEC, floor + 1);
	if (hi < 0)
		return -1;
	close(*fd);
	*fd = hi;
	return 0;
}

/* What posix_spawnp would run, found before the fork (execvp allocates).
 * NULL with errno set when there is none. */
static char *resolve(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	int err = ENOENT;

	if (strchr(name, '/'))
		return lk_strdup(name);
	for (p = path ? path : "/usr/local/bin:/bin:/usr/bin"; ; p = end + 1) {
		char *full;
		struct stat sb;

		end = strchrnul(p, ':');
		full = lk_asprintf("%.*s%s%s", (int)(end - p), p,
				   end > p ? "/" : "", name);
		if (!stat(full, &sb) && S_ISREG(sb.st_mode)) {
			if (!access(full, X_OK))
				return full;
			err = EACCES;
		}
		free(full);
		if (!*end)
			break;
	}
	errno = err;
	return NULL;
}

static int move_fd(int from, int to)
{
	if (from == to)
		return fcntl(to, F_SETFD, 0);
	return dup2(from, to);
}

/* In the child: async-signal-safe calls only, until execve. */
LK_NORETURN static void child(const struct child_plan *p)
{
	static const int deflt[] = {SIGPIPE, SIGINT, SIGTERM, SIGQUIT,
				    SIGHUP, SIGCHLD};
	struct sigaction sa;
	sigset_t none;
	size_t i;
	int err;

	setpgid(0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (i = 0; i < LK_ARRAY_SIZE(deflt); i++)
		sigaction(deflt[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (move_fd(p->null_fd, 0) < 0 || move_fd(p->out_fd, 1) < 0 ||
	    move_fd(p->err_fd, 2) < 0 ||
	    (p->res_fd >= 0 && move_fd(p->res_fd, p->result_fd) < 0))
		goto fail;
	if (p->cwd && chdir(p->cwd))
		goto fail;
	if (p->limit_set && setrlimit(RLIMIT_AS, &p->limit))
		goto fail;
	if (p->no_aslr) {
		int old = personality(0xffffffff);

		if (old != -1)
			personality((unsigned long)old | ADDR_NO_RANDOMIZE);
	}
	execve(p->path, p->argv, p->envp);
fail:
	err = errno;
	if (write(p->report_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The soft and hard limit both (a benchmark must not raise it back),
 * never above the hard limit we run under ourselves.
 */
int lk_proc_memory_rlimit(size_t bytes, struct rlimit *l)
{
	struct rlimit cur;
	int limited;

	if (!bytes)
		bytes = lk_proc_default_memory_limit();
	limited = bytes && bytes != LK_PROC_UNLIMITED;
	l->rlim_cur = l->rlim_max = limited ? (rlim_t)bytes : RLIM_INFINITY;
	if (!getrlimit(RLIMIT_AS, &cur) && cur.rlim_max < l->rlim_max)
		l->rlim_cur = l->rlim_max = cur.rlim_max;
	return limited;
}

static void plan_limit(struct child_plan *p, size_t bytes)
{
	p->limit_set = lk_proc_memory_rlimit(bytes, &p->limit);
}

/* The child's environment: the given one (or ours) with our tag. */
static void plan_env(const struct lk_proc_opts *o, const char *tag,
		     struct lk_strv *env)
{
	const char *const *e = o->envp ? o->envp
				       : (const char *const *)environ;
	size_t tl = strlen(LK_PROC_TAG_VAR "=");

	for (; *e; e++)
		if (strncmp(*e, LK_PROC_TAG_VAR "=", tl))
			lk_strv_push(env, *e);
	lk_strv_push(env, tag);
}

/* Fork and exec; 0 or the errno of what failed (the exec's included). */
static int spawn(pid_t *pid, struct child_plan *p)
{
	int report[2], err = 0;
	ssize_t n;

	if (pipe2(report, O_CLOEXEC))
		return errno;
	p->report_fd = report[1];
	*pid = lk_proc_fork();
	if (*pid == 0)
		child(p);
	close(report[1]);
	if (*pid < 0) {
		err = errno;
		close(report[0]);
		return err;
	}
	/* Also here, so that a timeout can kill the group at once. */
	setpgid(*pid, *pid);
	while ((n = read(report[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (n == sizeof(err)) {
		lk_proc_waitpid(*pid, NULL, 0);
		return err ? err : ECHILD;
	}
	return 0;
}

static void drain(struct stream *s, size_t max)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = read(s->fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(s->fd);
			s->fd = -1;
			return;
		}
		if (s->buf.len + (size_t)n > max) {
			s->truncated = 1;
			if (s->buf.len < max)
				lk_buf_add(&s->buf, chunk, max - s->buf.len);
		} else {
			lk_buf_add(&s->buf, chunk, (size_t)n);
		}
	}
}

static int poll_streams(struct stream *st, int ms)
{
	struct pollfd pfd[NSTREAMS];
	int map[NSTREAMS], n = 0, i;

	for (i = 0; i < NSTREAMS; i++) {
		if (st[i].fd < 0)
			continue;
		pfd[n].fd = st[i].fd;
		pfd[n].events = POLLIN;
		map[n++] = i;
	}
	if (!n) {
		poll(NULL, 0, ms < 2 ? ms : 2);
		return 0;
	}
	if (poll(pfd, (nfds_t)n, ms) <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (pfd[i].revents)
			return 1 + map[i];
	return 0;
}

/* Has the child ended? It stays a zombie (WNOWAIT): its pid, and so its
 * process group's id, cannot be reused until it is reaped. */
static int ended(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       errno == EINTR)
		;
	return si.si_pid == pid;
}

/* The child is a zombie: kill what is left of its group, then reap it. */
static void reap(pid_t pid, struct lk_proc_result *r)
{
	struct rusage ru;
	int status = 0;

	kill(-pid, SIGKILL);
	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	lk_proc_forget(pid);
	r->exited = WIFEXITED(status);
	r->exit_code = r->exited ? WEXITSTATUS(status) : -1;
	r->signaled = WIFSIGNALED(status);
	r->signal = r->signaled ? WTERMSIG(status) : 0;
	r->max_rss = (size_t)ru.ru_maxrss * 1024;
}

static void wait_child(pid_t pid, struct stream *st, const struct lk_proc_opts *o,
		       struct lk_proc_result *r, size_t max)
{
	double start = lk_now(), deadline = start + o->timeout;
	int i;

	while (!ended(pid)) {
		int ms = 50;

		if (o->timeout > 0) {
			double left = deadline - lk_now();

			if (left <= 0 && !r->timed_out) {
				r->timed_out = 1;
				kill(-pid, SIGKILL);
			}
			if (left > 0 && left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		i = poll_streams(st, ms);
		if (i)
			drain(&st[i - 1], max);
	}
	reap(pid, r);
	/* Whatever is still buffered in the pipes (grandchildren may hold
	 * them open: take what is there, do not wait for them). */
	for (i = 0; i < NSTREAMS; i++)
		if (st[i].fd >= 0) {
			drain(&st[i], max);
			if (st[i].fd >= 0)
				close(st[i].fd);
			st[i].fd = -1;
		}
	r->seconds = lk_now() - start;
}

static void collect(struct stream *st, struct lk_proc_result *r)
{
	r->out_len = st[OUT].buf.len;
	r->out = lk_buf_detach(&st[OUT].buf);
	r->out_truncated = st[OUT].truncated;
	r->err_len = st[ERR].buf.len;
	r->err = lk_buf_detach(&st[ERR].buf);
	r->err_truncated = st[ERR].truncated;
	r->res_len = st[RES].buf.len;
	r->res = lk_buf_detach(&st[RES].buf);
	r->res_truncated = st[RES].truncated;
}

/* What programs print when an allocation fails (gcc, clang and LLVM,
 * C++, glibc's strerror). */
static int says_out_of_memory(const char *text)
{
	static const char *const phrases[] = {
		"out of memory", "memory exhausted", "std::bad_alloc",
		"Cannot allocate memory"};
	size_t i;

	for (i = 0; text && i < LK_ARRAY_SIZE(phrases); i++)
		if (strstr(text, phrases[i]))
			return 1;
	return 0;
}

/*
 * Failed under a memory limit, and either used most of it (an allocation
 * that failed returns NULL: the program then crashes or gives up) or
 * said it ran out (a failed allocation can be one large request).
 */
static int out_of_memory(const struct lk_proc_result *r)
{
	if (!r->memory_limit || r->timed_out ||
	    (r->exited && r->exit_code == 0))
		return 0;
	return r->max_rss >= r->memory_limit / 4 * 3 ||
	       says_out_of_memory(r->err) || says_out_of_memory(r->out);
}

static int open_streams(struct lk_ctx *ctx, const struct lk_proc_opts *o,
			int pipes[][2], struct child_plan *p)
{
	int floor = o->result_fd > 2 ? o->result_fd : 2, i;

	p->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (p->null_fd < 0 || lift_fd(&p->null_fd, floor))
		return lk_error_errno(ctx, "/dev/null");
	for (i = 0; i < NSTREAMS; i++) {
		if (i == RES && o->result_fd < 3)
			continue;
		if (pipe2(pipes[i], O_CLOEXEC) || lift_fd(&pipes[i][0], floor) ||
		    lift_fd(&pipes[i][1], floor))
			return lk_error_errno(ctx, "pipe");
	}
	p->out_fd = pipes[OUT][1];
	p->err_fd = pipes[(o->flags & LK_PROC_MERGE_STDERR) ? OUT : ERR][1];
	p->res_fd = pipes[RES][1];
	p->result_fd = o->result_fd;
	return 0;
}

static int start(struct lk_ctx *ctx, const struct lk_proc_opts *o,
		 struct child_plan *p, const char *tag, pid_t *pid)
{
	struct lk_strv env = LK_STRV_INIT;
	char *path = resolve(o->argv[0]);
	int err = path ? 0 : errno, ret = 0;

	plan_env(o, tag, &env);
	p->path = path;
	p->argv = (char *const *)o->argv;
	p->envp = env.v;
	p->cwd = o->cwd;
	p->no_aslr = !!(o->flags & LK_PROC_NO_ASLR);
	plan_limit(p, o->memory_limit);
	if (!err)
		err = spawn(pid, p);
	if (err) {
		ret = err == ENOENT ? LK_ENOTFOUND : LK_ESYS;
		lk_error(ctx, ret, "cannot run %s: %s", o->argv[0],
			 strerror(err));
	}
	free(path);
	lk_strv_release(&env);
	return ret;
}

int lk_proc_run(struct lk_ctx *ctx, const struct lk_proc_opts *o,
		struct lk_proc_result *r)
{
	int pipes[NSTREAMS][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
	struct stream st[NSTREAMS];
	size_t max = o->max_capture ? o->max_capture : (16u << 20);
	struct child_plan plan = {.null_fd = -1};
	char tag[LK_PROC_TAG_MAX];
	pid_t pid = -1;
	int i, ret;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < NSTREAMS; i++) {
		st[i].fd = -1;
		lk_buf_init(&st[i].buf);
		st[i].truncated = 0;
	}
	lk_proc_tag_new(tag);
	ret = open_streams(ctx, o, pipes, &plan);
	if (!ret)
		ret = start(ctx, o, &plan, tag, &pid);
	r->memory_limit = plan.limit_set ? (size_t)plan.limit.rlim_max : 0;
	if (plan.null_fd >= 0)
		close(plan.null_fd);
	if (ret)
		goto out;
	/* Non-blocking reads: drain() takes what is there and returns, so
	 * the deadline holds and no stream starves another. */
	for (i = 0; i < NSTREAMS; i++) {
		st[i].fd = pipes[i][0];
		pipes[i][0] = -1;
		if (st[i].fd >= 0)
			fcntl(st[i].fd, F_SETFL, O_NONBLOCK);
		if (pipes[i][1] >= 0)
			close(pipes[i][1]);
		pipes[i][1] = -1;
	}
	wait_child(pid, st, o, r, max);
	lk_proc_sweep(tag);
out:
	for (i = 0; i < NSTREAMS; i++)
		close_pipe(pipes[i]);
	collect(st, r);
	r->out_of_memory = !ret && out_of_memory(r);
	return ret;
}

void lk_proc_result_release(struct lk_proc_result *r)
{
	free(r->out);
	free(r->err);
	free(r->res);
	memset(r, 0, sizeof(*r));
}

int lk_proc_ok(const struct lk_proc_result *r)
{
	return r->exited && r->exit_code == 0 && !r->timed_out;
}

static char *how_it_ended(const struct lk_proc_result *r, double timeout)
{
	if (r->timed_out)
		return lk_asprintf("timed out after %g s", timeout);
	if (r->signaled)
		return lk_asprintf("killed by SIG%s", sigabbrev_np(r->signal) ?
				   sigabbrev_np(r->signal) : "?");
	return lk_asprintf("exit %d", r->exit_code);
}

char *lk_proc_describe(const struct lk_proc_result *r, double timeout)
{
	char *how = how_it_ended(r, timeout), *limit, *peak, *text;

	if (!r->out_of_memory)
		return how;
	limit = lk_proc_format_bytes(r->memory_limit);
	peak = lk_proc_format_bytes(r->max_rss);
	text = lk_asprintf("out of memory under the %s limit (%s resident, "
			   "then %s)", limit, peak, how);
	free(limit);
	free(peak);
	free(how);
	return text;
}

char *lk_proc_format_bytes(size_t bytes)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB",
					    "TiB"};
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < LK_ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (!u)
		return lk_asprintf("%zu bytes", bytes);
	return lk_asprintf(v == (double)(long)v ? "%.0f %s" : "%.1f %s", v,
			   units[u]);
}

size_t lk_proc_default_memory_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return 0;
	return (size_t)pages * (size_t)size / 2;
}

int lk_proc_capture(struct lk_ctx *ctx, const char *const *argv,
		    double timeout, char **out)
{
	struct lk_proc_opts o = {.argv = argv, .timeout = timeout,
				 .result_fd = -1};
	struct lk_proc_result r;
	int ret = lk_proc_run(ctx, &o, &r);

	*out = NULL;
	if (!ret && !lk_proc_ok(&r)) {
		char *why = lk_proc_describe(&r, timeout);

		ret = lk_error(ctx, LK_ECHILD, "%s failed (%s)", argv[0], why);
		free(why);
	}
	if (!ret) {
		*out = r.out;
		r.out = NULL;
	}
	lk_proc_result_release(&r);
	return ret;
}

int lk_proc_first_line(struct lk_ctx *ctx, const char *const *argv,
		       double timeout, char **line)
{
	int ret = lk_proc_capture(ctx, argv, timeout, line);

	if (!ret)
		(*line)[strcspn(*line, "\n")] = '\0';
	return ret;
}
