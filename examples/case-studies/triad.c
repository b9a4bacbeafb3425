/*
 * triad.c: MARTA's RQ3 (seed 004, section IV-C), c(f(i)) = a(g(i)) * b(h(i))
 * over three arrays of doubles, each stream sequential, strided or random
 * at the granularity of a 64-byte block: a chosen block's 8 doubles are
 * all read (a, b) or written (c), so every pattern moves the same bytes.
 *
 *   PATTERN  sequential | strided_b | strided_c | strided_ab | strided_abc
 *            | random_b | random_c | random_ab | random_abc
 *   STRIDE   S, a power of two (strided patterns): call k touches block
 *            (k S) mod B + (k S) / B, so traversal r visits the blocks
 *            B' with B' mod S = r, and every block exactly once
 *   LLC_TIMES  each array is this many times the last-level cache (one
 *            instance, lk_llc_bytes()), rounded up to a power of two
 *            of blocks; default 4, STREAM's rule; 32 MiB is assumed
 *            when the machine does not say
 *   MIB      MiB per array instead (a power of two)
 *
 * Random streams call glibc's rand() once per block each, as the paper
 * did: rand() takes a lock, which is the paper's finding with threads.
 * The loop is an OpenMP parallel for (OMP_NUM_THREADS, set by loopkit's
 * threads: axis); the kernel uses AVX intrinsics like the paper's
 * Figure 9, so the compiler cannot rewrite the access pattern.
 *
 *	gcc -O2 -mavx -fopenmp -I rt -DPATTERN=strided_b -DSTRIDE=64 \
 *	    examples/case-studies/triad.c build/lib/liblkrt.a -lm
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <lkrt.h>

#define sequential 1
#define strided_b 2
#define strided_c 3
#define strided_ab 4
#define strided_abc 5
#define random_b 6
#define random_c 7
#define random_ab 8
#define random_abc 9

#ifndef PATTERN
#define PATTERN sequential
#endif
#ifndef STRIDE
#define STRIDE 1
#endif

#if (STRIDE) < 1 || ((STRIDE) & ((STRIDE) - 1))
#error "STRIDE must be a power of two"
#endif

/* Each stream: 0 sequential, 1 strided, 2 random. */
#if PATTERN == sequential
#define MODE_A 0
#define MODE_B 0
#define MODE_C 0
#elif PATTERN == strided_b
#define MODE_A 0
#define MODE_B 1
#define MODE_C 0
#elif PATTERN == strided_c
#define MODE_A 0
#define MODE_B 0
#define MODE_C 1
#elif PATTERN == strided_ab
#define MODE_A 1
#define MODE_B 1
#define MODE_C 0
#elif PATTERN == strided_abc
#define MODE_A 1
#define MODE_B 1
#define MODE_C 1
#elif PATTERN == random_b
#define MODE_A 0
#define MODE_B 2
#define MODE_C 0
#elif PATTERN == random_c
#define MODE_A 0
#define MODE_B 0
#define MODE_C 2
#elif PATTERN == random_ab
#define MODE_A 2
#define MODE_B 2
#define MODE_C 0
#elif PATTERN == random_abc
#define MODE_A 2
#define MODE_B 2
#define MODE_C 2
#else
#error "unknown PATTERN"
#endif

#define DOUBLES_PER_BLOCK 8

/* Blocks per array (a power of two) and its log2: (k S) mod B is a mask,
 * (k S) / B a shift, so a strided index costs no division. */
static uint64_t blocks, block_mask;
static unsigned block_shift;

static inline uint64_t block_of(uint64_t k, int mode)
{
	uint64_t ks = k * (uint64_t)STRIDE;

	if (mode == 1)
		return (ks & block_mask) + (ks >> block_shift);
	if (mode == 2)
		return (uint64_t)rand() & block_mask;
	return k;
}

__attribute__((noinline)) static void triad(double *restrict c,
					    const double *restrict a,
					    const double *restrict b)
{
	long k;

#pragma omp parallel for schedule(static)
	for (k = 0; k < (long)blocks; k++) {
		const double *pa = a + block_of(k, MODE_A) * DOUBLES_PER_BLOCK;
		const double *pb = b + block_of(k, MODE_B) * DOUBLES_PER_BLOCK;
		double *pc = c + block_of(k, MODE_C) * DOUBLES_PER_BLOCK;
		__m256d a1 = _mm256_load_pd(pa), a2 = _mm256_load_pd(pa + 4);
		__m256d b1 = _mm256_load_pd(pb), b2 = _mm256_load_pd(pb + 4);

		_mm256_store_pd(pc, _mm256_mul_pd(a1, b1));
		_mm256_store_pd(pc + 4, _mm256_mul_pd(a2, b2));
	}
}

#ifndef LLC_TIMES
#define LLC_TIMES 4
#endif

/* MIB, or LLC_TIMES x the last-level cache, as a power of two of at
 * least STRIDE blocks. */
static void size_arrays(void)
{
#ifdef MIB
	uint64_t bytes = (uint64_t)(MIB) << 20;
#else
	uint64_t llc = lk_llc_bytes() ? lk_llc_bytes() : (uint64_t)32 << 20;
	uint64_t bytes = (uint64_t)(LLC_TIMES) * llc;
#endif
	uint64_t want = bytes / (DOUBLES_PER_BLOCK * sizeof(double));

	for (blocks = 1, block_shift = 0; blocks < want || blocks < STRIDE;
	     blocks <<= 1)
		block_shift++;
	block_mask = blocks - 1;
}

int main(int argc, char **argv)
{
	double *a, *b, *c;
	uint64_t n, i;

	lk_init(argc, argv);
	size_arrays();
	n = blocks * DOUBLES_PER_BLOCK;
	a = lk_alloc(n * sizeof(*a));
	b = lk_alloc(n * sizeof(*b));
	c = lk_alloc(n * sizeof(*c));
	for (i = 0; i < n; i++) {
		a[i] = 1.0 + (double)(i % 7);
		b[i] = 0.5 * (double)(i % 13);
	}
	/* Three streams of n doubles per call, as STREAM counts them (the
	 * write-allocate read of c is not counted). */
	lk_work("bytes", 3.0 * (double)n * sizeof(double));
	LK_MEASURE_NAMED("triad", triad(c, a, b));
	if (c[n - 1] < 0)
		puts("unreachable");
	lk_free(a);
	lk_free(b);
	lk_free(c);
	return lk_finish();
}
