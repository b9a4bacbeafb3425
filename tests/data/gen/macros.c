/*
 * Macros in a scop's statements, as PolyBench writes them and worse: a
 * function-like macro ending a statement, a macro naming another, a
 * statement that is a macro call, a macro whose body names the loop
 * iterator, a pasted literal and a non-constant size macro. The
 * generator must print what the compiler sees.
 */
#include <string.h>
#include <lkrt.h>

#include "checksum.h"

#if defined(MINI_DATASET)
#define NI 12
#define NJ 14
#else
#define NI 120
#define NJ 140
#endif

#define SCALAR_VAL(x) x
#define FLOAT_VAL(x) x##f
#define HALF(x) ((x) * SCALAR_VAL(0.5))
#define LB(x, y) y
#define NJM LB(NJ, nj)
#define _PB_NI LB(NI, ni)
#define ZERO(x) x = SCALAR_VAL(0.0)
#define AT(x) A[i][x]

static double A[NI][NJ], C[NI][NJ], D[NI], dx;

void kernel_macros(int ni, int nj, double beta, double A[NI][NJ],
		   double C[NI][NJ], double D[NI])
{
	int i, j;

#pragma scop
	dx = SCALAR_VAL(1.0) / (double)_PB_NI;
	for (i = 0; i < _PB_NI; i++) {
		ZERO(D[i]);
		for (j = 0; j < NJM; j++) {
			C[i][j] *= beta + SCALAR_VAL(0.001) * NJM;
			AT(j) = HALF(AT(j) + FLOAT_VAL(0.25));
			D[i] += A[SCALAR_VAL(i)][j] * dx + HALF(C[i][j]);
		}
	}
#pragma endscop
}

static void init(void)
{
	for (int i = 0; i < NI; i++)
		for (int j = 0; j < NJ; j++) {
			A[i][j] = (double)((i * j + 1) % NI) / NI;
			C[i][j] = (double)(i * (j + 1) % NJ) / NJ;
		}
}

int main(int argc, char **argv)
{
	init();
	if (lk_test_checksum(argc, argv)) {
		kernel_macros(NI, NJ, 1.2, A, C, D);
		lk_test_add(&A[0][0], NI * NJ);
		lk_test_add(&C[0][0], NI * NJ);
		lk_test_add(D, NI);
		lk_test_add(&dx, 1);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_macros(NI, NJ, 1.2, A, C, D));
	return lk_finish();
}
