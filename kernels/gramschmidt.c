/* loopkit: kernel=gramschmidt family=linear-algebra/solvers */
/*
 * gramschmidt: QR decomposition by modified Gram-Schmidt, A = Q * R
 * with A M x N (M >= N, full column rank), Q M x N with orthonormal
 * columns, R N x N upper triangular. Column k is normalised (its norm
 * accumulated in the scalar nrm), then its component is removed from
 * every later column of A, in place.
 *
 * A call leaves A = Q * diag(R), whose columns are already orthogonal:
 * further calls find the same Q and a diagonal R, up to rounding.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(30, 80, 240, 1200)
#endif
#ifndef N
#define N LKK_SIZE(20, 60, 200, 1000)
#endif

static void init(int m, int n, double A[M][N], double R[N][N], double Q[M][N])
{
	int i, j;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			A[i][j] = (double)((i * (j + 1) + j) % m + 1) / m +
				  (i == j ? 2.0 : 0.0);
			Q[i][j] = 0.0;
		}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			R[i][j] = 0.0;
}

LKK_KERNEL void kernel_gramschmidt(int m, int n, double A[M][N], double R[N][N],
				   double Q[M][N])
{
	int i, j, k;
	double nrm;

#pragma scop
	for (k = 0; k < n; k++) {
		nrm = 0.0;
		for (i = 0; i < m; i++)
			nrm += A[i][k] * A[i][k];
		R[k][k] = sqrt(nrm);
		for (i = 0; i < m; i++)
			Q[i][k] = A[i][k] / R[k][k];
		for (j = k + 1; j < n; j++) {
			R[k][j] = 0.0;
			for (i = 0; i < m; i++)
				R[k][j] += Q[i][k] * A[i][j];
			for (i = 0; i < m; i++)
				A[i][j] = A[i][j] - Q[i][k] * R[k][j];
		}
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], (*R)[N], (*Q)[N];

	lkk_start(&run, argc, argv, "gramschmidt");
	A = lkk_alloc(&run, sizeof(double[M][N]));
	R = lkk_alloc(&run, sizeof(double[N][N]));
	Q = lkk_alloc(&run, sizeof(double[M][N]));
	init(M, N, A, R, Q);
	LKK_RUN(&run, kernel_gramschmidt(M, N, A, R, Q));
	LKK_SUM_F64(&run, A, M * N);
	LKK_SUM_F64(&run, R, N * N);
	LKK_SUM_F64(&run, Q, M * N);
	lkk_free(A);
	lkk_free(R);
	lkk_free(Q);
	return lkk_finish(&run);
}
