/*
 * mix.c: functions that differ only in their mix of loads and stores, for
 * `loopkit memprof run`: the fit of exclusive time per call against the
 * static counts gives a cost per load and per store (L1-resident arrays,
 * independent accesses: a throughput cost, not a pointer-chasing latency).
 *
 *	loopkit memprof run examples/memprof/mix.c -- -O1 -falign-loops=64
 *
 * (Aligned loops: a small loop whose compare and branch straddle two
 * 64-byte lines runs at half speed, whatever its accesses.)
 *
 * Every access goes through volatile, so each counted load or store is one
 * machine access at any -O level, and no value feeds a dependency chain:
 * the loop's own overhead is the same in every function (the constant of
 * the fit), the accesses are what differ.
 */
#define N 1024

static volatile long va[N], vb[N], vc[N], vd[N];

#define L1 (void)va[i]
#define L2 L1; (void)vb[i]
#define L4 L2; (void)vc[i]; (void)vd[i]
#define S1 va[i] = i
#define S2 S1; vb[i] = i
#define S4 S2; vc[i] = i; vd[i] = i

#define FUNC(name, body)                                                      \
	__attribute__((noinline)) void name(void)                            \
	{                                                                     \
		for (long i = 0; i < N; i++) {                                \
			body;                                                 \
		}                                                             \
	}

FUNC(load1, L1)
FUNC(load2, L2)
FUNC(load4, L4)
FUNC(load8, L4; L4)
FUNC(store1, S1)
FUNC(store2, S2)
FUNC(store4, S4)
FUNC(mix4x2, L4; S2)
FUNC(mix2x4, L2; S4)

int main(void)
{
	for (int r = 0; r < 300; r++) {
		load1();
		load2();
		load4();
		load8();
		store1();
		store2();
		store4();
		mix4x2();
		mix2x4();
	}
	return 0;
}
