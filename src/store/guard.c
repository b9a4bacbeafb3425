/*
 * What keeps a store whole: one writer at a time (an flock on
 * <dir>/store.lock that the kernel drops when the holder dies, however it
 * dies), a store.db that is a loopkit store and nothing else, created
 * whole or not at all, and a damaged page found before anything is
 * written over it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-int.h"

/*
 * flock belongs to an open file description: a second open() of the lock
 * file in this process would conflict with the first. So a process holds
 * one lock per store and counts the handles using it (a campaign opens the
 * store, then each of its stages opens it again).
 */
struct store_lock {
	dev_t dev;
	ino_t ino;
	int fd;
	int users;
	int checked; /* quick_check passed in this process */
	pid_t owner; /* a child forked with the lock must not clear it */
	struct store_lock *next;
};

static struct store_lock *held;
static pthread_mutex_t held_mutex = PTHREAD_MUTEX_INITIALIZER;

/* "loopkit run -c sweep.yaml", from /proc, for the holder record. */
static void describe_self(char *out, size_t size)
{
	char args[512], *p, *base = args;
	ssize_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, args, sizeof(args) - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(out, size, "loopkit");
		return;
	}
	args[n] = 0;
	/* argv[0] by its base name: the build path says nothing here. */
	for (p = args; *p; p++)
		if (*p == '/')
			base = p + 1;
	for (p = args; p < args + n - 1; p++)
		if (!*p)
			*p = ' ';
	snprintf(out, size, "%.*s", (int)size - 1, base);
}

/*
 * "<pid> <command>": only the refusal message depends on it, so a failed
 * write (-1) is no error; read_holder then says "another loopkit process".
 */
static int write_holder(int fd)
{
	char what[256], line[300];
	int len;

	describe_self(what, sizeof(what));
	len = snprintf(line, sizeof(line), "%ld %s\n", (long)getpid(), what);
	if (ftruncate(fd, 0) || pwrite(fd, line, (size_t)len, 0) != len)
		return -1;
	return 0;
}

static int clear_holder(int fd)
{
	return ftruncate(fd, 0);
}

/* The holder's record, as "loopkit run -c x.yaml (pid 12)". */
static void read_holder(int fd, char *out, size_t size)
{
	char line[300], *end;
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	long pid;

	line[n > 0 ? n : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	pid = strtol(line, &end, 10);
	/* Empty, or left by a holder killed since: the lock is someone
	 * else's, who has not written its record yet. */
	if (pid <= 0 || *end != ' ' || (kill((pid_t)pid, 0) && errno == ESRCH))
		snprintf(out, size, "another loopkit process");
	else
		snprintf(out, size, "%s (pid %ld)", end + 1, pid);
}

static int busy(struct lk_ctx *ctx, struct lk_store *s, int fd)
{
	char holder[300];

	read_holder(fd, holder, sizeof(holder));
	return lk_error_at(ctx, LK_ESTORE, s->db_path, 0,
			   "in use by %s; wait for it to finish or use "
			   "another -o DIR", holder);
}

static struct store_lock *find_held(const struct stat *st)
{
	struct store_lock *l;

	for (l = held; l; l = l->next)
		if (l->dev == st->st_dev && l->ino == st->st_ino)
			return l;
	return NULL;
}

/* Called with held_mutex held; consumes fd. */
static int lock_fd(struct lk_ctx *ctx, struct lk_store *s, int fd,
		   const char *path)
{
	struct stat st;
	struct store_lock *l;

	if (fstat(fd, &st)) {
		close(fd);
		return lk_error_errno(ctx, "%s", path);
	}
	l = find_held(&st);
	if (l) {
		close(fd);
	} else if (flock(fd, LOCK_EX | LOCK_NB)) {
		int ret = errno == EWOULDBLOCK ? busy(ctx, s, fd) :
			  lk_error_errno(ctx, "%s: cannot lock", path);

		close(fd);
		return ret;
	} else {
		write_holder(fd);
		l = lk_calloc(1, sizeof(*l));
		*l = (struct store_lock){st.st_dev, st.st_ino, fd, 0, 0,
					 getpid(), held};
		held = l;
	}
	l->users++;
	s->lock = l;
	return 0;
}

int store_lock(struct lk_ctx *ctx, struct lk_store *s)
{
	char *path = lk_path_join(s->dir, "store.lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666), ret;

	if (fd < 0) {
		ret = lk_error_errno(ctx, "%s: cannot open", path);
	} else {
		pthread_mutex_lock(&held_mutex);
		ret = lock_fd(ctx, s, fd, path);
		pthread_mutex_unlock(&held_mutex);
	}
	free(path);
	return ret;
}

void store_unlock(struct lk_store *s)
{
	struct store_lock **p, *l = s->lock;

	if (!l)
		return;
	s->lock = NULL;
	pthread_mutex_lock(&held_mutex);
	if (--l->users == 0) {
		for (p = &held; *p != l; p = &(*p)->next)
			;
		*p = l->next;
		/* No record outlives the lock: the next holder writes its own
		 * before anyone can read it. */
		if (l->owner == getpid())
			clear_holder(l->fd);
		close(l->fd);
		free(l);
	}
	pthread_mutex_unlock(&held_mutex);
}

/* Why a file whose application_id is not ours is no store of ours. */
static int not_ours(struct lk_ctx *ctx, struct lk_store *s, unsigned app_id)
{
	struct stat st;

	if (!stat(s->db_path, &st) && st.st_size == 0)
		return lk_error_at(ctx, LK_EINPUT, s->db_path, 0,
				   "not a loopkit store (an empty file)");
	if (!app_id)
		return lk_error_at(ctx, LK_EINPUT, s->db_path, 0,
				   "not a loopkit store (an SQLite database "
				   "without loopkit's application_id)");
	return lk_error_at(ctx, LK_EINPUT, s->db_path, 0,
			   "not a loopkit store (application_id %#x)",
			   app_id);
}

/*
 * Every store this loopkit or an older one created carries the mark:
 * migration 1 writes it in the store's first transaction. Reading it is
 * also what finds out a file is not SQLite at all.
 */
int store_check_identity(struct lk_ctx *ctx, struct lk_store *s)
{
	sqlite3_stmt *st = NULL;
	int ret = 0, rc;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA application_id", -1, &st,
				NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		unsigned app_id = (unsigned)sqlite3_column_int(st, 0);

		if (app_id != LK_STORE_APP_ID)
			ret = not_ours(ctx, s, app_id);
	} else if ((rc & 0xff) == SQLITE_NOTADB) {
		ret = lk_error_at(ctx, LK_EINPUT, s->db_path, 0,
				  "not a loopkit store (not an SQLite "
				  "database)");
	} else {
		ret = store_fail(ctx, s, "cannot read the store");
	}
	sqlite3_finalize(st);
	return ret;
}

/* quick_check's first finding, on one line. */
static int damaged(struct lk_ctx *ctx, struct lk_store *s, const char *what)
{
	static const char banner[] = "*** in database main ***\n";
	char *line, *p;
	int ret;

	if (!strncmp(what, banner, strlen(banner)))
		what += strlen(banner);
	line = lk_strdup(what);
	for (p = line; *p; p++)
		if (*p == '\n')
			*p = ' ';
	ret = lk_error_at(ctx, LK_ESTORE, s->db_path, 0,
			  "the store is damaged (%s); nothing was written "
			  "to it: keep a copy, then see 'sqlite3 %s "
			  ".recover'", line, s->db_path);
	free(line);
	return ret;
}

/*
 * PRAGMA quick_check reads every page (not the indexes against their
 * tables): about 0.35 s per 100 MB of store here, once per process.
 */
int store_check_pages(struct lk_ctx *ctx, struct lk_store *s)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *verdict;
	int ret = 0, rc;

	if (s->lock && s->lock->checked)
		return 0;
	rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st,
				NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		verdict = sqlite3_column_text(st, 0);
		if (!verdict || strcmp((const char *)verdict, "ok"))
			ret = damaged(ctx, s, verdict ? (const char *)verdict :
						"quick_check failed");
	} else if ((rc & 0xff) == SQLITE_CORRUPT ||
		   (rc & 0xff) == SQLITE_NOTADB) {
		ret = damaged(ctx, s, sqlite3_errmsg(s->db));
	} else {
		ret = store_fail(ctx, s, "cannot check the store");
	}
	sqlite3_finalize(st);
	if (!ret && s->lock)
		s->lock->checked = 1;
	return ret;
}

/*
 * A new store.db is built as store.db.new and renamed into place once its
 * schema is committed, so a store.db that exists is always a whole store:
 * a creation killed half-way leaves only the .new file, which the next
 * creation (under the same lock) starts again.
 */
int store_create(struct lk_ctx *ctx, struct lk_store *s)
{
	char *tmp = lk_asprintf("%s.new", s->db_path);
	char *journal = lk_asprintf("%s-journal", tmp);
	sqlite3 *db = NULL;
	int version, ret = 0;

	unlink(tmp);
	unlink(journal);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		ret = lk_error_at(ctx, LK_ESTORE, tmp, 0, "cannot create: %s",
				  sqlite3_errmsg(db));
	if (!ret)
		ret = lk_store_migrate(ctx, db, tmp, &version);
	if (sqlite3_close(db) != SQLITE_OK && !ret)
		ret = lk_error_at(ctx, LK_ESTORE, tmp, 0, "cannot close");
	if (!ret && rename(tmp, s->db_path))
		ret = lk_error_errno(ctx, "%s: cannot rename to %s", tmp,
				     s->db_path);
	if (ret)
		unlink(tmp);
	free(journal);
	free(tmp);
	return ret;
}
