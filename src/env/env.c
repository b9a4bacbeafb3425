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
};

#define INTEL "GenuineIntel"
#define AMD "AuthenticAMD"

static const struct microarch microarchs[] = {
	{ INTEL, 6, 0x2a, 0x2a, "Sandy Bridge" },
	{ INTEL, 6, 0x2d, 0x2d, "Sandy Bridge-EP" },
	{ INTEL, 6, 0x3a, 0x3a, "Ivy Bridge" },
	{ INTEL, 6, 0x3e, 0x3e, "Ivy Bridge-EP" },
	{ INTEL, 6, 0x3c, 0x3c, "Haswell" },
	{ INTEL, 6, 0x45, 0x46, "Haswell" },
	{ INTEL, 6, 0x3f, 0x3f, "Haswell-EP" },
	{ INTEL, 6, 0x3d, 0x3d, "Broadwell" },
	{ INTEL, 6, 0x47, 0x47, "Broadwell" },
	{ INTEL, 6, 0x4f, 0x4f, "Broadwell-EP" },
	{ INTEL, 6, 0x56, 0x56, "Broadwell-DE" },
	{ INTEL, 6, 0x4e, 0x4e, "Skylake" },
	{ INTEL, 6, 0x5e, 0x5e, "Skylake" },
	{ INTEL, 6, 0x55, 0x55, "Skylake-SP/Cascade Lake" },
	{ INTEL, 6, 0x8e, 0x8e, "Kaby Lake/Coffee Lake" },
	{ INTEL, 6, 0x9e, 0x9e, "Kaby Lake/Coffee Lake" },
	{ INTEL, 6, 0xa5, 0xa6, "Comet Lake" },
	{ INTEL, 6, 0x66, 0x66, "Cannon Lake" },
	{ INTEL, 6, 0x7d, 0x7e, "Ice Lake (client)" },
	{ INTEL, 6, 0x6a, 0x6a, "Ice Lake (server)" },
	{ INTEL, 6, 0x6c, 0x6c, "Ice Lake (server)" },
	{ INTEL, 6, 0x8c, 0x8d, "Tiger Lake" },
	{ INTEL, 6, 0xa7, 0xa7, "Rocket Lake" },
	{ INTEL, 6, 0x97, 0x97, "Alder Lake" },
	{ INTEL, 6, 0x9a, 0x9a, "Alder Lake" },
	{ INTEL, 6, 0xbe, 0xbe, "Alder Lake-N" },
	{ INTEL, 6, 0xb7, 0xb7, "Raptor Lake" },
	{ INTEL, 6, 0xba, 0xba, "Raptor Lake" },
	{ INTEL, 6, 0xbf, 0xbf, "Raptor Lake" },
	{ INTEL, 6, 0xaa, 0xac, "Meteor Lake" },
	{ INTEL, 6, 0xbd, 0xbd, "Lunar Lake" },
	{ INTEL, 6, 0xc5, 0xc6, "Arrow Lake" },
	{ INTEL, 6, 0x8f, 0x8f, "Sapphire Rapids" },
	{ INTEL, 6, 0xcf, 0xcf, "Emerald Rapids" },
	{ INTEL, 6, 0xad, 0xae, "Granite Rapids" },
	{ INTEL, 6, 0xaf, 0xaf, "Sierra Forest" },
	{ INTEL, 6, 0xdd, 0xdd, "Clearwater Forest" },
	{ INTEL, 6, 0x57, 0x57, "Knights Landing" },
	{ INTEL, 6, 0x85, 0x85, "Knights Mill" },
	{ INTEL, 19, 0x01, 0x01, "Diamond Rapids" },
	{ AMD, 0x15, 0x00, 0xff, "Bulldozer family" },
	{ AMD, 0x16, 0x00, 0xff, "Jaguar family" },
	{ AMD, 0x17, 0x08, 0x0f, "Zen+" }, /* Pinnacle Ridge */
	{ AMD, 0x17, 0x18, 0x1f, "Zen+" }, /* Picasso */
	{ AMD, 0x17, 0x00, 0x2f, "Zen" },
	{ AMD, 0x17, 0x50, 0x5f, "Zen" },
	{ AMD, 0x17, 0x30, 0x4f, "Zen 2" },
	{ AMD, 0x17, 0x60, 0x7f, "Zen 2" },
	{ AMD, 0x17, 0x90, 0x91, "Zen 2" },
	{ AMD, 0x17, 0xa0, 0xaf, "Zen 2" },
	{ AMD, 0x19, 0x00, 0x0f, "Zen 3" },
	{ AMD, 0x19, 0x20, 0x5f, "Zen 3" },
	{ AMD, 0x19, 0x10, 0x1f, "Zen 4" },
	{ AMD, 0x19, 0x60, 0xaf, "Zen 4" },
	{ AMD, 0x1a, 0x00, 0x2f, "Zen 5" },
	{ AMD, 0x1a, 0x40, 0x4f, "Zen 5" },
	{ AMD, 0x1a, 0x60, 0x7f, "Zen 5" },
	{ AMD, 0x1a, 0x50, 0x5f, "Zen 6" },
	{ AMD, 0x1a, 0x80, 0xaf, "Zen 6" },
	{ AMD, 0x1a, 0xc0, 0xcf, "Zen 6" },
	{ "HygonGenuine", 0x18, 0x00, 0xff, "Dhyana (Zen)" },
};

const char *lk_env_microarch(const char *vendor, unsigned family,
			     unsigned model)
{
	size_t i;

	if (!vendor)
		return "unknown";
	for (i = 0; i < LK_ARRAY_SIZE(microarchs); i++) {
		const struct microarch *m = &microarchs[i];

		if (m->family == family && model >= m->model_lo &&
		    model <= m->model_hi && !strcmp(m->vendor, vendor))
			return m->name;
	}
	return "unknown";
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
