/*
 * A tiny stand-in for PolyBench/C's harness, written for loopkit's tests:
 * the same names a kernel uses and the same array-dump protocol
 * (-DPOLYBENCH_DUMP_ARRAYS prints the arrays on stderr between
 * "==BEGIN DUMP_ARRAYS==" and "==END   DUMP_ARRAYS=="). The allocator
 * lives in polybench.c, so a kernel does not link without it.
 */
#ifndef LK_TEST_POLYBENCH_H
#define LK_TEST_POLYBENCH_H

#include <stdio.h>

#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START \
	fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH \
	fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")

#define POLYBENCH_LOOP_BOUND(x, y) y
#define POLYBENCH_2D(var, d1, d2, ddim1, ddim2) var[d1][d2]
#define POLYBENCH_ARRAY(x) *x
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, ddim1, ddim2) \
	type(*var)[d1][d2] = \
		(type(*)[d1][d2])polybench_alloc_data((d1) * (d2), \
						       sizeof(type))
#define POLYBENCH_FREE_ARRAY(x) polybench_free_data(x)

#ifdef POLYBENCH_DUMP_ARRAYS
#define polybench_prevent_dce(func) func
#else
#define polybench_prevent_dce(func) \
	if (argc > 42 && argv[0][0] == '\0') \
		func
#endif

void *polybench_alloc_data(unsigned long long n, int elt_size);
void polybench_free_data(void *p);

#endif
