/*
 * env: what this machine is and what it can measure, as an ordered list
 * of key/value facts; what this build and machine can do (capabilities,
 * loopkit check); tuning it for measurement and undoing that.
 */
#ifndef LOOPKIT_ENV_H
#define LOOPKIT_ENV_H

#include "core.h"

struct lk_env_item {
	char *key;    /* dotted: cpu.model, tsc.hz, pmu.available, ... */
	char *value;  /* text; "unknown" when it could not be read */
};

struct lk_env {
	struct lk_env_item *items;
	size_t n, alloc;
};

enum {
	LK_ENV_CALIBRATE = 1 << 0, /* time the reference chain (~100 ms) */
};

/* Gather the facts. Never fails for a fact it cannot read: that fact
 * says "unknown". Returns 0 or LK_ESYS for a real failure.
 *
 * System files (/sys, /proc, /etc/os-release, and the tune state under
 * /run) are read below $LOOPKIT_SYSROOT when it is set, so tests can use
 * a fake tree; cpuid, perf_event_open, uname and the timing probes always
 * look at the real machine. The core.* keys (core/TSC clock ratio) appear
 * only with LK_ENV_CALIBRATE. */
int lk_env_collect(struct lk_ctx *ctx, struct lk_env *env, unsigned flags);

/*
 * The micro-architecture name ("Zen 5", "Sapphire Rapids", ...) of a CPU
 * given its cpuid vendor string ("GenuineIntel", "AuthenticAMD", ...) and
 * display family and model (extended fields folded in, as /proc/cpuinfo
 * shows them); "unknown" when the table has no entry. A static string.
 */
const char *lk_env_microarch(const char *vendor, unsigned family,
			     unsigned model);

/*
 * lk_env_microarch() checked against the ISA flags the CPU reports
 * (/proc/cpuinfo's "flags" words; NULL: no check). A hypervisor may show
 * a guest a model number that is not the host's (a Sapphire Rapids guest
 * told "Rocket Lake"): when the model's micro-architecture never has one
 * of the flags, name is the oldest one the flags fit ("Sapphire Rapids or
 * later" for amx_tile), by_model what the model named and flag the flag
 * that contradicts it; both NULL when nothing does. Static strings.
 */
struct lk_microarch {
	const char *name;
	const char *by_model;
	const char *flag;
};

void lk_env_microarch_isa(const char *vendor, unsigned family,
			  unsigned model, const char *flags,
			  struct lk_microarch *out);
/* This CPU's, as `loopkit env` reports it (cpu.microarch): its cpuid
 * and /proc/cpuinfo's flags (under $LOOPKIT_SYSROOT). Cheap: no other
 * probe runs. */
void lk_env_host_microarch(struct lk_microarch *out);

/*
 * The L1 data cache size in bytes that lk_env_collect() reports as
 * cache.l1d (the first CPU's, from sysfs under $LOOPKIT_SYSROOT), or 0
 * when it cannot be read. Cheap: no other probe runs.
 */
long lk_env_l1d_bytes(void);

/* Data cache sizes in bytes per level; 0 where unknown. */
struct lk_env_caches {
	long l1d, l2, l3;
};

/*
 * The first CPU's L1D, L2 and L3 sizes, as lk_env_collect() reports
 * cache.l1d, cache.l2 and cache.l3 (sysfs under $LOOPKIT_SYSROOT). A
 * level sysfs does not give comes from sysconf(_SC_LEVEL*_CACHE_SIZE),
 * but only when $LOOPKIT_SYSROOT is unset or empty: a fake tree is never
 * mixed with the host's caches. Cheap: no other probe runs.
 */
void lk_env_cache_sizes(struct lk_env_caches *out);

/* The value of key, or NULL. */
const char *lk_env_get(const struct lk_env *env, const char *key);
/* Add key, or replace its value in place; NULL or "" stores "unknown". */
void lk_env_set(struct lk_env *env, const char *key, const char *value);
void lk_env_release(struct lk_env *env);
/* One JSON object, keys in collection order. */
LK_GIVE char *lk_env_json(const struct lk_env *env);
/* Aligned "key  value" lines ("" for an empty list). */
LK_GIVE char *lk_env_text(const struct lk_env *env);

/*
 * Can this process open the perf event (type, config), user space only?
 * 0 if yes, else the errno perf_event_open gave (ENOENT: no PMU here).
 */
int lk_env_perf_probe(unsigned type, unsigned long long config);

/*
 * Tune the machine for measurement (governor performance, turbo off,
 * ASLR off, NMI watchdog off, ...). With apply == 0, or without the
 * privilege to write a setting, only say what would be done. Every
 * changed setting's old value is saved in the state file first so
 * lk_env_restore() can undo it. The report gets one line per setting.
 */
int lk_env_tune(struct lk_ctx *ctx, int apply, struct lk_buf *report);
int lk_env_restore(struct lk_ctx *ctx, struct lk_buf *report);

/* ---- Capabilities (loopkit check). ---- */

struct lk_cap {
	const char *name;     /* "pmu", "ptrace", "llvm-mca", ... */
	int available;
	char *detail;         /* version, reason it is missing, ... */
};

/* Probe what this build and machine can do; free with lk_caps_free. */
int lk_caps_probe(struct lk_ctx *ctx, struct lk_cap **caps, size_t *n);
void lk_caps_free(struct lk_cap *caps, size_t n);
/* Is capability 'name' available? (probes only that one) */
int lk_cap_available(struct lk_ctx *ctx, const char *name);

#endif
