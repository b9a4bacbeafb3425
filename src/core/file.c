/* Files and paths. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loopkit/core.h"

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a fifo";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

static int too_large(struct lk_ctx *ctx, const char *path, size_t max)
{
	int mib = max >= (1 << 20) && !(max & ((1 << 20) - 1));

	return lk_error(ctx, LK_EINPUT, "%s: larger than %zu %s, the most "
			"loopkit reads for this kind of input", path,
			mib ? max >> 20 : max, mib ? "MiB" : "bytes");
}

/* Only a regular file, not over max by its size now (it may grow: the
 * reading checks again). O_NONBLOCK: opening a fifo does not wait. */
static int open_regular(struct lk_ctx *ctx, const char *path, size_t max,
			int *fd)
{
	struct stat st;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		return lk_error_errno(ctx, "cannot open %s", path);
	if (fstat(*fd, &st))
		return lk_error_errno(ctx, "cannot stat %s", path);
	if (!S_ISREG(st.st_mode))
		return lk_error(ctx, LK_EINPUT, "%s: not a regular file (%s)",
				path, file_kind(st.st_mode));
	if ((uintmax_t)st.st_size > max)
		return too_large(ctx, path, max);
	return 0;
}

int lk_file_check_regular(struct lk_ctx *ctx, const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		int missing = errno == ENOENT || errno == ENOTDIR;

		lk_error_errno(ctx, "cannot open %s", path);
		/* a path that names nothing is the user's mistake */
		return missing ? (ctx->code = LK_EINPUT) : LK_ESYS;
	}
	if (!S_ISREG(st.st_mode))
		return lk_error(ctx, LK_EINPUT, "%s: not a regular file (%s)",
				path, file_kind(st.st_mode));
	return 0;
}

static int read_all(struct lk_ctx *ctx, const char *path, int fd,
		    size_t max, struct lk_buf *b)
{
	char chunk[65536];
	ssize_t n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return lk_error_errno(ctx, "cannot read %s", path);
		}
		if (b->len + (size_t)n > max)
			return too_large(ctx, path, max);
		lk_buf_add(b, chunk, (size_t)n);
	}
	return 0;
}

int lk_file_read_max(struct lk_ctx *ctx, const char *path, size_t max,
		     char **data, size_t *len)
{
	struct lk_buf b = LK_BUF_INIT;
	int fd = -1;
	int ret = open_regular(ctx, path, max, &fd);

	if (!ret)
		ret = read_all(ctx, path, fd, max, &b);
	if (fd >= 0)
		close(fd);
	if (ret) {
		lk_buf_release(&b);
		*data = NULL;
		return ret;
	}
	if (len)
		*len = b.len;
	*data = lk_buf_detach(&b);
	return 0;
}

int lk_file_read(struct lk_ctx *ctx, const char *path, char **data,
		 size_t *len)
{
	return lk_file_read_max(ctx, path, LK_FILE_MAX_TEXT, data, len);
}

int lk_file_read_input(struct lk_ctx *ctx, const char *path, char **data,
		       size_t *len)
{
	int ret = lk_file_check_regular(ctx, path);

	*data = NULL;
	return ret ? ret : lk_file_read(ctx, path, data, len);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static char *temp_name(const char *path)
{
	return lk_asprintf("%s.tmp.%ld.%lx", path, (long)getpid(),
			   (unsigned long)random());
}

int lk_file_write_atomic(struct lk_ctx *ctx, const char *path,
			 const void *data, size_t len)
{
	char *tmp = temp_name(path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int ret = 0;

	if (fd < 0) {
		ret = lk_error_errno(ctx, "cannot create %s", tmp);
		goto out;
	}
	if (write_all(fd, data, len) || fsync(fd)) {
		ret = lk_error_errno(ctx, "cannot write %s", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	close(fd);
	if (rename(tmp, path)) {
		ret = lk_error_errno(ctx, "cannot rename %s to %s", tmp, path);
		unlink(tmp);
	}
out:
	free(tmp);
	return ret;
}

int lk_file_copy_atomic(struct lk_ctx *ctx, const char *from, const char *to,
			int mode)
{
	char *data;
	size_t len;
	int ret = lk_file_read(ctx, from, &data, &len);

	if (ret)
		return ret;
	ret = lk_file_write_atomic(ctx, to, data, len);
	free(data);
	if (!ret && chmod(to, (mode_t)mode))
		ret = lk_error_errno(ctx, "cannot chmod %s", to);
	return ret;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int lk_mkdir_p(struct lk_ctx *ctx, const char *path, int mode)
{
	char *p = lk_strdup(path), *s;
	int ret = 0;

	for (s = p + (*p == '/');; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		/* errno stays EEXIST when the existing thing is a file. */
		if (mkdir(p, (mode_t)mode) && (errno != EEXIST || !is_dir(p))) {
			ret = lk_error_errno(ctx, "cannot create directory %s",
					     p);
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return ret;
}

int lk_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

char *lk_path_join(const char *dir, const char *name)
{
	size_t len = strlen(dir);

	if (name[0] == '/' || !len)
		return lk_strdup(name);
	return lk_asprintf("%s%s%s", dir, dir[len - 1] == '/' ? "" : "/",
			   name);
}

/* As dirname(3): trailing and repeated slashes do not make a component. */
char *lk_path_dirname(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	if (!n)
		return lk_strdup(".");
	while (n > 1 && path[n - 1] == '/')
		n--;
	return lk_strndup(path, n);
}

char *lk_path_real(const char *path)
{
	char *p = realpath(path, NULL);
	char *copy;

	if (!p)
		return NULL;
	copy = lk_strdup(p);
	free(p);
	return copy;
}

/* access(X_OK) alone also accepts directories. */
static int is_program(const char *path)
{
	struct stat st;

	return !access(path, X_OK) && !stat(path, &st) && S_ISREG(st.st_mode);
}

char *lk_which(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	char *found = NULL;

	if (strchr(name, '/'))
		return is_program(name) ? lk_strdup(name) : NULL;
	dirs = lk_strdup(path ? path : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *cand = lk_path_join(*dir ? dir : ".", name);

		if (is_program(cand))
			found = cand;
		else
			free(cand);
	}
	free(dirs);
	return found;
}

double lk_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t lk_text_bom(const char *text, size_t len)
{
	return len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0;
}
