/*
 * A sum over N doubles whose kernel has AVX-512 (EVEX) code only when
 * built for AVX-512 (-mavx512f, -march=x86-64-v4), on a path that never
 * runs: valgrind cannot judge that build, but can judge the same source
 * built with -march=x86-64-v3, which loopkit filter builds as its proxy.
 */
#include <lkrt.h>

#ifndef N
#define N 256
#endif

static double data[N];

__attribute__((noipa)) static double kernel(const double *v, long n)
{
	double s = 0;
	long i;

#ifdef __AVX512F__
	if (n < 0) /* never */
		__asm__ volatile("vaddpd %%zmm1, %%zmm2, %%zmm3" ::: "xmm3");
#endif
	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main(int argc, char **argv)
{
	long i;

	lk_init(argc, argv);
	for (i = 0; i < N; i++)
		data[i] = (double)i;
	LK_MEASURE(LK_DO_NOT_OPTIMIZE(kernel(data, N)));
	return lk_finish();
}
