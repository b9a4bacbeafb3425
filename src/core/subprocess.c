/*
 * The one subprocess module: posix_spawn with an argv array, pipes for
 * stdout, stderr and an optional result fd, a deadline enforced by killing
 * the child's whole process group.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
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

static void close_pipe(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

static int setup_actions(posix_spawn_file_actions_t *fa,
			 const struct lk_proc_opts *o, int pipes[][2])
{
	int err = posix_spawn_file_actions_init(fa);

	if (err)
		return err;
	err = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(fa, pipes[OUT][1], 1);
	if (!err)
		err = posix_spawn_file_actions_adddup2(
			fa, pipes[(o->flags & LK_PROC_MERGE_STDERR) ? OUT : ERR][1],
			2);
	if (!err && o->result_fd >= 3)
		err = posix_spawn_file_actions_adddup2(fa, pipes[RES][1],
						       o->result_fd);
	if (!err && o->cwd)
		err = posix_spawn_file_actions_addchdir_np(fa, o->cwd);
	return err;
}

static int setup_attr(posix_spawnattr_t *at)
{
	sigset_t none, deflt;
	int err = posix_spawnattr_init(at);

	if (err)
		return err;
	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGTERM);
	posix_spawnattr_setsigmask(at, &none);
	posix_spawnattr_setsigdefault(at, &deflt);
	posix_spawnattr_setpgroup(at, 0);
	return posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP |
					POSIX_SPAWN_SETSIGMASK |
					POSIX_SPAWN_SETSIGDEF);
}

/*
 * ADDR_NO_RANDOMIZE is a personality bit inherited across exec; it is set
 * on the calling thread only for the duration of the spawn.
 */
static int spawn(pid_t *pid, const struct lk_proc_opts *o,
		 posix_spawn_file_actions_t *fa, posix_spawnattr_t *at)
{
	char *const *envp = (char *const *)(o->envp ? o->envp :
					    (const char *const *)environ);
	int old = -1, err;

	if (o->flags & LK_PROC_NO_ASLR) {
		old = personality(0xffffffff);
		if (old != -1)
			personality((unsigned long)old | ADDR_NO_RANDOMIZE);
	}
	err = posix_spawnp(pid, o->argv[0], fa, at, (char *const *)o->argv,
			   envp);
	if (old != -1)
		personality((unsigned long)old);
	return err;
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

static void wait_child(pid_t pid, struct stream *st, const struct lk_proc_opts *o,
		       struct lk_proc_result *r, size_t max)
{
	double start = lk_now(), deadline = start + o->timeout;
	int status = 0, reaped = 0, i;

	while (!reaped) {
		int ms = 50;

		if (o->timeout > 0) {
			double left = deadline - lk_now();

			if (left <= 0 && !r->timed_out) {
				r->timed_out = 1;
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
			}
			if (left > 0 && left * 1000 < ms)
				ms = (int)(left * 1000) + 1;
		}
		i = poll_streams(st, ms);
		if (i)
			drain(&st[i - 1], max);
		if (waitpid(pid, &status, WNOHANG) == pid)
			reaped = 1;
	}
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
	r->exited = WIFEXITED(status);
	r->exit_code = r->exited ? WEXITSTATUS(status) : -1;
	r->signaled = WIFSIGNALED(status);
	r->signal = r->signaled ? WTERMSIG(status) : 0;
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

int lk_proc_run(struct lk_ctx *ctx, const struct lk_proc_opts *o,
		struct lk_proc_result *r)
{
	int pipes[NSTREAMS][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
	struct stream st[NSTREAMS];
	size_t max = o->max_capture ? o->max_capture : (16u << 20);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid;
	int i, err, ret = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < NSTREAMS; i++) {
		st[i].fd = -1;
		lk_buf_init(&st[i].buf);
		st[i].truncated = 0;
		if ((i != RES || o->result_fd >= 3) &&
		    pipe2(pipes[i], O_CLOEXEC)) {
			ret = lk_error_errno(ctx, "pipe");
			goto out;
		}
	}
	err = setup_actions(&fa, o, pipes);
	if (!err)
		err = setup_attr(&at);
	if (!err)
		err = spawn(&pid, o, &fa, &at);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (err) {
		errno = err;
		ret = err == ENOENT ? LK_ENOTFOUND : LK_ESYS;
		lk_error(ctx, ret, "cannot run %s: %s", o->argv[0],
			 strerror(err));
		goto out;
	}
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
out:
	for (i = 0; i < NSTREAMS; i++)
		close_pipe(pipes[i]);
	collect(st, r);
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

char *lk_proc_describe(const struct lk_proc_result *r, double timeout)
{
	if (r->timed_out)
		return lk_asprintf("timed out after %g s", timeout);
	if (r->signaled)
		return lk_asprintf("killed by SIG%s", sigabbrev_np(r->signal) ?
				   sigabbrev_np(r->signal) : "?");
	return lk_asprintf("exit %d", r->exit_code);
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
