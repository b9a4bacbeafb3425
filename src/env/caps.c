/* What this build and this machine can do (loopkit check). */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>
#include <Zydis/Zydis.h>

#include "loopkit/env.h"
#include "loopkit/subprocess.h"
#include "loopkit/toolchain.h"

struct probe {
	const char *name;
	int (*fn)(struct lk_ctx *ctx, char **detail);
};

static int first_line(struct lk_ctx *ctx, const char *const *argv,
		      char **detail)
{
	if (lk_proc_first_line(ctx, argv, 20, detail)) {
		*detail = lk_strdup("not found");
		return 0;
	}
	return 1;
}

static int probe_cc(struct lk_ctx *ctx, char **detail)
{
	const char *argv[] = {"gcc", "--version", NULL};

	return first_line(ctx, argv, detail);
}

static int probe_clang(struct lk_ctx *ctx, char **detail)
{
	const char *argv[] = {"clang", "--version", NULL};

	return first_line(ctx, argv, detail);
}

static int probe_pmu(struct lk_ctx *ctx, char **detail)
{
	int err = lk_env_perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);

	*detail = err ? lk_asprintf("hardware cycles: %s (%s); cycles are "
				    "TSC-calibrated instead",
				    strerrorname_np(err), strerror(err)) :
			lk_strdup("hardware cycles and instructions");
	return !err;
}

static int probe_perf_sw(struct lk_ctx *ctx, char **detail)
{
	int err = lk_env_perf_probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	*detail = err ? lk_asprintf("%s", strerror(err)) :
			lk_strdup("task-clock, page-faults, context-switches, "
				  "cpu-migrations");
	return !err;
}

/* Can we trace a child of ours? (what 'count' will need) */
static int probe_ptrace(struct lk_ctx *ctx, char **detail)
{
	int status = 0, ok;
	pid_t pid = lk_proc_fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	if (pid < 0) {
		*detail = lk_strdup(strerror(errno));
		return 0;
	}
	lk_proc_waitpid(pid, &status, 0);
	ok = WIFSTOPPED(status);
	if (ok)
		ptrace(PTRACE_CONT, pid, NULL, NULL);
	lk_proc_waitpid(pid, &status, 0);
	ok = ok && WIFEXITED(status) && !WEXITSTATUS(status);
	*detail = lk_strdup(ok ? "PTRACE_TRACEME on a child works" :
				 "tracing a child was refused");
	return ok;
}

static int probe_fifo(struct lk_ctx *ctx, char **detail)
{
	int status = 0;
	pid_t pid = lk_proc_fork();

	if (pid == 0) {
		struct sched_param sp = {.sched_priority = 1};

		_exit(sched_setscheduler(0, SCHED_FIFO, &sp) ? 1 : 0);
	}
	if (pid < 0 || lk_proc_waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		*detail = lk_strdup("not permitted (needs root or "
				    "RLIMIT_RTPRIO)");
		return 0;
	}
	*detail = lk_strdup("permitted");
	return 1;
}

static int probe_affinity(struct lk_ctx *ctx, char **detail)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		*detail = lk_strdup(strerror(errno));
		return 0;
	}
	*detail = lk_asprintf("%d CPUs allowed", CPU_COUNT(&set));
	return 1;
}

static void scan_mca(const char *dir, struct lk_strv *found)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "llvm-mca", 8) &&
		    (!e->d_name[8] || e->d_name[8] == '-'))
			lk_strv_pushf(found, "%s/%s", dir, e->d_name);
	closedir(d);
}

static int probe_mca(struct lk_ctx *ctx, char **detail)
{
	struct lk_strv found = LK_STRV_INIT;
	DIR *d = opendir("/usr/lib");
	struct dirent *e;

	scan_mca("/usr/bin", &found);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "llvm-", 5))
			continue;
		char *bin = lk_asprintf("/usr/lib/%s/bin", e->d_name);

		scan_mca(bin, &found);
		free(bin);
	}
	if (d)
		closedir(d);
	*detail = found.n ? lk_strv_join(&found, " ") :
			    lk_strdup("not found (make deps installs llvm-19)");
	lk_strv_release(&found);
	return *detail[0] == '/';
}

static int probe_valgrind(struct lk_ctx *ctx, char **detail)
{
	const char *argv[] = {"valgrind", "--version", NULL};

	return first_line(ctx, argv, detail);
}

static int probe_plugin(struct lk_ctx *ctx, char **detail)
{
	const char *argv[] = {"gcc", "-print-file-name=plugin", NULL};
	char *dir = NULL, *hdr;
	int ok;

	if (lk_proc_first_line(ctx, argv, 20, &dir)) {
		*detail = lk_strdup("no gcc");
		return 0;
	}
	hdr = lk_asprintf("%s/include/gcc-plugin.h", dir);
	ok = lk_path_exists(hdr);
	*detail = ok ? lk_strdup(dir) :
		       lk_strdup("no plugin headers (gcc-12-plugin-dev)");
	free(hdr);
	free(dir);
	return ok;
}

/* Zydis is linked in (blocks, count, bprof decode with it): its version
 * as the library says, and one instruction decoded as evidence. */
static int probe_zydis(struct lk_ctx *ctx, char **detail)
{
	static const uint8_t add_rax_rbx[] = {0x48, 0x01, 0xd8};
	ZyanU64 v = ZydisGetVersion();
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	int ok;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	ok = ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(
		     &dec, NULL, add_rax_rbx, sizeof(add_rax_rbx), &zi)) &&
	     zi.mnemonic == ZYDIS_MNEMONIC_ADD && zi.length == 3;
	*detail = lk_asprintf("Zydis %u.%u.%u linked in%s",
			      (unsigned)ZYDIS_VERSION_MAJOR(v),
			      (unsigned)ZYDIS_VERSION_MINOR(v),
			      (unsigned)ZYDIS_VERSION_PATCH(v),
			      ok ? ", decodes x86-64" :
				   ", but it does not decode 'add rax, rbx'");
	return ok;
}

static int probe_runtime(struct lk_ctx *ctx, char **detail)
{
	char *h = lk_path_join(lk_rt_include_dir(), "lkrt.h");
	char *a = lk_path_join(lk_rt_lib_dir(), "liblkrt.a");
	int ok = lk_path_exists(h) && lk_path_exists(a);

	*detail = ok ? lk_asprintf("%s, %s", h, a) :
		       lk_asprintf("missing %s or %s (run make)", h, a);
	free(h);
	free(a);
	return ok;
}

static int probe_libs(struct lk_ctx *ctx, char **detail)
{
	*detail = lk_asprintf("SQLite %s, libyaml %s", sqlite3_libversion(),
			      yaml_get_version_string());
	return 1;
}

static const struct probe probes[] = {
	{"cc", probe_cc},           {"clang", probe_clang},
	{"runtime", probe_runtime}, {"pmu", probe_pmu},
	{"perf-sw", probe_perf_sw}, {"ptrace", probe_ptrace},
	{"sched-fifo", probe_fifo}, {"affinity", probe_affinity},
	{"zydis", probe_zydis},     {"llvm-mca", probe_mca},
	{"valgrind", probe_valgrind}, {"gcc-plugin", probe_plugin},
	{"libraries", probe_libs},
};

int lk_caps_probe(struct lk_ctx *ctx, struct lk_cap **caps, size_t *n)
{
	size_t i;

	*n = LK_ARRAY_SIZE(probes);
	*caps = lk_calloc(*n, sizeof(**caps));
	for (i = 0; i < *n; i++) {
		(*caps)[i].name = probes[i].name;
		(*caps)[i].available = probes[i].fn(ctx, &(*caps)[i].detail);
		lk_ctx_clear(ctx);
	}
	return 0;
}

void lk_caps_free(struct lk_cap *caps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(caps[i].detail);
	free(caps);
}

int lk_cap_available(struct lk_ctx *ctx, const char *name)
{
	size_t i;
	char *detail = NULL;
	int ok = 0;

	for (i = 0; i < LK_ARRAY_SIZE(probes); i++)
		if (!strcmp(probes[i].name, name)) {
			ok = probes[i].fn(ctx, &detail);
			break;
		}
	free(detail);
	lk_ctx_clear(ctx);
	return ok;
}
