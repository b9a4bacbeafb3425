/*
 * dot.c: the dot product of two vectors of N doubles. The sum is a
 * dependent chain of adds unless the compiler may reassociate
 * (-ffast-math), which is what makes this kernel interesting to compare.
 *
 *	cc -O2 -I rt examples/run/dot.c build/lib/liblkrt.a -lm
 */
#include <lkrt.h>

#ifndef N
#define N 1000
#endif

__attribute__((noinline)) static double dot(const double *a, const double *b,
					    long n)
{
	double sum = 0.0;
	long i;

	for (i = 0; i < n; i++)
		sum += a[i] * b[i];
	return sum;
}

int main(int argc, char **argv)
{
	double *a, *b;
	long i;

	lk_init(argc, argv);
	a = lk_alloc(N * sizeof(*a));
	b = lk_alloc(N * sizeof(*b));
	for (i = 0; i < N; i++) {
		a[i] = 1.0 / (double)(i + 1);
		b[i] = (double)(i % 10) - 4.5;
	}
	LK_MEASURE_NAMED("dot", LK_DO_NOT_OPTIMIZE(dot(a, b, N)));
	lk_free(a);
	lk_free(b);
	return lk_finish();
}
