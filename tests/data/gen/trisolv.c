/* Forward substitution L x = b: a triangular loop and a scalar-free
 * reduction into x[i]. */
#include <lkrt.h>
#include "checksum.h"

#if defined(MINI_DATASET)
#define N 16
#else
#define N 400
#endif

static double L[N][N], x[N], b[N];

void kernel_trisolv(int n, double L[N][N], double x[N], double b[N])
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
	for (int i = 0; i < N; i++) {
		b[i] = i + 1.5;
		for (int j = 0; j <= i; j++)
			L[i][j] = (double)(i + N - j + 1) * 2 / N;
	}
	if (lk_test_checksum(argc, argv)) {
		kernel_trisolv(N, L, x, b);
		lk_test_add(x, N);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_trisolv(N, L, x, b));
	return lk_finish();
}
