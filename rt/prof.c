/*
 * prof.c: entry/exit tracing for memprof. The GCC plugin inserts
 * lk_prof_enter(name) / lk_prof_exit(name) around instrumented functions;
 * this file keeps one record per call in memory and writes the LKTRACE1
 * file (doc/memprof-formats.md) at exit.
 *
 * The hot path is a TSC read, a few stores and a stack push or pop: no
 * lock, no system call, no fence (rdtscp;lfence would double the cost per
 * call; a call's interval is bracketed by calls of its own, so ordering
 * between neighbouring reads does not matter at this scale).
 *
 * One thread is traced: the first one to enter. Calls from other threads
 * are counted and reported at exit, since interleaved threads would break
 * the interval nesting the call tree relies on.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

#include "lkrt-int.h"

/* In memory the record holds the name pointer; the file, an index. */
struct prof_rec {
	const char *name;
	uint64_t enter, exit;
	uint32_t depth;
	uint32_t pad;   /* the function id, once the trace is written */
};

/*
 * Records live in chunks that never move (no copy when the trace grows),
 * mapped with MAP_POPULATE (one batched fault instead of one per page).
 */
#define CHUNK_BYTES ((size_t)2 << 20) /* one transparent huge page */
#define CHUNK_RECS ((CHUNK_BYTES - 2 * sizeof(size_t)) / \
		    sizeof(struct prof_rec))

struct chunk {
	struct chunk *next;
	size_t n;
	struct prof_rec recs[CHUNK_RECS];
};

struct prof {
	struct chunk *first, *cur;
	struct prof_rec *next, *end; /* free space in cur */
	size_t total;                /* records in full chunks before cur */
	struct prof_rec **stack;     /* open calls */
	size_t sp, stack_cap;
	pthread_t owner;
	int started, written;
	uint64_t tsc0;           /* TSC and CLOCK_MONOTONIC_RAW at the */
	struct timespec ts0;     /* first entry: the TSC rate for free */
	unsigned long foreign;   /* calls from other threads, dropped */
	unsigned long unmatched; /* exits with no matching entry */
};

static struct prof prof;

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		lk__fatal("memprof: cannot allocate %zu bytes for the trace",
			  bytes);
	return p;
}

static void prof_write(void);

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * A chunk is one 2 MiB-aligned huge page where the kernel allows it
 * (THP "always" or "madvise"): one fault per chunk instead of 512, which
 * was a quarter of the tracing cost. Elsewhere it is ordinary pages.
 */
static struct chunk *map_chunk(void)
{
	char *p = mmap(NULL, 2 * CHUNK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		lk__fatal("memprof: cannot allocate %zu bytes for the trace",
			  2 * CHUNK_BYTES);
	a = (char *)(((uintptr_t)p + CHUNK_BYTES - 1) & ~(CHUNK_BYTES - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (a + CHUNK_BYTES < p + 2 * CHUNK_BYTES)
		munmap(a + CHUNK_BYTES,
		       (size_t)(p + 2 * CHUNK_BYTES - (a + CHUNK_BYTES)));
	madvise(a, CHUNK_BYTES, MADV_HUGEPAGE);
	madvise(a, CHUNK_BYTES, MADV_POPULATE_WRITE);
	return (struct chunk *)a;
}

static void new_chunk(void)
{
	struct chunk *c = map_chunk();

	if (prof.cur) {
		prof.cur->n = (size_t)(prof.next - prof.cur->recs);
		prof.total += prof.cur->n;
		prof.cur->next = c;
	} else {
		prof.first = c;
	}
	prof.cur = c;
	prof.next = c->recs;
	prof.end = c->recs + CHUNK_RECS;
}

static void grow_stack(void)
{
	size_t cap = prof.stack_cap ? 2 * prof.stack_cap : 4096;
	struct prof_rec **s = map(cap * sizeof(*s));

	if (prof.stack) {
		memcpy(s, prof.stack, prof.sp * sizeof(*s));
		munmap(prof.stack, prof.stack_cap * sizeof(*s));
	}
	prof.stack = s;
	prof.stack_cap = cap;
}

/* Set in the traced thread only: one TLS load on the hot path. */
static __thread int traced;

/*
 * The slow path of an entry: the first call, another thread, a full
 * chunk or stack. 0 when the entry may be recorded, -1 when not.
 */
static __attribute__((noinline)) int enter_slow(void)
{
	if (prof.written)
		return -1;
	if (!prof.started) {
		prof.owner = pthread_self();
		prof.started = 1;
		traced = 1;
		clock_gettime(CLOCK_MONOTONIC_RAW, &prof.ts0);
		prof.tsc0 = __rdtsc();
		atexit(prof_write);
	}
	if (!traced) {
		prof.foreign++;
		return -1;
	}
	if (prof.next == prof.end)
		new_chunk();
	if (prof.sp == prof.stack_cap)
		grow_stack();
	return 0;
}

void lk_prof_enter(const char *name)
{
	struct prof_rec *r;

	if (__builtin_expect(!traced || prof.next == prof.end ||
			     prof.sp == prof.stack_cap, 0) && enter_slow())
		return;
	/* Chunks come zeroed from mmap: exit is already 0 (never
	 * returned) until lk_prof_exit says otherwise. */
	r = prof.next++;
	r->name = name;
	r->depth = (uint32_t)prof.sp;
	prof.stack[prof.sp++] = r;
	r->enter = __rdtsc();
}

void lk_prof_exit(const char *name)
{
	uint64_t t = __rdtsc();

	if (__builtin_expect(!traced || prof.written, 0))
		return;
	/* A longjmp or an uninstrumented unwinding skipped some exits:
	 * close the calls it skipped at the same time. */
	while (prof.sp) {
		struct prof_rec *r = prof.stack[--prof.sp];

		r->exit = t;
		if (r->name == name || !strcmp(r->name, name))
			return;
	}
	prof.unmatched++;
}

/* ---- Writing the trace at exit. ---- */

/* Pointer -> function id, open addressing; names deduplicated by text
 * (two translation units may each have their own copy of a name). */
struct names {
	const char **ptr;
	uint32_t *id;
	size_t cap, used;
	const char **text;      /* by id */
	uint32_t ntext;
};

static uint32_t text_id(struct names *nm, const char *name)
{
	uint32_t i;

	for (i = 0; i < nm->ntext; i++)
		if (!strcmp(nm->text[i], name))
			return i;
	nm->text = realloc(nm->text, (nm->ntext + 1) * sizeof(*nm->text));
	if (!nm->text)
		lk__fatal("memprof: out of memory");
	nm->text[nm->ntext] = name;
	return nm->ntext++;
}

static size_t slot_of(const struct names *nm, const char *p)
{
	size_t h = ((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull;

	for (h &= nm->cap - 1; nm->ptr[h] && nm->ptr[h] != p;
	     h = (h + 1) & (nm->cap - 1))
		;
	return h;
}

static void names_grow(struct names *nm)
{
	struct names old = *nm;
	size_t i;

	nm->cap = old.cap ? old.cap * 2 : 64;
	nm->ptr = calloc(nm->cap, sizeof(*nm->ptr));
	nm->id = calloc(nm->cap, sizeof(*nm->id));
	if (!nm->ptr || !nm->id)
		lk__fatal("memprof: out of memory");
	for (i = 0; i < old.cap; i++) {
		if (old.ptr[i]) {
			size_t s = slot_of(nm, old.ptr[i]);

			nm->ptr[s] = old.ptr[i];
			nm->id[s] = old.id[i];
		}
	}
	free(old.ptr);
	free(old.id);
}

static uint32_t name_id(struct names *nm, const char *p)
{
	size_t s;

	if (2 * (nm->used + 1) > nm->cap)
		names_grow(nm);
	s = slot_of(nm, p);
	if (!nm->ptr[s]) {
		nm->ptr[s] = p;
		nm->id[s] = text_id(nm, p);
		nm->used++;
	}
	return nm->id[s];
}

struct file_rec {
	uint64_t call_id;
	uint32_t func, depth;
	uint64_t enter, exit;
};

static int write_records(FILE *f)
{
	struct file_rec buf[4096];
	const struct chunk *c;
	uint64_t id = 0;
	size_t i, k = 0;

	for (c = prof.first; c; c = c->next) {
		for (i = 0; i < c->n; i++) {
			const struct prof_rec *r = &c->recs[i];

			buf[k++] = (struct file_rec){id++, r->pad, r->depth,
						     r->enter, r->exit};
			if (k < 4096)
				continue;
			if (fwrite(buf, sizeof(*buf), k, f) != k)
				return -1;
			k = 0;
		}
	}
	return k && fwrite(buf, sizeof(*buf), k, f) != k ? -1 : 0;
}

/*
 * Each record's function id, into its spare word: one pass, and runs of
 * calls to the same function (a loop calling one callee) skip the hash.
 */
static void map_names(struct names *nm)
{
	const char *last = NULL;
	uint32_t last_id = 0;
	struct chunk *c;
	size_t i;

	for (c = prof.first; c; c = c->next) {
		for (i = 0; i < c->n; i++) {
			struct prof_rec *r = &c->recs[i];

			if (r->name != last) {
				last = r->name;
				last_id = name_id(nm, last);
			}
			r->pad = last_id;
		}
	}
}

/*
 * The TSC rate over the traced run: two clock reads, none on the hot
 * path. Under 10 ms of trace the estimate is too coarse: 0, unknown.
 */
static uint64_t trace_hz(void)
{
	struct timespec ts;
	uint64_t tsc = __rdtsc();
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	ns = (double)(ts.tv_sec - prof.ts0.tv_sec) * 1e9 +
	     (double)(ts.tv_nsec - prof.ts0.tv_nsec);
	if (ns < 1e7)
		return 0;
	return (uint64_t)((double)(tsc - prof.tsc0) / ns * 1e9 + 0.5);
}

static int write_header(FILE *f, const struct names *nm)
{
	uint32_t version = 1, i;
	uint64_t nrec = prof.total, hz = trace_hz();

	if (fwrite("LKTRACE1", 1, 8, f) != 8 ||
	    fwrite(&version, 4, 1, f) != 1 ||
	    fwrite(&nm->ntext, 4, 1, f) != 1 || fwrite(&nrec, 8, 1, f) != 1 ||
	    fwrite(&hz, 8, 1, f) != 1)
		return -1;
	for (i = 0; i < nm->ntext; i++) {
		uint32_t len = (uint32_t)strlen(nm->text[i]);

		if (fwrite(&len, 4, 1, f) != 1 ||
		    fwrite(nm->text[i], 1, len, f) != len)
			return -1;
	}
	return 0;
}

/*
 * The file needs the name table before the records, and the table is
 * only known once every record is mapped: map first, then write.
 */
static void prof_write(void)
{
	const char *path = getenv("LK_PROF_OUT");
	struct names nm = {0};
	FILE *f;
	int bad;

	if (!path || !*path)
		path = "lkprof.trace";
	if (prof.cur) {
		prof.cur->n = (size_t)(prof.next - prof.cur->recs);
		prof.total += prof.cur->n;
	}
	prof.written = 1;
	map_names(&nm);
	f = fopen(path, "wb");
	bad = !f || write_header(f, &nm) || write_records(f);
	if (f && fclose(f))
		bad = 1;
	if (bad)
		fprintf(stderr, "lkrt: memprof: cannot write %s\n", path);
	if (prof.foreign || prof.unmatched)
		fprintf(stderr, "lkrt: memprof: %lu calls from other threads "
			"dropped, %lu unmatched exits\n", prof.foreign,
			prof.unmatched);
	free(nm.ptr);
	free(nm.id);
	free(nm.text);
}
