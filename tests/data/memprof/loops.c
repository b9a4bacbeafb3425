/*
 * Loops with constant bounds. A `for` loop tests in its header, which runs
 * N + 1 times for N trips; the body runs N times.
 *
 *   copy      i = 0..99: b[i] read, a[i] written in the body:
 *             1 * 100 load, 1 * 100 store
 *   scaled    i = 0..31 by 2 (16 trips): a[i] read, a[i] written,
 *             and a[i + 1] read, a[i + 1] written: 2 * 16 load,
 *             2 * 16 store
 *   guarded   the loop test also reads lim[0] (comma expression), so that
 *             load runs 11 times for 10 trips; the body writes a[i]:
 *             1 * 10 store (body), 1 * 11 load (header). Lines follow
 *             GCC's block order, where the body comes before the test.
 *   around    code before and after the loop has no factor: a[0] written
 *             before (1 store), a[i] read and b[i] written inside (x 5),
 *             b[0] read after (1 load)
 */
int a[100], b[100], lim[1];

void copy(void)
{
	for (int i = 0; i < 100; i++)
		a[i] = b[i];
}

void scaled(void)
{
	for (int i = 0; i < 32; i += 2) {
		a[i] = a[i] * 3;
		a[i + 1] = a[i + 1] * 3;
	}
}

void guarded(void)
{
	int i, t;

	for (i = 0; t = lim[0], i < 10; i++)
		a[i] = t;
}

int around(void)
{
	a[0] = 1;
	for (int i = 0; i < 5; i++)
		b[i] = a[i];
	return b[0];
}
