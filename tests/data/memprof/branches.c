/*
 * A loop with an if inside: every block of the loop body gets the loop's
 * trip count, whichever arm runs. The counts are per loop trip, so for an
 * arm they are an upper bound (here both arms of split get 16 though
 * together they run 16 times).
 *
 *   split   i = 0..15:
 *           test block: a[i] read               1 * 16 load
 *           then-arm: a[i] read, b[i] written   1 * 16 load, 1 * 16 store
 *           else-arm: c[i] written              1 * 16 store
 *   find    returns from inside the loop: two exits, so GCC gives no
 *           count: 1 * (unknown) load for p[i] in the body
 *   clamp   if inside a nested loop (i = 0..2, j = 0..3): m[i][j] read in
 *           the test, written in the then-arm: 1 * 3 * 4 load,
 *           1 * 3 * 4 store
 */
int a[16], b[16], c[16];

void split(void)
{
	for (int i = 0; i < 16; i++) {
		if (a[i] > 0)
			b[i] = a[i];
		else
			c[i] = 0;
	}
}

int find(const int *p, int key)
{
	for (int i = 0; i < 64; i++)
		if (p[i] == key)
			return i;
	return -1;
}

void clamp(int m[3][4])
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			if (m[i][j] > 9)
				m[i][j] = 9;
}
