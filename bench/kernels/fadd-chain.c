/* A dependent chain of 1,000 floating-point adds (latency bound). */
#include "harness.h"

#define N 1000

__attribute__((noinline)) static double chain(double x, double d)
{
	for (int i = 0; i < N; i++) {
		x += d;
		__asm__("" : "+x"(x)); /* keep every add, in order */
	}
	return x;
}

int main(int argc, char **argv)
{
	volatile double sink, d = 1e-9;

	BENCH_INIT(argc, argv);
	BENCH_MEASURE(sink = chain(1.0, d));
	(void)sink;
	return BENCH_FINISH();
}
