/* loopkit: kernel=jacobi-2d family=stencils */
/*
 * jacobi-2d: TSTEPS time steps of a 5-point Jacobi smoothing of a 2-D
 * array (N x N) with a fixed boundary, alternating between A and B:
 * B[i][j] = (A[i][j] + its four neighbours) / 5, then A from B.
 *
 * An average with a fixed, positive boundary: repeated calls converge
 * and stay positive.
 */
#include "kernels.h"

#ifndef TSTEPS
#define TSTEPS LKK_SIZE(20, 40, 100, 500)
#endif
#ifndef N
#define N LKK_SIZE(30, 90, 250, 1300)
#endif

static void init(int n, double A[N][N], double B[N][N])
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			A[i][j] = 1.0 + (double)((i * (j + 2)) % n) / n;
			B[i][j] = A[i][j];
		}
}

LKK_KERNEL void kernel_jacobi_2d(int tsteps, int n, double A[N][N],
				 double B[N][N])
{
	int t, i, j;

#pragma scop
	for (t = 0; t < tsteps; t++) {
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				B[i][j] =
				    0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] +
					   A[i + 1][j] + A[i - 1][j]);
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				A[i][j] =
				    0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] +
					   B[i + 1][j] + B[i - 1][j]);
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], (*B)[N];

	lkk_start(&run, argc, argv, "jacobi-2d");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	B = lkk_alloc(&run, sizeof(double[N][N]));
	init(N, A, B);
	LKK_RUN(&run, kernel_jacobi_2d(TSTEPS, N, A, B));
	LKK_SUM_F64(&run, A, N * N);
	LKK_SUM_F64(&run, B, N * N);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
