/*
 * while and do-while. A while loop tests first, like for: header N + 1,
 * body N. A do-while runs its body before its test, so the whole body runs
 * as often as the test: N + 1 times for a latch count of N.
 *
 *   up        while (i < 8): a[i] written in the body: 1 * 8 store
 *   sum       do { s += a[i]; } while (++i < 8): the body is the header,
 *             8 runs: 1 * 8 load
 *   arms      do-while with an if before the test, i = 0..4 (5 runs):
 *             a[i] read in the test (1 * 5 load), b[i] written in the
 *             then-arm (1 * 5 store), c[i] written in the block holding
 *             the loop test (1 * 5 store). All three run before the exit
 *             test in each of the 5 iterations.
 *   outer     do-while (k = 0, 1: 2 runs) around a for (j = 0..2): the
 *             inner loop is entered before the outer test, so twice:
 *             a[j] read and written 1 * 2 * 3 load, 1 * 2 * 3 store
 *
 * Checked against reality once (valgrind lackey, -O0): up, sum and outer
 * made 14 loads and 14 stores of a[], as 8 + 6 and 8 + 6 predict.
 */
int a[8], b[8], c[8];

void up(void)
{
	int i = 0;

	while (i < 8) {
		a[i] = i;
		i++;
	}
}

int sum(void)
{
	int s = 0, i = 0;

	do
		s += a[i];
	while (++i < 8);
	return s;
}

void arms(void)
{
	int i = 0;

	do {
		if (a[i])
			b[i] = 1;
		c[i] = 2;
		i++;
	} while (i < 5);
}

void outer(void)
{
	int k = 0;

	do {
		for (int j = 0; j < 3; j++)
			a[j]++;
		k++;
	} while (k < 2);
}
