/* loopkit: kernel=mvt family=linear-algebra/kernels */
/*
 * mvt: two matrix-vector products with one matrix and its transpose,
 * x1 := x1 + A * y1 and x2 := x2 + A^T * y2 (A N x N).
 *
 * x1 and x2 accumulate: they grow linearly with the number of calls,
 * finite for any feasible count.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double x1[N], double x2[N], double y1[N], double y2[N],
		 double A[N][N])
{
	int i, j;

	for (i = 0; i < n; i++) {
		x1[i] = (double)(i % n) / n;
		x2[i] = (double)((i + 1) % n) / n;
		y1[i] = (double)((i + 3) % n) / n;
		y2[i] = (double)((i + 4) % n) / n;
		for (j = 0; j < n; j++)
			A[i][j] = (double)(i * j % n) / n;
	}
}

LKK_KERNEL void kernel_mvt(int n, double x1[N], double x2[N], double y1[N],
			   double y2[N], double A[N][N])
{
	int i, j;

#pragma scop
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			x1[i] += A[i][j] * y1[j];
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			x2[i] += A[j][i] * y2[j];
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double *x1, *x2, *y1, *y2, (*A)[N];

	lkk_start(&run, argc, argv, "mvt");
	x1 = lkk_alloc(&run, sizeof(double[N]));
	x2 = lkk_alloc(&run, sizeof(double[N]));
	y1 = lkk_alloc(&run, sizeof(double[N]));
	y2 = lkk_alloc(&run, sizeof(double[N]));
	A = lkk_alloc(&run, sizeof(double[N][N]));
	init(N, x1, x2, y1, y2, A);
	LKK_RUN(&run, kernel_mvt(N, x1, x2, y1, y2, A));
	LKK_SUM_F64(&run, x1, N);
	LKK_SUM_F64(&run, x2, N);
	LKK_SUM_F64(&run, y1, N);
	LKK_SUM_F64(&run, y2, N);
	LKK_SUM_F64(&run, A, N * N);
	lkk_free(x1);
	lkk_free(x2);
	lkk_free(y1);
	lkk_free(y2);
	lkk_free(A);
	return lkk_finish(&run);
}
