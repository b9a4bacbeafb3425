/*
 * kernels.h: the conventions every kernel of loopkit's suite shares
 * (kernels/README.md describes them for readers and for the generator).
 *
 * A kernel file includes this header first, defines its sizes with
 * LKK_SIZE(mini, small, medium, large), its kernel_<name>() with
 * LKK_KERNEL, and a main() of this shape:
 *
 *	int main(int argc, char **argv)
 *	{
 *		struct lkk_run run;
 *		double (*A)[N];
 *
 *		lkk_start(&run, argc, argv, "name");
 *		A = lkk_alloc(&run, sizeof(double[N][N]));
 *		init(N, A);
 *		LKK_RUN(&run, kernel_name(N, A));
 *		LKK_SUM_F64(&run, A, N * N);
 *		lkk_free(A);
 *		return lkk_finish(&run);
 *	}
 *
 * Two modes, chosen on the command line:
 *
 *	./prog                 measure: LK_MEASURE(kernel call), the loopkit
 *	                       runtime decides how many calls (lkrt.h)
 *	./prog --checksum      call the kernel exactly once after
 *	                       initialisation, hash every array and print
 *	                       `checksum <16 hex digits>`, exit 0
 *	./prog --checksum --calls K
 *	                       the same after K calls (the state a long
 *	                       measurement leaves behind)
 *
 * The checksum is FNV-1a (64 bits) over the bytes of every array handed
 * to LKK_SUM_*, in that order: bit-exact, so two builds agree only if
 * they computed the same bits. Before printing it, every double is
 * checked: a NaN, an infinity or a subnormal number is reported on
 * stderr (`<name>: <array>[<index>] is nan`) and the exit status is 1,
 * with no checksum line. Bad usage exits 2.
 *
 * In checksum mode arrays come from calloc() at their exact size, so
 * valgrind and AddressSanitizer see any access past an array's end; in
 * measure mode from lk_alloc() (zeroed, page-aligned).
 */
#ifndef LOOPKIT_KERNELS_H
#define LOOPKIT_KERNELS_H

#include <lkrt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * `#pragma scop` and `#pragma endscop` mean nothing to the compilers;
 * -Wall must not turn them into warnings (gcc and clang both read this).
 */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

/* One dataset; SMALL unless the build says otherwise. */
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) &&                       \
    !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#define SMALL_DATASET
#endif

/*
 * A size macro's value in the chosen dataset. Every size is defined as
 *	#ifndef N
 *	#define N LKK_SIZE(40, 120, 400, 2000)
 *	#endif
 * so -DN=... overrides one size whatever the dataset.
 */
#if defined(MINI_DATASET)
#define LKK_SIZE(mini, small, medium, large) (mini)
#elif defined(SMALL_DATASET)
#define LKK_SIZE(mini, small, medium, large) (small)
#elif defined(MEDIUM_DATASET)
#define LKK_SIZE(mini, small, medium, large) (medium)
#else
#define LKK_SIZE(mini, small, medium, large) (large)
#endif

/*
 * The kernel function: a real, separately compiled function named
 * kernel_<name>, never inlined into main nor specialised for the sizes
 * main passes (gcc's noipa also stops constant-propagation clones;
 * clang has no noipa, but an external function cannot be specialised
 * without its callers being known).
 */
#if defined(__clang__)
#define LKK_KERNEL __attribute__((noinline))
#else
#define LKK_KERNEL __attribute__((noinline, noipa))
#endif

struct lkk_run {
	const char *name; /* the kernel's name, also the region's */
	int checksum;	  /* 1: --checksum mode */
	long calls;	  /* kernel calls in checksum mode */
	uint64_t hash;	  /* FNV-1a over the summed arrays */
	long bad;	  /* NaN, infinite or subnormal doubles seen */
};

static inline void lkk_usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--checksum [--calls K]]\n", prog);
	exit(2);
}

/*
 * Read the mode from the command line; in measure mode start the
 * runtime (lk_init) before anything is allocated.
 */
static inline void lkk_start(struct lkk_run *run, int argc, char **argv,
			     const char *name)
{
	int i;

	memset(run, 0, sizeof(*run));
	run->name = name;
	run->calls = 1;
	run->hash = UINT64_C(0xcbf29ce484222325);
	for (i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--checksum")) {
			run->checksum = 1;
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			run->calls = strtol(argv[++i], &end, 10);
			if (*end || run->calls < 1)
				lkk_usage(argv[0]);
		} else {
			lkk_usage(argv[0]);
		}
	}
	if (run->calls != 1 && !run->checksum)
		lkk_usage(argv[0]);
	if (!run->checksum)
		lk_init(argc, argv);
}

/* Zeroed memory for one array; never NULL. Free with lkk_free(). */
static inline void *lkk_alloc(const struct lkk_run *run, size_t bytes)
{
	void *p;

	if (!run->checksum)
		return lk_alloc(bytes);
	p = calloc(1, bytes ? bytes : 1);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", run->name);
		exit(1);
	}
	return p;
}

static inline void lkk_free(void *p)
{
	free(p); /* lk_free() is free() too */
}

static inline void lkk_hash(struct lkk_run *run, const void *p, size_t bytes)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < bytes; i++) {
		run->hash ^= c[i];
		run->hash *= UINT64_C(0x100000001b3);
	}
}

/* Hash count doubles and check each is zero or a normal number. */
static inline void lkk_sum_f64(struct lkk_run *run, const char *array,
			       const double *p, size_t count)
{
	size_t i;

	if (!run->checksum)
		return;
	for (i = 0; i < count; i++) {
		int class = fpclassify(p[i]);

		if (class == FP_NORMAL || class == FP_ZERO)
			continue;
		if (run->bad++ < 5)
			fprintf(stderr, "%s: %s[%zu] is %s\n", run->name, array,
				i,
				class == FP_NAN	       ? "nan"
				: class == FP_INFINITE ? "infinite"
						       : "subnormal");
	}
	lkk_hash(run, p, count * sizeof(*p));
}

/* Hash count ints. */
static inline void lkk_sum_int(struct lkk_run *run, const char *array,
			       const int *p, size_t count)
{
	(void)array;
	if (run->checksum)
		lkk_hash(run, p, count * sizeof(*p));
}

/* Hash an array (any shape) by name: LKK_SUM_F64(&run, A, NI * NJ). */
#define LKK_SUM_F64(run, a, count)                                             \
	lkk_sum_f64(run, #a, (const double *)(a), (size_t)(count))
#define LKK_SUM_INT(run, a, count)                                             \
	lkk_sum_int(run, #a, (const int *)(a), (size_t)(count))

/*
 * Run the kernel call: run->calls times in checksum mode, else measured
 * by the runtime as the region named after the kernel.
 */
#define LKK_RUN(run, ...)                                                      \
	do {                                                                   \
		if ((run)->checksum) {                                         \
			long lkk_call_;                                        \
			for (lkk_call_ = 0; lkk_call_ < (run)->calls;          \
			     lkk_call_++) {                                    \
				__VA_ARGS__;                                   \
			}                                                      \
		} else {                                                       \
			LK_MEASURE_NAMED((run)->name, __VA_ARGS__);            \
		}                                                              \
	} while (0)

/*
 * End main: in checksum mode print the checksum (exit status 0) or, if
 * a bad value was seen, a count of them (status 1); in measure mode
 * lk_finish()'s status.
 */
static inline int lkk_finish(struct lkk_run *run)
{
	if (!run->checksum)
		return lk_finish();
	if (run->bad) {
		fprintf(stderr,
			"%s: %ld values are not finite normal numbers\n",
			run->name, run->bad);
		return 1;
	}
	printf("checksum %016llx\n", (unsigned long long)run->hash);
	return fflush(stdout) ? 1 : 0;
}

#endif /* LOOPKIT_KERNELS_H */
