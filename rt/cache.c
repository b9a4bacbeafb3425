/*
 * cache.c: page-aligned allocation and LK_CACHE=cold flushing.
 */
#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lkrt-int.h"

#define PAGE 4096
#define DEFAULT_LLC (64u << 20)

struct flush_range {
	const char *p;
	size_t bytes;
};

static struct flush_range *ranges;
static size_t nranges;
static uint64_t *sweep_buf;
static size_t sweep_words;
static size_t line_size;
static int have_clflushopt;

void *lk_alloc(size_t bytes)
{
	void *p;

	bytes = bytes ? (bytes + PAGE - 1) & ~(size_t)(PAGE - 1) : PAGE;
	if (posix_memalign(&p, PAGE, bytes))
		lk__fatal("out of memory allocating %zu bytes", bytes);
	/* Touching every page here keeps first-touch faults out of samples. */
	memset(p, 0, bytes);
	return p;
}

void lk_free(void *p)
{
	free(p);
}

void lk_flush_register(const void *p, size_t bytes)
{
	struct flush_range *n;

	n = realloc(ranges, (nranges + 1) * sizeof(*ranges));
	if (!n)
		lk__fatal("out of memory registering a flush buffer");
	ranges = n;
	ranges[nranges].p = p;
	ranges[nranges].bytes = bytes;
	nranges++;
}

/* The size of one L3 instance from sysfs: per CCX/die, not the package. */
static size_t sysfs_llc_size(void)
{
	char path[96];
	int i;

	for (i = 0; i < 8; i++) {
		unsigned level = 0, kib = 0;
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%u", &level) != 1)
			level = 0;
		fclose(f);
		if (level != 3)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%uK", &kib) != 1)
			kib = 0;
		fclose(f);
		return (size_t)kib << 10;
	}
	return 0;
}

size_t lk_llc_bytes(void)
{
	size_t size = sysfs_llc_size();
	long sc;

	if (size)
		return size;
	sc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	return sc > 0 ? (size_t)sc : 0;
}

static size_t llc_size(void)
{
	size_t size = lk_llc_bytes();

	return size ? size : DEFAULT_LLC;
}

static void cache_setup(void)
{
	unsigned a, b, c, d;
	long ls = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	line_size = ls > 0 ? (size_t)ls : 64;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
		have_clflushopt = !!(b & bit_CLFLUSHOPT);
	if (!nranges) {
		size_t bytes = 2 * llc_size();

		sweep_buf = lk_alloc(bytes);
		sweep_words = bytes / sizeof(*sweep_buf);
	}
}

static void flush_range(const char *p, size_t bytes)
{
	const char *end = p + bytes;

	p = (const char *)((uintptr_t)p & ~(uintptr_t)(line_size - 1));
	if (have_clflushopt)
		for (; p < end; p += line_size)
			__asm__ volatile("clflushopt %0" : : "m"(*p));
	else
		for (; p < end; p += line_size)
			__asm__ volatile("clflush %0" : : "m"(*p));
}

/* Read and write one word per line, so dirty and clean lines are evicted. */
static void sweep(void)
{
	size_t step = line_size / sizeof(*sweep_buf);
	size_t i;

	for (i = 0; i < sweep_words; i += step)
		sweep_buf[i]++;
	LK_CLOBBER_MEMORY();
}

/* Before every sample with LK_CACHE=cold. */
void lk__cache_flush(void)
{
	size_t i;

	if (!line_size)
		cache_setup();
	if (!nranges) {
		sweep();
		return;
	}
	for (i = 0; i < nranges; i++)
		flush_range(ranges[i].p, ranges[i].bytes);
	/* clflushopt is weakly ordered: wait for the flushes to finish. */
	__asm__ volatile("mfence" : : : "memory");
}
