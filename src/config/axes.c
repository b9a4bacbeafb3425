/* The -D axes: 'defines:' in YAML, NAME=VALUE from the command line. */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const range_keys[] = {"from", "to", "step", NULL};

void lk_axes_free(struct lk_axis *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(a[i].name);
		lk_strv_release(&a[i].values);
	}
	free(a);
}

/* An axis named like a filter key could never be filtered on. */
int lk_axis_is_reserved(const char *name)
{
	return !strcmp(name, "source") || !strcmp(name, "compiler") ||
	       !strcmp(name, "flags");
}

static struct lk_axis *axis_append(struct lk_sweep *s, const char *name,
				   long line)
{
	struct lk_axis *a;

	s->axes = lk_reallocarray(s->axes, s->naxes + 1, sizeof(*s->axes));
	a = &s->axes[s->naxes++];
	memset(a, 0, sizeof(*a));
	a->name = lk_strdup(name);
	a->line = line;
	return a;
}

/* NULL if 'name' can be a new axis of s, else why not. */
static const char *name_problem(const struct lk_sweep *s, const char *name)
{
	size_t i;

	if (!lk_is_identifier(name))
		return "is not a C identifier";
	if (lk_axis_is_reserved(name))
		return "is reserved for filters (source, compiler, flags)";
	for (i = 0; i < s->naxes; i++)
		if (!strcmp(s->axes[i].name, name))
			return "is defined twice";
	return NULL;
}

int lk_sweep_add_define(struct lk_ctx *ctx, struct lk_sweep *s,
			const char *def)
{
	const char *eq = strchr(def, '=');
	char *name = eq ? lk_strndup(def, (size_t)(eq - def)) : lk_strdup(def);
	const char *problem = name_problem(s, name);
	int ret = 0;

	if (problem)
		ret = lk_error(ctx, LK_EINPUT, "define '%s': name '%s' %s", def,
			       name, problem);
	else
		lk_strv_push(&axis_append(s, name, 0)->values,
			     eq ? eq + 1 : "");
	free(name);
	return ret;
}

/*
 * Aliases let a small file repeat a long list; count what we copy. One
 * axis is bounded by the file's size or LK_RANGE_MAX, so checking after
 * each is enough.
 */
static int budget(struct lk_loader *ld, const yaml_node_t *n, long count)
{
	ld->axis_values += count;
	if (ld->axis_values > LK_AXIS_VALUES_MAX)
		return lk_yaml_error(ld, n, "defines: more than %ld values "
				     "over all axes", LK_AXIS_VALUES_MAX);
	return 0;
}

static int range_bound(struct lk_loader *ld, const yaml_node_t *range,
		       const char *key, long *out)
{
	yaml_node_t *n = lk_yaml_get(ld, range, key);
	const char *v;
	int ret;

	if (!n)
		return lk_yaml_error(ld, range, "range: missing '%s'", key);
	ret = lk_yaml_scalar(ld, n, key, &v);
	if (!ret && lk_parse_decimal(v, out))
		ret = lk_yaml_error(ld, n, "range: %s '%s' is not an integer",
				    key, v);
	return ret;
}

/* How many values from..to by step gives; -1 if none or too many. */
static long range_count(long from, long to, long step)
{
	unsigned long span, ustep;

	if (step > 0 ? to < from : to > from)
		return -1;
	/* Unsigned: to - from can overflow a long. */
	span = step > 0 ? (unsigned long)to - (unsigned long)from
			: (unsigned long)from - (unsigned long)to;
	ustep = step > 0 ? (unsigned long)step : -(unsigned long)step;
	if (span / ustep >= (unsigned long)LK_RANGE_MAX)
		return -1;
	return (long)(span / ustep) + 1;
}

static int load_range(struct lk_loader *ld, const yaml_node_t *n,
		      struct lk_strv *values)
{
	long from, to, step = 1, count, i;
	int ret = lk_yaml_check_map(ld, n, range_keys, "range");

	if (!ret)
		ret = range_bound(ld, n, "from", &from);
	if (!ret)
		ret = range_bound(ld, n, "to", &to);
	if (!ret && lk_yaml_get(ld, n, "step"))
		ret = range_bound(ld, n, "step", &step);
	if (ret)
		return ret;
	if (!step)
		return lk_yaml_error(ld, n, "range: step must not be 0");
	count = range_count(from, to, step);
	if (count < 0)
		return lk_yaml_error(ld, n, "range: from %ld to %ld step %ld "
				     "gives no values or more than %ld", from,
				     to, step, LK_RANGE_MAX);
	for (i = 0; i < count; i++)
		lk_strv_pushf(values, "%ld",
			      (long)((unsigned long)from +
				     (unsigned long)i * (unsigned long)step));
	return 0;
}

static int load_list(struct lk_loader *ld, const yaml_node_t *n,
		     const char *name, struct lk_strv *values)
{
	yaml_node_item_t *it = n->data.sequence.items.start;
	long count = (long)(n->data.sequence.items.top - it), i;
	size_t dup;
	int ret = 0;

	if (!count)
		return lk_yaml_error(ld, n, "defines: axis '%s' is empty",
				     name);
	for (i = 0; !ret && i < count; i++) {
		const char *v;

		ret = lk_yaml_scalar(ld, lk_yaml_node(ld, it[i]), name, &v);
		if (!ret)
			lk_strv_push(values, v);
	}
	dup = ret ? 0 : lk_find_duplicate((const char *const *)values->v,
					  values->n);
	if (!ret && dup < values->n)
		ret = lk_yaml_error(ld, lk_yaml_node(ld, it[dup]),
				    "defines: value '%s' of axis '%s' is "
				    "listed twice", values->v[dup], name);
	return ret;
}

/* A list of scalars, a {from, to, step} range, one scalar, or ~. */
static int load_values(struct lk_loader *ld, const yaml_node_t *n,
		       const char *name, struct lk_strv *values)
{
	const char *v;
	int ret;

	if (n->type == YAML_SEQUENCE_NODE)
		return load_list(ld, n, name, values);
	if (n->type == YAML_MAPPING_NODE)
		return load_range(ld, n, values);
	ret = lk_yaml_scalar(ld, n, name, &v);
	if (!ret)
		lk_strv_push(values, v);
	return ret;
}

static int load_axis(struct lk_loader *ld, const yaml_node_t *k,
		     const yaml_node_t *v)
{
	const char *name = (const char *)k->data.scalar.value;
	struct lk_axis *a = axis_append(ld->sweep, name, lk_yaml_line(k));
	int ret = load_values(ld, v, name, &a->values);

	/* At the key: an aliased value's line is its anchor's. */
	if (!ret)
		ret = budget(ld, k, (long)a->values.n);
	return ret;
}

int lk_load_axes(struct lk_loader *ld, const yaml_node_t *defines)
{
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, defines, NULL, "defines");

	if (!ret && defines->data.mapping.pairs.start ==
			    defines->data.mapping.pairs.top)
		ret = lk_yaml_error(ld, defines, "defines: empty map");
	for (p = defines->data.mapping.pairs.start;
	     !ret && p < defines->data.mapping.pairs.top; p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);
		const char *name = (const char *)k->data.scalar.value;
		const char *problem = name_problem(ld->sweep, name);

		if (ld->sweep->naxes >= (size_t)LK_AXES_MAX)
			ret = lk_yaml_error(ld, k, "defines: more than %ld "
					    "axes", LK_AXES_MAX);
		else if (problem)
			ret = lk_yaml_error(ld, k, "defines: name '%s' %s",
					    name, problem);
		else
			ret = load_axis(ld, k, lk_yaml_node(ld, p->value));
	}
	return ret;
}
