/* loopkit: kernel=bicg family=linear-algebra/kernels */
/*
 * bicg: the two products of a BiCG iteration in one sweep over A
 * (N x M): s := A^T * r (M) and q := A * p (N).
 *
 * s and q are recomputed from the inputs: calls are idempotent.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(38, 116, 390, 1900)
#endif
#ifndef N
#define N LKK_SIZE(42, 124, 410, 2100)
#endif

static void init(int m, int n, double A[N][M], double r[N], double p[M])
{
	int i, j;

	for (j = 0; j < m; j++)
		p[j] = (double)(j % m) / m;
	for (i = 0; i < n; i++) {
		r[i] = (double)(i % n) / n;
		for (j = 0; j < m; j++)
			A[i][j] = (double)(i * (j + 1) % n) / n;
	}
}

LKK_KERNEL void kernel_bicg(int m, int n, double A[N][M], double s[M],
			    double q[N], double p[M], double r[N])
{
	int i, j;

#pragma scop
	for (i = 0; i < m; i++)
		s[i] = 0.0;
	for (i = 0; i < n; i++) {
		q[i] = 0.0;
		for (j = 0; j < m; j++) {
			s[j] += r[i] * A[i][j];
			q[i] += A[i][j] * p[j];
		}
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[M], *s, *q, *p, *r;

	lkk_start(&run, argc, argv, "bicg");
	A = lkk_alloc(&run, sizeof(double[N][M]));
	s = lkk_alloc(&run, sizeof(double[M]));
	q = lkk_alloc(&run, sizeof(double[N]));
	p = lkk_alloc(&run, sizeof(double[M]));
	r = lkk_alloc(&run, sizeof(double[N]));
	init(M, N, A, r, p);
	LKK_RUN(&run, kernel_bicg(M, N, A, s, q, p, r));
	LKK_SUM_F64(&run, A, N * M);
	LKK_SUM_F64(&run, s, M);
	LKK_SUM_F64(&run, q, N);
	LKK_SUM_F64(&run, p, M);
	LKK_SUM_F64(&run, r, N);
	lkk_free(A);
	lkk_free(s);
	lkk_free(q);
	lkk_free(p);
	lkk_free(r);
	return lkk_finish(&run);
}
