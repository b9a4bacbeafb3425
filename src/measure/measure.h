/* Private to src/measure: one variant's measurement, used by runner.c. */
#ifndef LOOPKIT_MEASURE_PRIVATE_H
#define LOOPKIT_MEASURE_PRIVATE_H

#include "loopkit/measure.h"

struct lk_unit_result {
	char *status;   /* ok, unstable, crashed, timed-out, failed */
	char *reason;
};

/*
 * Measure the binary at 'binary' under the sweep's method and metrics,
 * and store the run (samples, infos, results) in one transaction.
 * A benchmark's failure is recorded, not returned: only store or system
 * failures return < 0.
 */
int lk_measure_unit(struct lk_ctx *ctx, struct lk_store *s,
		    const struct lk_sweep *sweep, const char *binary,
		    int64_t variant_id, int64_t build_id, int64_t env_id,
		    const char *method_hash, struct lk_unit_result *out);

/* Record a run that never started (its build failed). */
int lk_measure_record_failure(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t variant_id, int64_t build_id,
			      int64_t env_id, const char *method_hash,
			      const char *method, const char *status,
			      const char *reason);

#endif
