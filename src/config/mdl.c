/*
 * The mdl: section of a campaign file: how loopkit mdl eval (and the
 * campaign's mdl stage) evaluates MDL's predictions of the variants'
 * innermost loops against their replays (doc/loopkit-mdl.md, "eval").
 *
 *   mdl:
 *     levels: [L1, L2, L3, RAM]   # default: the database's levels
 *     max-streams: 7              # replay refuses loops with more
 *     orders: 2                   # k-NN weighted orders
 *     kmax: 3                     # k-NN steps at most
 *     combine: joint              # or sum (per µkernel)
 *     mca: true                   # llvm-mca beside, when installed
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const mdl_keys[] = {"levels", "max-streams", "orders",
				       "kmax", "combine", "mca", NULL};
static const char *const level_names[] = {"L1", "L2", "L3", "RAM"};

static int load_levels(struct lk_loader *ld, const yaml_node_t *n,
		       struct lk_mdl_cfg *m)
{
	yaml_node_t **items = NULL;
	size_t nitems = 0, i, k;
	int ret = lk_yaml_strings(ld, n, "mdl.levels", &items, &nitems);

	for (i = 0; !ret && i < nitems; i++) {
		const char *v = (const char *)items[i]->data.scalar.value;

		for (k = 0; k < LK_ARRAY_SIZE(level_names); k++)
			if (!strcmp(v, level_names[k]))
				break;
		if (k == LK_ARRAY_SIZE(level_names))
			ret = lk_yaml_error(ld, items[i], "mdl.levels: '%s' "
					    "is not L1, L2, L3 or RAM", v);
		else
			m->levels |= 1u << k;
	}
	if (!ret && !m->levels)
		ret = lk_yaml_error(ld, n, "mdl.levels: name at least one "
				    "of L1, L2, L3, RAM");
	free(items);
	return ret;
}

static int load_word(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_mdl_cfg *m, const char *key)
{
	char *what = lk_asprintf("mdl.%s", key);
	const char *text;
	int ret = lk_yaml_scalar(ld, n, what, &text), yes = 0;

	if (!ret && !strcmp(key, "combine")) {
		if (strcmp(text, "joint") && strcmp(text, "sum"))
			ret = lk_yaml_error(ld, n, "%s: expected joint or "
					    "sum, not '%s'", what, text);
		m->combine_sum = !strcmp(text, "sum");
	} else if (!ret) {
		if (lk_parse_bool(text, &yes))
			ret = lk_yaml_error(ld, n, "%s: expected true or "
					    "false, not '%s'", what, text);
		m->no_mca = !yes;
	}
	free(what);
	return ret;
}

int lk_load_mdl(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_mdl_cfg *m = &ld->sweep->mdl;
	yaml_node_t *v;
	int ret;

	m->given = 1;
	m->line = lk_yaml_line(n);
	if (lk_yaml_is_null(n))
		return 0;
	ret = lk_yaml_check_map(ld, n, mdl_keys, "mdl");
	v = ret ? NULL : lk_yaml_get(ld, n, "levels");
	if (v && !lk_yaml_is_null(v))
		ret = load_levels(ld, v, m);
	v = ret ? NULL : lk_yaml_get(ld, n, "max-streams");
	if (v && !lk_yaml_is_null(v))
		ret = lk_yaml_long(ld, v, "mdl.max-streams", 1, 14,
				   &m->max_streams);
	v = ret ? NULL : lk_yaml_get(ld, n, "orders");
	if (v && !lk_yaml_is_null(v))
		ret = lk_yaml_long(ld, v, "mdl.orders", 1, 16,
				   &m->orders);
	v = ret ? NULL : lk_yaml_get(ld, n, "kmax");
	if (v && !lk_yaml_is_null(v))
		ret = lk_yaml_long(ld, v, "mdl.kmax", 1, 64, &m->kmax);
	v = ret ? NULL : lk_yaml_get(ld, n, "combine");
	if (v && !lk_yaml_is_null(v))
		ret = load_word(ld, v, m, "combine");
	v = ret ? NULL : lk_yaml_get(ld, n, "mca");
	if (v && !lk_yaml_is_null(v))
		ret = load_word(ld, v, m, "mca");
	return ret;
}
