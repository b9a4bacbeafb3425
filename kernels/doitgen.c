/* loopkit: kernel=doitgen family=linear-algebra/kernels */
/*
 * doitgen: multiresolution analysis kernel (MADNESS): every row
 * A[r][q][*] of the 3-D array A (NR x NQ x NP) is multiplied in place
 * by the NP x NP matrix C4, through the vector sum (NP).
 *
 * C4 is doubly stochastic and A positive, so repeated calls average the
 * rows towards constants: values stay between A's initial extremes.
 */
#include "kernels.h"

#ifndef NQ
#define NQ LKK_SIZE(8, 20, 40, 140)
#endif
#ifndef NR
#define NR LKK_SIZE(10, 25, 50, 150)
#endif
#ifndef NP
#define NP LKK_SIZE(12, 30, 60, 160)
#endif

static void init(int nr, int nq, int np, double A[NR][NQ][NP],
		 double C4[NP][NP])
{
	int r, q, p, s;

	for (r = 0; r < nr; r++)
		for (q = 0; q < nq; q++)
			for (p = 0; p < np; p++)
				A[r][q][p] =
				    1.0 + (double)((r * q + p) % np) / np;
	/* Circulant: every row and every column sums to 1. */
	for (s = 0; s < np; s++)
		for (p = 0; p < np; p++)
			C4[s][p] =
			    (double)((s + p) % np + 1) / (np * (np + 1) / 2);
}

LKK_KERNEL void kernel_doitgen(int nr, int nq, int np, double A[NR][NQ][NP],
			       double C4[NP][NP], double sum[NP])
{
	int r, q, p, s;

#pragma scop
	for (r = 0; r < nr; r++)
		for (q = 0; q < nq; q++) {
			for (p = 0; p < np; p++) {
				sum[p] = 0.0;
				for (s = 0; s < np; s++)
					sum[p] += A[r][q][s] * C4[s][p];
			}
			for (p = 0; p < np; p++)
				A[r][q][p] = sum[p];
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*A)[NQ][NP], (*C4)[NP], *sum;

	lkk_start(&run, argc, argv, "doitgen");
	A = lkk_alloc(&run, sizeof(double[NR][NQ][NP]));
	C4 = lkk_alloc(&run, sizeof(double[NP][NP]));
	sum = lkk_alloc(&run, sizeof(double[NP]));
	init(NR, NQ, NP, A, C4);
	LKK_RUN(&run, kernel_doitgen(NR, NQ, NP, A, C4, sum));
	LKK_SUM_F64(&run, A, NR * NQ * NP);
	LKK_SUM_F64(&run, C4, NP * NP);
	LKK_SUM_F64(&run, sum, NP);
	lkk_free(A);
	lkk_free(C4);
	lkk_free(sum);
	return lkk_finish(&run);
}
