/* C = alpha A B + beta C, PolyBench-style: sizes as parameters. */
#include <stdio.h>
#include <string.h>
#include <lkrt.h>

#if defined(MINI_DATASET)
#define NI 20
#define NJ 25
#define NK 30
#else
#define NI 200
#define NJ 220
#define NK 240
#endif

static double A[NI][NK], B[NK][NJ], C[NI][NJ];

void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
		 double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
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

static void init(void)
{
	for (int i = 0; i < NI; i++)
		for (int j = 0; j < NJ; j++)
			C[i][j] = (double)((i * j + 1) % NI) / NI;
	for (int i = 0; i < NI; i++)
		for (int k = 0; k < NK; k++)
			A[i][k] = (double)(i * (k + 1) % NK) / NK;
	for (int k = 0; k < NK; k++)
		for (int j = 0; j < NJ; j++)
			B[k][j] = (double)(k * (j + 2) % NJ) / NJ;
}

int main(int argc, char **argv)
{
	init();
	if (argc > 1 && !strcmp(argv[1], "--checksum")) {
		unsigned long long h = 1469598103934665603ULL;
		kernel_gemm(NI, NJ, NK, 1.5, 1.2, C, A, B);
		for (int i = 0; i < NI; i++)
			for (int j = 0; j < NJ; j++) {
				unsigned long long b;
				memcpy(&b, &C[i][j], sizeof(b));
				h = (h ^ b) * 1099511628211ULL;
			}
		printf("%016llx\n", h);
		return 0;
	}
	LK_MEASURE(kernel_gemm(NI, NJ, NK, 1.5, 1.2, C, A, B));
	return lk_finish();
}
