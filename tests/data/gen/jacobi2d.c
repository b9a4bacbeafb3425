/* A Jacobi 2-D stencil with a time loop; sizes are macros. */
#include <lkrt.h>
#include "checksum.h"

#if defined(MINI_DATASET)
#define TSTEPS 4
#define N 12
#else
#define TSTEPS 50
#define N 200
#endif

static double A[N][N], B[N][N];

void kernel_jacobi2d(double A[N][N], double B[N][N])
{
	int t, i, j;

#pragma scop
	for (t = 0; t < TSTEPS; t++) {
		for (i = 1; i < N - 1; i++)
			for (j = 1; j < N - 1; j++)
				B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] +
						 A[i][1 + j] + A[1 + i][j] +
						 A[i - 1][j]);
		for (i = 1; i < N - 1; i++)
			for (j = 1; j < N - 1; j++)
				A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] +
						 B[i][1 + j] + B[1 + i][j] +
						 B[i - 1][j]);
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			A[i][j] = ((double)i * (j + 2) + 2) / N;
			B[i][j] = ((double)i * (j + 3) + 3) / N;
		}
	if (lk_test_checksum(argc, argv)) {
		kernel_jacobi2d(A, B);
		lk_test_add(&A[0][0], N * N);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_jacobi2d(A, B));
	return lk_finish();
}
