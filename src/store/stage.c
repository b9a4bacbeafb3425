/*
 * The stage summary every campaign stage fills (one item per variant,
 * its status and reason) and the content hash that keys a binary's
 * blocks, counts and lifted rows in the store.
 */
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

int lk_binary_hash(struct lk_ctx *ctx, const char *path,
		   char out[LK_HASH_HEX])
{
	char *data = NULL;
	size_t len = 0;
	int ret = lk_file_read_max(ctx, path, LK_FILE_MAX_BINARY, &data, &len);

	if (!ret)
		lk_hash_buf(data, len, out);
	free(data);
	return ret;
}

void lk_stage_summary_release(struct lk_stage_summary *sum)
{
	if (!sum)
		return;
	for (size_t i = 0; i < sum->n; i++) {
		free(sum->items[i].label);
		free(sum->items[i].status);
		free(sum->items[i].reason);
	}
	free(sum->items);
	free(sum->line);
	memset(sum, 0, sizeof(*sum));
}

void lk_stage_item_set(struct lk_stage_item *item, const char *status,
		     const char *reason)
{
	free(item->status);
	free(item->reason);
	item->status = lk_strdup(status);
	item->reason = lk_strdup(reason ? reason : "");
}

void lk_stage_items_init(struct lk_stage_summary *sum,
		       const struct lk_variant_binary *v, size_t n)
{
	memset(sum, 0, sizeof(*sum));
	sum->items = lk_calloc(n ? n : 1, sizeof(*sum->items));
	sum->n = n;
	for (size_t i = 0; i < n; i++) {
		sum->items[i].variant_id = v[i].variant_id;
		sum->items[i].label = lk_variant_name(
			v[i].source, v[i].compiler, v[i].flagset, v[i].params,
			v[i].nparams);
		lk_stage_item_set(&sum->items[i], "pending", "");
	}
}
