/*
 * Finding the installed llvm-mca versions and choosing each one's -mcpu:
 * the host's name for itself, never "native" (what would be recorded
 * then is not what was simulated).
 */
#include <dirent.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/env.h"
#include "loopkit/subprocess.h"
#include "predict-int.h"

#define PROBE_TIMEOUT 30.0

static void install_release(struct lk_mca_install *m)
{
	free(m->path);
	free(m->name);
	free(m->version);
	free(m->host_cpu);
	free(m->llvm_mc);
	lk_strv_release(&m->cpus);
}

void lk_mca_installs_free(struct lk_mca_install *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		install_release(&m[i]);
	free(m);
}

static int is_mca_name(const char *name)
{
	if (strncmp(name, "llvm-mca", 8))
		return 0;
	if (!name[8])
		return 1;
	return name[8] == '-' && name[9] &&
	       strspn(name + 9, "0123456789") == strlen(name + 9);
}

/* Candidate paths: PATH's llvm-mca[-NN], then the LLVM directories. */
static void candidates(struct lk_strv *out)
{
	const char *path = getenv("PATH");
	const char *dirs = getenv("LOOPKIT_LLVM_DIRS");
	char *copy = lk_strdup(path ? path : ""), *save = NULL, *d;
	size_t k;

	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		DIR *dir = opendir(d);
		struct dirent *e;

		while (dir && (e = readdir(dir)))
			if (is_mca_name(e->d_name))
				lk_strv_push_take(out, lk_path_join(d,
								    e->d_name));
		if (dir)
			closedir(dir);
	}
	free(copy);
	copy = lk_strdup(dirs ? dirs : "/usr/lib/llvm-*/bin");
	for (d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		glob_t g;

		if (glob(d, 0, NULL, &g))
			continue;
		for (k = 0; k < g.gl_pathc; k++)
			lk_strv_push_take(out, lk_path_join(g.gl_pathv[k],
							    "llvm-mca"));
		globfree(&g);
	}
	free(copy);
}

/* "Debian LLVM version 19.1.7" → "19.1.7"; "Host CPU: znver5". */
static void parse_version(const char *text, struct lk_mca_install *m)
{
	const char *v = strstr(text, "LLVM version ");
	const char *h = strstr(text, "Host CPU:");

	if (v) {
		v += 13;
		m->version = lk_strndup(v, strcspn(v, " \n"));
		m->major = atoi(m->version);
	}
	if (h) {
		h += 9;
		h += strspn(h, " ");
		m->host_cpu = lk_strndup(h, strcspn(h, " \n"));
		if (!strcmp(m->host_cpu, "(unknown)") ||
		    !strcmp(m->host_cpu, "generic"))
			m->host_cpu[0] = '\0';
	} else {
		m->host_cpu = lk_strdup("");
	}
}

/* The "Available CPUs for this target:" list of -mcpu=help. */
static void parse_cpus(const char *text, struct lk_strv *cpus)
{
	const char *p = strstr(text, "Available CPUs for this target:");

	if (!p)
		return;
	p = strchr(p, '\n');
	while (p && *++p) {
		size_t len = strcspn(p, "\n");
		const char *w = p + strspn(p, " ");
		size_t wl = strcspn(w, " \n");

		if (!strncmp(p, "Available", 9))
			break;
		if (wl && w < p + len && memmem(w, len, " - ", 3))
			lk_strv_push_take(cpus, lk_strndup(w, wl));
		p += len;
		if (!*p)
			break;
	}
}

static char *capture(const char *const *argv)
{
	struct lk_proc_opts o = {.argv = argv, .timeout = PROBE_TIMEOUT,
				 .result_fd = -1,
				 .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result res = {0};
	struct lk_ctx quiet;
	char *out = NULL;

	lk_ctx_init(&quiet);
	if (!lk_proc_run(&quiet, &o, &res) && !res.timed_out && res.out)
		out = lk_strdup(res.out);
	lk_proc_result_release(&res);
	return out;
}

static char *find_llvm_mc(const char *mca_path, int major)
{
	char *dir = lk_path_dirname(mca_path);
	char *mc = lk_path_join(dir, "llvm-mc");
	char *name;

	free(dir);
	if (!access(mc, X_OK))
		return mc;
	free(mc);
	name = lk_asprintf("llvm-mc-%d", major);
	mc = lk_which(name);
	free(name);
	return mc;
}

/* 0 and *m filled when path is a working llvm-mca. */
static int probe(const char *path, struct lk_mca_install *m)
{
	const char *vargv[] = {path, "--version", NULL};
	char *ver = capture(vargv);

	memset(m, 0, sizeof(*m));
	if (ver)
		parse_version(ver, m);
	free(ver);
	if (!m->version) {
		free(m->host_cpu);
		return -1;
	}
	m->path = lk_strdup(path);
	m->llvm_mc = find_llvm_mc(path, m->major);
	return 0;
}

static int seen(const struct lk_mca_install *m, size_t n, const char *path,
		const char *version)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((path && !strcmp(m[i].path, path)) ||
		    (version && !strcmp(m[i].version, version)))
			return 1;
	return 0;
}

static int newer_first(const void *a, const void *b)
{
	const struct lk_mca_install *x = a, *y = b;

	return strverscmp(y->version, x->version);
}

static void name_installs(struct lk_mca_install *m, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		int clash = 0;

		for (k = 0; k < n; k++)
			clash |= k != i && m[k].major == m[i].major;
		m[i].name = clash ? lk_asprintf("llvm-mca-%s", m[i].version)
				  : lk_asprintf("llvm-mca-%d", m[i].major);
	}
}

/* The resolved, executable candidates, each once. */
static void unique_paths(struct lk_strv *out)
{
	struct lk_strv cands = LK_STRV_INIT;
	size_t i, k;

	candidates(&cands);
	for (i = 0; i < cands.n; i++) {
		char *real = lk_path_real(cands.v[i]);
		int dup = !real || access(real, X_OK);

		for (k = 0; !dup && k < out->n; k++)
			dup = !strcmp(out->v[k], real);
		if (dup)
			free(real);
		else
			lk_strv_push_take(out, real);
	}
	lk_strv_release(&cands);
}

struct probes {
	const struct lk_strv *paths;
	struct lk_mca_install *m;
	int *ok;
};

static void probe_one(void *arg, size_t i)
{
	struct probes *p = arg;

	p->ok[i] = !probe(p->paths->v[i], &p->m[i]);
}

int lk_mca_find(struct lk_ctx *ctx, struct lk_mca_install **out, size_t *n)
{
	struct lk_strv paths = LK_STRV_INIT;
	struct probes p;
	size_t i, nm = 0;

	(void)ctx;
	unique_paths(&paths);
	p.paths = &paths;
	p.m = lk_calloc(paths.n + 1, sizeof(*p.m));
	p.ok = lk_calloc(paths.n + 1, sizeof(*p.ok));
	/* Each probe is a process start of ~30 ms: run them side by side. */
	lk_pool_run(2, paths.n, probe_one, &p);
	for (i = 0; i < paths.n; i++) {
		if (!p.ok[i])
			continue;
		if (seen(p.m, nm, NULL, p.m[i].version))
			install_release(&p.m[i]);
		else
			p.m[nm++] = p.m[i];
	}
	free(p.ok);
	lk_strv_release(&paths);
	if (nm)
		qsort(p.m, nm, sizeof(*p.m), newer_first);
	name_installs(p.m, nm);
	*out = p.m;
	*n = nm;
	return 0;
}

void lk_mca_load_cpus(struct lk_mca_install *m)
{
	const char *argv[] = {m->path, "-mtriple=x86_64-unknown-linux-gnu",
			      "-mcpu=help", NULL};
	char *cpus;

	if (m->cpus_loaded)
		return;
	cpus = capture(argv);
	if (cpus)
		parse_cpus(cpus, &m->cpus);
	free(cpus);
	m->cpus_loaded = 1;
}

/* ---- CPU names. ---- */

/* LLVM's name for each micro-architecture lk_env_microarch reports. */
static const char *const uarch_cpu[][2] = {
	{"Zen 6", "znver5"}, {"Zen 5", "znver5"}, {"Zen 4", "znver4"},
	{"Zen 3", "znver3"}, {"Zen 2", "znver2"}, {"Zen+", "znver1"},
	{"Zen", "znver1"}, {"Dhyana (Zen)", "znver1"},
	{"Zen 4 or later", "znver4"},
	{"Diamond Rapids", "graniterapids"},
	{"Granite Rapids", "graniterapids"},
	{"Emerald Rapids", "emeraldrapids"},
	{"Sapphire Rapids", "sapphirerapids"},
	{"Sapphire Rapids or later", "sapphirerapids"},
	{"Skylake-SP or later", "skylake-avx512"},
	{"Haswell or later", "haswell"},
	{"Ice Lake (server)", "icelake-server"},
	{"Ice Lake (client)", "icelake-client"},
	{"Tiger Lake", "tigerlake"}, {"Rocket Lake", "rocketlake"},
	{"Alder Lake", "alderlake"}, {"Raptor Lake", "raptorlake"},
	{"Meteor Lake", "meteorlake"}, {"Arrow Lake", "arrowlake"},
	{"Lunar Lake", "lunarlake"},
	{"Skylake-SP/Cascade Lake", "skylake-avx512"},
	{"Skylake", "skylake"}, {"Kaby Lake/Coffee Lake", "skylake"},
	{"Comet Lake", "skylake"}, {"Cannon Lake", "cannonlake"},
	{"Broadwell", "broadwell"}, {"Broadwell-EP", "broadwell"},
	{"Broadwell-DE", "broadwell"}, {"Haswell", "haswell"},
	{"Haswell-EP", "haswell"}, {"Ivy Bridge", "ivybridge"},
	{"Ivy Bridge-EP", "ivybridge"}, {"Sandy Bridge", "sandybridge"},
	{"Sandy Bridge-EP", "sandybridge"},
};

/* Each CPU's nearest older relative, for a version that lacks it. */
static const char *const older[][2] = {
	{"znver5", "znver4"}, {"znver4", "znver3"}, {"znver3", "znver2"},
	{"znver2", "znver1"},
	{"diamondrapids", "graniterapids"},
	{"graniterapids", "emeraldrapids"},
	{"emeraldrapids", "sapphirerapids"},
	{"sapphirerapids", "icelake-server"},
	{"icelake-server", "cascadelake"}, {"cooperlake", "cascadelake"},
	{"cascadelake", "skylake-avx512"}, {"skylake-avx512", "skylake"},
	{"arrowlake", "meteorlake"}, {"lunarlake", "meteorlake"},
	{"meteorlake", "raptorlake"}, {"raptorlake", "alderlake"},
	{"alderlake", "tigerlake"}, {"rocketlake", "tigerlake"},
	{"tigerlake", "icelake-client"}, {"icelake-client", "cannonlake"},
	{"cannonlake", "skylake"}, {"skylake", "broadwell"},
	{"broadwell", "haswell"}, {"haswell", "ivybridge"},
	{"ivybridge", "sandybridge"},
};

char *lk_mca_host_cpu(const struct lk_mca_install *m, size_t n)
{
	struct lk_microarch uarch;
	size_t i;

	lk_env_host_microarch(&uarch);
	for (i = 0; i < n && !uarch.by_model; i++)
		if (m[i].host_cpu && *m[i].host_cpu &&
		    strcmp(m[i].host_cpu, "native"))
			return lk_strdup(m[i].host_cpu);
	for (i = 0; i < LK_ARRAY_SIZE(uarch_cpu); i++)
		if (!strcmp(uarch_cpu[i][0], uarch.name))
			return lk_strdup(uarch_cpu[i][1]);
	return lk_strdup("");
}

static int knows(const struct lk_mca_install *m, const char *cpu)
{
	size_t i;

	for (i = 0; i < m->cpus.n; i++)
		if (!strcmp(m->cpus.v[i], cpu))
			return 1;
	return 0;
}

static const char *older_than(const char *cpu)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(older); i++)
		if (!strcmp(older[i][0], cpu))
			return older[i][1];
	return NULL;
}

char *lk_mca_pick_cpu(const struct lk_mca_install *m, const char *wanted,
		      char **note)
{
	const char *c;

	*note = lk_strdup("");
	if (wanted && *wanted && knows(m, wanted))
		return lk_strdup(wanted);
	free(*note);
	if (!wanted || !*wanted) {
		*note = lk_asprintf("the host CPU has no LLVM name here; "
				    "%s uses -mcpu=generic", m->name);
		return lk_strdup("generic");
	}
	for (c = older_than(wanted); c; c = older_than(c))
		if (knows(m, c)) {
			*note = lk_asprintf("%s does not know -mcpu=%s; it "
					    "uses %s, the nearest older CPU "
					    "it knows", m->name, wanted, c);
			return lk_strdup(c);
		}
	*note = lk_asprintf("%s does not know -mcpu=%s nor an older "
			    "relative; it uses -mcpu=generic", m->name, wanted);
	return lk_strdup("generic");
}
