/*
 * A PolyBench-style program on the stand-in harness (harness/): sizes by
 * dataset macro, arrays from polybench_alloc_data, results as an array
 * dump. With -DALIAS, A and B are one array: the model cannot see it,
 * interchange changes the result, and only the dumps tell.
 */
#include <stdio.h>
#include <stdlib.h>

#include <polybench.h>

#ifdef MINI_DATASET
#define N 8
#else
#define N 100
#endif
#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
#define SCALAR_VAL(x) x

static void kernel_shift(int n, double POLYBENCH_2D(A, N, N, n, n),
			 double POLYBENCH_2D(B, N, N, n, n))
{
	int i, j;

#pragma scop
	for (i = 1; i < _PB_N; i++)
		for (j = 0; j < _PB_N - 1; j++)
			A[i][j] = B[i - 1][j + 1] * SCALAR_VAL(0.5) + 1.0;
#pragma endscop
}

static void print_array(int n, double POLYBENCH_2D(A, N, N, n, n))
{
	POLYBENCH_DUMP_START;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			fprintf(POLYBENCH_DUMP_TARGET, "%0.6f ", A[i][j]);
	fprintf(POLYBENCH_DUMP_TARGET, "\n");
	POLYBENCH_DUMP_FINISH;
}

int main(int argc, char **argv)
{
	int n = N;
	POLYBENCH_2D_ARRAY_DECL(A, double, N, N, n, n);
	POLYBENCH_2D_ARRAY_DECL(B, double, N, N, n, n);

	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			(*A)[i][j] = (*B)[i][j] = i + 0.25 * j;
#ifdef ALIAS
	kernel_shift(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(A));
#else
	kernel_shift(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
#endif
	polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));
	POLYBENCH_FREE_ARRAY(A);
	POLYBENCH_FREE_ARRAY(B);
	return 0;
}
