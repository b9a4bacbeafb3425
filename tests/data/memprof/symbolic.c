/*
 * Bounds GCC does not know as numbers stay symbolic: the loop's latch
 * count as GCC prints it, in parentheses, user variables by name.
 *
 *   saxpy     i = 0..n-1 (n a parameter, maybe <= 0): x[i], y[i] read,
 *             y[i] written in the body, n times if n > 0, else never:
 *             2 * ((unsigned int) MAX_EXPR <n, 0>) load,
 *             1 * ((unsigned int) MAX_EXPR <n, 0>) store
 *   fill      i = 0..3, j = 0..m-1: p[i * m + j] written; the outer count
 *             stays a number: 1 * 4 * ((unsigned int) MAX_EXPR <m, 0>)
 *             store
 *   ucount    unsigned bound: the body runs n times, 1 * (n) store; the
 *             loop test also reads *lim, in the header, which runs once
 *             more than the body: 1 * (n + 1) load (GCC folds the plus
 *             one into the expression)
 *   strlen2   the exit depends on the data (*s): no count is known, the
 *             factor is "unknown"; *s read in the header: 1 * (unknown)
 *             load
 *   triangle  j = 0..i-1 inside i = 0..7: p[j] read; the inner count
 *             depends on the outer variable and stays symbolic:
 *             1 * 8 * ((unsigned int) MAX_EXPR <i, 0>) load. A product
 *             of factors cannot say "0 + 1 + ... + 7": a reader (or
 *             loopkit) sees the dependence in the name i.
 */
void saxpy(int n, float a, const float *x, float *y)
{
	for (int i = 0; i < n; i++)
		y[i] = a * x[i] + y[i];
}

void fill(int m, int *p)
{
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < m; j++)
			p[i * m + j] = 0;
}

void ucount(unsigned n, int *a, const int *lim)
{
	int t;

	for (unsigned i = 0; t = *lim, i < n; i++)
		a[i] = t;
}

long strlen2(const char *s)
{
	long n = 0;

	while (*s) {
		s++;
		n++;
	}
	return n;
}

long triangle(const long *p)
{
	long s = 0;

	for (int i = 0; i < 8; i++)
		for (int j = 0; j < i; j++)
			s += p[j];
	return s;
}
