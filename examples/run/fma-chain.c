/*
 * fma-chain.c: N dependent fused multiply-adds, x = x * m + k, so the time
 * per step is N times the FMA latency (4 cycles on recent Intel and AMD
 * cores). Build with -mfma or -march=native to get one vfmadd instruction
 * per fma() instead of a libm call.
 *
 *	cc -O2 -march=native -I rt examples/run/fma-chain.c \
 *		build/lib/liblkrt.a -lm
 */
#include <lkrt.h>
#include <math.h>

#ifndef N
#define N 1000
#endif

/*
 * Each fma() needs the previous result: no reassociation is allowed for
 * fma even under -ffast-math, so the chain cannot be split. m and k come
 * in as arguments the compiler cannot see through (LK_DO_NOT_OPTIMIZE at
 * the call), and x converges to k / (1 - m) without denormals.
 */
__attribute__((noinline)) static double fma_chain(double x, double m,
						  double k, long n)
{
	long i;

	for (i = 0; i < n; i++)
		x = fma(x, m, k);
	return x;
}

int main(int argc, char **argv)
{
	double m = 0.999, k = 0.001, x = 1.0;

	lk_init(argc, argv);
	LK_MEASURE_NAMED("fma-chain",
			 x = fma_chain(LK_DO_NOT_OPTIMIZE(x),
				       LK_DO_NOT_OPTIMIZE(m),
				       LK_DO_NOT_OPTIMIZE(k), N));
	LK_DO_NOT_OPTIMIZE(x);
	return lk_finish();
}
