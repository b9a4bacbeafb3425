/*
 * env: the ordered key/value list, its JSON and text forms, the
 * micro-architecture table, and the sysroot-aware file helpers the probes
 * (env-probe.c) and the tuner (env-tune.c) share.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "loopkit/env.h"
#include "env-int.h"

static struct lk_env_item *find_item(const struct lk_env *env,
				     const char *key)
{
	size_t i;

	for (i = 0; i < env->n; i++)
		if (!strcmp(env->items[i].key, key))
			return &env->items[i];
	return NULL;
}

const char *lk_env_get(const struct lk_env *env, const char *key)
{
	struct lk_env_item *item = find_item(env, key);

	return item ? item->value : NULL;
}

void lk_env_set(struct lk_env *env, const char *key, const char *value)
{
	struct lk_env_item *item = find_item(env, key);

	if (!value || !*value)
		value = "unknown";
	if (item) {
		free(item->value);
		item->value = lk_strdup(value);
		return;
	}
	LK_GROW(env->items, env->n + 1, env->alloc);
	item = &env->items[env->n++];
	item->key = lk_strdup(key);
	item->value = lk_strdup(value);
}

void lk_env_release(struct lk_env *env)
{
	size_t i;

	for (i = 0; i < env->n; i++) {
		free(env->items[i].key);
		free(env->items[i].value);
	}
	free(env->items);
	env->items = NULL;
	env->n = env->alloc = 0;
}

char *lk_env_json(const struct lk_env *env)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	lk_buf_adds(&b, "{");
	for (i = 0; i < env->n; i++) {
		lk_buf_adds(&b, i ? ",\n  " : "\n  ");
		lk_buf_add_json_str(&b, env->items[i].key);
		lk_buf_adds(&b, ": ");
		lk_buf_add_json_str(&b, env->items[i].value);
	}
	lk_buf_adds(&b, env->n ? "\n}\n" : "}\n");
	return lk_buf_detach(&b);
}

char *lk_env_text(const struct lk_env *env)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i, width = 0;

	for (i = 0; i < env->n; i++)
		if (strlen(env->items[i].key) > width)
			width = strlen(env->items[i].key);
	for (i = 0; i < env->n; i++)
		lk_buf_addf(&b, "%-*s  %s\n", (int)width, env->items[i].key,
			    env->items[i].value);
	return lk_buf_detach(&b);
}

/*
 * (vendor, family, model range) -> name; the first matching row wins, so
 * narrower ranges come before the wider ones they sit in. Families and
 * models are the display values (extended fields folded in), as in
 * /proc/cpuinfo. AMD ranges follow Linux's bsp_init_amd(); Intel models
 * its intel-family.h.
 */
struct microarch {
	const char *vendor;
	unsigned family, model_lo, model_hi;
	const char *name;
	const char *lacks; /* ISA flags it never has, space separated */
};

#define INTEL "GenuineIntel"
#define AMD "AuthenticAMD"

/* What each row never has: only flags that oldest_with[] names. */
#define PRE_AVX2 "avx2 avx512f amx_tile"
#define NO_AVX512 "avx512f amx_tile"
#define NO_FP16 "avx512_fp16 amx_tile" /* AVX-512 before Sapphire Rapids */
#define NO_AMX "amx_tile"
#define AMD_NO_AVX512 "avx512f"

static const struct microarch microarchs[] = {
	{ INTEL, 6, 0x2a, 0x2a, "Sandy Bridge", PRE_AVX2 },
	{ INTEL, 6, 0x2d, 0x2d, "Sandy Bridge-EP", PRE_AVX2 },
	{ INTEL, 6, 0x3a, 0x3a, "Ivy Bridge", PRE_AVX2 },
	{ INTEL, 6, 0x3e, 0x3e, "Ivy Bridge-EP", PRE_AVX2 },
	{ INTEL, 6, 0x3c, 0x3c, "Haswell", NO_AVX512 },
	{ INTEL, 6, 0x45, 0x46, "Haswell", NO_AVX512 },
	{ INTEL, 6, 0x3f, 0x3f, "Haswell-EP", NO_AVX512 },
	{ INTEL, 6, 0x3d, 0x3d, "Broadwell", NO_AVX512 },
	{ INTEL, 6, 0x47, 0x47, "Broadwell", NO_AVX512 },
	{ INTEL, 6, 0x4f, 0x4f, "Broadwell-EP", NO_AVX512 },
	{ INTEL, 6, 0x56, 0x56, "Broadwell-DE", NO_AVX512 },
	{ INTEL, 6, 0x4e, 0x4e, "Skylake", NO_AVX512 },
	{ INTEL, 6, 0x5e, 0x5e, "Skylake", NO_AVX512 },
	{ INTEL, 6, 0x55, 0x55, "Skylake-SP/Cascade Lake", NO_FP16 },
	{ INTEL, 6, 0x8e, 0x8e, "Kaby Lake/Coffee Lake", NO_AVX512 },
	{ INTEL, 6, 0x9e, 0x9e, "Kaby Lake/Coffee Lake", NO_AVX512 },
	{ INTEL, 6, 0xa5, 0xa6, "Comet Lake", NO_AVX512 },
	{ INTEL, 6, 0x66, 0x66, "Cannon Lake", NO_FP16 },
	{ INTEL, 6, 0x7d, 0x7e, "Ice Lake (client)", NO_FP16 },
	{ INTEL, 6, 0x6a, 0x6a, "Ice Lake (server)", NO_FP16 },
	{ INTEL, 6, 0x6c, 0x6c, "Ice Lake (server)", NO_FP16 },
	{ INTEL, 6, 0x8c, 0x8d, "Tiger Lake", NO_FP16 },
	{ INTEL, 6, 0xa7, 0xa7, "Rocket Lake", NO_FP16 },
	{ INTEL, 6, 0x97, 0x97, "Alder Lake", NO_AMX },
	{ INTEL, 6, 0x9a, 0x9a, "Alder Lake", NO_AMX },
	{ INTEL, 6, 0xbe, 0xbe, "Alder Lake-N", NO_AVX512 },
	{ INTEL, 6, 0xb7, 0xb7, "Raptor Lake", NO_AVX512 },
	{ INTEL, 6, 0xba, 0xba, "Raptor Lake", NO_AVX512 },
	{ INTEL, 6, 0xbf, 0xbf, "Raptor Lake", NO_AVX512 },
	{ INTEL, 6, 0xaa, 0xac, "Meteor Lake", NO_AVX512 },
	{ INTEL, 6, 0xbd, 0xbd, "Lunar Lake", NO_AVX512 },
	{ INTEL, 6, 0xc5, 0xc6, "Arrow Lake", NO_AVX512 },
	{ INTEL, 6, 0x8f, 0x8f, "Sapphire Rapids", NULL },
	{ INTEL, 6, 0xcf, 0xcf, "Emerald Rapids", NULL },
	{ INTEL, 6, 0xad, 0xae, "Granite Rapids", NULL },
	{ INTEL, 6, 0xaf, 0xaf, "Sierra Forest", NO_AVX512 },
	{ INTEL, 6, 0xdd, 0xdd, "Clearwater Forest", NO_AVX512 },
	{ INTEL, 6, 0x57, 0x57, "Knights Landing", NO_AMX },
	{ INTEL, 6, 0x85, 0x85, "Knights Mill", NO_AMX },
	{ INTEL, 19, 0x01, 0x01, "Diamond Rapids", NULL },
	{ AMD, 0x15, 0x00, 0xff, "Bulldozer family", AMD_NO_AVX512 },
	{ AMD, 0x16, 0x00, 0xff, "Jaguar family", AMD_NO_AVX512 },
	{ AMD, 0x17, 0x08, 0x0f, "Zen+", AMD_NO_AVX512 }, /* Pinnacle Ridge */
	{ AMD, 0x17, 0x18, 0x1f, "Zen+", AMD_NO_AVX512 }, /* Picasso */
	{ AMD, 0x17, 0x00, 0x2f, "Zen", AMD_NO_AVX512 },
	{ AMD, 0x17, 0x50, 0x5f, "Zen", AMD_NO_AVX512 },
	{ AMD, 0x17, 0x30, 0x4f, "Zen 2", AMD_NO_AVX512 },
	{ AMD, 0x17, 0x60, 0x7f, "Zen 2", AMD_NO_AVX512 },
	{ AMD, 0x17, 0x90, 0x91, "Zen 2", AMD_NO_AVX512 },
	{ AMD, 0x17, 0xa0, 0xaf, "Zen 2", AMD_NO_AVX512 },
	{ AMD, 0x19, 0x00, 0x0f, "Zen 3", AMD_NO_AVX512 },
	{ AMD, 0x19, 0x20, 0x5f, "Zen 3", AMD_NO_AVX512 },
	{ AMD, 0x19, 0x10, 0x1f, "Zen 4", NULL },
	{ AMD, 0x19, 0x60, 0xaf, "Zen 4", NULL },
	{ AMD, 0x1a, 0x00, 0x2f, "Zen 5", NULL },
	{ AMD, 0x1a, 0x40, 0x4f, "Zen 5", NULL },
	{ AMD, 0x1a, 0x60, 0x7f, "Zen 5", NULL },
	{ AMD, 0x1a, 0x50, 0x5f, "Zen 6", NULL },
	{ AMD, 0x1a, 0x80, 0xaf, "Zen 6", NULL },
	{ AMD, 0x1a, 0xc0, 0xcf, "Zen 6", NULL },
	{ "HygonGenuine", 0x18, 0x00, 0xff, "Dhyana (Zen)", NULL },
};

/*
 * For a flag that a row never has: the oldest micro-architecture with it.
 * Newest flag first, so that amx_tile on a "Skylake" model says Sapphire
 * Rapids, not Skylake-SP.
 */
static const struct {
	const char *vendor, *flag, *name;
} oldest_with[] = {
	{ INTEL, "amx_tile", "Sapphire Rapids or later" },
	{ INTEL, "avx512_fp16", "Sapphire Rapids or later" },
	{ INTEL, "avx512f", "Skylake-SP or later" },
	{ INTEL, "avx2", "Haswell or later" },
	{ AMD, "avx512f", "Zen 4 or later" },
};

static const struct microarch *find_row(const char *vendor, unsigned family,
					unsigned model)
{
	size_t i;

	for (i = 0; vendor && i < LK_ARRAY_SIZE(microarchs); i++) {
		const struct microarch *m = &microarchs[i];

		if (m->family == family && model >= m->model_lo &&
		    model <= m->model_hi && !strcmp(m->vendor, vendor))
			return m;
	}
	return NULL;
}

const char *lk_env_microarch(const char *vendor, unsigned family,
			     unsigned model)
{
	const struct microarch *m = find_row(vendor, family, model);

	return m ? m->name : "unknown";
}

int lk__env_has(const char *words, const char *word)
{
	size_t len = strlen(word);
	const char *p = words;

	while (p && (p = strstr(p, word))) {
		if ((p == words || p[-1] == ' ' || p[-1] == '\t') &&
		    (!p[len] || p[len] == ' ' || p[len] == '\t' ||
		     p[len] == '\n'))
			return 1;
		p += len;
	}
	return 0;
}

void lk_env_microarch_isa(const char *vendor, unsigned family,
			  unsigned model, const char *flags,
			  struct lk_microarch *out)
{
	const struct microarch *m = find_row(vendor, family, model);
	size_t i;

	out->name = m ? m->name : "unknown";
	out->by_model = NULL;
	out->flag = NULL;
	for (i = 0; m && m->lacks && flags && i < LK_ARRAY_SIZE(oldest_with);
	     i++)
		if (!strcmp(oldest_with[i].vendor, vendor) &&
		    lk__env_has(m->lacks, oldest_with[i].flag) &&
		    lk__env_has(flags, oldest_with[i].flag)) {
			out->name = oldest_with[i].name;
			out->by_model = m->name;
			out->flag = oldest_with[i].flag;
			return;
		}
}

static char *vpath(const char *fmt, va_list ap)
{
	const char *root = getenv("LOOPKIT_SYSROOT");
	char *rel = lk_vasprintf(fmt, ap);
	char *path = lk_asprintf("%s%s", root ? root : "", rel);

	free(rel);
	return path;
}

char *lk__env_path(const char *fmt, ...)
{
	va_list ap;
	char *path;

	va_start(ap, fmt);
	path = vpath(fmt, ap);
	va_end(ap);
	return path;
}

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
}

char *lk__env_read(const char *fmt, ...)
{
	struct lk_ctx scratch; /* a missing file is an answer, not an error */
	char *path, *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	path = vpath(fmt, ap);
	va_end(ap);
	lk_ctx_init(&scratch);
	if (!lk_file_read(&scratch, path, &text, NULL))
		rstrip(text);
	free(path);
	return text;
}

int lk__env_exists(const char *fmt, ...)
{
	struct stat st;
	char *path;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	path = vpath(fmt, ap);
	va_end(ap);
	ret = !stat(path, &st);
	free(path);
	return ret;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* cpuN with N all digits: cpufreq, cpuidle and friends are not CPUs. */
static int cpu_number(const char *name)
{
	const char *p;

	if (strncmp(name, "cpu", 3) || !name[3])
		return -1;
	for (p = name + 3; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	return atoi(name + 3);
}

size_t lk__env_cpus(int **ids)
{
	char *path = lk__env_path("/sys/devices/system/cpu");
	DIR *dir = opendir(path);
	struct dirent *de;
	size_t n = 0, alloc = 0;

	*ids = NULL;
	free(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		int id = cpu_number(de->d_name);

		if (id < 0)
			continue;
		LK_GROW(*ids, n + 1, alloc);
		(*ids)[n++] = id;
	}
	closedir(dir);
	if (n)
		qsort(*ids, n, sizeof(**ids), cmp_int);
	return n;
}
