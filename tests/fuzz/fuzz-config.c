/*
 * libFuzzer target for the sweep loader: any bytes must give either a
 * sweep or an LK_EINPUT message, never a crash, a leak or a hang.
 * The name anchors relative sources at /, so seeds can name files that
 * exist everywhere (/etc/passwd, etc/hostname).
 */
#include <stdint.h>
#include <stdlib.h>

#include "loopkit/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Expansion is linear in the product: keep the fuzzer fast. */
static size_t product(const struct lk_sweep *s)
{
	size_t n = s->sources.n * s->compilers.n * s->nflagsets, i;

	for (i = 0; i < s->naxes && n <= 20000; i++)
		n *= s->axes[i].values.n;
	return n;
}

/* Filters only ever drop variants, and every value is an axis value. */
static void exercise(const struct lk_sweep *s)
{
	struct lk_ctx ctx;
	struct lk_variant *v;
	size_t n, total = product(s), i, j;

	lk_ctx_init(&ctx);
	free(lk_method_canonical(&s->method));
	free(lk_reducer_name(&s->method));
	if (total > 20000)
		return;
	if (lk_sweep_expand(&ctx, s, &v, &n) || n > total)
		abort();
	for (i = 0; i < n; i++)
		for (j = 0; j < s->naxes; j++)
			if (!v[i].values[j])
				abort();
	lk_variants_free(v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_ctx ctx;
	struct lk_sweep *s;

	lk_ctx_init(&ctx);
	if (lk_sweep_parse(&ctx, "/fuzz.yaml", (const char *)data, size, &s)) {
		/* Every failure must say where, and be the user's fault. */
		if (!ctx.msg[0] || (ctx.code != LK_EINPUT &&
				    ctx.code != LK_ESYS) || s)
			abort();
		return 0;
	}
	exercise(s);
	lk_sweep_free(s);
	return 0;
}
