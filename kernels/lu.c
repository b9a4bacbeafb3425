/* loopkit: kernel=lu family=linear-algebra/solvers */
/*
 * lu: LU decomposition without pivoting, A = L * U with L unit lower
 * triangular and U upper triangular, both packed into LU (N x N; L's
 * unit diagonal is implicit). Row by row (Doolittle):
 * LU[i][j] = (A[i][j] - sum_{k<j} LU[i][k] LU[k][j]) / LU[j][j] for
 * j < i, LU[i][j] = A[i][j] - sum_{k<i} LU[i][k] LU[k][j] for j >= i.
 *
 * Out of place: A is only read, so every call repeats the same work. A
 * is strictly diagonally dominant by rows: no pivoting is needed.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double A[N][N])
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			A[i][j] = i == j ? 1.0 + (double)(n - i) / n
					 : (double)((2 * i + 3 * j) % n + 1) /
					       (2.0 * n * n);
}

LKK_KERNEL void kernel_lu(int n, double A[N][N], double LU[N][N])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			LU[i][j] = A[i][j];
			for (k = 0; k < j; k++)
				LU[i][j] -= LU[i][k] * LU[k][j];
			LU[i][j] /= LU[j][j];
		}
		for (j = i; j < n; j++) {
			LU[i][j] = A[i][j];
			for (k = 0; k < i; k++)
				LU[i][j] -= LU[i][k] * LU[k][j];
		}
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], (*LU)[N];

	lkk_start(&run, argc, argv, "lu");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	LU = lkk_alloc(&run, sizeof(double[N][N]));
	init(N, A);
	LKK_RUN(&run, kernel_lu(N, A, LU));
	LKK_SUM_F64(&run, A, N * N);
	LKK_SUM_F64(&run, LU, N * N);
	lkk_free(A);
	lkk_free(LU);
	return lkk_finish(&run);
}
