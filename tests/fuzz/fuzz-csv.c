/*
 * libFuzzer target for the analyze input path: any bytes give a table or
 * one LK_EINPUT "fuzz:..." message; a parsed table types into columns,
 * and the first line of the input, used as a derived-column expression,
 * parses to an expression or one LK_EINPUT message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expression(struct lk_table *t, const uint8_t *data,
		       size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	char *text = strndup((const char *)data, nl ? (size_t)(nl - data) : size);
	char *def = malloc(strlen(text) + 8);
	struct lk_ctx ctx;

	strcpy(def, "fz=");
	strcat(def, text);
	lk_ctx_init(&ctx);
	if (lk_table_derive(&ctx, t, def) &&
	    ctx.code != LK_EINPUT)
		abort();
	free(def);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lk_ctx ctx;
	struct lk_csv csv;
	struct lk_table t;

	if (size > 65536)
		return 0;
	lk_ctx_init(&ctx);
	if (lk_csv_parse(&ctx, "fuzz", (const char *)data, size, &csv)) {
		if (ctx.code != LK_EINPUT || strncmp(ctx.msg, "fuzz:", 5))
			abort();
		return 0;
	}
	if (lk_table_from_csv(&ctx, "fuzz", &csv, NULL, &t))
		abort();
	expression(&t, data, size);
	lk_table_release(&t);
	lk_csv_release(&csv);
	return 0;
}
