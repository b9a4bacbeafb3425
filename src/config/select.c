/* 'exclude:' and 'only:' selectors: loading and matching variants. */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

/* Indexed by enum lk_selector_op. */
static const char *const op_names[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "in", "not-in", NULL,
};

void lk_selectors_free(struct lk_selector *f, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < f[i].nconds; j++) {
			free(f[i].conds[j].key);
			lk_strv_release(&f[i].conds[j].values);
		}
		free(f[i].conds);
	}
	free(f);
}

/*
 * Aliases let a small file repeat a long list; count what we copy. One
 * list is bounded by the file's size, so checking after each is enough.
 */
static int budget(struct lk_loader *ld, const yaml_node_t *n, long count)
{
	ld->selector_values += count;
	if (ld->selector_values > LK_SELECTOR_VALUES_MAX)
		return lk_yaml_error(ld, n, "filters: more than %ld values "
				     "in all", LK_SELECTOR_VALUES_MAX);
	return 0;
}

static int load_scalars(struct lk_loader *ld, const yaml_node_t *n,
			const char *key, struct lk_strv *values)
{
	yaml_node_item_t *it = n->data.sequence.items.start;
	const char *v;
	int ret = 0;

	if (n->type != YAML_SEQUENCE_NODE) {
		ret = lk_yaml_scalar(ld, n, key, &v);
		if (!ret)
			lk_strv_push(values, v);
		return ret;
	}
	if (it == n->data.sequence.items.top)
		return lk_yaml_error(ld, n, "%s: empty list", key);
	for (; !ret && it < n->data.sequence.items.top; it++) {
		ret = lk_yaml_scalar(ld, lk_yaml_node(ld, *it), key, &v);
		if (!ret)
			lk_strv_push(values, v);
	}
	return ret;
}

/* 'name' was checked to be one of op_names. */
static enum lk_selector_op op_index(const char *name)
{
	int i;

	for (i = 0; op_names[i]; i++)
		if (!strcmp(op_names[i], name))
			return (enum lk_selector_op)i;
	LK_BUG("unchecked filter operator");
}

/* {op: value}: exactly one operator. */
static int load_op(struct lk_loader *ld, const yaml_node_t *n,
		   struct lk_selector_cond *c)
{
	yaml_node_pair_t *p = n->data.mapping.pairs.start;
	yaml_node_t *v;
	double num;
	int ret = lk_yaml_check_map(ld, n, op_names, c->key);

	if (!ret && n->data.mapping.pairs.top - p != 1)
		ret = lk_yaml_error(ld, n, "%s: expected exactly one of eq, "
				    "ne, lt, le, gt, ge, in, not-in", c->key);
	if (ret)
		return ret;
	c->op = op_index((const char *)
			 lk_yaml_node(ld, p->key)->data.scalar.value);
	v = lk_yaml_node(ld, p->value);
	if (c->op == LK_SEL_IN || c->op == LK_SEL_NOT_IN)
		return load_scalars(ld, v, c->key, &c->values);
	if (v->type == YAML_SEQUENCE_NODE)
		return lk_yaml_error(ld, v, "%s: %s takes one value, not a "
				     "list", c->key, op_names[c->op]);
	ret = load_scalars(ld, v, c->key, &c->values);
	if (!ret && c->op >= LK_SEL_LT && c->op <= LK_SEL_GE &&
	    lk_parse_number(c->values.v[0], &num))
		ret = lk_yaml_error(ld, v, "%s: %s needs a number, not '%s'",
				    c->key, op_names[c->op], c->values.v[0]);
	return ret;
}

/* source, compiler, flags or an axis name; *names must be freed. */
static const char **selector_keys(const struct lk_sweep *s)
{
	const char **names = lk_calloc(s->naxes + 4, sizeof(*names));
	size_t i;

	names[0] = "source";
	names[1] = "compiler";
	names[2] = "flags";
	for (i = 0; i < s->naxes; i++)
		names[3 + i] = s->axes[i].name;
	return names;
}

static int load_cond(struct lk_loader *ld, const yaml_node_t *k,
		     const yaml_node_t *v, struct lk_selector_cond *c)
{
	c->key = lk_strdup((const char *)k->data.scalar.value);
	if (v->type == YAML_MAPPING_NODE)
		return load_op(ld, v, c);
	c->op = v->type == YAML_SEQUENCE_NODE ? LK_SEL_IN : LK_SEL_EQ;
	return load_scalars(ld, v, c->key, &c->values);
}

static int load_filter(struct lk_loader *ld, const yaml_node_t *n,
		       const char *what, const char *const *keys,
		       struct lk_selector *f)
{
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, n, keys, what);

	f->line = lk_yaml_line(n);
	if (!ret && n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		ret = lk_yaml_error(ld, n, "%s: empty filter", what);
	for (p = n->data.mapping.pairs.start;
	     !ret && p < n->data.mapping.pairs.top; p++) {
		struct lk_selector_cond *c;

		f->conds = lk_reallocarray(f->conds, f->nconds + 1,
					   sizeof(*f->conds));
		c = memset(&f->conds[f->nconds++], 0, sizeof(*c));
		ret = load_cond(ld, lk_yaml_node(ld, p->key),
				lk_yaml_node(ld, p->value), c);
		/* At the key: an aliased value's line is its anchor's. */
		if (!ret)
			ret = budget(ld, lk_yaml_node(ld, p->key),
				     (long)c->values.n);
	}
	return ret;
}

int lk_load_selectors(struct lk_loader *ld, const yaml_node_t *list,
		    const char *what, struct lk_selector **out, size_t *n)
{
	yaml_node_item_t *it = list->data.sequence.items.start;
	const char **keys;
	int ret = 0;

	if (list->type != YAML_SEQUENCE_NODE)
		return lk_yaml_error(ld, list, "%s: expected a list of maps",
				     what);
	if (it == list->data.sequence.items.top)
		return lk_yaml_error(ld, list, "%s: empty list", what);
	keys = selector_keys(ld->sweep);
	for (; !ret && it < list->data.sequence.items.top; it++) {
		*out = lk_reallocarray(*out, *n + 1, sizeof(**out));
		memset(&(*out)[*n], 0, sizeof(**out));
		ret = load_filter(ld, lk_yaml_node(ld, *it), what, keys,
				  &(*out)[(*n)++]);
	}
	free(keys);
	return ret;
}

static int compare(enum lk_selector_op op, const char *value, const char *ref)
{
	double a, b;

	if (lk_parse_number(value, &a) || lk_parse_number(ref, &b))
		return 0;
	switch (op) {
	case LK_SEL_LT: return a < b;
	case LK_SEL_LE: return a <= b;
	case LK_SEL_GT: return a > b;
	case LK_SEL_GE: return a >= b;
	default: LK_BUG("not a comparison");
	}
}

static int any_in(const struct lk_strv *values, const char *const *names,
		  size_t nnames)
{
	size_t i, j;

	for (i = 0; i < nnames; i++)
		for (j = 0; j < values->n; j++)
			if (names[i] && !strcmp(names[i], values->v[j]))
				return 1;
	return 0;
}

/*
 * A thing may go by several names (a source by its base name, as written
 * or its absolute path): eq/in hold if any name is listed, ne/not-in if
 * none is, comparisons look at the first.
 */
int lk_selector_cond_holds(const struct lk_selector_cond *c,
			   const char *const *names, size_t nnames)
{
	switch (c->op) {
	case LK_SEL_EQ:
	case LK_SEL_IN:
		return any_in(&c->values, names, nnames);
	case LK_SEL_NE:
	case LK_SEL_NOT_IN:
		return !any_in(&c->values, names, nnames);
	default:
		return c->values.n && compare(c->op, names[0], c->values.v[0]);
	}
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static const char *written_source(const struct lk_sweep *s, const char *src)
{
	size_t i;

	for (i = 0; i < s->sources.n && i < s->source_names.n; i++)
		if (s->sources.v[i] == src || !strcmp(s->sources.v[i], src))
			return s->source_names.v[i];
	return NULL;
}

static int cond_match(const struct lk_sweep *s,
		      const struct lk_selector_cond *c,
		      const struct lk_variant *v)
{
	const char *names[3];
	size_t i;

	if (!strcmp(c->key, "source")) {
		names[0] = base_name(v->source);
		names[1] = v->source;
		names[2] = written_source(s, v->source);
		return lk_selector_cond_holds(c, names, 3);
	}
	if (!strcmp(c->key, "compiler")) {
		names[0] = v->compiler;
		names[1] = base_name(v->compiler);
		return lk_selector_cond_holds(c, names, 2);
	}
	if (!strcmp(c->key, "flags")) {
		names[0] = v->flagset->name;
		return lk_selector_cond_holds(c, names, 1);
	}
	for (i = 0; i < s->naxes; i++)
		if (!strcmp(c->key, s->axes[i].name))
			return lk_selector_cond_holds(c, &v->values[i], 1);
	return 0;
}

int lk_selector_match(const struct lk_sweep *s, const struct lk_selector *f,
		    const struct lk_variant *v)
{
	size_t i;

	for (i = 0; i < f->nconds; i++)
		if (!cond_match(s, &f->conds[i], v))
			return 0;
	return 1;
}
