/* loopkit: kernel=gemm family=linear-algebra/blas */
/*
 * gemm: C := alpha * A * B + beta * C, with C NI x NJ, A NI x NK and
 * B NK x NJ (general matrix-matrix product).
 *
 * With 0 < beta < 1 repeated calls converge to the fixed point
 * C = alpha * A * B / (1 - beta); every input is positive.
 */
#include "kernels.h"

#ifndef NI
#define NI LKK_SIZE(20, 60, 200, 1000)
#endif
#ifndef NJ
#define NJ LKK_SIZE(25, 70, 220, 1100)
#endif
#ifndef NK
#define NK LKK_SIZE(30, 80, 240, 1200)
#endif

static void init(int ni, int nj, int nk, double C[NI][NJ], double A[NI][NK],
		 double B[NK][NJ])
{
	int i, j;

	for (i = 0; i < ni; i++)
		for (j = 0; j < nj; j++)
			C[i][j] = (double)((i * j + 1) % ni + 1) / ni;
	for (i = 0; i < ni; i++)
		for (j = 0; j < nk; j++)
			A[i][j] = (double)((i * (j + 1)) % nk + 1) / nk;
	for (i = 0; i < nk; i++)
		for (j = 0; j < nj; j++)
			B[i][j] = (double)((i * (j + 2)) % nj + 1) / nj;
}

LKK_KERNEL void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
			    double C[NI][NJ], double A[NI][NK],
			    double B[NK][NJ])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < ni; i++) {
		for (j = 0; j < nj; j++)
			C[i][j] *= beta;
		for (k = 0; k < nk; k++)
			for (j = 0; j < nj; j++)
				C[i][j] += alpha * A[i][k] * B[k][j];
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*C)[NJ], (*A)[NK], (*B)[NJ];

	lkk_start(&run, argc, argv, "gemm");
	C = lkk_alloc(&run, sizeof(double[NI][NJ]));
	A = lkk_alloc(&run, sizeof(double[NI][NK]));
	B = lkk_alloc(&run, sizeof(double[NK][NJ]));
	init(NI, NJ, NK, C, A, B);
	LKK_RUN(&run, kernel_gemm(NI, NJ, NK, 1.5, 0.8, C, A, B));
	LKK_SUM_F64(&run, C, NI * NJ);
	LKK_SUM_F64(&run, A, NI * NK);
	LKK_SUM_F64(&run, B, NK * NJ);
	lkk_free(C);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
