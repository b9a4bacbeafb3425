/* loopkit: kernel=jacobi-1d family=stencils */
/*
 * jacobi-1d: TSTEPS time steps of a 3-point Jacobi smoothing of a 1-D
 * array (N) between two fixed end points, alternating between A and B:
 * B[i] = (A[i-1] + A[i] + A[i+1]) / 3, then A[i] likewise from B
 * (the 1/3 as the constant 0.33333).
 *
 * An average with fixed, positive end points: repeated calls converge
 * and stay positive.
 */
#include "kernels.h"

#ifndef TSTEPS
#define TSTEPS LKK_SIZE(20, 40, 100, 500)
#endif
#ifndef N
#define N LKK_SIZE(30, 120, 400, 2000)
#endif

static void init(int n, double A[N], double B[N])
{
	int i;

	for (i = 0; i < n; i++) {
		A[i] = 1.0 + (double)((5 * i) % n) / n;
		B[i] = A[i];
	}
}

LKK_KERNEL void kernel_jacobi_1d(int tsteps, int n, double A[N], double B[N])
{
	int t, i;

#pragma scop
	for (t = 0; t < tsteps; t++) {
		for (i = 1; i < n - 1; i++)
			B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
		for (i = 1; i < n - 1; i++)
			A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double *A, *B;

	lkk_start(&run, argc, argv, "jacobi-1d");
	A = lkk_alloc(&run, sizeof(double[N]));
	B = lkk_alloc(&run, sizeof(double[N]));
	init(N, A, B);
	LKK_RUN(&run, kernel_jacobi_1d(TSTEPS, N, A, B));
	LKK_SUM_F64(&run, A, N);
	LKK_SUM_F64(&run, B, N);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
