/* loopkit: kernel=correlation family=datamining */
/*
 * correlation: the Pearson correlation matrix of M variables observed
 * N times (data N x M): column means, standard deviations (a deviation
 * at or below eps counts as 1, so a constant column does not divide by
 * zero), data standardised in place to (x - mean) / (sqrt(N) * stddev),
 * then corr[i][j] = sum_k data[k][i] * data[k][j] on the upper
 * triangle, mirrored to the lower one, with corr[i][i] = 1.
 *
 * A call leaves every column of data with mean 0 and norm 1, which the
 * next call maps to itself up to rounding: repeated calls stay put.
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
			data[i][j] = (double)(i * j % m) / m + (double)i / n;
}

LKK_KERNEL void kernel_correlation(int m, int n, double float_n,
				   double data[N][M], double corr[M][M],
				   double mean[M], double stddev[M])
{
	int i, j, k;

#pragma scop
	for (j = 0; j < m; j++) {
		mean[j] = 0.0;
		for (i = 0; i < n; i++)
			mean[j] += data[i][j];
		mean[j] /= float_n;
	}
	for (j = 0; j < m; j++) {
		stddev[j] = 0.0;
		for (i = 0; i < n; i++)
			stddev[j] +=
			    (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
		stddev[j] /= float_n;
		stddev[j] = sqrt(stddev[j]);
		stddev[j] = stddev[j] <= 1.0e-6 ? 1.0 : stddev[j];
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++) {
			data[i][j] -= mean[j];
			data[i][j] /= sqrt(float_n) * stddev[j];
		}
	for (i = 0; i < m - 1; i++) {
		corr[i][i] = 1.0;
		for (j = i + 1; j < m; j++) {
			corr[i][j] = 0.0;
			for (k = 0; k < n; k++)
				corr[i][j] += data[k][i] * data[k][j];
			corr[j][i] = corr[i][j];
		}
	}
	corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*data)[M], (*corr)[M], *mean, *stddev;

	lkk_start(&run, argc, argv, "correlation");
	data = lkk_alloc(&run, sizeof(double[N][M]));
	corr = lkk_alloc(&run, sizeof(double[M][M]));
	mean = lkk_alloc(&run, sizeof(double[M]));
	stddev = lkk_alloc(&run, sizeof(double[M]));
	init(M, N, data);
	LKK_RUN(&run,
		kernel_correlation(M, N, (double)N, data, corr, mean, stddev));
	LKK_SUM_F64(&run, data, N * M);
	LKK_SUM_F64(&run, corr, M * M);
	LKK_SUM_F64(&run, mean, M);
	LKK_SUM_F64(&run, stddev, M);
	lkk_free(data);
	lkk_free(corr);
	lkk_free(mean);
	lkk_free(stddev);
	return lkk_finish(&run);
}
