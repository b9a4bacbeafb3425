/* An in-place Gauss-Seidel 2-D stencil (every point reads updated
 * neighbours): only skewed schedules are legal beyond the original. */
#include <lkrt.h>
#include "checksum.h"

#if defined(MINI_DATASET)
#define TSTEPS 3
#define N 10
#else
#define TSTEPS 20
#define N 120
#endif

static double A[N][N];

void kernel_seidel(int tsteps, int n, double A[N][N])
{
	int t, i, j;

#pragma scop
	for (t = 0; t <= tsteps - 1; t++)
		for (i = 1; i <= n - 2; i++)
			for (j = 1; j <= n - 2; j++)
				A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] +
					   A[i - 1][j + 1] + A[i][j - 1] +
					   A[i][j] + A[i][j + 1] +
					   A[i + 1][j - 1] + A[i + 1][j] +
					   A[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++)
			A[i][j] = ((double)i * (j + 2) + 2) / N;
	if (lk_test_checksum(argc, argv)) {
		kernel_seidel(TSTEPS, N, A);
		lk_test_add(&A[0][0], N * N);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_seidel(TSTEPS, N, A));
	return lk_finish();
}
