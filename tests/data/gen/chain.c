/*
 * Chained assignments (deriche's a1 = a5 = k), split into statements,
 * and a size macro used directly in the scop, in bounds and in a
 * statement (heat-3d's TSTEPS): kernelify reads its value at the
 * dataset.
 */
#include <string.h>
#include <lkrt.h>

#include "checksum.h"

#if defined(MINI_DATASET)
#define N 10
#define TSTEPS 3
#else
#define N 300
#define TSTEPS 20
#endif

static double X[N], Y[N], a, b, c;

void kernel_chain(int n, double k, double X[N], double Y[N])
{
	int t, i;

#pragma scop
	a = b = k * 0.5;
	c = (a += 1.0);
	for (t = 0; t < TSTEPS; t++)
		for (i = 1; i < n; i++)
			X[i] = Y[i] = (X[i - 1] + b * Y[i]) / TSTEPS + c;
#pragma endscop
}

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++)
		X[i] = Y[i] = (double)(i % 7) / 7;
	if (lk_test_checksum(argc, argv)) {
		kernel_chain(N, 1.5, X, Y);
		lk_test_add(X, N);
		lk_test_add(Y, N);
		lk_test_add(&a, 1);
		lk_test_add(&b, 1);
		lk_test_add(&c, 1);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_chain(N, 1.5, X, Y));
	return lk_finish();
}
