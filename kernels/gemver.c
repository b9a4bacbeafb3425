/* loopkit: kernel=gemver family=linear-algebra/blas */
/*
 * gemver: a rank-2 update followed by two matrix-vector products,
 * A := A + u1 * v1^T + u2 * v2^T, x := x + beta * A^T * y + z,
 * w := w + alpha * A * x (A N x N, vectors N).
 *
 * A, x and w accumulate across calls and grow polynomially with the
 * number of calls (A linearly, x quadratically, w as its fourth power):
 * finite for any feasible count.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double A[N][N], double u1[N], double v1[N],
		 double u2[N], double v2[N], double w[N], double x[N],
		 double y[N], double z[N])
{
	int i, j;

	for (i = 0; i < n; i++) {
		u1[i] = (double)i / n;
		u2[i] = (double)(i + 1) / n / 2.0;
		v1[i] = (double)(i + 1) / n / 4.0;
		v2[i] = (double)(i + 1) / n / 6.0;
		y[i] = (double)(i + 1) / n / 8.0;
		z[i] = (double)(i + 1) / n / 9.0;
		x[i] = 0.0;
		w[i] = 0.0;
		for (j = 0; j < n; j++)
			A[i][j] = (double)(i * j % n) / n;
	}
}

LKK_KERNEL void kernel_gemver(int n, double alpha, double beta, double A[N][N],
			      double u1[N], double v1[N], double u2[N],
			      double v2[N], double w[N], double x[N],
			      double y[N], double z[N])
{
	int i, j;

#pragma scop
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			x[i] = x[i] + beta * A[j][i] * y[j];
	for (i = 0; i < n; i++)
		x[i] = x[i] + z[i];
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], *u1, *v1, *u2, *v2, *w, *x, *y, *z;

	lkk_start(&run, argc, argv, "gemver");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	u1 = lkk_alloc(&run, sizeof(double[N]));
	v1 = lkk_alloc(&run, sizeof(double[N]));
	u2 = lkk_alloc(&run, sizeof(double[N]));
	v2 = lkk_alloc(&run, sizeof(double[N]));
	w = lkk_alloc(&run, sizeof(double[N]));
	x = lkk_alloc(&run, sizeof(double[N]));
	y = lkk_alloc(&run, sizeof(double[N]));
	z = lkk_alloc(&run, sizeof(double[N]));
	init(N, A, u1, v1, u2, v2, w, x, y, z);
	LKK_RUN(&run,
		kernel_gemver(N, 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z));
	LKK_SUM_F64(&run, A, N * N);
	LKK_SUM_F64(&run, u1, N);
	LKK_SUM_F64(&run, v1, N);
	LKK_SUM_F64(&run, u2, N);
	LKK_SUM_F64(&run, v2, N);
	LKK_SUM_F64(&run, w, N);
	LKK_SUM_F64(&run, x, N);
	LKK_SUM_F64(&run, y, N);
	LKK_SUM_F64(&run, z, N);
	lkk_free(A);
	lkk_free(u1);
	lkk_free(v1);
	lkk_free(u2);
	lkk_free(v2);
	lkk_free(w);
	lkk_free(x);
	lkk_free(y);
	lkk_free(z);
	return lkk_finish(&run);
}
