/*
 * The same sum over N doubles, whose kernel never has AVX-512 code but
 * whose main runs an AVX-512 instruction when built for AVX-512
 * (-mavx512f): valgrind dies on it (SIGILL) before the kernel is ever
 * reached, so the build is judged on its x86-64-v3 proxy.
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

	for (i = 0; i < n; i++)
		s += v[i];
	return s;
}

int main(int argc, char **argv)
{
	long i;

	lk_init(argc, argv);
#ifdef __AVX512F__
	__asm__ volatile("vpxorq %%zmm16, %%zmm16, %%zmm16" ::: "xmm16");
#endif
	for (i = 0; i < N; i++)
		data[i] = (double)i;
	LK_MEASURE(LK_DO_NOT_OPTIMIZE(kernel(data, N)));
	return lk_finish();
}
