/* loopkit: kernel=floyd-warshall family=medley */
/*
 * floyd-warshall: all-pairs shortest paths in a weighted directed graph
 * of N vertices, in place on the distance matrix (int, N x N):
 * paths[i][j] = min(paths[i][j], paths[i][k] + paths[k][j]) for every
 * intermediate vertex k in turn (the min written as ?:).
 *
 * A missing edge weighs 1,000,000 (two of them still fit an int). The
 * shortest distances are a fixed point: calls after the first change
 * nothing.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(60, 180, 500, 2800)
#endif

static void init(int n, int paths[N][N])
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j)
				paths[i][j] = 0;
			else if ((7 * i + 3 * j) % 5 < 2)
				paths[i][j] = i * j % 9 + 1;
			else
				paths[i][j] = 1000000;
		}
}

LKK_KERNEL void kernel_floyd_warshall(int n, int paths[N][N])
{
	int i, j, k;

#pragma scop
	for (k = 0; k < n; k++)
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				paths[i][j] =
				    paths[i][j] < paths[i][k] + paths[k][j]
					? paths[i][j]
					: paths[i][k] + paths[k][j];
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	int (*paths)[N];

	lkk_start(&run, argc, argv, "floyd-warshall");
	paths = lkk_alloc(&run, sizeof(int[N][N]));
	init(N, paths);
	LKK_RUN(&run, kernel_floyd_warshall(N, paths));
	LKK_SUM_INT(&run, paths, N * N);
	lkk_free(paths);
	return lkk_finish(&run);
}
