/*
 * lkrt.h: the runtime linked into loopkit benchmarks (liblkrt.a).
 *
 * A benchmark includes only this header. It measures one kernel call
 * expression with LK_MEASURE() and reports to the runner over the file
 * descriptor in LK_RESULT_FD, following doc/rt-protocol.md; started by
 * hand it prints a readable summary on stdout at exit.
 *
 *	int main(int argc, char **argv)
 *	{
 *		double *a;
 *
 *		lk_init(argc, argv);
 *		a = lk_alloc(N * sizeof(*a));
 *		...
 *		LK_MEASURE(kernel(a, N));
 *		return lk_finish();
 *	}
 *
 * Time is TSC ticks and CLOCK_MONOTONIC_RAW nanoseconds, never "cycles":
 * core cycles come from a PMU event or from a reference chain of imul
 * instructions of known latency timed beside every sample.
 *
 * Every lk_* and LK_* name is public; lk__* names are private to the
 * runtime and its macros and may change without notice.
 */
#ifndef LKRT_H
#define LKRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The reference chain: LK_REF_ITERS loop iterations of LK_REF_UNROLL
 * dependent `imul r64, r64`, LK_REF_LATENCY core cycles each (3 on every
 * Intel and AMD core since Nehalem/K10). The loop's dec/jnz is independent
 * and hides under the chain. 160 * 64 * 3 = 30720 cycles, ~12 us at
 * 2.6 GHz: well above timer resolution, short enough to run twice per
 * sample.
 */
#define LK_REF_UNROLL 64
#define LK_REF_LATENCY 3
#define LK_REF_ITERS 160
#define LK_REF_CYCLES                                                          \
	((uint64_t)LK_REF_ITERS * LK_REF_UNROLL * LK_REF_LATENCY)

/*
 * The issue probe, timed beside every sample with the reference chain:
 * LK_ISSUE_ITERS loop iterations of LK_ISSUE_CHAINS independent chains of
 * LK_ISSUE_UNROLL dependent `add r64, r64` each. Its floor is
 * LK_ISSUE_CYCLES core cycles on two counts at once: each chain does one
 * add per cycle, and four adds per cycle is all the integer ALUs of a
 * Haswell or later Intel core, or of any Zen, can issue (the loop's
 * dec/jnz adds one operation in 1025). So it runs slower only when
 * something else takes issue slots from it, such as another hardware
 * thread on the same core (on a VM, a co-tenant the guest cannot see);
 * the reference chain, one dependent chain, does not notice such a
 * neighbour (doc/method.md). 80 * 256 = 20480 cycles, ~8 us at 2.6 GHz:
 * long enough for a 10-ns TSC step to be 0.1 % of it.
 */
#define LK_ISSUE_CHAINS 4
#define LK_ISSUE_UNROLL 256
#define LK_ISSUE_ITERS 80
#define LK_ISSUE_CYCLES ((uint64_t)LK_ISSUE_ITERS * LK_ISSUE_UNROLL)

/*
 * The window probe, timed beside the issue probe: LK_WINDOW_ITERS loop
 * iterations of LK_WINDOW_CHAINS short chains, one after the other, each
 * of LK_WINDOW_LENGTH dependent `vaddsd` padded with three `nop`s. A chain
 * can only start while the one before it runs if the core's out-of-order
 * window holds both, so the probe runs at the pace the window allows: on
 * a core that shares its window with a second hardware thread (Zen and
 * Intel cores split the reorder buffer between two active threads) it
 * runs ~1.5 times slower (Zen 3), even when that thread takes few issue
 * slots and the issue probe barely notices. Its pace depends on the
 * window's size, so it has no floor known beforehand: the runner compares
 * its pace against the issue probe's with its best over the run
 * (doc/method.md).
 */
#define LK_WINDOW_CHAINS 4
#define LK_WINDOW_LENGTH 32
#define LK_WINDOW_ITERS 40

/*
 * Read the TSC, fenced. Used for both ends of every timed interval:
 *
 *	rdtscp; lfence
 *
 * rdtscp does not read the counter until every earlier instruction has
 * executed (and earlier loads are globally visible), so the kernel's work
 * before a stop read is inside the interval. The lfence after it keeps
 * later instructions from starting before the read, so the kernel's work
 * after a start read cannot leak in front of it. lfence is dispatch
 * serialising on Intel and on AMD since Zen 2 (Linux sets the bit on older
 * AMD parts). Stores still in the store buffer at the stop read are not
 * waited for; with a realistic number of steps per sample that tail is
 * negligible. Using the same sequence at both ends makes its cost cancel
 * in the empty-region overhead the runner subtracts. rdtscp clobbers ecx
 * (TSC_AUX); the "memory" clobber keeps the compiler from moving memory
 * accesses across the read.
 */
static inline uint64_t lk_tsc(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp\n\tlfence"
			 : "=a"(lo), "=d"(hi), "=c"(aux)
			 :
			 : "memory");
	return (uint64_t)hi << 32 | lo;
}

/*
 * Keep the compiler from deleting or constant-folding the computation of
 * x: the value is forced into a register or memory that an opaque asm
 * reads and may modify (Google Benchmark's DoNotOptimize). Any non-void
 * expression; evaluates to x's value. "+rm" rather than the alternatives
 * "+r,m", which gcc rejects for floating-point values.
 */
#define LK_DO_NOT_OPTIMIZE(x)                                                  \
	({                                                                     \
		__typeof__(x) lk__dno_ = (x);                                  \
		__asm__ volatile("" : "+rm"(lk__dno_) : : "memory");          \
		lk__dno_;                                                      \
	})

/* Tell the compiler any memory may have been read or written here. */
#define LK_CLOBBER_MEMORY() __asm__ volatile("" : : : "memory")

/*
 * Region-of-interest markers. Real, never-inlined functions with stable
 * symbol names: later loopkit stages put breakpoints on them. LK_MEASURE
 * calls them around every reported sample (not around warm-up or the
 * auto-steps probe); the timers start after lk_roi_begin() returns and
 * stop before lk_roi_end() is called.
 */
void lk_roi_begin(void);
void lk_roi_end(void);

/*
 * Read the LK_* environment (doc/rt-protocol.md), pin to the CPUs of
 * LK_CPU (a list: 3, 0-3, 0-3,6; threads started later inherit it), try
 * SCHED_FIFO if LK_FIFO=1, open LK_EVENTS, measure the TSC frequency and
 * the empty-region overhead, and write the protocol header. Registers an
 * atexit handler that calls lk_finish(). Calling it again does nothing;
 * LK_MEASURE calls it (with no arguments) if the program did not. Fatal
 * problems (a bad LK_* value, pinning refused, out of memory) write an
 * `error` line and exit with status 3.
 */
void lk_init(int argc, char **argv);

/*
 * Write the `end` line, or by hand the readable summary on stdout. Safe to
 * call more than once (only the first call writes) and called at exit if
 * main returns without it; a crash writes nothing, so a stream without
 * `end` means the benchmark died. Regions measured after it are not run.
 * Returns the exit status for main: 0, or 1 if results could not be
 * written.
 */
int lk_finish(void);

/*
 * Allocate bytes of zeroed memory aligned to a 4096-byte page (at least one
 * page). Never returns NULL: failure is fatal (`error` line, exit 3). Free
 * with lk_free(), which accepts NULL.
 */
void *lk_alloc(size_t bytes);
void lk_free(void *p);

/*
 * With LK_CACHE=cold, flush [p, p + bytes) from every cache level with
 * clflushopt (clflush on older CPUs) before every sample. The memory is
 * borrowed and must stay valid while regions run. If no buffer is
 * registered, cold mode instead sweeps (reads and writes) a buffer twice
 * the size of the last-level cache before every sample. Registering in hot
 * mode costs nothing.
 */
void lk_flush_register(const void *p, size_t bytes);

/*
 * The size in bytes of one instance of the last-level cache (the L3 of
 * CPU 0's core complex or die, as sysfs lists it; else
 * sysconf(_SC_LEVEL3_CACHE_SIZE)), or 0 when neither says. For sizing
 * working sets from the machine ("arrays of 4 x the LLC").
 */
size_t lk_llc_bytes(void);

/*
 * The TSC frequency in Hz, measured once against CLOCK_MONOTONIC_RAW over
 * ~25 ms (at lk_init, or at the first call) and cached.
 */
uint64_t lk_tsc_hz(void);

/*
 * Time the reference chain for iters iterations (iters * LK_REF_UNROLL
 * imuls, iters * LK_REF_UNROLL * LK_REF_LATENCY core cycles) and return
 * the TSC ticks it took. iters must be at least 1.
 */
uint64_t lk_ref_chain_tsc(uint64_t iters);

/*
 * Time the issue probe for iters iterations (iters * LK_ISSUE_UNROLL core
 * cycles at best, see LK_ISSUE_CHAINS) and return the TSC ticks it took.
 * iters must be at least 1.
 */
uint64_t lk_issue_probe_tsc(uint64_t iters);

/*
 * Time the window probe for iters iterations and return the TSC ticks it
 * took. iters must be at least 1.
 */
uint64_t lk_window_probe_tsc(uint64_t iters);

/*
 * The median over runs timings of the reference chain of core cycles per
 * TSC tick: the core clock relative to the TSC (e.g. 1.2 for a core
 * running at 3.0 GHz against a 2.5 GHz TSC). runs < 1 counts as 1.
 */
double lk_core_tsc_ratio(int runs);

/*
 * How many threads the kernel should run: LK_THREADS (the runner sets it
 * from the sweep's threads: axis, beside OMP_NUM_THREADS), else the first
 * number of OMP_NUM_THREADS, else the CPUs this process may run on (after
 * lk_init pinned it). At least 1. For kernels that start their own
 * threads; OpenMP reads OMP_NUM_THREADS itself.
 */
int lk_threads(void);

/*
 * Declare the work one evaluation of the kernel expression does, for the
 * next LK_MEASURE region this process opens: per_call units of unit
 * ("bytes", "flops", "instructions"...) per call. The runner derives
 * <unit>/cycle from the cycles figure and <unit>/s from the ns figure
 * (doc/rt-protocol.md):
 *
 *	lk_work("bytes", 3.0 * N * sizeof(double));
 *	lk_work("flops", 2.0 * N);
 *	LK_MEASURE_NAMED("triad", triad(a, b, c, N));
 *
 * Declarations accumulate until a region opens, which takes them all;
 * declaring a unit again before that replaces its value. The region after
 * that declares nothing unless lk_work is called again. Call it before
 * LK_MEASURE, not inside the measured expression. unit is [a-z0-9_], 1 to
 * 32 characters; per_call finite and > 0; at most 8 units per region.
 * Anything else is misuse: an `error` line (by hand, a message on stderr)
 * and exit status 3.
 */
void lk_work(const char *unit, double per_call);

/*
 * Measure expr, a kernel call expression (evaluated for its effect; commas
 * are allowed): LK_WARMUP evaluations, the auto-steps probe if LK_STEPS is
 * auto, then LK_REPETITIONS samples of `steps` evaluations each, with
 * LK_CLOBBER_MEMORY() after each evaluation so the compiler cannot hoist
 * work out of the timed loop. The expression appears once in the code, so
 * warm-up, probe and samples run the same instructions at one address.
 *
 * The probe doubles steps from 1 until the fastest of three samples
 * reaches LK_MIN_SAMPLE_TICKS (one interrupt alone can last that long).
 * With the reference chain (LK_CALIBRATE, the default), a sample shorter
 * than 1 ms waits while the issue and window probes say the core is
 * shared, at most 100 ms per region, and with a hot cache the wait runs
 * more rounds of `steps` evaluations outside the region of interest
 * (doc/method.md): count on at least, not exactly, warm-up + samples.
 * The default region name is "kernel"; a name measured again in the same
 * process is reported as name.2, name.3... Names are sanitised to
 * [A-Za-z0-9_.:-]. expr must not jump out of the macro (break, return,
 * goto); the runtime is single-threaded: measure from one thread at a time.
 * expr may run threads (an OpenMP loop): the samples are wall time on the
 * measuring thread, the reference chain times that thread's CPU only, and
 * the runner flags the region's cycles and events multi-threaded when
 * the process has more than one thread after its last sample.
 */
#define LK_MEASURE(...) LK_MEASURE_NAMED("kernel", __VA_ARGS__)

#define LK_MEASURE_NAMED(name, ...)                                            \
	do {                                                                   \
		struct lk__region *lk__r_ = lk__region_open(name);             \
		uint64_t lk__n_;                                               \
		int lk__roi_;                                                  \
		while ((lk__n_ = lk__region_next(lk__r_, &lk__roi_)) != 0) {   \
			if (lk__roi_)                                          \
				lk_roi_begin();                                \
			lk__sample_start(lk__r_);                              \
			do {                                                   \
				__VA_ARGS__;                                   \
				LK_CLOBBER_MEMORY();                           \
			} while (--lk__n_ != 0);                               \
			lk__sample_stop(lk__r_);                               \
			if (lk__roi_)                                          \
				lk_roi_end();                                  \
		}                                                              \
	} while (0)

/* Private: the machinery behind LK_MEASURE_NAMED. */
struct lk__region;
struct lk__region *lk__region_open(const char *name);
uint64_t lk__region_next(struct lk__region *r, int *roi);
void lk__sample_start(struct lk__region *r);
void lk__sample_stop(struct lk__region *r);

/*
 * memprof entry/exit tracing (doc/memprof-formats.md). The GCC plugin
 * inserts these calls; name is the function's name. Each call records its
 * entry and exit TSC in memory (single-threaded: the first thread to
 * enter is traced); the trace is written at exit to $LK_PROF_OUT
 * (default lkprof.trace) in the LKTRACE1 binary form.
 */
void lk_prof_enter(const char *name);
void lk_prof_exit(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* LKRT_H */
