/*
 * CPU sets and their text form, the kernel's cpulist ("0-3,6"): method.cpu,
 * the runtime's LK_CPU, sysfs's online list and the affinity mask all
 * spell sets this way.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/core.h"

void lk_cpuset_clear(struct lk_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void lk_cpuset_add(struct lk_cpuset *s, int cpu)
{
	if (cpu >= 0 && cpu < LK_CPUS_MAX)
		s->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

int lk_cpuset_has(const struct lk_cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < LK_CPUS_MAX &&
	       (s->bits[cpu / 64] >> (cpu % 64) & 1);
}

int lk_cpuset_count(const struct lk_cpuset *s)
{
	int n = 0;
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int lk_cpuset_next(const struct lk_cpuset *s, int after)
{
	int cpu;

	for (cpu = after < 0 ? 0 : after + 1; cpu < LK_CPUS_MAX; cpu++)
		if (lk_cpuset_has(s, cpu))
			return cpu;
	return -1;
}

/* A CPU number: decimal digits only, below LK_CPUS_MAX. */
static int parse_cpu(const char **p, int *out, const char **why)
{
	const char *s = *p;
	long n = 0;

	if (*s < '0' || *s > '9') {
		*why = "expected a CPU list such as 3, 0-3 or 0-3,6";
		return -1;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (*s - '0');
		if (n >= LK_CPUS_MAX) {
			*why = "a CPU number is above 1023, the largest one "
			       "loopkit pins to";
			return -1;
		}
	}
	*out = (int)n;
	*p = s;
	return 0;
}

int lk_cpuset_parse(const char *text, struct lk_cpuset *out, const char **why)
{
	const char *p = text;
	struct lk_cpuset set;
	int lo, hi, cpu;

	lk_cpuset_clear(&set);
	*why = "expected a CPU list such as 3, 0-3 or 0-3,6";
	if (!*p)
		return -1;
	for (;;) {
		while (*p == ' ')
			p++;
		if (parse_cpu(&p, &lo, why))
			return -1;
		hi = lo;
		if (*p == '-' && (p++, parse_cpu(&p, &hi, why)))
			return -1;
		if (hi < lo) {
			*why = "a range goes down (write it low-high)";
			return -1;
		}
		for (cpu = lo; cpu <= hi; cpu++)
			lk_cpuset_add(&set, cpu);
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p++ != ',')
			return -1;
	}
	*out = set;
	return 0;
}

char *lk_cpuset_format(const struct lk_cpuset *s)
{
	struct lk_buf b = LK_BUF_INIT;
	int cpu = lk_cpuset_next(s, -1), end;

	while (cpu >= 0) {
		for (end = cpu; lk_cpuset_has(s, end + 1); end++)
			;
		lk_buf_addf(&b, "%s%d", b.len ? "," : "", cpu);
		if (end > cpu)
			lk_buf_addf(&b, "-%d", end);
		cpu = lk_cpuset_next(s, end);
	}
	return lk_buf_detach(&b);
}

int lk_cpus_online(struct lk_cpuset *out)
{
	char *text = NULL;
	const char *why;
	struct lk_ctx ctx;
	long n, cpu;
	size_t len;
	int ret = -1;

	lk_ctx_init(&ctx);
	if (!lk_file_read(&ctx, "/sys/devices/system/cpu/online", &text,
			  &len)) {
		text[strcspn(text, "\n")] = '\0';
		ret = lk_cpuset_parse(text, out, &why);
	}
	free(text);
	if (!ret)
		return 0;
	/* No sysfs: CPUs 0..n-1, as sysconf counts them. */
	n = sysconf(_SC_NPROCESSORS_ONLN);
	lk_cpuset_clear(out);
	for (cpu = 0; cpu < n; cpu++)
		lk_cpuset_add(out, (int)cpu);
	return n > 0 ? 0 : -1;
}

int lk_cpus_allowed(struct lk_cpuset *out)
{
	cpu_set_t set;
	int cpu;

	lk_cpuset_clear(out);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && cpu < LK_CPUS_MAX; cpu++)
		if (CPU_ISSET(cpu, &set))
			lk_cpuset_add(out, cpu);
	return 0;
}
