/*
 * Nothing a launch started survives it.
 *
 * loopkit is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever a
 * launch leaves behind, a daemon that called setsid() included, is
 * re-parented to loopkit when its parent dies instead of to init. Every
 * launch carries a tag in its environment (LK_LAUNCH=<pid>.<n>), which
 * its descendants inherit; when the launch ends, lk_proc_sweep() kills
 * and reaps the children of loopkit that carry its tag, and only those,
 * so that a sweep never touches another thread's live launch.
 *
 * Why not a cgroup: it needs a delegated cgroup subtree, which a plain
 * user on most machines (and in most containers) does not have; the
 * subreaper works everywhere. Its limit: a descendant that execs with an
 * emptied environment, or under another user (setuid), loses the tag.
 *
 * Every direct child of loopkit is registered here ('owned') from fork
 * to reaping, under one lock, so that a sweep reaps strays (zombies that
 * are nobody's launch) without ever stealing a child that a thread is
 * waiting for.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopkit/subprocess.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t reaper_once = PTHREAD_ONCE_INIT;
static pid_t *owned;        /* a multiset: a pid may be reused */
static size_t nowned, aowned;
static unsigned long launches;

static void become_reaper(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Under reg_lock. */
static void own(pid_t pid)
{
	LK_GROW(owned, nowned + 1, aowned);
	owned[nowned++] = pid;
}

/* Under reg_lock. */
static int is_owned(pid_t pid)
{
	size_t i;

	for (i = 0; i < nowned; i++)
		if (owned[i] == pid)
			return 1;
	return 0;
}

void lk_proc_forget(pid_t pid)
{
	size_t i;

	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < nowned; i++)
		if (owned[i] == pid) {
			owned[i] = owned[--nowned];
			break;
		}
	pthread_mutex_unlock(&reg_lock);
}

void lk_proc_tag_new(char tag[LK_PROC_TAG_MAX])
{
	unsigned long n;

	pthread_once(&reaper_once, become_reaper);
	pthread_mutex_lock(&reg_lock);
	n = ++launches;
	pthread_mutex_unlock(&reg_lock);
	snprintf(tag, LK_PROC_TAG_MAX, LK_PROC_TAG_VAR "=%ld.%lu",
		 (long)getpid(), n);
}

pid_t lk_proc_fork(void)
{
	pid_t pid;

	pthread_once(&reaper_once, become_reaper);
	pthread_mutex_lock(&reg_lock);
	pid = fork();
	if (pid > 0)
		own(pid);
	if (pid != 0)
		pthread_mutex_unlock(&reg_lock);
	/* The child never touches the lock it inherited locked. */
	return pid;
}

pid_t lk_proc_waitpid(pid_t pid, int *status, int flags)
{
	int st = 0;
	pid_t got;

	while ((got = waitpid(pid, &st, flags)) < 0 && errno == EINTR)
		;
	/* A stop (ptrace) is reported too: only an end reaps. */
	if (got == pid && (WIFEXITED(st) || WIFSIGNALED(st)))
		lk_proc_forget(pid);
	if (status)
		*status = st;
	return got;
}

/* Read a whole small /proc file; NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	struct lk_buf b = LK_BUF_INIT;
	char chunk[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		lk_buf_add(&b, chunk, (size_t)n);
	close(fd);
	*len = b.len;
	return lk_buf_detach(&b);
}

/* Parent and state of a process; -1 when it is gone. */
static int proc_stat(pid_t pid, pid_t *ppid, char *state)
{
	char path[64], *text, *p;
	size_t len;
	long pp;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	text = slurp(path, &len);
	if (!text)
		return -1;
	/* "pid (comm) S ppid ...": comm may hold spaces and parens. */
	p = strrchr(text, ')');
	if (!p || sscanf(p + 1, " %c %ld", state, &pp) != 2) {
		free(text);
		return -1;
	}
	*ppid = (pid_t)pp;
	free(text);
	return 0;
}

/*
 * 1 when pid's environment holds tag, 0 when it does not, -1 when it
 * reads empty: a process inside execve() (the new image's environment
 * is not set up yet) or one that emptied it; the sweep looks again.
 */
static int has_tag(pid_t pid, const char *tag)
{
	char path[64], *env, *p;
	size_t len, tl = strlen(tag);
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	env = slurp(path, &len);
	if (!env)
		return 0;
	if (!len) {
		free(env);
		return -1;
	}
	for (p = env; p < env + len; p += strlen(p) + 1)
		if (!strncmp(p, tag, tl) && p[tl] == '\0') {
			found = 1;
			break;
		}
	free(env);
	return found;
}

/* Our children, from each thread's /proc/self/task/TID/children (orphans
 * are given to one of our threads); -1 when the kernel has no such file
 * (CONFIG_PROC_CHILDREN). */
static int list_children(struct lk_buf *pids)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int ret = d ? 0 : -1;

	while (d && !ret && (e = readdir(d))) {
		char path[300], *text, *p, *end;
		size_t len;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
			 e->d_name);
		if (!(text = slurp(path, &len))) {
			ret = errno == ENOENT ? -1 : 0;
			continue;
		}
		for (p = text; *p; p = end) {
			long pid = strtol(p, &end, 10);
			pid_t one = (pid_t)pid;

			if (end == p)
				break;
			lk_buf_add(pids, &one, sizeof(one));
		}
		free(text);
	}
	if (d)
		closedir(d);
	return ret;
}

/* The same from a scan of /proc: every process whose parent we are. */
static void scan_children(struct lk_buf *pids)
{
	pid_t self = getpid(), ppid, pid;
	DIR *d = opendir("/proc");
	struct dirent *e;
	char state;

	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atol(e->d_name);
		if (!proc_stat(pid, &ppid, &state) && ppid == self)
			lk_buf_add(pids, &pid, sizeof(pid));
	}
	if (d)
		closedir(d);
}

/*
 * One pass over our children, under reg_lock: reap strays, kill the
 * tagged ones and register them in *killed (to reap without the lock).
 * Returns how many children could not be told apart (empty environment).
 */
static int sweep_pass(const char *tag, struct lk_buf *killed)
{
	struct lk_buf children = LK_BUF_INIT;
	pid_t self = getpid(), ppid, pid;
	size_t i;
	int unsure = 0, tagged;
	char state;

	if (list_children(&children)) {
		lk_buf_reset(&children);
		scan_children(&children);
	}
	for (i = 0; i < children.len / sizeof(pid_t); i++) {
		memcpy(&pid, children.buf + i * sizeof(pid), sizeof(pid));
		if (is_owned(pid) || proc_stat(pid, &ppid, &state) ||
		    ppid != self)
			continue;
		if (state == 'Z') {
			waitpid(pid, NULL, WNOHANG);
			continue;
		}
		tagged = has_tag(pid, tag);
		if (tagged < 0)
			unsure++;
		else if (tagged && !kill(pid, SIGKILL)) {
			own(pid);
			lk_buf_add(killed, &pid, sizeof(pid));
		}
	}
	lk_buf_release(&children);
	return unsure;
}

int lk_proc_sweep(const char *tag)
{
	struct lk_buf killed = LK_BUF_INIT;
	int pass, total = 0, unsure, waits = 0;
	size_t i, n;

	/* A killed process's own children come to us in turn: go on until
	 * a pass finds nothing (bounded, against a fork bomb). A child
	 * caught inside execve() has no environment to read for a moment:
	 * look again, 1 ms apart, for up to 200 ms (a process that emptied
	 * its environment costs that and escapes, as documented). */
	for (pass = 0; pass < 1000; pass++) {
		lk_buf_reset(&killed);
		pthread_mutex_lock(&reg_lock);
		unsure = sweep_pass(tag, &killed);
		pthread_mutex_unlock(&reg_lock);
		if (unsure && !killed.len && waits < 200) {
			waits++;
			usleep(1000);
			continue;
		}
		n = killed.len / sizeof(pid_t);
		for (i = 0; i < n; i++) {
			pid_t pid;

			memcpy(&pid, killed.buf + i * sizeof(pid), sizeof(pid));
			lk_proc_waitpid(pid, NULL, 0);
		}
		total += (int)n;
		if (!n)
			break;
	}
	lk_buf_release(&killed);
	return total;
}
