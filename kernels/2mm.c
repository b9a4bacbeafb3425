/* loopkit: kernel=2mm family=linear-algebra/kernels */
/*
 * 2mm: two chained matrix products, D := alpha * A * B * C + beta * D,
 * computed as tmp := alpha * A * B (NI x NJ) then D := beta * D + tmp * C
 * (NI x NL); A is NI x NK, B NK x NJ, C NJ x NL.
 *
 * With 0 < beta < 1 repeated calls converge to a fixed point; every
 * input is positive.
 */
#include "kernels.h"

#ifndef NI
#define NI LKK_SIZE(16, 40, 180, 800)
#endif
#ifndef NJ
#define NJ LKK_SIZE(18, 50, 190, 900)
#endif
#ifndef NK
#define NK LKK_SIZE(22, 70, 210, 1100)
#endif
#ifndef NL
#define NL LKK_SIZE(24, 80, 220, 1200)
#endif

static void init(int ni, int nj, int nk, int nl, double A[NI][NK],
		 double B[NK][NJ], double C[NJ][NL], double D[NI][NL])
{
	int i, j;

	for (i = 0; i < ni; i++)
		for (j = 0; j < nk; j++)
			A[i][j] = (double)((i * j + 1) % ni + 1) / ni;
	for (i = 0; i < nk; i++)
		for (j = 0; j < nj; j++)
			B[i][j] = (double)((i * (j + 1)) % nj + 1) / nj;
	for (i = 0; i < nj; i++)
		for (j = 0; j < nl; j++)
			C[i][j] = (double)((i * (j + 3) + 1) % nl + 1) / nl;
	for (i = 0; i < ni; i++)
		for (j = 0; j < nl; j++)
			D[i][j] = (double)((i * (j + 2)) % nk + 1) / nk;
}

LKK_KERNEL void kernel_2mm(int ni, int nj, int nk, int nl, double alpha,
			   double beta, double tmp[NI][NJ], double A[NI][NK],
			   double B[NK][NJ], double C[NJ][NL], double D[NI][NL])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < ni; i++)
		for (j = 0; j < nj; j++) {
			tmp[i][j] = 0.0;
			for (k = 0; k < nk; k++)
				tmp[i][j] += alpha * A[i][k] * B[k][j];
		}
	for (i = 0; i < ni; i++)
		for (j = 0; j < nl; j++) {
			D[i][j] *= beta;
			for (k = 0; k < nj; k++)
				D[i][j] += tmp[i][k] * C[k][j];
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*tmp)[NJ], (*A)[NK], (*B)[NJ], (*C)[NL], (*D)[NL];

	lkk_start(&run, argc, argv, "2mm");
	tmp = lkk_alloc(&run, sizeof(double[NI][NJ]));
	A = lkk_alloc(&run, sizeof(double[NI][NK]));
	B = lkk_alloc(&run, sizeof(double[NK][NJ]));
	C = lkk_alloc(&run, sizeof(double[NJ][NL]));
	D = lkk_alloc(&run, sizeof(double[NI][NL]));
	init(NI, NJ, NK, NL, A, B, C, D);
	LKK_RUN(&run, kernel_2mm(NI, NJ, NK, NL, 1.5, 0.8, tmp, A, B, C, D));
	LKK_SUM_F64(&run, tmp, NI * NJ);
	LKK_SUM_F64(&run, A, NI * NK);
	LKK_SUM_F64(&run, B, NK * NJ);
	LKK_SUM_F64(&run, C, NJ * NL);
	LKK_SUM_F64(&run, D, NI * NL);
	lkk_free(tmp);
	lkk_free(A);
	lkk_free(B);
	lkk_free(C);
	lkk_free(D);
	return lkk_finish(&run);
}
