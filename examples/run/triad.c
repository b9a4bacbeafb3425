/*
 * triad.c: the STREAM triad a[i] = b[i] + s * c[i] over N doubles.
 *
 *	cc -O2 -I rt examples/run/triad.c build/lib/liblkrt.a -lm
 */
#include <lkrt.h>

#ifndef N
#define N 100000
#endif

__attribute__((noinline)) static void triad(double *restrict a,
					    const double *restrict b,
					    const double *restrict c, double s,
					    long n)
{
	long i;

	for (i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
	double *a, *b, *c;
	long i;

	lk_init(argc, argv);
	a = lk_alloc(N * sizeof(*a));
	b = lk_alloc(N * sizeof(*b));
	c = lk_alloc(N * sizeof(*c));
	for (i = 0; i < N; i++) {
		b[i] = 1.0 + (double)(i % 7);
		c[i] = 0.5 * (double)(i % 13);
	}
	lk_flush_register(a, N * sizeof(*a));
	lk_flush_register(b, N * sizeof(*b));
	lk_flush_register(c, N * sizeof(*c));
	LK_MEASURE_NAMED("triad", triad(a, b, c, 3.0, N));
	lk_free(a);
	lk_free(b);
	lk_free(c);
	return lk_finish();
}
