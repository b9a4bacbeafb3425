/*
 * env tuning: put the machine in a state fit for measurement, and undo it.
 *
 * Every setting's old value is saved in the state file before the setting
 * is written, so a crash between the two loses nothing and restore can
 * always put back what was there before loopkit touched it. A second tune
 * keeps the values the first one saved: those are the machine's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/env.h"
#include "env-int.h"

/* tmpfs: a reboot undoes the tuning and forgets the state together. */
#define STATE_DEFAULT "/run/loopkit/tune.state"

struct tuner {
	struct lk_ctx *ctx;
	int apply;
	struct lk_buf *report;
	char *state_file;       /* real path */
	struct lk_strv paths;   /* saved settings (system paths) ... */
	struct lk_strv olds;    /* ... and their values before any tune */
	int saved_now;          /* entries this call added */
	int failures;
};

struct setting {
	const char *label;
	const char *path;     /* NULL: fn handles its own files */
	const char *target;
	const char *absent;   /* why the file may be missing */
	int (*acceptable)(const char *current); /* NULL: equals target */
	void (*fn)(struct tuner *t, const struct setting *s);
};

static void say(struct tuner *t, const char *fmt, ...) LK_PRINTF(2, 3);

static void say(struct tuner *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lk_buf_vaddf(t->report, fmt, ap);
	va_end(ap);
	lk_buf_addch(t->report, '\n');
}

static int needs_root(int err)
{
	return err == EACCES || err == EPERM || err == EROFS;
}

static char *state_path(void)
{
	const char *env = getenv("LOOPKIT_TUNE_STATE");

	return env && *env ? lk_strdup(env) : lk__env_path(STATE_DEFAULT);
}

/* Lines "path<TAB>old-value"; anything else is skipped with a warning. */
static int state_load(struct tuner *t)
{
	char *text, *line, *save = NULL;
	int ret;

	if (access(t->state_file, F_OK) && errno == ENOENT)
		return 0;
	ret = lk_file_read(t->ctx, t->state_file, &text, NULL);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab || tab == line) {
			lk_warn(t->ctx, "%s: ignoring malformed line '%s'",
				t->state_file, line);
			continue;
		}
		*tab = '\0';
		lk_strv_push(&t->paths, line);
		lk_strv_push(&t->olds, tab + 1);
	}
	free(text);
	return 0;
}

static int state_save(struct tuner *t)
{
	struct lk_buf b = LK_BUF_INIT;
	char *dir = lk_path_dirname(t->state_file);
	size_t i;
	int ret;

	for (i = 0; i < t->paths.n; i++)
		lk_buf_addf(&b, "%s\t%s\n", t->paths.v[i], t->olds.v[i]);
	ret = lk_mkdir_p(t->ctx, dir, 0755);
	if (!ret)
		ret = lk_file_write_atomic(t->ctx, t->state_file,
					   lk_buf_str(&b), b.len);
	free(dir);
	lk_buf_release(&b);
	return ret;
}

static int state_find(const struct tuner *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->paths.n; i++)
		if (!strcmp(t->paths.v[i], path))
			return (int)i;
	return -1;
}

static void state_pop(struct tuner *t)
{
	free(t->paths.v[--t->paths.n]);
	t->paths.v[t->paths.n] = NULL;
	free(t->olds.v[--t->olds.n]);
	t->olds.v[t->olds.n] = NULL;
}

/*
 * Save path's current value unless an earlier tune already did.
 * Returns 1 if added (and written to disk), 0 if already saved, or a
 * negative LK_E* code.
 */
static int state_remember(struct tuner *t, const char *path, const char *old)
{
	int ret;

	if (state_find(t, path) >= 0)
		return 0;
	if (strpbrk(old, "\t\n"))
		return lk_error(t->ctx, LK_EINPUT,
				"%s: value cannot be saved in the state file",
				path);
	lk_strv_push(&t->paths, path);
	lk_strv_push(&t->olds, old);
	ret = state_save(t);
	if (ret) {
		state_pop(t);
		return ret;
	}
	return 1;
}

/* O_TRUNC for the fake trees in tests; sysfs and procfs ignore it. */
static int write_value(const char *real, const char *value)
{
	char *line = lk_asprintf("%s\n", value);
	size_t len = strlen(line);
	int fd = open(real, O_WRONLY | O_TRUNC | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0) {
		free(line);
		return -1;
	}
	n = write(fd, line, len);
	err = n < 0 ? errno : EIO; /* a short write to sysfs is a failure */
	if (close(fd) && n == (ssize_t)len) {
		n = -1;
		err = errno;
	}
	free(line);
	if (n == (ssize_t)len)
		return 0;
	errno = err;
	return -1;
}

/* Writable, as far as permissions can tell before trying. */
static int may_write(const char *real)
{
	return !faccessat(AT_FDCWD, real, W_OK, AT_EACCESS) ||
	       !needs_root(errno);
}

static void apply_one(struct tuner *t, const char *label, const char *path,
		      const char *real, const char *cur, const char *target)
{
	int added = state_remember(t, path, cur), err;

	if (added < 0) {
		say(t, "%s: cannot save the old value of %s: %s", label, path,
		    t->ctx->msg);
		t->failures++;
		return;
	}
	if (!write_value(real, target)) {
		t->saved_now += added;
		say(t, "%s: set %s from %s to %s", label, path, cur, target);
		return;
	}
	err = errno;
	if (added) { /* nothing changed: do not ask restore to undo it */
		state_pop(t);
		state_save(t);
	}
	if (needs_root(err)) {
		say(t, "%s: would set %s from %s to %s (needs root)", label,
		    path, cur, target);
		return;
	}
	say(t, "%s: cannot set %s from %s to %s: %s", label, path, cur, target,
	    strerror(err));
	t->failures++;
}

/* Returns 1 when path does not exist (the caller says why), else 0. */
static int tune_file(struct tuner *t, const char *label, const char *path,
		     const char *target, int (*acceptable)(const char *))
{
	char *real, *cur;

	if (!lk__env_exists("%s", path))
		return 1;
	real = lk__env_path("%s", path);
	cur = lk__env_read("%s", path);
	if (!cur)
		say(t, "%s: cannot read %s: %s", label, path, strerror(errno));
	else if (acceptable ? acceptable(cur) : !strcmp(cur, target))
		say(t, "%s: already %s (%s)", label, cur, path);
	else if (!may_write(real))
		say(t, "%s: would set %s from %s to %s (needs root)", label,
		    path, cur, target);
	else if (!t->apply)
		say(t, "%s: would set %s from %s to %s", label, path, cur,
		    target);
	else
		apply_one(t, label, path, real, cur, target);
	free(real);
	free(cur);
	return 0;
}

static void tune_plain(struct tuner *t, const struct setting *s)
{
	if (tune_file(t, s->label, s->path, s->target, s->acceptable))
		say(t, "%s: not available (%s)", s->label, s->absent);
}

/* Whether the cpufreq driver offers the governor (no list: assume so). */
static int governor_offered(int cpu, const char *governor)
{
	char *list = lk__env_read("/sys/devices/system/cpu/cpu%d/cpufreq/"
				  "scaling_available_governors", cpu);
	char *word, *save = NULL;
	int found = !list;

	for (word = list ? strtok_r(list, " ", &save) : NULL; word && !found;
	     word = strtok_r(NULL, " ", &save))
		found = !strcmp(word, governor);
	free(list);
	return found;
}

static void tune_governor(struct tuner *t, const struct setting *s)
{
	int *cpus, found = 0;
	size_t i, n = lk__env_cpus(&cpus);

	for (i = 0; i < n; i++) {
		char *path = lk_asprintf("/sys/devices/system/cpu/cpu%d/"
					 "cpufreq/scaling_governor", cpus[i]);
		char *label = lk_asprintf("%s cpu%d", s->label, cpus[i]);

		if (lk__env_exists("%s", path)) {
			found = 1;
			if (governor_offered(cpus[i], s->target))
				tune_file(t, label, path, s->target, NULL);
			else
				say(t, "%s: not available (the driver offers "
				       "no %s governor)", label, s->target);
		}
		free(path);
		free(label);
	}
	free(cpus);
	if (!found)
		say(t, "%s: not available (%s)", s->label, s->absent);
}

/* intel_pstate has its own switch; acpi-cpufreq and others use boost. */
static void tune_turbo(struct tuner *t, const struct setting *s)
{
	if (tune_file(t, s->label, "/sys/devices/system/cpu/intel_pstate/"
				   "no_turbo", "1", NULL) &&
	    tune_file(t, s->label, "/sys/devices/system/cpu/cpufreq/boost", "0",
		      NULL))
		say(t, "%s: not available (%s)", s->label, s->absent);
}

/*
 * loopkit counts only its own processes in user space, which level 2
 * already allows. Going lower would let every user profile the kernel
 * (1) or the whole machine (0): a security cost for nothing we use. Only
 * a stricter setting (3 and up, Debian's "no unprivileged perf at all")
 * is brought down to 2.
 */
static int paranoid_enough(const char *current)
{
	long level;

	return !lk_parse_long(current, &level) && level <= 2;
}

/* In report order. */
static const struct setting settings[] = {
	{ "governor", NULL, "performance", "no cpufreq", NULL, tune_governor },
	{ "turbo", NULL, NULL, "no intel_pstate/no_turbo or cpufreq/boost",
	  NULL, tune_turbo },
	{ "aslr", "/proc/sys/kernel/randomize_va_space", "0",
	  "no randomize_va_space", NULL, tune_plain },
	{ "nmi_watchdog", "/proc/sys/kernel/nmi_watchdog", "0",
	  "kernel without NMI watchdog", NULL, tune_plain },
	{ "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid", "2",
	  "kernel without perf events", paranoid_enough, tune_plain },
};

static void tuner_init(struct tuner *t, struct lk_ctx *ctx, int apply,
		       struct lk_buf *report)
{
	memset(t, 0, sizeof(*t));
	t->ctx = ctx;
	t->apply = apply;
	t->report = report;
	t->state_file = state_path();
}

static void tuner_release(struct tuner *t)
{
	free(t->state_file);
	lk_strv_release(&t->paths);
	lk_strv_release(&t->olds);
}

int lk_env_tune(struct lk_ctx *ctx, int apply, struct lk_buf *report)
{
	struct tuner t;
	size_t i;
	int ret;

	tuner_init(&t, ctx, apply, report);
	ret = state_load(&t);
	if (ret)
		goto out;
	for (i = 0; i < LK_ARRAY_SIZE(settings); i++)
		settings[i].fn(&t, &settings[i]);
	if (t.saved_now)
		say(&t, "state: old values saved in %s", t.state_file);
	if (t.failures)
		ret = lk_error(ctx, LK_ESYS,
			       "%d setting%s could not be changed", t.failures,
			       t.failures == 1 ? "" : "s");
out:
	tuner_release(&t);
	return ret;
}

/*
 * Put one saved value back. Returns 0 when done (or nothing to do), -1
 * when it must stay in the state file for a later try.
 */
static int restore_one(struct tuner *t, const char *path, const char *old)
{
	char *real = lk__env_path("%s", path);
	char *cur = lk__env_read("%s", path);
	int ret = 0;

	if (cur && !strcmp(cur, old)) {
		say(t, "restore: %s already %s", path, old);
	} else if (!write_value(real, old)) {
		say(t, "restore: set %s back from %s to %s", path,
		    cur ? cur : "unknown", old);
	} else {
		int err = errno;

		say(t, "restore: cannot set %s back to %s: %s%s", path, old,
		    strerror(err), needs_root(err) ? " (needs root)" : "");
		ret = -1;
	}
	free(real);
	free(cur);
	return ret;
}

/* Drop the state file, or keep what could not be restored in it. */
static int restore_finish(struct tuner *t, struct lk_strv *paths,
			  struct lk_strv *olds)
{
	lk_strv_release(&t->paths);
	lk_strv_release(&t->olds);
	t->paths = *paths;
	t->olds = *olds;
	if (t->paths.n) {
		state_save(t);
		return lk_error(t->ctx, LK_ESYS,
				"%zu setting%s not restored, kept in %s",
				t->paths.n, t->paths.n == 1 ? "" : "s",
				t->state_file);
	}
	if (unlink(t->state_file) && errno != ENOENT)
		return lk_error_errno(t->ctx, "cannot remove %s",
				      t->state_file);
	return 0;
}

int lk_env_restore(struct lk_ctx *ctx, struct lk_buf *report)
{
	struct lk_strv kept_paths = LK_STRV_INIT, kept_olds = LK_STRV_INIT;
	struct tuner t;
	size_t i;
	int ret;

	tuner_init(&t, ctx, 1, report);
	ret = state_load(&t);
	if (ret)
		goto out;
	if (!t.paths.n) {
		say(&t, "restore: nothing saved (no entries in %s)",
		    t.state_file);
		goto out;
	}
	/* Last saved first: undo in the reverse order of doing. */
	for (i = t.paths.n; i-- > 0;) {
		if (restore_one(&t, t.paths.v[i], t.olds.v[i])) {
			lk_strv_push(&kept_paths, t.paths.v[i]);
			lk_strv_push(&kept_olds, t.olds.v[i]);
		}
	}
	ret = restore_finish(&t, &kept_paths, &kept_olds);
out:
	tuner_release(&t);
	return ret;
}
