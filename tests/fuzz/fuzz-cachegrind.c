/*
 * libFuzzer target: arbitrary bytes read as a cachegrind.out file, for
 * the function "k". It must never crash, leak or hit undefined
 * behaviour; what it refuses is LK_EINPUT with a message, and a file it
 * accepts gives a non-negative warm ratio against nothing, or none.
 */
#include <stdint.h>
#include <stdlib.h>

#include "loopkit/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

/* run.sh builds with recoverable UBSan checks: make any report fatal. */
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_cg_counts none = {{0}, 0}, c;
	struct lk_ctx ctx;
	double ratio, reads;

	lk_ctx_init(&ctx);
	if (lk_cachegrind_function(&ctx, "fuzz.out", (const char *)data, size,
				   "k", &c)) {
		if (ctx.code != LK_EINPUT || !ctx.msg[0])
			abort();
		return 0;
	}
	if (!lk_l1_warm_ratio(&ctx, &none, &c, &ratio, &reads) &&
	    !(ratio >= 0 && ratio <= 1e300))
		abort();
	return 0;
}
