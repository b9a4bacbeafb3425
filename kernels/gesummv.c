/* loopkit: kernel=gesummv family=linear-algebra/blas */
/*
 * gesummv: sum of two matrix-vector products, y := alpha * A * x +
 * beta * B * x (A, B N x N), through tmp := A * x.
 *
 * tmp and y are recomputed from the inputs: calls are idempotent.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(30, 90, 250, 1300)
#endif

static void init(int n, double A[N][N], double B[N][N], double x[N])
{
	int i, j;

	for (i = 0; i < n; i++) {
		x[i] = (double)(i % n) / n;
		for (j = 0; j < n; j++) {
			A[i][j] = (double)((i * j + 1) % n) / n;
			B[i][j] = (double)((i * j + 2) % n) / n;
		}
	}
}

LKK_KERNEL void kernel_gesummv(int n, double alpha, double beta, double A[N][N],
			       double B[N][N], double tmp[N], double x[N],
			       double y[N])
{
	int i, j;

#pragma scop
	for (i = 0; i < n; i++) {
		tmp[i] = 0.0;
		y[i] = 0.0;
		for (j = 0; j < n; j++) {
			tmp[i] += A[i][j] * x[j];
			y[i] += B[i][j] * x[j];
		}
		y[i] = alpha * tmp[i] + beta * y[i];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], (*B)[N], *tmp, *x, *y;

	lkk_start(&run, argc, argv, "gesummv");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	B = lkk_alloc(&run, sizeof(double[N][N]));
	tmp = lkk_alloc(&run, sizeof(double[N]));
	x = lkk_alloc(&run, sizeof(double[N]));
	y = lkk_alloc(&run, sizeof(double[N]));
	init(N, A, B, x);
	LKK_RUN(&run, kernel_gesummv(N, 1.5, 1.2, A, B, tmp, x, y));
	LKK_SUM_F64(&run, A, N * N);
	LKK_SUM_F64(&run, B, N * N);
	LKK_SUM_F64(&run, tmp, N);
	LKK_SUM_F64(&run, x, N);
	LKK_SUM_F64(&run, y, N);
	lkk_free(A);
	lkk_free(B);
	lkk_free(tmp);
	lkk_free(x);
	lkk_free(y);
	return lkk_finish(&run);
}
