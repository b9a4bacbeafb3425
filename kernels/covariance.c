/* loopkit: kernel=covariance family=datamining */
/*
 * covariance: the sample covariance matrix of M variables observed N
 * times (data N x M): column means, data centred in place, then
 * cov[i][j] = sum_k data[k][i] * data[k][j] / (N - 1) for j >= i,
 * mirrored to the lower triangle.
 *
 * A call leaves data centred, which the next call maps to itself up to
 * rounding: repeated calls stay put.
 */
#include "kernels.h"

#ifndef M
#define M LKK_SIZE(28, 80, 240, 1200)
#endif
#ifndef N
#define N LKK_SIZE(32, 100, 260, 1400)
#endif

static void init(int m, int n, double data[N][M])
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			data[i][j] = (double)((i + 1) * (j + 2) % n) / m;
}

LKK_KERNEL void kernel_covariance(int m, int n, double float_n,
				  double data[N][M], double cov[M][M],
				  double mean[M])
{
	int i, j, k;

#pragma scop
	for (j = 0; j < m; j++) {
		mean[j] = 0.0;
		for (i = 0; i < n; i++)
			mean[j] += data[i][j];
		mean[j] /= float_n;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			data[i][j] -= mean[j];
	for (i = 0; i < m; i++)
		for (j = i; j < m; j++) {
			cov[i][j] = 0.0;
			for (k = 0; k < n; k++)
				cov[i][j] += data[k][i] * data[k][j];
			cov[i][j] /= float_n - 1.0;
			cov[j][i] = cov[i][j];
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*data)[M], (*cov)[M], *mean;

	lkk_start(&run, argc, argv, "covariance");
	data = lkk_alloc(&run, sizeof(double[N][M]));
	cov = lkk_alloc(&run, sizeof(double[M][M]));
	mean = lkk_alloc(&run, sizeof(double[M]));
	init(M, N, data);
	LKK_RUN(&run, kernel_covariance(M, N, (double)N, data, cov, mean));
	LKK_SUM_F64(&run, data, N * M);
	LKK_SUM_F64(&run, cov, M * M);
	LKK_SUM_F64(&run, mean, M);
	lkk_free(data);
	lkk_free(cov);
	lkk_free(mean);
	return lkk_finish(&run);
}
