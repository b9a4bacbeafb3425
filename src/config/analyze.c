/*
 * The analyze: section of a campaign file: the analyses the analyze stage
 * runs on the campaign's variants (one row each: the parameters as
 * columns, a metric as the target). One analysis as a map, or a list.
 *
 *   analyze:
 *     - name: cycles               # the directory under <store>/analyze/
 *       target: cycles             # a metric or a parameter
 *       features: [kernel, flags]  # default: columns with >= 2 values
 *       categories: kde            # none, kde, step:FROM:WIDTH
 *       max-depth: 4
 *       tau-by: flags              # Kendall's tau within each value too
 *       plots:
 *         - {x: kernel, group: flags, kind: scatter}
 *
 * Forms are checked here (numbers, names, operators); columns are checked
 * against the table when the stage runs.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const analysis_keys[] = {
	"name", "target", "features", "derive", "where", "normalize",
	"categories", "bandwidth", "criterion", "max-depth",
	"min-samples-split", "min-samples-leaf", "max-leaf-nodes",
	"ccp-alpha", "forest", "forest-max-depth", "knn", "permutation",
	"test", "seed", "plots", "tau-by", NULL,
};
static const char *const plot_keys[] = {"x", "y", "group", "kind", NULL};
static const char *const normalizations[] = {"none", "minmax", "zscore",
					     "log", NULL};
static const char *const criteria[] = {"gini", "entropy", NULL};
static const char *const plot_kinds[] = {"line", "scatter", NULL};
static const char *const where_ops[] = {"eq", "ne", "lt", "le", "gt", "ge",
					"in", "not-in", NULL};

/* The whole-number keys: where each goes and its bounds. */
static const struct long_key {
	const char *key;
	size_t offset;
	long min, max;
} long_keys[] = {
	{"max-depth", offsetof(struct lk_analysis_cfg, max_depth), 0, 1000},
	{"min-samples-split",
	 offsetof(struct lk_analysis_cfg, min_samples_split), 2, 1000000000},
	{"min-samples-leaf",
	 offsetof(struct lk_analysis_cfg, min_samples_leaf), 1, 1000000000},
	{"max-leaf-nodes", offsetof(struct lk_analysis_cfg, max_leaf_nodes), 2,
	 1000000000},
	{"forest", offsetof(struct lk_analysis_cfg, forest), 0, 100000},
	{"forest-max-depth", offsetof(struct lk_analysis_cfg, forest_max_depth),
	 0, 1000},
	{"knn", offsetof(struct lk_analysis_cfg, knn), 0, 100000},
	{"permutation", offsetof(struct lk_analysis_cfg, permutation), 0, 1000},
	{"seed", offsetof(struct lk_analysis_cfg, seed), 0, 2147483647},
};

/* The scalar of key in map n, NULL if absent or null; *ret on error. */
static const char *text_of(struct lk_loader *ld, const yaml_node_t *n,
			   const char *key, const char *what, int *ret)
{
	yaml_node_t *v = lk_yaml_get(ld, n, key);
	const char *t = NULL;

	if (!v || lk_yaml_is_null(v) || *ret)
		return NULL;
	*ret = lk_yaml_scalar(ld, v, what, &t);
	if (!*ret && !*t)
		*ret = lk_yaml_error(ld, v, "%s: empty value", what);
	return *ret ? NULL : t;
}

/* One of 'allowed' (with a hint), copied into *out. */
static int load_choice(struct lk_loader *ld, const yaml_node_t *map,
		       const char *key, const char *what,
		       const char *const *allowed, char **out)
{
	int ret = 0;
	const char *t = text_of(ld, map, key, key, &ret);
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	if (!t)
		return ret;
	for (i = 0; allowed[i]; i++)
		if (!strcmp(t, allowed[i])) {
			*out = lk_strdup(t);
			return 0;
		}
	lk_suggest_hint(&b, t, allowed);
	ret = lk_yaml_error(ld, lk_yaml_get(ld, map, key),
			    "%s: unknown value '%s' %s", what, t,
			    lk_buf_str(&b));
	lk_buf_release(&b);
	return ret;
}

static int load_longs(struct lk_loader *ld, const yaml_node_t *map,
		      struct lk_analysis_cfg *a)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < LK_ARRAY_SIZE(long_keys); i++) {
		const struct long_key *k = &long_keys[i];
		const char *t = text_of(ld, map, k->key, k->key, &ret);
		long v;

		if (!t)
			continue;
		if (lk_parse_decimal(t, &v) || v < k->min || v > k->max)
			ret = lk_yaml_error(ld, lk_yaml_get(ld, map, k->key),
					    "analyze.%s: expected a whole "
					    "number from %ld to %ld, not '%s'",
					    k->key, k->min, k->max, t);
		else
			*(long *)((char *)a + k->offset) = v;
	}
	return ret;
}

static int load_fractions(struct lk_loader *ld, const yaml_node_t *map,
			  struct lk_analysis_cfg *a)
{
	int ret = 0;
	const char *t = text_of(ld, map, "test", "test", &ret);

	if (t && (lk_parse_number(t, &a->test) || !(a->test > 0) ||
		  !(a->test < 1)))
		return lk_yaml_error(ld, lk_yaml_get(ld, map, "test"),
				     "analyze.test: expected a fraction "
				     "in (0, 1), not '%s'", t);
	t = ret ? NULL : text_of(ld, map, "ccp-alpha", "ccp-alpha", &ret);
	if (t && (lk_parse_number(t, &a->ccp_alpha) || !(a->ccp_alpha >= 0)))
		return lk_yaml_error(ld, lk_yaml_get(ld, map, "ccp-alpha"),
				     "analyze.ccp-alpha: expected a number "
				     ">= 0, not '%s'", t);
	return ret;
}

/* none, kde or step:FROM:WIDTH (WIDTH > 0). */
static int load_categories(struct lk_loader *ld, const yaml_node_t *map,
			   struct lk_analysis_cfg *a)
{
	int ret = 0;
	const char *t = text_of(ld, map, "categories", "categories", &ret);
	char *end;
	double width;

	if (!t)
		return ret;
	if (!strcmp(t, "none") || !strcmp(t, "kde")) {
		a->categories = lk_strdup(t);
		return 0;
	}
	if (!strncmp(t, "step:", 5)) {
		strtod(t + 5, &end);
		if (end != t + 5 && *end == ':') {
			width = strtod(end + 1, &end);
			if (!*end && width > 0) {
				a->categories = lk_strdup(t);
				return 0;
			}
		}
	}
	return lk_yaml_error(ld, lk_yaml_get(ld, map, "categories"),
			     "analyze.categories: expected none, kde or "
			     "step:FROM:WIDTH, not '%s'", t);
}

/* A string or a list of strings into out, each checked by ok(). */
static int load_list(struct lk_loader *ld, const yaml_node_t *map,
		     const char *key, struct lk_strv *out,
		     const char *(*problem)(const char *))
{
	yaml_node_t *v = lk_yaml_get(ld, map, key), **items = NULL;
	size_t nitems = 0, i;
	char what[64];
	int ret;

	if (!v || lk_yaml_is_null(v))
		return 0;
	snprintf(what, sizeof(what), "analyze.%s", key);
	ret = lk_yaml_strings(ld, v, what, &items, &nitems);
	for (i = 0; !ret && i < nitems; i++) {
		const char *t = (const char *)items[i]->data.scalar.value;
		const char *why = problem(t);

		if (why)
			ret = lk_yaml_error(ld, items[i], "%s: '%s' %s", what,
					    t, why);
		else
			lk_strv_push(out, t);
	}
	free(items);
	return ret;
}

static const char *no_problem(const char *s)
{
	(void)s;
	return NULL;
}

static const char *derive_problem(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq && eq > s && eq[1] ? NULL : "is not NAME=EXPRESSION";
}

static const char *where_problem(const char *s)
{
	const char *a = strchr(s, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	size_t i;

	if (!a || a == s || !b || !b[1])
		return "is not COLUMN:OPERATOR:VALUE";
	for (i = 0; where_ops[i]; i++)
		if (strlen(where_ops[i]) == (size_t)(b - a - 1) &&
		    !strncmp(where_ops[i], a + 1, (size_t)(b - a - 1)))
			return NULL;
	return "has an unknown operator (eq ne lt le gt ge in not-in)";
}

static int load_plot(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_analysis_plot *p)
{
	int ret = lk_yaml_check_map(ld, n, plot_keys, "analyze.plots");
	const char *t;
	char *kind = NULL;

	t = text_of(ld, n, "x", "analyze.plots.x", &ret);
	if (!ret && !t)
		return lk_yaml_error(ld, n, "analyze.plots: missing 'x'");
	p->x = t ? lk_strdup(t) : NULL;
	t = text_of(ld, n, "y", "analyze.plots.y", &ret);
	p->y = t ? lk_strdup(t) : NULL;
	t = text_of(ld, n, "group", "analyze.plots.group", &ret);
	p->group = t ? lk_strdup(t) : NULL;
	if (!ret)
		ret = load_choice(ld, n, "kind", "analyze.plots.kind",
				  plot_kinds, &kind);
	p->scatter = kind && !strcmp(kind, "scatter");
	free(kind);
	return ret;
}

static int load_plots(struct lk_loader *ld, const yaml_node_t *map,
		      struct lk_analysis_cfg *a)
{
	yaml_node_t *v = lk_yaml_get(ld, map, "plots");
	yaml_node_item_t *it;
	int ret = 0;

	if (!v || lk_yaml_is_null(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return lk_yaml_error(ld, v, "analyze.plots: expected a list "
				     "of {x, y, group, kind} maps");
	for (it = v->data.sequence.items.start;
	     !ret && it < v->data.sequence.items.top; it++) {
		a->plots = lk_realloc(a->plots, (a->nplots + 1) *
					       sizeof(*a->plots));
		memset(&a->plots[a->nplots], 0, sizeof(*a->plots));
		ret = load_plot(ld, lk_yaml_node(ld, *it),
				&a->plots[a->nplots++]);
	}
	return ret;
}

/* A name that is a directory's: letters, digits, . _ -, no leading dot. */
static int good_name(const char *s)
{
	const char *p;

	if (!*s || *s == '.' || strlen(s) > 64)
		return 0;
	for (p = s; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-", *p))
			return 0;
	return 1;
}

static int load_names(struct lk_loader *ld, const yaml_node_t *map,
		      struct lk_analysis_cfg *a)
{
	int ret = 0;
	const char *target = text_of(ld, map, "target", "analyze.target",
				     &ret);
	const char *name;

	if (!ret && !target)
		return lk_yaml_error(ld, map, "analyze: missing required key "
				     "'target'");
	a->target = target ? lk_strdup(target) : NULL;
	name = ret ? NULL : text_of(ld, map, "name", "analyze.name", &ret);
	if (!ret && !good_name(name ? name : target))
		return lk_yaml_error(ld, lk_yaml_get(ld, map, name ? "name"
							       : "target"),
				     "analyze.name: '%s' cannot name a "
				     "directory (letters, digits, '.', '_', "
				     "'-'; give name:)", name ? name : target);
	a->name = ret ? NULL : lk_strdup(name ? name : target);
	return ret;
}

static int load_analysis(struct lk_loader *ld, const yaml_node_t *n,
			 struct lk_analysis_cfg *a)
{
	int ret = lk_yaml_check_map(ld, n, analysis_keys, "analyze");

	a->line = lk_yaml_line(n);
	a->forest = 100;
	a->knn = 10;
	a->permutation = 10;
	a->test = 0.2;
	if (!ret)
		ret = load_names(ld, n, a);
	if (!ret)
		ret = load_list(ld, n, "features", &a->features, no_problem);
	if (!ret)
		ret = load_list(ld, n, "derive", &a->derive, derive_problem);
	if (!ret)
		ret = load_list(ld, n, "where", &a->where, where_problem);
	if (!ret)
		ret = load_choice(ld, n, "normalize", "analyze.normalize",
				  normalizations, &a->normalize);
	if (!ret)
		ret = load_choice(ld, n, "criterion", "analyze.criterion",
				  criteria, &a->criterion);
	if (!ret)
		ret = load_categories(ld, n, a);
	if (!ret) {
		const char *t = text_of(ld, n, "bandwidth",
					"analyze.bandwidth", &ret);

		a->bandwidth = t ? lk_strdup(t) : NULL;
	}
	if (!ret) {
		const char *t = text_of(ld, n, "tau-by", "analyze.tau-by",
					&ret);

		a->tau_by = t ? lk_strdup(t) : NULL;
	}
	if (!ret)
		ret = load_longs(ld, n, a);
	if (!ret)
		ret = load_fractions(ld, n, a);
	if (!ret)
		ret = load_plots(ld, n, a);
	return ret;
}

static int add_analysis(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_analyze_cfg *c = &ld->sweep->analyze;
	struct lk_analysis_cfg *a;
	size_t i;
	int ret;

	c->list = lk_realloc(c->list, (c->n + 1) * sizeof(*c->list));
	a = memset(&c->list[c->n++], 0, sizeof(*a));
	ret = load_analysis(ld, n, a);
	for (i = 0; !ret && i + 1 < c->n; i++)
		if (!strcmp(c->list[i].name, a->name))
			ret = lk_yaml_error(ld, n, "analyze: two analyses are "
					    "called '%s' (give name:)",
					    a->name);
	return ret;
}

int lk_load_analyze(struct lk_loader *ld, const yaml_node_t *n)
{
	yaml_node_item_t *it;
	int ret = 0;

	ld->sweep->analyze.given = 1;
	ld->sweep->analyze.line = lk_yaml_line(n);
	if (n->type == YAML_MAPPING_NODE)
		return add_analysis(ld, n);
	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return lk_yaml_error(ld, n, "analyze: expected an analysis "
				     "(a map with target:) or a list of them");
	for (it = n->data.sequence.items.start;
	     !ret && it < n->data.sequence.items.top; it++)
		ret = add_analysis(ld, lk_yaml_node(ld, *it));
	return ret;
}

static void release_analysis(struct lk_analysis_cfg *a)
{
	size_t i;

	free(a->name);
	free(a->target);
	lk_strv_release(&a->features);
	lk_strv_release(&a->derive);
	lk_strv_release(&a->where);
	free(a->normalize);
	free(a->categories);
	free(a->bandwidth);
	free(a->criterion);
	free(a->tau_by);
	for (i = 0; i < a->nplots; i++) {
		free(a->plots[i].x);
		free(a->plots[i].y);
		free(a->plots[i].group);
	}
	free(a->plots);
}

void lk_analyze_cfg_release(struct lk_analyze_cfg *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		release_analysis(&a->list[i]);
	free(a->list);
	memset(a, 0, sizeof(*a));
}
