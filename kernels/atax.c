/* loopkit: kernel=atax family=linear-algebra/kernels */
/*
 * atax: y := A^T * (A * x), with A M x N, through tmp := A * x (M).
 *
 * y and tmp are recomputed from A and x: calls are idempotent.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(38, 116, 390, 1900)
#endif
#ifndef N
#define N LKK_SIZE(42, 124, 410, 2100)
#endif

static void init(int m, int n, double A[M][N], double x[N])
{
	int i, j;

	for (j = 0; j < n; j++)
		x[j] = 1.0 + (double)j / n;
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			A[i][j] = (double)((i + 3 * j) % n) / (5 * m);
}

LKK_KERNEL void kernel_atax(int m, int n, double A[M][N], double x[N],
			    double y[N], double tmp[M])
{
	int i, j;

#pragma scop
	for (i = 0; i < n; i++)
		y[i] = 0.0;
	for (i = 0; i < m; i++) {
		tmp[i] = 0.0;
		for (j = 0; j < n; j++)
			tmp[i] += A[i][j] * x[j];
		for (j = 0; j < n; j++)
			y[j] += A[i][j] * tmp[i];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], *x, *y, *tmp;

	lkk_start(&run, argc, argv, "atax");
	A = lkk_alloc(&run, sizeof(double[M][N]));
	x = lkk_alloc(&run, sizeof(double[N]));
	y = lkk_alloc(&run, sizeof(double[N]));
	tmp = lkk_alloc(&run, sizeof(double[M]));
	init(M, N, A, x);
	LKK_RUN(&run, kernel_atax(M, N, A, x, y, tmp));
	LKK_SUM_F64(&run, A, M * N);
	LKK_SUM_F64(&run, x, N);
	LKK_SUM_F64(&run, y, N);
	LKK_SUM_F64(&run, tmp, M);
	lkk_free(A);
	lkk_free(x);
	lkk_free(y);
	lkk_free(tmp);
	return lkk_finish(&run);
}
