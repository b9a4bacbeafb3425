/*
 * libFuzzer target for the generator's transformation chains
 * ("isl+tile,sizes=32x32"): any text gives a chain or an LK_EINPUT
 * message, a parsed chain's canonical text parses to itself, and
 * kernelify is never followed by another step.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_gen_chain c, again;
	struct lk_ctx ctx;
	size_t i;
	char *text;

	if (size > 4096)
		return 0;
	text = lk_strndup((const char *)data, size);
	lk_ctx_init(&ctx);
	if (!lk_gen_chain_parse(&ctx, text, "fuzz", &c)) {
		if (lk_gen_chain_parse(&ctx, c.text, NULL, &again))
			abort();
		if (strcmp(c.text, again.text) || c.nsteps != again.nsteps)
			abort();
		for (i = 0; i + 1 < c.nsteps; i++)
			if (!strcmp(c.steps[i].name, "kernelify"))
				abort();
		lk_gen_chain_release(&again);
		lk_gen_chain_release(&c);
	} else if (ctx.code != LK_EINPUT || !*ctx.msg) {
		abort();
	}
	free(text);
	return 0;
}
