/* loopkit: kernel=heat-3d family=stencils */
/*
 * heat-3d: TSTEPS time steps of the explicit (forward Euler) heat
 * equation on a 3-D grid (N x N x N) with a fixed boundary, alternating
 * between A and B: B = A + 0.125 * (the second differences of A along
 * each axis), then A from B. 0.125 per axis keeps the scheme stable.
 *
 * With a fixed, positive boundary, repeated calls converge to the
 * steady state and stay positive.
 */
#include "kernels.h"

#ifndef TSTEPS
#define TSTEPS LKK_SIZE(20, 40, 100, 500)
#endif
#ifndef N
#define N LKK_SIZE(10, 20, 40, 120)
#endif

static void init(int n, double A[N][N][N], double B[N][N][N])
{
	int i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++) {
				A[i][j][k] =
				    1.0 +
				    (double)((i * j + k * (i + 2)) % n) / n;
				B[i][j][k] = A[i][j][k];
			}
}

LKK_KERNEL void kernel_heat_3d(int tsteps, int n, double A[N][N][N],
			       double B[N][N][N])
{
	int t, i, j, k;

#pragma scop
	for (t = 1; t <= tsteps; t++) {
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				for (k = 1; k < n - 1; k++)
					B[i][j][k] = 0.125 * (A[i + 1][j][k] -
							      2.0 * A[i][j][k] +
							      A[i - 1][j][k]) +
						     0.125 * (A[i][j + 1][k] -
							      2.0 * A[i][j][k] +
							      A[i][j - 1][k]) +
						     0.125 * (A[i][j][k + 1] -
							      2.0 * A[i][j][k] +
							      A[i][j][k - 1]) +
						     A[i][j][k];
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				for (k = 1; k < n - 1; k++)
					A[i][j][k] = 0.125 * (B[i + 1][j][k] -
							      2.0 * B[i][j][k] +
							      B[i - 1][j][k]) +
						     0.125 * (B[i][j + 1][k] -
							      2.0 * B[i][j][k] +
							      B[i][j - 1][k]) +
						     0.125 * (B[i][j][k + 1] -
							      2.0 * B[i][j][k] +
							      B[i][j][k - 1]) +
						     B[i][j][k];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N][N], (*B)[N][N];

	lkk_start(&run, argc, argv, "heat-3d");
	A = lkk_alloc(&run, sizeof(double[N][N][N]));
	B = lkk_alloc(&run, sizeof(double[N][N][N]));
	init(N, A, B);
	LKK_RUN(&run, kernel_heat_3d(TSTEPS, N, A, B));
	LKK_SUM_F64(&run, A, N * N * N);
	LKK_SUM_F64(&run, B, N * N * N);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
