/*
 * libFuzzer target: the runtime-protocol parser on arbitrary bytes. It
 * must never crash, leak or hit undefined behaviour, and whatever it
 * returns must be consistent and releasable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__ubsan_default_options(void);

/* run.sh builds with recoverable UBSan checks: make any report fatal. */
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1";
}

/* Walk everything the parser handed back, as the runner would. */
static void check_output(const struct lk_rt_output *out)
{
	size_t i, j;

	if (out->nevents > LK_RT_MAX_EVENTS)
		abort();
	if (out->info_keys.n != out->info_values.n)
		abort();
	for (i = 0; i < out->info_keys.n; i++)
		if (lk_rt_info(out, out->info_keys.v[i]) == NULL)
			abort();
	for (i = 0; i < out->nregions; i++) {
		const struct lk_rt_region *r = &out->regions[i];

		for (j = 0; j < r->nsamples; j++)
			if (r->samples[j].steps < 1 ||
			    r->samples[j].ev_mask >> out->nevents)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so ASan sees any read past the length. */
	char *text = malloc(size ? size : 1);
	struct lk_rt_output out;
	struct lk_ctx ctx;
	int ret;

	memcpy(text, data, size);
	lk_ctx_init(&ctx);
	ret = lk_rt_parse(&ctx, "fuzz", text, size, &out);
	if (ret && (ret != LK_EINPUT || strncmp(ctx.msg, "fuzz:", 5)))
		abort();
	if (!ret)
		check_output(&out);
	lk_rt_output_release(&out);
	free(text);
	return 0;
}
