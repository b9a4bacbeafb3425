/*
 * Straight-line code: no loops, so no factors; one line per block and
 * kind. Counts by hand, per function (L loads, S stores):
 *
 *   globals   one block: g, h read (2 L); arr[0], arr[1], g written (3 S)
 *   pointers  one block: p->x, p->y read (2 L); q[2], *q written (2 S)
 *   locals    one block: s is a plain local struct, not counted; only
 *             *out is written (1 S)
 *   add       no memory at all: the function line alone
 *   pick      two blocks, one load each: p[0] in the then-block, p[1]
 *             in the else-block (two "1 load" lines)
 */
int g, h;
int arr[8];

struct point {
	int x, y;
};

void globals(void)
{
	arr[0] = g;
	arr[1] = h;
	g = 0;
}

void pointers(struct point *p, int *q)
{
	q[2] = p->x;
	*q = p->y;
}

void locals(int *out)
{
	struct point s;

	s.x = 1;
	s.y = 2;
	*out = s.x + s.y;
}

int add(int a, int b)
{
	return a + b;
}

int pick(const int *p, int c)
{
	if (c)
		return p[0];
	return p[1];
}
