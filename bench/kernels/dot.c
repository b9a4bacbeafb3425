/* Dot product of 1,000 doubles (a vectorisable reduction at -O3). */
#include "harness.h"

#define N 1000

static double a[N], b[N];

__attribute__((noinline)) static double dot(const double *x, const double *y)
{
	double s = 0;

	for (int i = 0; i < N; i++)
		s += x[i] * y[i];
	return s;
}

int main(int argc, char **argv)
{
	volatile double sink;

	BENCH_INIT(argc, argv);
	for (int i = 0; i < N; i++) {
		a[i] = 1.0 / (i + 1);
		b[i] = (double)(i % 17);
	}
	BENCH_MEASURE(sink = dot(a, b));
	(void)sink;
	return BENCH_FINISH();
}
