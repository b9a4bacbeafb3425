/* A user's 2-D convolution (3x3 filter), not one of the test kernels:
 * written the PolyBench way, sizes as macros and int parameters. */
#include <lkrt.h>
#include "checksum.h"

#ifdef MINI_DATASET
#define NI 12
#define NJ 10
#else
#define NI 500
#define NJ 400
#endif

static double in[NI][NJ], out[NI][NJ];

void kernel_conv2d(int ni, int nj, double A[NI][NJ], double B[NI][NJ])
{
	int i, j;

#pragma scop
	for (i = 1; i < ni - 1; ++i)
		for (j = 1; j < nj - 1; ++j)
			B[i][j] = 0.2 * A[i - 1][j - 1] + 0.5 * A[i - 1][j] +
				  -0.8 * A[i - 1][j + 1] + -0.3 * A[i][j - 1] +
				  0.6 * A[i][j] + -0.9 * A[i][j + 1] +
				  0.4 * A[i + 1][j - 1] + 0.7 * A[i + 1][j] +
				  0.1 * A[i + 1][j + 1];
#pragma endscop
}

int main(int argc, char **argv)
{
	for (int i = 0; i < NI; i++)
		for (int j = 0; j < NJ; j++)
			in[i][j] = (double)(i + j) / NJ;
	if (lk_test_checksum(argc, argv)) {
		kernel_conv2d(NI, NJ, in, out);
		lk_test_add(&out[0][0], NI * NJ);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_conv2d(NI, NJ, in, out));
	return lk_finish();
}
