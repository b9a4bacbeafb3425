/* loopkit: kernel=seidel-2d family=stencils */
/*
 * seidel-2d: TSTEPS sweeps of a 9-point Gauss-Seidel smoothing of a 2-D
 * array (N x N) with a fixed boundary, in place: each point becomes the
 * average of itself and its eight neighbours, four of which the sweep
 * has already updated.
 *
 * An average with a fixed, positive boundary: repeated calls converge
 * and stay positive.
 */
#include "kernels.h"

#ifndef TSTEPS
#define TSTEPS LKK_SIZE(20, 40, 100, 500)
#endif
#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double A[N][N])
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			A[i][j] = 1.0 + (double)((i * (j + 3) + 1) % n) / n;
}

LKK_KERNEL void kernel_seidel_2d(int tsteps, int n, double A[N][N])
{
	int t, i, j;

#pragma scop
	for (t = 0; t < tsteps; t++)
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				A[i][j] =
				    (A[i - 1][j - 1] + A[i - 1][j] +
				     A[i - 1][j + 1] + A[i][j - 1] + A[i][j] +
				     A[i][j + 1] + A[i + 1][j - 1] +
				     A[i + 1][j] + A[i + 1][j + 1]) /
				    9.0;
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N];

	lkk_start(&run, argc, argv, "seidel-2d");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	init(N, A);
	LKK_RUN(&run, kernel_seidel_2d(TSTEPS, N, A));
	LKK_SUM_F64(&run, A, N * N);
	lkk_free(A);
	return lkk_finish(&run);
}
