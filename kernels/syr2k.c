/* loopkit: kernel=syr2k family=linear-algebra/blas */
/*
 * syr2k: symmetric rank-2k update C := alpha * A * B^T +
 * alpha * B * A^T + beta * C on the lower triangle of C (N x N), with
 * A and B N x M.
 *
 * With 0 < beta < 1 repeated calls converge to a fixed point; every
 * input is positive.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(20, 60, 200, 1000)
#endif
#ifndef N
#define N LKK_SIZE(30, 80, 240, 1200)
#endif

static void init(int m, int n, double C[N][N], double A[N][M], double B[N][M])
{
	int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m; j++) {
			A[i][j] = (double)((i * j + 1) % n + 1) / n;
			B[i][j] = (double)((i * j + 2) % m + 1) / m;
		}
		for (j = 0; j < n; j++)
			C[i][j] = (double)((i * j + 3) % n + 1) / m;
	}
}

LKK_KERNEL void kernel_syr2k(int m, int n, double alpha, double beta,
			     double C[N][N], double A[N][M], double B[N][M])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < n; i++) {
		for (j = 0; j <= i; j++)
			C[i][j] *= beta;
		for (k = 0; k < m; k++)
			for (j = 0; j <= i; j++)
				C[i][j] += A[j][k] * alpha * B[i][k] +
					   B[j][k] * alpha * A[i][k];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*C)[N], (*A)[M], (*B)[M];

	lkk_start(&run, argc, argv, "syr2k");
	C = lkk_alloc(&run, sizeof(double[N][N]));
	A = lkk_alloc(&run, sizeof(double[N][M]));
	B = lkk_alloc(&run, sizeof(double[N][M]));
	init(M, N, C, A, B);
	LKK_RUN(&run, kernel_syr2k(M, N, 1.5, 0.8, C, A, B));
	LKK_SUM_F64(&run, C, N * N);
	LKK_SUM_F64(&run, A, N * M);
	LKK_SUM_F64(&run, B, N * M);
	lkk_free(C);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
