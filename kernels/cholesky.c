/* loopkit: kernel=cholesky family=linear-algebra/solvers */
/*
 * cholesky: the Cholesky factor of a symmetric positive definite
 * matrix, A = L * L^T with L lower triangular (N x N), row by row:
 * L[i][j] = (A[i][j] - sum_{k<j} L[i][k] L[j][k]) / L[j][j] for j < i,
 * L[i][i] = sqrt(A[i][i] - sum_{k<i} L[i][k]^2).
 *
 * Out of place: only A's lower triangle is read, only L's lower
 * triangle written, so every call repeats the same work. A is strictly
 * diagonally dominant with a positive diagonal, hence positive definite.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double A[N][N])
{
	int i, j;

	/* Off-diagonal rows sum to less than 1/2, the diagonal is >= 1. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			A[i][j] = i == j ? 1.0 + (double)i / n
					 : (double)((i * j + i + j) % n + 1) /
					       (2.0 * n * n);
}

LKK_KERNEL void kernel_cholesky(int n, double A[N][N], double L[N][N])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			L[i][j] = A[i][j];
			for (k = 0; k < j; k++)
				L[i][j] -= L[i][k] * L[j][k];
			L[i][j] /= L[j][j];
		}
		L[i][i] = A[i][i];
		for (k = 0; k < i; k++)
			L[i][i] -= L[i][k] * L[i][k];
		L[i][i] = sqrt(L[i][i]);
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], (*L)[N];

	lkk_start(&run, argc, argv, "cholesky");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	L = lkk_alloc(&run, sizeof(double[N][N]));
	init(N, A);
	LKK_RUN(&run, kernel_cholesky(N, A, L));
	LKK_SUM_F64(&run, A, N * N);
	LKK_SUM_F64(&run, L, N * N);
	lkk_free(A);
	lkk_free(L);
	return lkk_finish(&run);
}
