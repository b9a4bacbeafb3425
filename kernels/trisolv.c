/* loopkit: kernel=trisolv family=linear-algebra/solvers */
/*
 * trisolv: forward substitution, x := L^-1 * b with L lower triangular
 * N x N (its upper triangle is never read):
 * x[i] = (b[i] - sum_{j<i} L[i][j] x[j]) / L[i][i].
 *
 * x is recomputed from L and b: calls are idempotent. L's diagonal
 * dominates its rows, which keeps x within twice b's largest value.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double L[N][N], double b[N])
{
	int i, j;

	for (i = 0; i < n; i++) {
		b[i] = (double)(i % 11 + 1) / 11.0;
		for (j = 0; j < i; j++)
			L[i][j] = (double)((i + n - j) % n + 1) / (2.0 * n * n);
		L[i][i] = 1.0 + (double)(i % 5) / 5.0;
		for (j = i + 1; j < n; j++)
			L[i][j] = 1000.0; /* never read */
	}
}

LKK_KERNEL void kernel_trisolv(int n, double L[N][N], double x[N], double b[N])
{
	int i, j;

#pragma scop
	for (i = 0; i < n; i++) {
		x[i] = b[i];
		for (j = 0; j < i; j++)
			x[i] -= L[i][j] * x[j];
		x[i] = x[i] / L[i][i];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*L)[N], *x, *b;

	lkk_start(&run, argc, argv, "trisolv");
	L = lkk_alloc(&run, sizeof(double[N][N]));
	x = lkk_alloc(&run, sizeof(double[N]));
	b = lkk_alloc(&run, sizeof(double[N]));
	init(N, L, b);
	LKK_RUN(&run, kernel_trisolv(N, L, x, b));
	LKK_SUM_F64(&run, L, N * N);
	LKK_SUM_F64(&run, x, N);
	LKK_SUM_F64(&run, b, N);
	lkk_free(L);
	lkk_free(x);
	lkk_free(b);
	return lkk_finish(&run);
}
