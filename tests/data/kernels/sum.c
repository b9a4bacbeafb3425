/* A scalar reduction whose length is set with -D N=... */
#include <lkrt.h>

#ifndef N
#define N 256
#endif

static long data[N];

__attribute__((noinline)) static long sum(const long *v, long n)
{
	long s = 0, i;

	for (i = 0; i < n; i++)
		s += v[i] * 3 + 1;
	return s;
}

int main(int argc, char **argv)
{
	long i;

	lk_init(argc, argv);
	for (i = 0; i < N; i++)
		data[i] = i;
	LK_MEASURE(LK_DO_NOT_OPTIMIZE(sum(data, N)));
	return lk_finish();
}
