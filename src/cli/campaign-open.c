/* The campaign mode shared by the commands that run a stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/config.h"
#include "loopkit/store.h"

/* Without a campaign file: the store's one campaign with variants. */
static int only_campaign(struct lk_ctx *ctx, struct lk_store *s,
			 const char *dir, int64_t *campaign)
{
	struct lk_strv names = LK_STRV_INIT;
	int64_t *ids = NULL;
	size_t n = 0;
	int ret = lk_store_campaigns_with_variants(ctx, s, &ids, &names, &n);

	if (!ret && n == 1) {
		*campaign = ids[0];
	} else if (!ret && !n) {
		ret = lk_error(ctx, LK_EINPUT, "%s: no campaign with variants "
			       "(run 'loopkit run -c CAMPAIGN.yaml -o %s' "
			       "first)", dir, dir);
	} else if (!ret) {
		char *list = lk_strv_join(&names, ", ");

		ret = lk_error(ctx, LK_EINPUT, "%s holds %zu campaigns (%s): "
			       "name one with -c CAMPAIGN.yaml", dir, n, list);
		free(list);
	}
	free(ids);
	lk_strv_release(&names);
	return ret;
}

int lk_cli_campaign_open(struct lk_ctx *ctx, const char *config,
			 const char *dir, struct lk_sweep **sw,
			 struct lk_store **s, int64_t *campaign)
{
	int ret = 0;

	*sw = NULL;
	*s = NULL;
	if (config)
		ret = lk_sweep_load(ctx, config, sw);
	if (!ret)
		ret = lk_store_open(ctx, dir, 0, s);
	if (ret == LK_ENOTFOUND)
		ret = lk_error(ctx, LK_EINPUT, "%s: no campaign store there "
			       "(run 'loopkit run -c %s -o %s' first)", dir,
			       config ? config : "CAMPAIGN.yaml", dir);
	if (!ret && config)
		ret = lk_store_campaign(ctx, *s, (*sw)->name, NULL, NULL,
					campaign);
	else if (!ret)
		ret = only_campaign(ctx, *s, dir, campaign);
	if (ret) {
		lk_store_close(*s);
		lk_sweep_free(*sw);
		*s = NULL;
		*sw = NULL;
	}
	return ret;
}

int lk_cli_campaign_create(struct lk_ctx *ctx, const char *dir,
			   const struct lk_sweep *sw, struct lk_store **s,
			   int64_t *campaign)
{
	int ret = lk_store_open(ctx, dir, LK_STORE_CREATE, s);

	if (!ret)
		ret = lk_store_campaign(ctx, *s, sw->name, sw->path, NULL,
					campaign);
	if (ret) {
		lk_store_close(*s);
		*s = NULL;
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

int lk_cli_apply_methods(struct lk_ctx *ctx, struct lk_sweep *sw,
			 const struct lk_strv *settings, const char *where)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < settings->n; i++) {
		char *kv = lk_strdup(settings->v[i]), *eq = strchr(kv, '=');

		if (!eq) {
			ret = lk_error(ctx, LK_EINPUT, "--method expects "
				       "KEY=VALUE, not '%s'", kv);
		} else {
			*eq = '\0';
			ret = lk_method_set(ctx, &sw->method, kv, eq + 1,
					    where);
		}
		free(kv);
	}
	return ret;
}
