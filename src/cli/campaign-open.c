/* The campaign mode shared by blocks, count, lift and filter. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "loopkit/harness.h"

int lk_cli_campaign_open(struct lk_ctx *ctx, const char *config,
			 const char *dir, struct lk_sweep **sw,
			 struct lk_store **s, int64_t *campaign)
{
	int ret;

	*sw = NULL;
	*s = NULL;
	if (!config)
		return lk_error(ctx, LK_EINPUT, "a campaign is named by its "
				"file: add -c CAMPAIGN.yaml");
	ret = lk_sweep_load(ctx, config, sw);
	if (!ret)
		ret = lk_store_open(ctx, dir, 0, s);
	if (ret == LK_ENOTFOUND)
		ret = lk_error(ctx, LK_EINPUT, "%s: no campaign store there "
			       "(run 'loopkit run -c %s -o %s' first)", dir,
			       config, dir);
	if (!ret)
		ret = lk_store_campaign(ctx, *s, (*sw)->name, NULL, NULL,
					campaign);
	if (ret) {
		lk_store_close(*s);
		lk_sweep_free(*sw);
		*s = NULL;
		*sw = NULL;
	}
	return ret;
}

void lk_cli_print_stage(const char *stage, const char *store_dir,
			const struct lk_stage_summary *sum)
{
	size_t i, width = 8;

	for (i = 0; i < sum->n; i++)
		if (strlen(sum->items[i].label) > width)
			width = strlen(sum->items[i].label);
	for (i = 0; i < sum->n; i++) {
		const struct lk_stage_item *it = &sum->items[i];

		if (*it->reason)
			printf("%-*s  %-10s  %s\n", (int)width, it->label,
			       it->status, it->reason);
		else
			printf("%-*s  %s\n", (int)width, it->label,
			       it->status);
	}
	fprintf(stderr, "loopkit: %s: %zu variants: %ld done now, %ld stored "
			"earlier, %ld failed, %ld skipped; store: %s\n",
		stage, sum->n, sum->done, sum->earlier, sum->failed,
		sum->skipped, store_dir);
}
