/*
 * One kernel source, two harnesses. Built normally it is a loopkit
 * benchmark (lkrt.h, LK_MEASURE). Built with -DPLAIN_RDTSCP it is the
 * baseline the issue names: a plain rdtscp loop taking the minimum of
 * SAMPLES samples of STEPS calls, printed as ticks per call.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#ifdef PLAIN_RDTSCP
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

#define SAMPLES 1000
#define STEPS 16

#define BENCH_MEASURE(call)                                                  \
	do {                                                                 \
		uint64_t best = UINT64_MAX;                                  \
		unsigned aux;                                                \
		for (int s = 0; s < SAMPLES; s++) {                          \
			uint64_t t0 = __rdtscp(&aux);                        \
			for (int k = 0; k < STEPS; k++) {                    \
				call;                                        \
				__asm__ volatile("" ::: "memory");           \
			}                                                    \
			uint64_t t = __rdtscp(&aux) - t0;                    \
			if (t < best)                                        \
				best = t;                                    \
		}                                                            \
		printf("%.3f\n", (double)best / STEPS);                      \
	} while (0)
#define BENCH_INIT(argc, argv) ((void)(argc), (void)(argv))
#define BENCH_FINISH() 0
#else
#include <lkrt.h>
#define BENCH_MEASURE(call) LK_MEASURE(call)
#define BENCH_INIT(argc, argv) lk_init(argc, argv)
#define BENCH_FINISH() lk_finish()
#endif

#endif
