/*
 * Calls and recursion: a function's counts are its own statements only;
 * what a callee does is the callee's (loopkit memprof adds it through the
 * call tree). Recursion is not a loop: no factor.
 *
 *   total   i = 0..49: data[i] read: 1 * 50 load
 *   caller  i = 0..2: total() called, its value written to data[i]:
 *           1 * 3 store (none of total's 50 loads)
 *   rsum    if n == 0 return 0; else p[0] read, rsum(p + 1, n - 1):
 *           one block with 1 load, no factor
 *   show    takes a struct by value, reads nothing itself
 *   pass    show (*q): the aggregate *q is read to pass it: 1 load
 *   twice   two calls, g read and written around them: 1 load, 1 store
 */
int data[50];
int g;

struct pair {
	int a, b;
};

int total(void)
{
	int s = 0;

	for (int i = 0; i < 50; i++)
		s += data[i];
	return s;
}

void caller(void)
{
	for (int i = 0; i < 3; i++)
		data[i] = total();
}

int rsum(const int *p, int n)
{
	if (n == 0)
		return 0;
	return p[0] + rsum(p + 1, n - 1);
}

int show(struct pair v)
{
	return v.a + v.b;
}

int pass(const struct pair *q)
{
	return show(*q);
}

void twice(void)
{
	int t = g;

	caller();
	caller();
	g = t + 1;
}
