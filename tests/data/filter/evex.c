/*
 * A kernel with one AVX-512 (EVEX-encoded) instruction on a path that
 * never runs: it runs on any x86-64, but valgrind 3.19 would refuse the
 * code. loopkit filter must see it in the kernel's blocks and not start
 * valgrind.
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

	if (n < 0) /* never */
		__asm__ volatile("vaddpd %%zmm1, %%zmm2, %%zmm3" ::: "xmm3");
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
