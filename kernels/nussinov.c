/* loopkit: kernel=nussinov family=medley */
/*
 * nussinov: Nussinov's dynamic program for RNA folding: the largest
 * number of nested base pairs in the subsequence seq[i..j] (bases 0-3
 * for A, C, G, U; a pair is A-U or C-G, i.e. two bases summing to 3):
 *	table[i][j] = max(table[i][j-1], table[i+1][j],
 *	                  table[i+1][j-1] + pair(i, j)   if i < j - 1,
 *	                  table[i][k] + table[k+1][j]    for i < k < j)
 * filled for i from N-1 down to 0 and j upwards, in place (int, the
 * max written as ?:, the guard as an affine if).
 *
 * The optimum is a fixed point: calls after the first change nothing.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(60, 180, 500, 2500)
#endif

static void init(int n, int seq[N], int table[N][N])
{
	int i, j;

	for (i = 0; i < n; i++) {
		seq[i] = (7 * i + i / 3 + 1) % 4;
		for (j = 0; j < n; j++)
			table[i][j] = 0;
	}
}

LKK_KERNEL void kernel_nussinov(int n, int seq[N], int table[N][N])
{
	int i, j, k;

#pragma scop
	for (i = n - 1; i >= 0; i--)
		for (j = i + 1; j < n; j++) {
			table[i][j] = table[i][j] > table[i][j - 1]
					  ? table[i][j]
					  : table[i][j - 1];
			table[i][j] = table[i][j] > table[i + 1][j]
					  ? table[i][j]
					  : table[i + 1][j];
			if (i < j - 1)
				table[i][j] =
				    table[i][j] >
					    table[i + 1][j - 1] +
						(seq[i] + seq[j] == 3 ? 1 : 0)
					? table[i][j]
					: table[i + 1][j - 1] +
					      (seq[i] + seq[j] == 3 ? 1 : 0);
			for (k = i + 1; k < j; k++)
				table[i][j] =
				    table[i][j] > table[i][k] + table[k + 1][j]
					? table[i][j]
					: table[i][k] + table[k + 1][j];
		}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	int *seq, (*table)[N];

	lkk_start(&run, argc, argv, "nussinov");
	seq = lkk_alloc(&run, sizeof(int[N]));
	table = lkk_alloc(&run, sizeof(int[N][N]));
	init(N, seq, table);
	LKK_RUN(&run, kernel_nussinov(N, seq, table));
	LKK_SUM_INT(&run, seq, N);
	LKK_SUM_INT(&run, table, N * N);
	lkk_free(seq);
	lkk_free(table);
	return lkk_finish(&run);
}
