/* loopkit: kernel=ludcmp family=linear-algebra/solvers */
/*
 * ludcmp: solve A * x = b through an LU decomposition without pivoting
 * (as in lu, packed into LU, N x N), then forward substitution
 * L * y = b and back substitution U * x = y (i from N-1 down to 0).
 * Every dot product accumulates in the scalar w.
 *
 * Out of place: A and b are only read, so every call repeats the same
 * work. A is strictly diagonally dominant by rows: no pivoting is
 * needed.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double A[N][N], double b[N])
{
	int i, j;

	for (i = 0; i < n; i++) {
		b[i] = 1.0 + (double)(i % 7) / 7.0;
		for (j = 0; j < n; j++)
			A[i][j] = i == j ? 2.0 - (double)i / n
					 : (double)((i + 5 * j) % n + 1) /
					       (2.0 * n * n);
	}
}

LKK_KERNEL void kernel_ludcmp(int n, double A[N][N], double LU[N][N],
			      double b[N], double x[N], double y[N])
{
	int i, j, k;
	double w;

#pragma scop
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			w = A[i][j];
			for (k = 0; k < j; k++)
				w -= LU[i][k] * LU[k][j];
			LU[i][j] = w / LU[j][j];
		}
		for (j = i; j < n; j++) {
			w = A[i][j];
			for (k = 0; k < i; k++)
				w -= LU[i][k] * LU[k][j];
			LU[i][j] = w;
		}
	}
	for (i = 0; i < n; i++) {
		w = b[i];
		for (j = 0; j < i; j++)
			w -= LU[i][j] * y[j];
		y[i] = w;
	}
	for (i = n - 1; i >= 0; i--) {
		w = y[i];
		for (j = i + 1; j < n; j++)
			w -= LU[i][j] * x[j];
		x[i] = w / LU[i][i];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[N], (*LU)[N], *b, *x, *y;

	lkk_start(&run, argc, argv, "ludcmp");
	A = lkk_alloc(&run, sizeof(double[N][N]));
	LU = lkk_alloc(&run, sizeof(double[N][N]));
	b = lkk_alloc(&run, sizeof(double[N]));
	x = lkk_alloc(&run, sizeof(double[N]));
	y = lkk_alloc(&run, sizeof(double[N]));
	init(N, A, b);
	LKK_RUN(&run, kernel_ludcmp(N, A, LU, b, x, y));
	LKK_SUM_F64(&run, A, N * N);
	LKK_SUM_F64(&run, LU, N * N);
	LKK_SUM_F64(&run, b, N);
	LKK_SUM_F64(&run, x, N);
	LKK_SUM_F64(&run, y, N);
	lkk_free(A);
	lkk_free(LU);
	lkk_free(b);
	lkk_free(x);
	lkk_free(y);
	return lkk_finish(&run);
}
