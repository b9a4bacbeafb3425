/* Private to the harness stages: the per-variant items they report. */
#ifndef LOOPKIT_HARNESS_INT_H
#define LOOPKIT_HARNESS_INT_H

#include "loopkit/harness.h"

/* One item per variant, labelled like loopkit run's, status "pending". */
void stage_items_init(struct lk_stage_summary *sum,
		      const struct lk_variant_binary *v, size_t n);
void stage_item_set(struct lk_stage_item *item, const char *status,
		    const char *reason);

#endif
