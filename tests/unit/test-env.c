/*
 * env: facts on the real machine, the micro-architecture table, the JSON
 * and text forms, and tune/restore against a fake LOOPKIT_SYSROOT tree
 * (the real /sys and /proc are never written by these tests).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopkit/env.h"
#include "loopkit/subprocess.h"

static char root[64];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void make_root(void)
{
	strcpy(root, "/tmp/lk-test-env-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
	chmod(root, 0755);
	setenv("LOOPKIT_SYSROOT", root, 1);
	unsetenv("LOOPKIT_TUNE_STATE");
}

static void drop_root(void)
{
	if (root[0])
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	root[0] = '\0';
}

static char *real_path(const char *rel)
{
	return lk_asprintf("%s%s", root, rel);
}

static void put(const char *rel, const char *text)
{
	struct lk_ctx ctx;
	char *path = real_path(rel), *dir = lk_path_dirname(path);

	lk_ctx_init(&ctx);
	cr_assert_eq(lk_mkdir_p(&ctx, dir, 0755), 0, "%s", ctx.msg);
	cr_assert_eq(lk_file_write_atomic(&ctx, path, text, strlen(text)), 0,
		     "%s", ctx.msg);
	free(dir);
	free(path);
}

/* The file's text, trailing newline removed; NULL if absent. */
static char *get(const char *rel)
{
	struct lk_ctx ctx;
	char *path = real_path(rel), *text = NULL;
	size_t len;

	lk_ctx_init(&ctx);
	if (!lk_file_read(&ctx, path, &text, &len) && len &&
	    text[len - 1] == '\n')
		text[len - 1] = '\0';
	free(path);
	return text;
}

static void expect_file(const char *rel, const char *want)
{
	char *got = get(rel);

	cr_assert_not_null(got, "%s missing", rel);
	cr_expect_str_eq(got, want, "%s", rel);
	free(got);
}

#define CPU "/sys/devices/system/cpu"
#define GOV0 CPU "/cpu0/cpufreq/scaling_governor"
#define GOV1 CPU "/cpu1/cpufreq/scaling_governor"
#define NO_TURBO CPU "/intel_pstate/no_turbo"
#define ASLR "/proc/sys/kernel/randomize_va_space"
#define NMI "/proc/sys/kernel/nmi_watchdog"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define STATE "/run/loopkit/tune.state"

/* fake_machine()'s values as the state file saves them, in tune order. */
#define ORIGINALS                                                              \
	GOV0 "\tpowersave\n" GOV1 "\tpowersave\n" NO_TURBO "\t0\n" ASLR       \
	     "\t2\n" NMI "\t1\n" PARANOID "\t3"

/* A tuned-for-power two-CPU Intel box. */
static void fake_machine(void)
{
	put(GOV0, "powersave\n");
	put(GOV1, "powersave\n");
	put(CPU "/cpu0/cpufreq/scaling_available_governors",
	    "performance powersave\n");
	put(CPU "/cpu1/cpufreq/scaling_available_governors",
	    "performance powersave\n");
	put(NO_TURBO, "0\n");
	put(ASLR, "2\n");
	put(NMI, "1\n");
	put(PARANOID, "3\n");
}

static int tune(int apply, char **report)
{
	struct lk_ctx ctx;
	struct lk_buf b = LK_BUF_INIT;
	int ret;

	lk_ctx_init(&ctx);
	ret = lk_env_tune(&ctx, apply, &b);
	*report = lk_buf_detach(&b);
	return ret;
}

static int restore(char **report)
{
	struct lk_ctx ctx;
	struct lk_buf b = LK_BUF_INIT;
	int ret;

	lk_ctx_init(&ctx);
	ret = lk_env_restore(&ctx, &b);
	*report = lk_buf_detach(&b);
	return ret;
}

#define expect_has(report, s)                                                  \
	cr_expect_not_null(strstr((report), (s)), "no '%s' in:\n%s", (s),      \
			   (report))

/* ---- the container and its output ---- */

Test(env, set_get_replace_release)
{
	struct lk_env env = { 0 };
	char *text;

	lk_env_set(&env, "a", "1");
	lk_env_set(&env, "long.key", NULL);
	lk_env_set(&env, "a", "2");
	cr_assert_eq(env.n, 2);
	cr_expect_str_eq(lk_env_get(&env, "a"), "2");
	cr_expect_str_eq(lk_env_get(&env, "long.key"), "unknown");
	cr_expect_null(lk_env_get(&env, "missing"));
	text = lk_env_text(&env);
	cr_expect_str_eq(text, "a         2\nlong.key  unknown\n");
	free(text);
	lk_env_release(&env);
	cr_expect_eq(env.n, 0);
	text = lk_env_text(&env);
	cr_expect_str_eq(text, "");
	free(text);
	text = lk_env_json(&env);
	cr_expect_str_eq(text, "{}\n");
	free(text);
	lk_env_release(&env);
}

/* Parse json with Python; returns its stdout, or NULL to skip. */
static char *python_check(const char *json, const char *script)
{
	char path[] = "/tmp/lk-test-env-json-XXXXXX";
	const char *argv[] = { "python3", "-c", script, path, NULL };
	struct lk_ctx ctx;
	char *out = NULL, *py = lk_which("python3");
	int fd, ret;

	if (!py)
		return NULL;
	free(py);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	lk_ctx_init(&ctx);
	ret = lk_proc_capture(&ctx, argv, 30, &out);
	unlink(path);
	cr_assert_eq(ret, 0, "python3 rejected the JSON: %s\n%s", ctx.msg,
		     json);
	return out;
}

Test(env, json_escapes)
{
	struct lk_env env = { 0 };
	char *json, *out;

	lk_env_set(&env, "quote", "say \"hi\"\\ \n\tnow");
	lk_env_set(&env, "plain", "x");
	json = lk_env_json(&env);
	out = python_check(json, "import json,sys\n"
				 "d = json.load(open(sys.argv[1]))\n"
				 "print(list(d) == ['quote', 'plain'] and "
				 "d['quote'] == 'say \"hi\"\\\\ \\n\\tnow')\n");
	if (!out)
		cr_skip_test("python3 not found");
	cr_expect_str_eq(out, "True\n", "%s", json);
	free(out);
	free(json);
	lk_env_release(&env);
}

/* ---- the micro-architecture table ---- */

Test(env, microarch)
{
	static const struct {
		const char *vendor;
		unsigned family, model;
		const char *name;
	} cases[] = {
		{ "AuthenticAMD", 0x1a, 0x02, "Zen 5" }, /* this VM: Turin */
		{ "AuthenticAMD", 0x1a, 0x44, "Zen 5" },
		{ "AuthenticAMD", 0x19, 0x01, "Zen 3" },  /* Milan */
		{ "AuthenticAMD", 0x19, 0x21, "Zen 3" },  /* Vermeer */
		{ "AuthenticAMD", 0x19, 0x11, "Zen 4" },  /* Genoa */
		{ "AuthenticAMD", 0x19, 0x61, "Zen 4" },  /* Raphael */
		{ "AuthenticAMD", 0x19, 0xa0, "Zen 4" },  /* Bergamo */
		{ "AuthenticAMD", 0x17, 0x01, "Zen" },    /* Naples */
		{ "AuthenticAMD", 0x17, 0x11, "Zen" },    /* Raven Ridge */
		{ "AuthenticAMD", 0x17, 0x08, "Zen+" },   /* Pinnacle Ridge */
		{ "AuthenticAMD", 0x17, 0x18, "Zen+" },   /* Picasso */
		{ "AuthenticAMD", 0x17, 0x31, "Zen 2" },  /* Rome */
		{ "AuthenticAMD", 0x17, 0x71, "Zen 2" },  /* Matisse */
		{ "GenuineIntel", 6, 0x55, "Skylake-SP/Cascade Lake" },
		{ "GenuineIntel", 6, 0x5e, "Skylake" },
		{ "GenuineIntel", 6, 0x6a, "Ice Lake (server)" },
		{ "GenuineIntel", 6, 0x7e, "Ice Lake (client)" },
		{ "GenuineIntel", 6, 0x97, "Alder Lake" },
		{ "GenuineIntel", 6, 0x8f, "Sapphire Rapids" },
		{ "GenuineIntel", 6, 0xcf, "Emerald Rapids" },
		{ "GenuineIntel", 6, 0xad, "Granite Rapids" },
		{ "GenuineIntel", 6, 0x01, "unknown" },
		{ "GenuineIntel", 0x1a, 0x02, "unknown" }, /* vendor matters */
		{ "AuthenticAMD", 6, 0x8f, "unknown" },
		{ "AuthenticAMD", 0x1a, 0xff, "unknown" },
		{ "CentaurHauls", 6, 0x0f, "unknown" },
	};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(cases); i++)
		cr_expect_str_eq(lk_env_microarch(cases[i].vendor,
						  cases[i].family,
						  cases[i].model),
				 cases[i].name, "%s family 0x%x model 0x%x",
				 cases[i].vendor, cases[i].family,
				 cases[i].model);
	cr_expect_str_eq(lk_env_microarch(NULL, 6, 0x8f), "unknown");
}

/* A hypervisor's model number against the ISA it lets the guest see. */
Test(env, microarch_checked_against_isa)
{
	static const char spr[] = "fpu avx2 avx512f avx512_fp16 amx_tile";
	static const struct {
		const char *vendor;
		unsigned family, model;
		const char *flags, *name, *by_model, *flag;
	} cases[] = {
		/* this guest on 2026-12-02: model 0xa7, AMX and FP16 */
		{ "GenuineIntel", 6, 0xa7, spr, "Sapphire Rapids or later",
		  "Rocket Lake", "amx_tile" },
		{ "GenuineIntel", 6, 0xa7, "avx2 avx512f",
		  "Rocket Lake", NULL, NULL },
		{ "GenuineIntel", 6, 0xa7, "avx512fx amx_tilex xamx_tile",
		  "Rocket Lake", NULL, NULL }, /* whole words only */
		{ "GenuineIntel", 6, 0xa7, NULL, "Rocket Lake", NULL, NULL },
		{ "GenuineIntel", 6, 0x5e, "avx2 avx512f",
		  "Skylake-SP or later", "Skylake", "avx512f" },
		{ "GenuineIntel", 6, 0x5e, spr, "Sapphire Rapids or later",
		  "Skylake", "amx_tile" }, /* the newest flag names it */
		{ "GenuineIntel", 6, 0x2a, "avx avx2", "Haswell or later",
		  "Sandy Bridge", "avx2" },
		{ "GenuineIntel", 6, 0x8f, spr, "Sapphire Rapids", NULL, NULL },
		{ "GenuineIntel", 6, 0xcf, spr, "Emerald Rapids", NULL, NULL },
		{ "AuthenticAMD", 0x19, 0x01, "avx2 avx512f", "Zen 4 or later",
		  "Zen 3", "avx512f" },
		{ "AuthenticAMD", 0x19, 0x11, "avx2 avx512f",
		  "Zen 4", NULL, NULL },
		{ "AuthenticAMD", 0x19, 0x01, "avx2\tamx_tile",
		  "Zen 3", NULL, NULL },
		{ "GenuineIntel", 6, 0x01, spr, "unknown", NULL, NULL },
	};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(cases); i++) {
		struct lk_microarch u;

		lk_env_microarch_isa(cases[i].vendor, cases[i].family,
				     cases[i].model, cases[i].flags, &u);
		cr_expect_str_eq(u.name, cases[i].name, "case %zu", i);
		if (cases[i].by_model) {
			cr_expect_str_eq(u.by_model ? u.by_model : "(null)",
					 cases[i].by_model, "case %zu", i);
			cr_expect_str_eq(u.flag ? u.flag : "(null)",
					 cases[i].flag, "case %zu", i);
		} else {
			cr_expect_null(u.by_model, "case %zu", i);
			cr_expect_null(u.flag, "case %zu", i);
		}
	}
}

/* ---- collection on the real machine ---- */

static const char *const every_key[] = {
	"loopkit.version", "date.utc", "host.name", "cpu.model", "cpu.vendor",
	"cpu.family", "cpu.model_number", "cpu.stepping", "cpu.microarch",
	"cpu.microarch.source",
	"cpu.online", "cpu.online_list", "cpu.allowed", "cpu.isa", "cpu.isa.absent",
	"tsc.hz", "tsc.ghz", "tsc.invariant", "tsc.known_freq", "clocksource",
	"freq.governor", "freq.driver", "freq.turbo", "freq.pstate",
	"smt.active", "smt.control", "cache.l1d", "cache.l1d.instances",
	"cache.l1i", "cache.l1i.instances", "cache.l2", "cache.l2.instances",
	"cache.l3", "cache.l3.instances", "cache.line",
	"pmu.perf_event_paranoid", "pmu.available", "pmu.error",
	"pmu.software", "virt.guest", "virt.hypervisor", "virt.signature",
	"virt.sys_type", "kernel.release", "kernel.version", "kernel.arch",
	"os.name", "sys.aslr", "sys.nmi_watchdog", "sys.thp", "compiler.gcc",
	"compiler.clang",
};

static void collect_real(struct lk_env *env, unsigned flags)
{
	struct lk_ctx ctx;

	unsetenv("LOOPKIT_SYSROOT");
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_env_collect(&ctx, env, flags), 0, "%s", ctx.msg);
}

Test(env, collect_real_machine)
{
	struct lk_env env = { 0 };
	struct utsname u;
	const char *model, *vendor;
	unsigned long long hz;
	size_t i;

	collect_real(&env, 0);
	for (i = 0; i < LK_ARRAY_SIZE(every_key); i++) {
		const char *v = lk_env_get(&env, every_key[i]);

		cr_expect_not_null(v, "key %s missing", every_key[i]);
		if (v)
			cr_expect(*v, "key %s empty", every_key[i]);
	}
	cr_expect_null(lk_env_get(&env, "core.tsc_ratio"),
		       "calibration ran without LK_ENV_CALIBRATE");
	model = lk_env_get(&env, "cpu.model");
	cr_assert_not_null(model);
	cr_expect_str_neq(model, "unknown");
	hz = strtoull(lk_env_get(&env, "tsc.hz"), NULL, 10);
	cr_expect(hz > 500000000ull && hz < 6000000000ull, "tsc.hz %llu", hz);
	cr_assert_eq(uname(&u), 0);
	cr_expect_str_eq(lk_env_get(&env, "kernel.release"), u.release);
	cr_expect_str_eq(lk_env_get(&env, "kernel.arch"), u.machine);
	vendor = lk_env_get(&env, "cpu.vendor");
	if (!strcmp(vendor, "AuthenticAMD") &&
	    !strcmp(lk_env_get(&env, "cpu.family"), "26 (0x1a)") &&
	    !strcmp(lk_env_get(&env, "cpu.model_number"), "2 (0x2)"))
		cr_expect_str_eq(lk_env_get(&env, "cpu.microarch"), "Zen 5");
	lk_env_release(&env);
}

static int direct_cycles(void)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close((int)fd);
	return 0;
}

Test(env, pmu_agrees_with_perf_event_open)
{
	struct lk_env env = { 0 };
	const char *avail, *error;
	int err;

	collect_real(&env, 0);
	err = direct_cycles();
	avail = lk_env_get(&env, "pmu.available");
	error = lk_env_get(&env, "pmu.error");
	cr_assert_not_null(avail);
	cr_assert_not_null(error);
	if (!err) {
		cr_expect(!strncmp(avail, "yes", 3) ||
				  !strcmp(avail, "partial (cycles only)"),
			  "cycles open here, env says %s", avail);
	} else {
		char *want = lk_asprintf("%s: ", strerrorname_np(err));

		cr_expect(!strcmp(avail, "no") ||
				  !strcmp(avail, "partial (instructions only)"),
			  "cycles fail here, env says %s", avail);
		cr_expect(!strncmp(error, want, strlen(want)),
			  "pmu.error '%s', direct attempt %s", error, want);
		free(want);
	}
	lk_env_release(&env);
}

Test(env, json_of_real_machine_is_valid)
{
	struct lk_env env = { 0 };
	struct lk_buf script = LK_BUF_INIT;
	char *json, *out;
	size_t i;

	collect_real(&env, 0);
	json = lk_env_json(&env);
	lk_buf_adds(&script, "import json,sys\n"
			     "d = json.load(open(sys.argv[1]))\n"
			     "keys = [");
	for (i = 0; i < LK_ARRAY_SIZE(every_key); i++)
		lk_buf_addf(&script, "'%s',", every_key[i]);
	lk_buf_addf(&script, "]\nprint(len(d) == %zu and "
			     "all(isinstance(d.get(k), str) and d[k] "
			     "for k in keys))\n",
		    env.n);
	out = python_check(json, lk_buf_str(&script));
	if (!out)
		cr_skip_test("python3 not found");
	cr_expect_str_eq(out, "True\n", "%s", json);
	free(out);
	free(json);
	lk_buf_release(&script);
	lk_env_release(&env);
}

Test(env, calibrate_gives_ratio_and_ghz)
{
	struct lk_env env = { 0 };
	double ratio, ghz, tsc_ghz;

	collect_real(&env, LK_ENV_CALIBRATE);
	cr_assert_not_null(lk_env_get(&env, "core.tsc_ratio"));
	cr_assert_eq(lk_parse_double(lk_env_get(&env, "core.tsc_ratio"),
				     &ratio), 0);
	cr_assert_eq(lk_parse_double(lk_env_get(&env, "core.ghz_estimated"),
				     &ghz), 0);
	cr_assert_eq(lk_parse_double(lk_env_get(&env, "tsc.ghz"), &tsc_ghz),
		     0);
	cr_expect(ratio > 0.2 && ratio < 5, "ratio %g", ratio);
	cr_expect(ghz > 0.3 && ghz < 7, "core %g GHz", ghz);
	cr_expect_float_eq(ghz, ratio * tsc_ghz, 0.01);
	cr_expect_not_null(strstr(lk_env_get(&env, "core.tsc_ratio.method"),
				  "imul chain (3-cycle latency)"));
	cr_expect_not_null(lk_env_get(&env, "core.tsc_ratio.range"));
	lk_env_release(&env);
}

/* ---- collection against a fake tree ---- */

Test(env, fake_empty_tree_says_unavailable, .fini = drop_root)
{
	struct lk_env env = { 0 };
	struct lk_ctx ctx;

	make_root();
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_env_collect(&ctx, &env, 0), 0);
	cr_expect_str_eq(lk_env_get(&env, "freq.governor"),
			 "unavailable (no cpufreq)");
	cr_expect_str_eq(lk_env_get(&env, "cache.l1d"), "unknown");
	cr_expect_str_eq(lk_env_get(&env, "pmu.perf_event_paranoid"),
			 "unknown");
	cr_expect_str_eq(lk_env_get(&env, "cpu.isa"), "unknown");
	cr_expect_str_eq(lk_env_get(&env, "virt.sys_type"), "none");
	lk_env_release(&env);
}

Test(env, fake_tree_values, .fini = drop_root)
{
	struct lk_env env = { 0 };
	struct lk_ctx ctx;

	make_root();
	fake_machine();
	put(CPU "/cpu1/cpufreq/scaling_governor", "performance\n");
	put(CPU "/cpu0/cache/index0/level", "1\n");
	put(CPU "/cpu0/cache/index0/type", "Data\n");
	put(CPU "/cpu0/cache/index0/size", "48K\n");
	put(CPU "/cpu0/cache/index0/shared_cpu_list", "0\n");
	put(CPU "/cpu1/cache/index0/shared_cpu_list", "1\n");
	put(CPU "/cpu0/cache/index3/level", "3\n");
	put(CPU "/cpu0/cache/index3/type", "Unified\n");
	put(CPU "/cpu0/cache/index3/size", "32768K\n");
	put(CPU "/cpu0/cache/index3/shared_cpu_list", "0-1\n");
	put(CPU "/cpu1/cache/index3/shared_cpu_list", "0-1\n");
	put(CPU "/online", "0-1\n");
	put("/sys/kernel/mm/transparent_hugepage/enabled",
	    "always [madvise] never\n");
	put("/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu avx2 fma "
			     "constant_tsc nonstop_tsc\n\n");
	lk_ctx_init(&ctx);
	cr_assert_eq(lk_env_collect(&ctx, &env, 0), 0);
	cr_expect_str_eq(lk_env_get(&env, "freq.governor"),
			 "cpu0=powersave cpu1=performance");
	cr_expect_str_eq(lk_env_get(&env, "freq.turbo"),
			 "on (intel_pstate/no_turbo=0)");
	cr_expect_str_eq(lk_env_get(&env, "cache.l1d"), "48K");
	cr_expect_str_eq(lk_env_get(&env, "cache.l1d.instances"), "2");
	cr_expect_str_eq(lk_env_get(&env, "cache.l3"), "32768K");
	cr_expect_str_eq(lk_env_get(&env, "cache.l3.instances"), "1");
	cr_expect_str_eq(lk_env_get(&env, "cache.l2"), "unknown");
	cr_expect_str_eq(lk_env_get(&env, "cpu.online"), "2");
	cr_expect_str_eq(lk_env_get(&env, "sys.thp"), "madvise");
	cr_expect_str_eq(lk_env_get(&env, "sys.aslr"), "2 (full)");
	cr_expect_str_eq(lk_env_get(&env, "sys.nmi_watchdog"), "1 (on)");
	cr_expect_str_eq(lk_env_get(&env, "pmu.perf_event_paranoid"), "3");
	cr_expect_str_eq(lk_env_get(&env, "cpu.isa"), "avx2 fma");
	lk_env_release(&env);
}

Test(env, cache_sizes_per_level, .fini = drop_root)
{
	struct lk_env_caches c = { -1, -1, -1 };

	make_root();
	put(CPU "/cpu0/cache/index0/level", "1\n");
	put(CPU "/cpu0/cache/index0/type", "Data\n");
	put(CPU "/cpu0/cache/index0/size", "48K\n");
	put(CPU "/cpu0/cache/index1/level", "1\n");
	put(CPU "/cpu0/cache/index1/type", "Instruction\n");
	put(CPU "/cpu0/cache/index1/size", "32K\n");
	put(CPU "/cpu0/cache/index2/level", "2\n");
	put(CPU "/cpu0/cache/index2/type", "Unified\n");
	put(CPU "/cpu0/cache/index2/size", "2M\n");
	put(CPU "/cpu0/cache/index3/level", "3\n");
	put(CPU "/cpu0/cache/index3/type", "Unified\n");
	put(CPU "/cpu0/cache/index3/size", "32768K\n");
	lk_env_cache_sizes(&c);
	cr_expect_eq(c.l1d, 48 * 1024);
	cr_expect_eq(c.l2, 2 * 1024 * 1024);
	cr_expect_eq(c.l3, 32768L * 1024);
	cr_expect_eq(lk_env_l1d_bytes(), c.l1d);
}

Test(env, cache_sizes_fake_tree_never_asks_the_host, .fini = drop_root)
{
	struct lk_env_caches c = { -1, -1, -1 };

	/* An L2 alone; the host's L1D and L3 must not fill the gaps. */
	make_root();
	put(CPU "/cpu0/cache/index2/level", "2\n");
	put(CPU "/cpu0/cache/index2/type", "Unified\n");
	put(CPU "/cpu0/cache/index2/size", "512K\n");
	lk_env_cache_sizes(&c);
	cr_expect_eq(c.l1d, 0);
	cr_expect_eq(c.l2, 512 * 1024);
	cr_expect_eq(c.l3, 0);
}

/* ---- tune and restore against a fake tree ---- */

Test(tune, dry_run_changes_nothing, .fini = drop_root)
{
	char *report, *state;

	make_root();
	fake_machine();
	cr_assert_eq(tune(0, &report), 0, "%s", report);
	expect_has(report, "governor cpu0: would set " GOV0
			   " from powersave to performance\n");
	expect_has(report, "turbo: would set " NO_TURBO " from 0 to 1\n");
	expect_has(report, "aslr: would set " ASLR " from 2 to 0\n");
	expect_has(report, "nmi_watchdog: would set " NMI " from 1 to 0\n");
	expect_has(report, "perf_event_paranoid: would set " PARANOID
			   " from 3 to 2\n");
	expect_file(GOV0, "powersave");
	expect_file(NO_TURBO, "0");
	expect_file(ASLR, "2");
	expect_file(NMI, "1");
	expect_file(PARANOID, "3");
	state = get(STATE);
	cr_expect_null(state, "dry run wrote a state file");
	free(state);
	free(report);
}

Test(tune, apply_then_restore, .fini = drop_root)
{
	char *report;

	make_root();
	fake_machine();
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	expect_has(report, "governor cpu1: set " GOV1
			   " from powersave to performance\n");
	expect_has(report, "aslr: set " ASLR " from 2 to 0\n");
	expect_has(report, "state: old values saved in");
	free(report);
	expect_file(GOV0, "performance");
	expect_file(GOV1, "performance");
	expect_file(NO_TURBO, "1");
	expect_file(ASLR, "0");
	expect_file(NMI, "0");
	expect_file(PARANOID, "2");
	/* Under the sysroot when LOOPKIT_TUNE_STATE is not set. */
	expect_file(STATE, ORIGINALS);

	cr_assert_eq(restore(&report), 0, "%s", report);
	expect_has(report, "restore: set " ASLR " back from 0 to 2\n");
	free(report);
	expect_file(GOV0, "powersave");
	expect_file(GOV1, "powersave");
	expect_file(NO_TURBO, "0");
	expect_file(ASLR, "2");
	expect_file(NMI, "1");
	expect_file(PARANOID, "3");
	cr_expect_null(get(STATE), "state file left after restore");
}

Test(tune, second_tune_keeps_the_originals, .fini = drop_root)
{
	char *report, *state_file;

	make_root();
	state_file = real_path("/elsewhere/tune.state");
	setenv("LOOPKIT_TUNE_STATE", state_file, 1);
	fake_machine();
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	free(report);
	/* Someone changes a setting between two tunes. */
	put(GOV0, "schedutil\n");
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	expect_has(report, "governor cpu0: set " GOV0
			   " from schedutil to performance\n");
	expect_has(report, "aslr: already 0 (" ASLR ")\n");
	free(report);
	expect_file("/elsewhere/tune.state", ORIGINALS);
	cr_assert_eq(restore(&report), 0, "%s", report);
	free(report);
	expect_file(GOV0, "powersave");
	expect_file(ASLR, "2");
	cr_expect_neq(access(state_file, F_OK), 0);
	free(state_file);
}

Test(tune, restore_with_nothing_saved, .fini = drop_root)
{
	char *report;

	make_root();
	cr_assert_eq(restore(&report), 0, "%s", report);
	expect_has(report, "restore: nothing saved");
	free(report);
}

Test(tune, absent_settings_are_reported, .fini = drop_root)
{
	char *report;

	make_root();
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	expect_has(report, "governor: not available (no cpufreq)\n");
	expect_has(report, "turbo: not available (");
	expect_has(report, "aslr: not available (");
	expect_has(report, "nmi_watchdog: not available (");
	expect_has(report, "perf_event_paranoid: not available (");
	cr_expect_null(get(STATE));
	free(report);
}

Test(tune, boost_and_acceptable_values, .fini = drop_root)
{
	char *report;

	make_root();
	put(CPU "/cpufreq/boost", "1\n");
	put(PARANOID, "1\n");
	put(GOV0, "performance\n");
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	expect_has(report, "turbo: set " CPU "/cpufreq/boost from 1 to 0\n");
	expect_has(report, "perf_event_paranoid: already 1 (");
	expect_has(report, "governor cpu0: already performance (");
	expect_file(CPU "/cpufreq/boost", "0");
	expect_file(PARANOID, "1");
	free(report);
}

Test(tune, governor_not_offered, .fini = drop_root)
{
	char *report;

	make_root();
	put(GOV0, "schedutil\n");
	put(CPU "/cpu0/cpufreq/scaling_available_governors", "schedutil\n");
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	expect_has(report, "governor cpu0: not available (the driver offers "
			   "no performance governor)\n");
	expect_file(GOV0, "schedutil");
	free(report);
}

/*
 * Permission bits do not stop root, so when the tests run as root the
 * tuning runs in a child that has given up root first.
 */
Test(tune, unwritable_needs_root, .fini = drop_root)
{
	int fds[2], status;
	char buf[4096], *path;
	ssize_t n;
	pid_t pid;

	make_root();
	fake_machine();
	path = real_path(ASLR);
	chmod(path, 0444); /* enough when not root */
	free(path);
	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		char *report;

		close(fds[0]);
		if (geteuid() == 0 &&
		    (setresgid(65534, 65534, 65534) ||
		     setresuid(65534, 65534, 65534)))
			_exit(3);
		if (tune(1, &report))
			_exit(4);
		n = write(fds[1], report, strlen(report));
		_exit(n < 0 ? 5 : 0);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child status %d", status);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	expect_has(buf, "aslr: would set " ASLR " from 2 to 0 (needs root)\n");
	expect_has(buf, "governor cpu0: would set " GOV0
			" from powersave to performance (needs root)\n");
	expect_file(ASLR, "2");
	expect_file(GOV0, "powersave");
	cr_expect_null(get(STATE), "state saved for settings not changed");
}

/* A setting that cannot be put back stays in the state file. */
Test(tune, restore_failure_keeps_the_entry, .fini = drop_root)
{
	char *report, *path;

	make_root();
	fake_machine();
	cr_assert_eq(tune(1, &report), 0, "%s", report);
	free(report);
	path = real_path(NMI);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkdir(path, 0755), 0); /* now unwritable, even by root */
	free(path);
	cr_expect_eq(restore(&report), LK_ESYS, "%s", report);
	expect_has(report, "restore: cannot set " NMI " back to 1: ");
	expect_has(report, "restore: set " ASLR " back from 0 to 2\n");
	free(report);
	expect_file(STATE, NMI "\t1");
	expect_file(ASLR, "2");
}

Test(tune, malformed_state_lines_are_skipped, .fini = drop_root)
{
	char *report;

	make_root();
	put(ASLR, "0\n");
	put(STATE, "garbage without a tab\n" ASLR "\t2\n");
	cr_assert_eq(restore(&report), 0, "%s", report);
	expect_has(report, "restore: set " ASLR " back from 0 to 2\n");
	expect_file(ASLR, "2");
	free(report);
}
