/*
 * cpus.c: CPU lists (LK_CPU, the info lines), pinning to a set, the
 * thread count a kernel should run (lk_threads) and the threads the
 * process has (the 'threads' info of a region).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lkrt-int.h"

/* One number of a list: digits only, below CPU_SETSIZE. */
static const char *parse_cpu(const char *p, int *cpu, const char *text)
{
	long n = 0;

	if (*p < '0' || *p > '9')
		lk__fatal("bad LK_CPU=%.40s: want a CPU list such as 3, 0-3 "
			  "or 0-3,6",
			  text);
	for (; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (*p - '0')) >= CPU_SETSIZE)
			lk__fatal("cannot pin to cpu %.40s: EINVAL (CPU "
				  "numbers stop at %d)",
				  text, CPU_SETSIZE - 1);
	*cpu = (int)n;
	return p;
}

void lk__cpus_parse(const char *text, cpu_set_t *set)
{
	const char *p = text;
	int lo, hi, cpu;

	CPU_ZERO(set);
	for (;;) {
		p = parse_cpu(p, &lo, text);
		hi = lo;
		if (*p == '-')
			p = parse_cpu(p + 1, &hi, text);
		if (hi < lo)
			lk__fatal("bad LK_CPU=%.40s: a range goes down", text);
		for (cpu = lo; cpu <= hi; cpu++)
			CPU_SET(cpu, set);
		if (!*p)
			return;
		if (*p++ != ',')
			lk__fatal("bad LK_CPU=%.40s: want a CPU list such as "
				  "3, 0-3 or 0-3,6",
				  text);
	}
}

/* "0-3,6" into buf; a list too long for it ends in ",...". */
void lk__cpus_format(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;
	int cpu, end, n;

	buf[0] = '\0';
	for (cpu = 0; cpu < CPU_SETSIZE; cpu = end + 1) {
		if (!CPU_ISSET(cpu, set)) {
			end = cpu;
			continue;
		}
		for (end = cpu;
		     end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set); end++)
			;
		n = end > cpu ? snprintf(buf + len, size - len, "%s%d-%d",
					 len ? "," : "", cpu, end)
			      : snprintf(buf + len, size - len, "%s%d",
					 len ? "," : "", cpu);
		if (n < 0 || (size_t)n >= size - len - 4) {
			snprintf(buf + len, size - len, ",...");
			return;
		}
		len += (size_t)n;
	}
}

void lk__pin(void)
{
	if (!lk__rt.pinned)
		return;
	if (sched_setaffinity(0, sizeof(lk__rt.cpus), &lk__rt.cpus))
		lk__fatal("cannot pin to cpu %s: %s", lk__rt.cpu_list,
			  lk__errname(errno));
}

/* A count from the environment: a positive number, its first one for
 * OMP_NUM_THREADS ("4,2" gives the outer level). 0 if unset or bad. */
static int env_count(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return 0;
	n = strtol(v, &end, 10);
	return n > 0 && n <= 65536 && (!*end || *end == ',') ? (int)n : 0;
}

void lk__threads_read(void)
{
	const char *v = getenv("LK_THREADS");

	lk__rt.threads = env_count("LK_THREADS");
	if (v && *v && (!lk__rt.threads || strchr(v, ',')))
		lk__fatal("bad LK_THREADS=%.40s: want a whole number >= 1", v);
}

int lk_threads(void)
{
	cpu_set_t set;
	int n;

	if (lk__rt.threads)
		return lk__rt.threads;
	if ((n = env_count("OMP_NUM_THREADS")))
		return n;
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set))
		return CPU_COUNT(&set);
	return 1;
}

int lk__threads_now(void)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "\nThreads:");
	return p ? atoi(p + strlen("\nThreads:")) : 0;
}
