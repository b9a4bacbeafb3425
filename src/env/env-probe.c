/*
 * env probes: what this machine is and what it can measure. Each probe
 * adds a few facts; one it cannot read says "unknown" (or why it is
 * unavailable) instead of failing, because a report with holes is more
 * useful than no report.
 */
#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "loopkit/env.h"
#include "loopkit/subprocess.h"
#include "lkrt.h"
#include "env-int.h"

#ifndef LK_VERSION
#define LK_VERSION "0.1.0-dev"
#endif

#define COMPILER_TIMEOUT 10.0 /* seconds for `cc --version` */
#define CAL_BATCHES 5         /* calibration: batches ... */
#define CAL_RUNS 201          /* ... of this many chain timings ... */
#define CAL_GAP_NS 20000000L  /* ... this far apart */

/* What cpuid says, read once and shared by several probes. */
struct cpu_id {
	char vendor[13];
	char brand[49];
	unsigned family, model, stepping;
	int hypervisor;   /* leaf 1 ECX bit 31 */
	int invariant;    /* leaf 0x80000007 EDX bit 8 */
	char hv_sig[13];  /* leaf 0x40000000 EBX ECX EDX */
};

struct probe {
	struct lk_env *env;
	struct cpu_id id;
	char *flags_line; /* /proc/cpuinfo "flags" words, NULL if unknown */
};

static void set_take(struct lk_env *env, const char *key, char *value)
{
	lk_env_set(env, key, value);
	free(value);
}

static void set_file(struct lk_env *env, const char *key, const char *path,
		     const char *absent)
{
	char *text = lk__env_read("%s", path);

	lk_env_set(env, key, text ? text : absent);
	free(text);
}

static void read_cpuid(struct cpu_id *id)
{
	unsigned a = 0, b = 0, c = 0, d = 0, max, base_family, base_model;

	memset(id, 0, sizeof(*id));
	if (!__get_cpuid(0, &max, &b, &c, &d))
		return;
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	__get_cpuid(1, &a, &b, &c, &d);
	base_family = (a >> 8) & 0xf;
	base_model = (a >> 4) & 0xf;
	id->stepping = a & 0xf;
	id->family = base_family;
	id->model = base_model;
	if (base_family == 0xf)
		id->family += (a >> 20) & 0xff;
	if (base_family == 0x6 || base_family == 0xf)
		id->model |= ((a >> 16) & 0xf) << 4;
	id->hypervisor = (c >> 31) & 1;
	if (__get_cpuid(0x80000007, &a, &b, &c, &d))
		id->invariant = (d >> 8) & 1;
	if (__get_cpuid(0x80000004, &a, &b, &c, &d)) {
		unsigned *brand = (unsigned *)id->brand;
		unsigned leaf;

		for (leaf = 0; leaf < 3; leaf++)
			__get_cpuid(0x80000002 + leaf, &brand[4 * leaf],
				    &brand[4 * leaf + 1], &brand[4 * leaf + 2],
				    &brand[4 * leaf + 3]);
	}
	/* Hypervisor leaves sit outside the basic range __get_cpuid checks. */
	if (id->hypervisor) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(id->hv_sig, &b, 4);
		memcpy(id->hv_sig + 4, &c, 4);
		memcpy(id->hv_sig + 8, &d, 4);
	}
}

/* The "flags" line of /proc/cpuinfo: what the kernel enabled. */
static char *cpuinfo_flags(void)
{
	char *info = lk__env_read("/proc/cpuinfo"), *line, *save = NULL;
	char *flags = NULL;

	for (line = info ? strtok_r(info, "\n", &save) : NULL; line && !flags;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "flags", 5) && colon)
			flags = lk_strdup(colon + 1);
	}
	free(info);
	return flags;
}

static char *trim_dup(const char *s)
{
	size_t len;

	while (*s == ' ')
		s++;
	len = strlen(s);
	while (len && s[len - 1] == ' ')
		len--;
	return lk_strndup(s, len);
}

static void probe_loopkit(struct probe *p)
{
	char host[256], date[32];
	time_t now = time(NULL);
	struct tm tm;

	lk_env_set(p->env, "loopkit.version", LK_VERSION);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	lk_env_set(p->env, "date.utc", date);
	if (gethostname(host, sizeof(host)))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	lk_env_set(p->env, "host.name", host);
}

static char *online_count(const char *list)
{
	const char *s = list;
	long count = 0;

	/* "0-3,8,10-11": ranges and singles. */
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s)
			return NULL;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		count += hi - lo + 1;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return NULL;
	}
	return lk_asprintf("%ld", count);
}

/* Extensions a kernel's code generation and our decoders care about. */
static const char *const isa_of_interest[] = {
	"sse4_2", "avx", "avx2", "fma", "bmi2", "avx512f", "avx512dq",
	"avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16",
	"amx_tile",
};

static void probe_isa(struct probe *p)
{
	struct lk_buf have = LK_BUF_INIT, lack = LK_BUF_INIT;
	size_t i;

	if (!p->flags_line) {
		lk_env_set(p->env, "cpu.isa", "unknown");
		lk_env_set(p->env, "cpu.isa.absent", "unknown");
		return;
	}
	for (i = 0; i < LK_ARRAY_SIZE(isa_of_interest); i++) {
		const char *isa = isa_of_interest[i];
		struct lk_buf *b = lk__env_has(p->flags_line, isa) ? &have
								   : &lack;

		lk_buf_addf(b, "%s%s", b->len ? " " : "", isa);
	}
	lk_env_set(p->env, "cpu.isa", have.len ? have.buf : "none");
	lk_env_set(p->env, "cpu.isa.absent", lack.len ? lack.buf : "none");
	lk_buf_release(&have);
	lk_buf_release(&lack);
}

static void probe_cpu(struct probe *p)
{
	const struct cpu_id *id = &p->id;
	char *online = lk__env_read("/sys/devices/system/cpu/online");
	char *count = online ? online_count(online) : NULL;
	long conf = sysconf(_SC_NPROCESSORS_ONLN);
	struct lk_cpuset allowed;
	struct lk_microarch uarch;

	set_take(p->env, "cpu.model", trim_dup(id->brand));
	lk_env_set(p->env, "cpu.vendor", id->vendor);
	set_take(p->env, "cpu.family",
		 lk_asprintf("%u (0x%x)", id->family, id->family));
	set_take(p->env, "cpu.model_number",
		 lk_asprintf("%u (0x%x)", id->model, id->model));
	set_take(p->env, "cpu.stepping", lk_asprintf("%u", id->stepping));
	lk_env_microarch_isa(id->vendor, id->family, id->model, p->flags_line,
			     &uarch);
	lk_env_set(p->env, "cpu.microarch", uarch.name);
	if (uarch.by_model)
		set_take(p->env, "cpu.microarch.source",
			 lk_asprintf("isa: CPUID model 0x%x names %s, which "
				     "has no %s (a hypervisor's model)",
				     id->model, uarch.by_model, uarch.flag));
	else
		lk_env_set(p->env, "cpu.microarch.source",
			   strcmp(uarch.name, "unknown") ? "cpuid model"
							 : "none");
	if (!count && conf > 0)
		count = lk_asprintf("%ld", conf);
	set_take(p->env, "cpu.online", count);
	lk_env_set(p->env, "cpu.online_list", online);
	free(online);
	/* What loopkit may run on (taskset, cpusets): method.cpu must fit. */
	if (!lk_cpus_allowed(&allowed))
		set_take(p->env, "cpu.allowed", lk_cpuset_format(&allowed));
	else
		lk_env_set(p->env, "cpu.allowed", "unknown");
	probe_isa(p);
}

static void probe_tsc(struct probe *p)
{
	uint64_t hz = lk_tsc_hz();
	int constant = lk__env_has(p->flags_line, "constant_tsc");
	int nonstop = lk__env_has(p->flags_line, "nonstop_tsc");
	const char *invariant;

	set_take(p->env, "tsc.hz", lk_asprintf("%llu", (unsigned long long)hz));
	set_take(p->env, "tsc.ghz", lk_asprintf("%.3f", hz / 1e9));
	/* Both should agree; when they do not, say which one spoke. */
	if (p->id.invariant && constant && nonstop)
		invariant = "yes";
	else if (p->id.invariant)
		invariant = "yes (cpuid only, kernel flags disagree)";
	else if (constant && nonstop)
		invariant = "yes (kernel flags only)";
	else
		invariant = "no";
	lk_env_set(p->env, "tsc.invariant", invariant);
	lk_env_set(p->env, "tsc.known_freq",
		   !p->flags_line ? "unknown"
		   : lk__env_has(p->flags_line, "tsc_known_freq") ? "yes"
							      : "no");
	set_file(p->env, "clocksource",
		 "/sys/devices/system/clocksource/clocksource0/"
		 "current_clocksource", "unknown");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The core clock moves in slow episodes (FACTS.md: 100-400 ms), so a
 * single burst of timings only describes one moment: take the median of
 * batch medians spread over ~100 ms and report the spread beside it.
 */
static void probe_core(struct probe *p)
{
	struct timespec gap = { 0, CAL_GAP_NS };
	double ratio[CAL_BATCHES], median, ghz;
	int i;

	for (i = 0; i < CAL_BATCHES; i++) {
		if (i)
			nanosleep(&gap, NULL);
		ratio[i] = lk_core_tsc_ratio(CAL_RUNS);
	}
	qsort(ratio, CAL_BATCHES, sizeof(*ratio), cmp_double);
	median = ratio[CAL_BATCHES / 2];
	ghz = median * (double)lk_tsc_hz() / 1e9;
	set_take(p->env, "core.tsc_ratio", lk_asprintf("%.4f", median));
	set_take(p->env, "core.tsc_ratio.range",
		 lk_asprintf("%.4f-%.4f", ratio[0], ratio[CAL_BATCHES - 1]));
	set_take(p->env, "core.tsc_ratio.method",
		 lk_asprintf("imul chain (%d-cycle latency), median of %d "
			     "batches %ld ms apart, each the median of %d",
			     LK_REF_LATENCY, CAL_BATCHES, CAL_GAP_NS / 1000000,
			     CAL_RUNS));
	set_take(p->env, "core.ghz_estimated", lk_asprintf("%.3f", ghz));
}

/* One governor for all CPUs, or "cpu0=a cpu1=b" when they differ. */
static char *governors(void)
{
	struct lk_buf b = LK_BUF_INIT;
	char *first = NULL;
	int *cpus, mixed = 0;
	size_t i, n = lk__env_cpus(&cpus);

	for (i = 0; i < n; i++) {
		char *gov = lk__env_read("/sys/devices/system/cpu/cpu%d/"
					 "cpufreq/scaling_governor", cpus[i]);

		if (!gov)
			continue;
		lk_buf_addf(&b, "%scpu%d=%s", b.len ? " " : "", cpus[i], gov);
		if (!first)
			first = lk_strdup(gov);
		else if (strcmp(first, gov))
			mixed = 1;
		free(gov);
	}
	free(cpus);
	if (!first)
		first = lk_strdup("unavailable (no cpufreq)");
	if (mixed) {
		free(first);
		return lk_buf_detach(&b);
	}
	lk_buf_release(&b);
	return first;
}

static char *turbo(void)
{
	char *v = lk__env_read("/sys/devices/system/cpu/intel_pstate/no_turbo");
	char *ret;

	if (v) {
		ret = lk_asprintf("%s (intel_pstate/no_turbo=%s)",
				  !strcmp(v, "0") ? "on" : "off", v);
		free(v);
		return ret;
	}
	v = lk__env_read("/sys/devices/system/cpu/cpufreq/boost");
	if (v) {
		ret = lk_asprintf("%s (cpufreq/boost=%s)",
				  !strcmp(v, "0") ? "off" : "on", v);
		free(v);
		return ret;
	}
	return lk_strdup("unknown (no intel_pstate/no_turbo or cpufreq/boost)");
}

static char *pstate_driver(void)
{
	static const char *const drivers[] = { "intel_pstate", "amd_pstate" };
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(drivers); i++) {
		char *status = lk__env_read("/sys/devices/system/cpu/%s/status",
					    drivers[i]);

		if (status) {
			char *ret = lk_asprintf("%s %s", drivers[i], status);

			free(status);
			return ret;
		}
	}
	return lk_strdup("none");
}

static void probe_freq(struct probe *p)
{
	set_take(p->env, "freq.governor", governors());
	set_file(p->env, "freq.driver",
		 "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver",
		 "unavailable (no cpufreq)");
	set_take(p->env, "freq.turbo", turbo());
	set_take(p->env, "freq.pstate", pstate_driver());
}

static void probe_smt(struct probe *p)
{
	char *active = lk__env_read("/sys/devices/system/cpu/smt/active");

	lk_env_set(p->env, "smt.active",
		   !active ? "unknown" : !strcmp(active, "1") ? "yes" : "no");
	free(active);
	set_file(p->env, "smt.control", "/sys/devices/system/cpu/smt/control",
		 "unknown");
}

struct cache_kind {
	const char *key;
	const char *level, *type;
};

static const struct cache_kind cache_kinds[] = {
	{ "cache.l1d", "1", "Data" },
	{ "cache.l1i", "1", "Instruction" },
	{ "cache.l2", "2", "Unified" },
	{ "cache.l3", "3", "Unified" },
};

#define CACHE_DIR "/sys/devices/system/cpu/cpu%d/cache/index%d"
#define MAX_CACHE_INDEX 16

/* Distinct shared_cpu_list values of one cache index over all CPUs. */
static size_t cache_instances(const int *cpus, size_t ncpus, int index)
{
	struct lk_strv seen = LK_STRV_INIT;
	size_t i, j, n;

	for (i = 0; i < ncpus; i++) {
		char *list = lk__env_read(CACHE_DIR "/shared_cpu_list", cpus[i],
					  index);

		if (!list)
			continue;
		for (j = 0; j < seen.n && strcmp(seen.v[j], list); j++)
			;
		if (j == seen.n)
			lk_strv_push(&seen, list);
		free(list);
	}
	n = seen.n;
	lk_strv_release(&seen);
	return n;
}

/* Which cpu0 cache index is this kind, or -1. */
static int cache_index(const struct cache_kind *kind, int cpu)
{
	int index, found = -1;

	for (index = 0; index < MAX_CACHE_INDEX && found < 0; index++) {
		char *level = lk__env_read(CACHE_DIR "/level", cpu, index);
		char *type = lk__env_read(CACHE_DIR "/type", cpu, index);

		if (level && type && !strcmp(level, kind->level) &&
		    !strcmp(type, kind->type))
			found = index;
		free(level);
		free(type);
	}
	return found;
}

static void probe_cache(struct probe *p)
{
	int *cpus;
	size_t i, ncpus = lk__env_cpus(&cpus);
	int cpu = ncpus ? cpus[0] : 0;

	for (i = 0; i < LK_ARRAY_SIZE(cache_kinds); i++) {
		const struct cache_kind *kind = &cache_kinds[i];
		int index = cache_index(kind, cpu);
		char *key = lk_asprintf("%s.instances", kind->key);

		if (index < 0) {
			lk_env_set(p->env, kind->key, "unknown");
			lk_env_set(p->env, key, "unknown");
		} else {
			size_t n = cache_instances(cpus, ncpus, index);

			set_take(p->env, kind->key,
				 lk__env_read(CACHE_DIR "/size", cpu, index));
			set_take(p->env, key, lk_asprintf("%zu", n));
		}
		free(key);
	}
	set_take(p->env, "cache.line",
		 lk__env_read(CACHE_DIR "/coherency_line_size", cpu, 0));
	free(cpus);
}

/* "32K", "1M", "49152": bytes, or 0. */
static long cache_bytes(const char *text)
{
	char *end;
	long n;

	if (!text || *text < '0' || *text > '9')
		return 0;
	n = strtol(text, &end, 10);
	if (*end == 'K' || *end == 'k')
		n *= 1024, end++;
	else if (*end == 'M' || *end == 'm')
		n *= 1024 * 1024, end++;
	return *end || n <= 0 ? 0 : n;
}

/* The size of one cache kind of this cpu, in bytes, or 0. */
static long kind_bytes(const struct cache_kind *kind, int cpu)
{
	int index = cache_index(kind, cpu);
	char *text = index < 0 ? NULL
			       : lk__env_read(CACHE_DIR "/size", cpu, index);
	long n = cache_bytes(text);

	free(text);
	return n;
}

long lk_env_l1d_bytes(void)
{
	int *cpus;
	size_t ncpus = lk__env_cpus(&cpus);
	long n = kind_bytes(&cache_kinds[0], ncpus ? cpus[0] : 0);

	free(cpus);
	return n;
}

/* sysconf's figure for name when system files are the real ones, else 0
 * (a fake tree must not be mixed with the host's geometry). */
static long sysconf_bytes(int name)
{
	const char *root = getenv("LOOPKIT_SYSROOT");
	long n;

	if (root && *root)
		return 0;
	n = sysconf(name);
	return n > 0 ? n : 0;
}

void lk_env_cache_sizes(struct lk_env_caches *out)
{
	int *cpus;
	size_t ncpus = lk__env_cpus(&cpus);
	int cpu = ncpus ? cpus[0] : 0;

	out->l1d = kind_bytes(&cache_kinds[0], cpu);
	out->l2 = kind_bytes(&cache_kinds[2], cpu);
	out->l3 = kind_bytes(&cache_kinds[3], cpu);
	free(cpus);
	if (!out->l1d)
		out->l1d = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
	if (!out->l2)
		out->l2 = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
	if (!out->l3)
		out->l3 = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
}

/* User-space only, this process: what `loopkit measure` would open. */
int lk_env_perf_probe(unsigned type, unsigned long long config)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0)
		close((int)fd);
	return fd < 0 ? errno : 0;
}

static char *errno_text(int err)
{
	const char *name = strerrorname_np(err);

	return lk_asprintf("%s: %s", name ? name : "?", strerror(err));
}

static void probe_pmu(struct probe *p)
{
	int cycles = lk_env_perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	int instr = lk_env_perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	int task = lk_env_perf_probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	set_file(p->env, "pmu.perf_event_paranoid",
		 "/proc/sys/kernel/perf_event_paranoid", "unknown");
	lk_env_set(p->env, "pmu.available",
		   !cycles && !instr ? "yes"
		   : !cycles	     ? "partial (cycles only)"
		   : !instr	     ? "partial (instructions only)"
				     : "no");
	set_take(p->env, "pmu.error",
		 cycles ? errno_text(cycles)
		 : instr ? errno_text(instr)
			 : lk_strdup("none"));
	if (!task) {
		lk_env_set(p->env, "pmu.software", "yes");
	} else {
		char *why = errno_text(task);

		set_take(p->env, "pmu.software", lk_asprintf("no (%s)", why));
		free(why);
	}
}

struct hv_name {
	const char *signature, *name;
};

static const struct hv_name hv_names[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "TCGTCGTCGTCG", "QEMU (TCG)" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ " lrpepyh  vr", "Parallels" },
	{ "bhyve bhyve ", "bhyve" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "QNXQVMBSQG", "QNX" },
	{ "Linux KVM Hv", "KVM (Hyper-V enlightenments)" },
};

static void probe_virt(struct probe *p)
{
	const char *name = "unknown";
	size_t i;

	lk_env_set(p->env, "virt.guest", p->id.hypervisor ? "yes" : "no");
	for (i = 0; i < LK_ARRAY_SIZE(hv_names); i++)
		if (!strcmp(p->id.hv_sig, hv_names[i].signature))
			name = hv_names[i].name;
	lk_env_set(p->env, "virt.hypervisor",
		   p->id.hypervisor ? name : "none");
	lk_env_set(p->env, "virt.signature",
		   p->id.hypervisor ? p->id.hv_sig : "none");
	set_file(p->env, "virt.sys_type", "/sys/hypervisor/type", "none");
}

static char *os_name(void)
{
	char *text = lk__env_read("/etc/os-release"), *line, *ret = NULL;

	if (!text)
		return NULL;
	for (line = strtok(text, "\n"); line && !ret;
	     line = strtok(NULL, "\n")) {
		size_t len;

		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		line += 12;
		len = strlen(line);
		if (len >= 2 && line[0] == '"' && line[len - 1] == '"')
			ret = lk_strndup(line + 1, len - 2);
		else
			ret = lk_strdup(line);
	}
	free(text);
	return ret;
}

static void probe_kernel(struct probe *p)
{
	struct utsname u;

	if (!uname(&u)) {
		lk_env_set(p->env, "kernel.release", u.release);
		lk_env_set(p->env, "kernel.version", u.version);
		lk_env_set(p->env, "kernel.arch", u.machine);
	} else {
		lk_env_set(p->env, "kernel.release", "unknown");
	}
	set_take(p->env, "os.name", os_name());
}

/* The bracketed word of "always [madvise] never". */
static char *selected(const char *choices)
{
	const char *open = strchr(choices, '['), *close;

	if (!open || !(close = strchr(open, ']')))
		return lk_strdup(choices);
	return lk_strndup(open + 1, (size_t)(close - open - 1));
}

static void probe_sys(struct probe *p)
{
	static const char *const aslr[] = { "0 (off)", "1 (partial)",
					    "2 (full)" };
	char *v = lk__env_read("/proc/sys/kernel/randomize_va_space");

	if (v && strlen(v) == 1 && v[0] >= '0' && v[0] <= '2')
		lk_env_set(p->env, "sys.aslr", aslr[v[0] - '0']);
	else
		lk_env_set(p->env, "sys.aslr", v);
	free(v);
	v = lk__env_read("/proc/sys/kernel/nmi_watchdog");
	lk_env_set(p->env, "sys.nmi_watchdog",
		   !v ? "unavailable" : !strcmp(v, "0") ? "0 (off)" : "1 (on)");
	free(v);
	v = lk__env_read("/sys/kernel/mm/transparent_hugepage/enabled");
	set_take(p->env, "sys.thp", v ? selected(v) : NULL);
	free(v);
}

/* First line of `name --version`, or why there is none. */
static char *compiler_version(const char *name)
{
	const char *argv[] = { name, "--version", NULL };
	struct lk_ctx scratch;
	char *path = lk_which(name), *out = NULL;

	if (!path)
		return lk_strdup("not found");
	free(path);
	lk_ctx_init(&scratch);
	if (lk_proc_first_line(&scratch, argv, COMPILER_TIMEOUT, &out))
		return lk_asprintf("error (%s)", scratch.msg);
	return out;
}

static void probe_compilers(struct probe *p)
{
	set_take(p->env, "compiler.gcc", compiler_version("gcc"));
	set_take(p->env, "compiler.clang", compiler_version("clang"));
}

void lk_env_host_microarch(struct lk_microarch *out)
{
	struct cpu_id id;
	char *flags = cpuinfo_flags();

	read_cpuid(&id);
	lk_env_microarch_isa(id.vendor[0] ? id.vendor : NULL, id.family,
			     id.model, flags, out);
	free(flags);
}

/* In report order: identity, clocks, frequency policy, topology, ... */
static void (*const probes[])(struct probe *) = {
	probe_loopkit, probe_cpu,  probe_tsc,  probe_core,
	probe_freq,    probe_smt,  probe_cache, probe_pmu,
	probe_virt,    probe_kernel, probe_sys, probe_compilers,
};

int lk_env_collect(struct lk_ctx *ctx, struct lk_env *env, unsigned flags)
{
	struct probe p = { .env = env };
	size_t i;

	read_cpuid(&p.id);
	p.flags_line = cpuinfo_flags();
	for (i = 0; i < LK_ARRAY_SIZE(probes); i++) {
		if (probes[i] == probe_core && !(flags & LK_ENV_CALIBRATE))
			continue;
		probes[i](&p);
	}
	free(p.flags_line);
	lk_debug(ctx, "env: %zu facts", env->n);
	return 0;
}
