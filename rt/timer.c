/*
 * timer.c: TSC frequency, the imul reference chain, the issue and window
 * probes, and the cost of an empty region.
 */
#include <stdlib.h>
#include <time.h>

#include "lkrt-int.h"

#define HZ_WINDOW_NS 25000000ull
#define OVERHEAD_RUNS 1000
#define OVERHEAD_WARMUP 50

uint64_t lk__ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * One (TSC, ns) pair. The TSC is read on both sides of clock_gettime and
 * the midpoint taken; of a few tries the tightest bracket wins, so an
 * interrupt inside one (a few microseconds) cannot skew the frequency.
 */
static void clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 8; i++) {
		uint64_t before = lk_tsc();
		uint64_t now = lk__ns_now();
		uint64_t after = lk_tsc();

		if (after - before < best) {
			best = after - before;
			*ns = now;
			*tsc = before + best / 2;
		}
	}
}

/*
 * Spin rather than sleep: both clocks are invariant, but a sleeping
 * process can be woken late, and spinning makes the window exact.
 */
static uint64_t measure_tsc_hz(void)
{
	uint64_t tsc0, ns0, tsc1, ns1;

	clock_pair(&tsc0, &ns0);
	do
		clock_pair(&tsc1, &ns1);
	while (ns1 - ns0 < HZ_WINDOW_NS);
	return (uint64_t)((double)(tsc1 - tsc0) * 1e9 / (double)(ns1 - ns0) +
			  0.5);
}

uint64_t lk_tsc_hz(void)
{
	if (!lk__rt.tsc_hz)
		lk__rt.tsc_hz = measure_tsc_hz();
	return lk__rt.tsc_hz;
}

/* TSC ticks that run(iters) takes, iters at least 1 (the chains and
 * probes below). */
static uint64_t timed(void (*run)(uint64_t), uint64_t iters)
{
	uint64_t t0, t1;

	if (!iters)
		iters = 1;
	t0 = lk_tsc();
	run(iters);
	t1 = lk_tsc();
	return t1 - t0;
}

/*
 * iters * LK_REF_UNROLL dependent imuls: x = x * x, each needing the last.
 * imul latency does not depend on the operands' values.
 */
static void ref_chain(uint64_t iters)
{
	uint64_t x = iters;

	__asm__ volatile("1:\n\t"
			 ".rept 64\n\t"
			 "imul %[x], %[x]\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [x] "+r"(x), [n] "+r"(iters)
			 :
			 : "cc");
}

_Static_assert(LK_REF_UNROLL == 64, "ref_chain's .rept must match");

uint64_t lk_ref_chain_tsc(uint64_t iters)
{
	return timed(ref_chain, iters);
}

uint64_t lk__ref_run(void)
{
	return lk_ref_chain_tsc(LK_REF_ITERS);
}

/*
 * Four chains of LK_ISSUE_UNROLL register adds per iteration, interleaved
 * so that each add's chain predecessor is four instructions back: in
 * order, a core issues one add of every chain per cycle. The dec/jnz pair
 * fuses into one more operation per iteration (1 in 1025).
 */
static void issue_probe(uint64_t iters)
{
	uint64_t a = 1, b = 2, c = 3, d = 4;

	__asm__ volatile("1:\n\t"
			 ".rept 256\n\t"
			 "add %[a], %[a]\n\t"
			 "add %[b], %[b]\n\t"
			 "add %[c], %[c]\n\t"
			 "add %[d], %[d]\n\t"
			 ".endr\n\t"
			 "dec %[n]\n\t"
			 "jnz 1b"
			 : [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d),
			   [n] "+r"(iters)
			 :
			 : "cc");
}

_Static_assert(LK_ISSUE_CHAINS == 4 && LK_ISSUE_UNROLL == 256,
	       "issue_probe's chains and .rept must match");

uint64_t lk_issue_probe_tsc(uint64_t iters)
{
	return timed(issue_probe, iters);
}

uint64_t lk__issue_run(void)
{
	return lk_issue_probe_tsc(LK_ISSUE_ITERS);
}

/*
 * Each chain starts from a register zeroed by an idiom (no dependence on
 * the chain before), then LK_WINDOW_LENGTH adds each need the last. VEX
 * encoding where the core has AVX: legacy SSE after a kernel's 256-bit
 * code would pay Intel's transition penalty inside the probe.
 */
#define WINDOW_BODY(xor, add)                                                  \
	"1:\n\t"                                                               \
	".rept 4\n\t" xor " %%xmm0, %%xmm0\n\t"                              \
	".rept 32\n\t" add " %%xmm0, %%xmm0\n\t"                             \
	"nop\n\tnop\n\tnop\n\t"                                                \
	".endr\n\t"                                                            \
	".endr\n\t"                                                            \
	"dec %[n]\n\t"                                                         \
	"jnz 1b"

static void window_probe(uint64_t iters)
{
	static int avx = -1;

	if (avx < 0)
		avx = __builtin_cpu_supports("avx");
	if (avx)
		__asm__ volatile(WINDOW_BODY("vxorpd %%xmm0,", "vaddsd %%xmm0,")
				 : [n] "+r"(iters)
				 :
				 : "cc", "xmm0");
	else
		__asm__ volatile(WINDOW_BODY("xorpd", "addsd")
				 : [n] "+r"(iters)
				 :
				 : "cc", "xmm0");
}

_Static_assert(LK_WINDOW_CHAINS == 4 && LK_WINDOW_LENGTH == 32,
	       "window_probe's .rept counts must match");

uint64_t lk_window_probe_tsc(uint64_t iters)
{
	return timed(window_probe, iters);
}

uint64_t lk__window_run(void)
{
	return lk_window_probe_tsc(LK_WINDOW_ITERS);
}

double lk_core_tsc_ratio(int runs)
{
	double *ratio;
	double median;
	int i;

	if (runs < 1)
		runs = 1;
	ratio = malloc(runs * sizeof(*ratio));
	if (!ratio)
		lk__fatal("out of memory");
	lk__ref_run(); /* warm the code and wake the core up */
	for (i = 0; i < runs; i++)
		ratio[i] = (double)LK_REF_CYCLES / (double)lk__ref_run();
	median = lk__median_d(ratio, runs);
	free(ratio);
	return median;
}

/* Twins of lk_roi_begin/end: same shape, but no breakpoint sits on them. */
__attribute__((noinline)) static void roi_twin_begin(void)
{
	__asm__ volatile("" : : : "memory");
}

__attribute__((noinline)) static void roi_twin_end(void)
{
	__asm__ volatile("# twin end" : : : "memory");
}

/*
 * The empty region: the path LK_MEASURE takes around a sample with no
 * kernel in it, events and all. The real markers are not called so that
 * tools counting lk_roi_begin() hits see only real samples.
 */
void lk__measure_overhead(void)
{
	static uint64_t tsc[OVERHEAD_RUNS], ns[OVERHEAD_RUNS];
	struct lk__region r = { 0 };
	int i;

	for (i = -OVERHEAD_WARMUP; i < OVERHEAD_RUNS; i++) {
		roi_twin_begin();
		lk__sample_start(&r);
		LK_CLOBBER_MEMORY();
		lk__sample_stop(&r);
		roi_twin_end();
		if (i < 0)
			continue;
		tsc[i] = r.tsc1 - r.tsc0;
		ns[i] = r.ns1 - r.ns0;
	}
	lk__u64_sort(tsc, OVERHEAD_RUNS);
	lk__u64_sort(ns, OVERHEAD_RUNS);
	lk__rt.ovh_tsc_min = tsc[0];
	lk__rt.ovh_tsc_median = tsc[OVERHEAD_RUNS / 2];
	lk__rt.ovh_ns_min = ns[0];
	lk__rt.ovh_ns_median = ns[OVERHEAD_RUNS / 2];
}
