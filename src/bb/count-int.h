/* count: private interface between the plan (count.c), the tracer
 * (count-trace.c) and the hardware breakpoint counters (count-hw.c). */
#ifndef LOOPKIT_COUNT_INT_H
#define LOOPKIT_COUNT_INT_H

#include <stdint.h>
#include <sys/types.h>

#include "loopkit/count.h"

/* Every block index, the most deeply nested loops first (by how many
 * back edges' address ranges hold the block), then by address. */
void lk_count_hot_order(const struct lk_cfg *cfg, size_t *order);

/* Up to four addresses counted by perf hardware execution breakpoints
 * (the x86 debug registers), without stopping the tracee. */
#define COUNT_HW_MAX 4

struct count_hw {
	int fd[COUNT_HW_MAX];
	size_t block[COUNT_HW_MAX];
	size_t n;
};

/* Open a disabled counter on pid's execution of addr; -1 if refused. */
int count_hw_open(pid_t pid, uint64_t addr);
void count_hw_enable(const struct count_hw *hw, int on);
/* Add what each counter counted to counts[block] and reset it. */
int count_hw_collect(struct lk_ctx *ctx, const struct count_hw *hw,
		     uint64_t *counts);
void count_hw_close(struct count_hw *hw);

#endif
