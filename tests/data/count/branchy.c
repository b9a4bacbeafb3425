/*
 * branchy.c: a kernel with an if inside a loop and a nested loop, for
 * loopkit count. With n = N and m = M per call (both even), by hand:
 * the outer loop body runs N times, the if's then-side N/2 times (even
 * i), the inner loop body N*M times. Compiled -O2 without -march (valgrind
 * checks it). -fno-tree-vectorize -fno-unroll-loops keep the blocks
 * countable by hand.
 *
 *	cc -O2 -fno-tree-vectorize -I rt branchy.c liblkrt.a -lm
 */
#include <lkrt.h>

#ifndef N
#define N 100
#endif
#ifndef M
#define M 10
#endif

__attribute__((noinline)) static long branchy(const long *a, long n, long m)
{
	long sum = 0, i, j;

	for (i = 0; i < n; i++) {
		if (a[i] & 1)
			sum += a[i] * 3;
		else
			sum -= a[i];
		for (j = 0; j < m; j++)
			sum ^= a[i] + j;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long *a, i;

	lk_init(argc, argv);
	a = lk_alloc(N * sizeof(*a));
	for (i = 0; i < N; i++)
		a[i] = i + 1;
	LK_MEASURE_NAMED("branchy", LK_DO_NOT_OPTIMIZE(branchy(a, N, M)));
	lk_free(a);
	return lk_finish();
}
