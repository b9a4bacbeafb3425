/* Bounds with min/max (macros expanding to ?:), a decreasing loop, an
 * affine if/else and a ternary and libm calls in the statements. */
#include <math.h>
#include <lkrt.h>
#include "checksum.h"

#if defined(MINI_DATASET)
#define N 14
#define M 9
#else
#define N 300
#define M 200
#endif

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

static double A[N][N], s[N];

void kernel_minmax(int n, int m, double A[N][N], double s[N])
{
	int i, j;

#pragma scop
	for (i = n - 1; i >= 0; i--)
		for (j = max(0, i - 3); j < min(n, i + m); j++) {
			if (i + j < n && j != 2)
				s[i] += A[i][j] > 0.5 ? sqrt(A[i][j]) : fabs(A[j][i] - 1.0);
			else
				s[i] -= pow(A[i][j], 2.0) * exp(-A[j][i]);
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	for (int i = 0; i < N; i++) {
		s[i] = i * 0.25;
		for (int j = 0; j < N; j++)
			A[i][j] = (double)((i * 7 + j * 3) % 11) / 10;
	}
	if (lk_test_checksum(argc, argv)) {
		kernel_minmax(N, M, A, s);
		lk_test_add(s, N);
		printf("%016llx\n", lk_test_hash);
		return 0;
	}
	LK_MEASURE(kernel_minmax(N, M, A, s));
	return lk_finish();
}
