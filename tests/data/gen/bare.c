/* A kernel as a user writes it first: a bare function, no main, sizes
 * as parameters. gen cannot verify it (--no-verify) nor read its sizes
 * from a call (--param). */
void kernel_axpy2(int n, int m, double alpha, double A[n][m],
		  double B[n][m])
{
	int i, j;

#pragma scop
	for (i = 0; i < n; i++)
		for (j = 0; j < m; j++)
			A[i][j] = A[i][j] + alpha * B[i][j];
#pragma endscop
}
