/* loopkit: kernel=trmm family=linear-algebra/blas */
/*
 * trmm: triangular matrix product in place, B := alpha * A^T * B, with
 * A unit lower triangular M x M (its diagonal and upper triangle are
 * never read) and B M x N. Row i of the result needs only the rows
 * below it, still unchanged when rows are updated top down.
 *
 * Repeated calls multiply B by powers of a unipotent matrix, which grow
 * polynomially whatever alpha; A's strict lower part is kept small
 * (each row sums to at most 1e-6) and alpha = 1, so B grows by at most
 * a factor e over a million calls.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(20, 60, 200, 1000)
#endif
#ifndef N
#define N LKK_SIZE(30, 80, 240, 1200)
#endif

static void init(int m, int n, double A[M][M], double B[M][N])
{
	int i, j;

	for (i = 0; i < m; i++) {
		for (j = 0; j < i; j++)
			A[i][j] = (double)((i + 2 * j) % m + 1) /
				  ((double)m * m * 1.0e6);
		for (j = i; j < m; j++)
			A[i][j] = 1000.0; /* never read */
		for (j = 0; j < n; j++)
			B[i][j] = (double)((n + (i - j)) % n + 1) / n;
	}
}

LKK_KERNEL void kernel_trmm(int m, int n, double alpha, double A[M][M],
			    double B[M][N])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			for (k = i + 1; k < m; k++)
				B[i][j] += A[k][i] * B[k][j];
			B[i][j] = alpha * B[i][j];
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[M], (*B)[N];

	lkk_start(&run, argc, argv, "trmm");
	A = lkk_alloc(&run, sizeof(double[M][M]));
	B = lkk_alloc(&run, sizeof(double[M][N]));
	init(M, N, A, B);
	LKK_RUN(&run, kernel_trmm(M, N, 1.0, A, B));
	LKK_SUM_F64(&run, A, M * M);
	LKK_SUM_F64(&run, B, M * N);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
