/* Called with A and B the same array: the model assumes differently named
 * arrays do not overlap, so it misses the (1, -1) dependence and allows
 * interchange, which changes the result. Verification must catch it. */
#include <lkrt.h>
#include "checksum.h"

#ifdef MINI_DATASET
#define N 8
#else
#define N 100
#endif

static double X[N][N];

void kernel_alias(int n, double A[N][N], double B[N][N])
{
	int i, j;

#pragma scop
	for (i = 1; i < n; i++)
		for (j = 0; j < n - 1; j++)
			A[i][j] = B[i - 1][j + 1] * 0.5 + 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			X[i][j] = i + 0.25 * j;
	if (lk_test_checksum(argc, argv)) {
		kernel_alias(N, X, X);
		lk_test_add(&X[0][0], N * N);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_alias(N, X, X));
	return lk_finish();
}
