/* loopkit: kernel=symm family=linear-algebra/blas */
/*
 * symm: C := alpha * A * B + beta * C with A symmetric M x M, of which
 * only the lower triangle is read (B, C M x N). Row i of the product
 * takes A's lower row i directly (accumulated in the scalar temp2) and
 * its upper part, by symmetry, from the rows below, which add their
 * share to the rows above as they go.
 *
 * With 0 < beta < 1 repeated calls converge to a fixed point; every
 * input is positive.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(20, 60, 200, 1000)
#endif
#ifndef N
#define N LKK_SIZE(30, 80, 240, 1200)
#endif

static void init(int m, int n, double C[M][N], double A[M][M], double B[M][N])
{
	int i, j;

	for (i = 0; i < m; i++) {
		for (j = 0; j < n; j++) {
			C[i][j] = (double)((i + j) % 100 + 1) / m;
			B[i][j] = (double)((n + i - j) % 100 + 1) / m;
		}
		for (j = 0; j <= i; j++)
			A[i][j] = (double)((i + j) % 100 + 1) / m;
		for (j = i + 1; j < m; j++)
			A[i][j] = 1000.0; /* never read */
	}
}

LKK_KERNEL void kernel_symm(int m, int n, double alpha, double beta,
			    double C[M][N], double A[M][M], double B[M][N])
{
	int i, j, k;
	double temp2;

#pragma scop
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			temp2 = 0.0;
			for (k = 0; k < i; k++) {
				C[k][j] += alpha * B[i][j] * A[i][k];
				temp2 += B[k][j] * A[i][k];
			}
			C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] +
				  alpha * temp2;
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*C)[N], (*A)[M], (*B)[N];

	lkk_start(&run, argc, argv, "symm");
	C = lkk_alloc(&run, sizeof(double[M][N]));
	A = lkk_alloc(&run, sizeof(double[M][M]));
	B = lkk_alloc(&run, sizeof(double[M][N]));
	init(M, N, C, A, B);
	LKK_RUN(&run, kernel_symm(M, N, 1.5, 0.8, C, A, B));
	LKK_SUM_F64(&run, C, M * N);
	LKK_SUM_F64(&run, A, M * M);
	LKK_SUM_F64(&run, B, M * N);
	lkk_free(C);
	lkk_free(A);
	lkk_free(B);
	return lkk_finish(&run);
}
