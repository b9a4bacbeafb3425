/*
 * Nested loops: a block's factors are the trip counts of the loops around
 * it, outermost first. An inner loop sits in its outer loop's body, so it
 * is entered N times (not N + 1) per outer entry.
 *
 *   rowsum  (2 deep) i = 0..9, j = 0..19:
 *           inner body: A[i][j] read            1 * 10 * 20 load
 *           outer body after the inner loop: R[i] written
 *                                               1 * 10 store
 *   gemm    (3 deep) i = 0..9, j = 0..29, k = 0..19:
 *           C[i][j] += A2[i][k] * B[k][j]: three reads, one write
 *                                               3 * 10 * 30 * 20 load
 *                                               1 * 10 * 30 * 20 store
 *   mixed   (3 deep, work at every level) i = 0..3, j = 0..4, k = 0..5:
 *           i body, before the j loop: T[i] written   1 * 4 store
 *           j body, before the k loop: U[i][j] read   1 * 4 * 5 load
 *           k body: V[i][j][k] written               1 * 4 * 5 * 6 store
 *           j body, after the k loop: U[i][j] written 1 * 4 * 5 store
 *
 * Checked against reality once: valgrind --tool=lackey --trace-mem=yes on
 * a -O0 build calling the three functions saw exactly these accesses to
 * the globals (A 200 loads, A2, B and C 6000 loads each, C 6000 stores,
 * R 10, T 4, U 20 + 20, V 120).
 */
double A[10][20], R[10];
double A2[10][20], B[20][30], C[10][30];
double T[4], U[4][5], V[4][5][6];

void rowsum(void)
{
	for (int i = 0; i < 10; i++) {
		double s = 0;
		for (int j = 0; j < 20; j++)
			s += A[i][j];
		R[i] = s;
	}
}

void gemm(void)
{
	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 30; j++)
			for (int k = 0; k < 20; k++)
				C[i][j] += A2[i][k] * B[k][j];
}

void mixed(void)
{
	for (int i = 0; i < 4; i++) {
		T[i] = 0;
		for (int j = 0; j < 5; j++) {
			double u = U[i][j];
			for (int k = 0; k < 6; k++)
				V[i][j][k] = u;
			U[i][j] = u + 1;
		}
	}
}
