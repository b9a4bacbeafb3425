/*
 * Private to src/env/: the system files env reads and tunes,
 * found under $LOOPKIT_SYSROOT so that tests can run against a fake tree.
 */
#ifndef LOOPKIT_ENV_INT_H
#define LOOPKIT_ENV_INT_H

#include <stddef.h>

#include "loopkit/core.h"

/*
 * The real location of a system path ("/sys/...", "/proc/...", "/etc/...",
 * "/run/..."), given printf-style: $LOOPKIT_SYSROOT (default "") followed
 * by the path. Read again at every call.
 */
LK_GIVE char *lk__env_path(const char *fmt, ...) LK_PRINTF(1, 2);

/*
 * The text of a system file with trailing whitespace removed, or NULL
 * when it cannot be read (errno says why).
 */
LK_GIVE char *lk__env_read(const char *fmt, ...) LK_PRINTF(1, 2);

/* Whether words (space separated, as /proc/cpuinfo's flags) hold word. */
int lk__env_has(const char *words, const char *word);

/* Whether a system path exists (file or directory). */
int lk__env_exists(const char *fmt, ...) LK_PRINTF(1, 2);

/*
 * The N of every /sys/devices/system/cpu/cpuN directory, ascending, in
 * *ids (caller frees). Returns how many.
 */
size_t lk__env_cpus(LK_GIVE int **ids);

#endif
