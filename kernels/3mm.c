/* loopkit: kernel=3mm family=linear-algebra/kernels */
/*
 * 3mm: three matrix products, G := (A * B) * (C * D), as E := A * B
 * (NI x NJ), F := C * D (NJ x NL), G := E * F (NI x NL); A is NI x NK,
 * B NK x NJ, C NJ x NM, D NM x NL.
 *
 * Every output is recomputed from the inputs: calls are idempotent.
 */
#include "kernels.h"

#ifndef NI
#define NI LKK_SIZE(16, 40, 180, 800)
#endif
#ifndef NJ
#define NJ LKK_SIZE(18, 50, 190, 900)
#endif
#ifndef NK
#define NK LKK_SIZE(20, 60, 200, 1000)
#endif
#ifndef NL
#define NL LKK_SIZE(22, 70, 210, 1100)
#endif
#ifndef NM
#define NM LKK_SIZE(24, 80, 220, 1200)
#endif

static void init(int ni, int nj, int nk, int nl, int nm, double A[NI][NK],
		 double B[NK][NJ], double C[NJ][NM], double D[NM][NL])
{
	int i, j;

	for (i = 0; i < ni; i++)
		for (j = 0; j < nk; j++)
			A[i][j] = (double)((i * j + 1) % ni) / (5 * ni);
	for (i = 0; i < nk; i++)
		for (j = 0; j < nj; j++)
			B[i][j] = (double)((i * (j + 1) + 2) % nj) / (5 * nj);
	for (i = 0; i < nj; i++)
		for (j = 0; j < nm; j++)
			C[i][j] = (double)(i * (j + 3) % nl) / (5 * nl);
	for (i = 0; i < nm; i++)
		for (j = 0; j < nl; j++)
			D[i][j] = (double)((i * (j + 2) + 2) % nk) / (5 * nk);
}

LKK_KERNEL void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
			   double E[NI][NJ], double A[NI][NK], double B[NK][NJ],
			   double F[NJ][NL], double C[NJ][NM], double D[NM][NL],
			   double G[NI][NL])
{
	int i, j, k;

#pragma scop
	for (i = 0; i < ni; i++)
		for (j = 0; j < nj; j++) {
			E[i][j] = 0.0;
			for (k = 0; k < nk; k++)
				E[i][j] += A[i][k] * B[k][j];
		}
	for (i = 0; i < nj; i++)
		for (j = 0; j < nl; j++) {
			F[i][j] = 0.0;
			for (k = 0; k < nm; k++)
				F[i][j] += C[i][k] * D[k][j];
		}
	for (i = 0; i < ni; i++)
		for (j = 0; j < nl; j++) {
			G[i][j] = 0.0;
			for (k = 0; k < nj; k++)
				G[i][j] += E[i][k] * F[k][j];
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*E)[NJ], (*A)[NK], (*B)[NJ], (*F)[NL], (*C)[NM], (*D)[NL];
	double (*G)[NL];

	lkk_start(&run, argc, argv, "3mm");
	E = lkk_alloc(&run, sizeof(double[NI][NJ]));
	A = lkk_alloc(&run, sizeof(double[NI][NK]));
	B = lkk_alloc(&run, sizeof(double[NK][NJ]));
	F = lkk_alloc(&run, sizeof(double[NJ][NL]));
	C = lkk_alloc(&run, sizeof(double[NJ][NM]));
	D = lkk_alloc(&run, sizeof(double[NM][NL]));
	G = lkk_alloc(&run, sizeof(double[NI][NL]));
	init(NI, NJ, NK, NL, NM, A, B, C, D);
	LKK_RUN(&run, kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G));
	LKK_SUM_F64(&run, E, NI * NJ);
	LKK_SUM_F64(&run, A, NI * NK);
	LKK_SUM_F64(&run, B, NK * NJ);
	LKK_SUM_F64(&run, F, NJ * NL);
	LKK_SUM_F64(&run, C, NJ * NM);
	LKK_SUM_F64(&run, D, NM * NL);
	LKK_SUM_F64(&run, G, NI * NL);
	lkk_free(E);
	lkk_free(A);
	lkk_free(B);
	lkk_free(F);
	lkk_free(C);
	lkk_free(D);
	lkk_free(G);
	return lkk_finish(&run);
}
