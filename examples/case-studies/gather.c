/*
 * gather.c: MARTA's gather kernel (its paper's §IV-A, Fig. 2-3), for the
 * gather-cache-lines case study. One call runs GATHERS independent
 * gathers of 8 floats (4 at WIDTH=128) at the indices IDX0..IDX7, each
 * gather WALK bytes past the one before, so that no two gathers share a
 * cache line or a page and no prefetcher has learnt the next address.
 * With `cache: cold` the runtime flushes every line the gathers can touch
 * before each sample (they are registered with lk_flush_register), so
 * every gather reads its lines from memory: how long a gather takes then
 * depends on how many distinct lines its indices fall in.
 *
 *	WIDTH=128  vgatherdps xmm (AVX2): IDX0..IDX3 only
 *	WIDTH=256  vgatherdps ymm (AVX2): IDX0..IDX7
 *	WIDTH=512  vgatherdpd zmm (AVX-512F): 8 doubles at the same eight
 *	           indices (scaled by 4, so in float units as the others),
 *	           the lines touched are the same as at 256 bits
 *
 * The indices are in floats: 16 to a 64-byte line, so IDXk / 16 is the
 * line element k reads and the number of lines is the number of
 * distinct IDXk / 16. The sweep's analysis derives it from the axes.
 * Each kernel is compiled for its own ISA (a target attribute), so the
 * file builds with plain -O2 everywhere; a 512-bit variant on a CPU
 * without AVX-512 dies of SIGILL, a failure the sweep records and goes
 * past.
 *
 *	loopkit run --cache cold --steps 1 -D WIDTH=256 -D IDX7=112 gather.c
 */
#include <immintrin.h>
#include <lkrt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef WIDTH
#define WIDTH 256
#endif
#ifndef GATHERS
#define GATHERS 1000
#endif
/* 256 KiB between gathers, MARTA's walk. */
#define WALK_FLOATS (256 * 1024 / 4)

#ifndef IDX0
#define IDX0 0
#endif
#ifndef IDX1
#define IDX1 1
#endif
#ifndef IDX2
#define IDX2 2
#endif
#ifndef IDX3
#define IDX3 3
#endif
#ifndef IDX4
#define IDX4 4
#endif
#ifndef IDX5
#define IDX5 5
#endif
#ifndef IDX6
#define IDX6 6
#endif
#ifndef IDX7
#define IDX7 7
#endif

#define MAX_IDX(a, b) ((a) > (b) ? (a) : (b))
#define HIGHEST                                                                \
	MAX_IDX(MAX_IDX(MAX_IDX(IDX0, IDX1), MAX_IDX(IDX2, IDX3)),             \
		MAX_IDX(MAX_IDX(IDX4, IDX5), MAX_IDX(IDX6, IDX7)))

_Static_assert(WIDTH == 128 || WIDTH == 256 || WIDTH == 512,
	       "WIDTH is 128, 256 or 512");
_Static_assert(IDX0 >= 0 && IDX1 >= 0 && IDX2 >= 0 && IDX3 >= 0 &&
		       IDX4 >= 0 && IDX5 >= 0 && IDX6 >= 0 && IDX7 >= 0 &&
		       HIGHEST + 2 <= WALK_FLOATS,
	       "the indices stay inside one gather's 256 KiB");
/* A double at float index i must not cross into the next line. */
_Static_assert(WIDTH != 512 ||
		       (IDX0 % 16 < 15 && IDX1 % 16 < 15 && IDX2 % 16 < 15 &&
			IDX3 % 16 < 15 && IDX4 % 16 < 15 && IDX5 % 16 < 15 &&
			IDX6 % 16 < 15 && IDX7 % 16 < 15),
	       "at 512 bits no index may be the last float of a line");

/* The gathered value is used (so the gather stays) without a store. */
#define USE(v) __asm__ volatile("" : : "v"(v))

#if WIDTH == 128
#define KERNEL gather128
__attribute__((noinline, target("avx2"))) static void
gather128(const float *x)
{
	const __m128i index = _mm_setr_epi32(IDX0, IDX1, IDX2, IDX3);
	long i;

	for (i = 0; i < GATHERS; i++)
		USE(_mm_i32gather_ps(x + i * WALK_FLOATS, index, 4));
}
#elif WIDTH == 256
#define KERNEL gather256
__attribute__((noinline, target("avx2"))) static void
gather256(const float *x)
{
	const __m256i index = _mm256_setr_epi32(IDX0, IDX1, IDX2, IDX3, IDX4,
						IDX5, IDX6, IDX7);
	long i;

	for (i = 0; i < GATHERS; i++)
		USE(_mm256_i32gather_ps(x + i * WALK_FLOATS, index, 4));
}
#else
#define KERNEL gather512
__attribute__((noinline, target("avx512f"))) static void
gather512(const float *x)
{
	const __m256i index = _mm256_setr_epi32(IDX0, IDX1, IDX2, IDX3, IDX4,
						IDX5, IDX6, IDX7);
	long i;

	for (i = 0; i < GATHERS; i++)
		USE(_mm512_i32gather_pd(index, x + i * WALK_FLOATS, 4));
}
#endif

/*
 * The walk's address space, GATHERS * 256 KiB, with only the page (or
 * two) each gather reads made present, zeroed: 4 MiB resident, not 256,
 * and no page fault inside a sample. 4 KiB pages everywhere, as with THP
 * off: a transparent huge page would put 8 gathers in one TLB entry.
 */
static float *walk_alloc(size_t span)
{
	size_t bytes = (size_t)GATHERS * WALK_FLOATS * sizeof(float);
	float *x;
	long i;

	x = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x == MAP_FAILED) {
		perror("gather: mmap");
		exit(1);
	}
	madvise(x, bytes, MADV_NOHUGEPAGE);
	for (i = 0; i < GATHERS; i++)
		memset(x + i * WALK_FLOATS, 0, span);
	return x;
}

int main(int argc, char **argv)
{
	/* The lines of one gather lie in [0, HIGHEST + 2) floats from its base
	 * (+ 2: the 512-bit kernel reads a double). */
	const size_t span = (HIGHEST + 2) * sizeof(float);
	float *x;
	long i;

	lk_init(argc, argv);
	x = walk_alloc(span);
	for (i = 0; i < GATHERS; i++)
		lk_flush_register(x + i * WALK_FLOATS, span);
	lk_work("gathers", GATHERS);
	LK_MEASURE_NAMED("gather", KERNEL(x));
	LK_DO_NOT_OPTIMIZE(x[0]);
	return lk_finish();
}
