/* Walking a libyaml document with a line number for every complaint. */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

long lk_yaml_line(const yaml_node_t *n)
{
	return (long)n->start_mark.line + 1;
}

int lk_yaml_error(struct lk_loader *ld, const yaml_node_t *n,
		  const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = lk_vasprintf(fmt, ap);
	va_end(ap);
	lk_error_at(ld->ctx, LK_EINPUT, ld->file, n ? lk_yaml_line(n) : 0,
		    "%s", msg);
	free(msg);
	return LK_EINPUT;
}

yaml_node_t *lk_yaml_node(struct lk_loader *ld, yaml_node_item_t id)
{
	yaml_node_t *n = yaml_document_get_node(ld->doc, id);

	if (!n)
		LK_BUG("dangling YAML node id");
	return n;
}

int lk_yaml_is_null(const yaml_node_t *n)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	size_t i;

	if (n->type != YAML_SCALAR_NODE ||
	    n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (i = 0; i < LK_ARRAY_SIZE(nulls); i++)
		if (!strcmp((const char *)n->data.scalar.value, nulls[i]))
			return 1;
	return 0;
}

int lk_yaml_scalar(struct lk_loader *ld, const yaml_node_t *n,
		   const char *what, const char **out)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE)
		return lk_yaml_error(ld, n, "%s: expected a single value, "
				     "not a %s", what,
				     n->type == YAML_MAPPING_NODE ? "map"
								  : "list");
	v = (const char *)n->data.scalar.value;
	/* A "\0" escape would silently cut the string short in C. */
	if (strlen(v) != n->data.scalar.length)
		return lk_yaml_error(ld, n, "%s: NUL character in value",
				     what);
	*out = lk_yaml_is_null(n) ? "" : v;
	return 0;
}

static int is_allowed(const char *key, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (!strcmp(key, *allowed))
			return 1;
	return 0;
}

static int unknown_key(struct lk_loader *ld, const yaml_node_t *k,
		       const char *key, const char *const *allowed,
		       const char *where)
{
	struct lk_buf hint = LK_BUF_INIT;
	int ret;

	lk_suggest_hint(&hint, key, allowed);
	ret = lk_yaml_error(ld, k, "unknown key '%s' %s %s %s", key,
			    strcmp(where, "top level") ? "in" : "at", where,
			    lk_buf_str(&hint));
	lk_buf_release(&hint);
	return ret;
}

/* The keys of map n, checked to be strings, in document order. */
static int map_keys(struct lk_loader *ld, const yaml_node_t *n,
		    const char *where, const char ***keys, size_t *nkeys)
{
	yaml_node_pair_t *p, *top = n->data.mapping.pairs.top;
	size_t i = 0;
	int ret = 0;

	*nkeys = (size_t)(top - n->data.mapping.pairs.start);
	*keys = lk_calloc(*nkeys ? *nkeys : 1, sizeof(**keys));
	for (p = n->data.mapping.pairs.start; p < top && !ret; p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);

		if (k->type != YAML_SCALAR_NODE)
			ret = lk_yaml_error(ld, k, "%s: expected a plain "
					    "key, not a %s", where,
					    k->type == YAML_MAPPING_NODE
						    ? "map" : "list");
		else
			ret = lk_yaml_scalar(ld, k, where, &(*keys)[i++]);
	}
	return ret;
}

int lk_yaml_check_map(struct lk_loader *ld, const yaml_node_t *n,
		      const char *const *allowed, const char *where)
{
	yaml_node_pair_t *pairs = n->data.mapping.pairs.start;
	const char **keys = NULL;
	size_t nkeys, i, dup;
	int ret;

	if (n->type != YAML_MAPPING_NODE)
		return lk_yaml_error(ld, n, "%s: expected a map", where);
	ret = map_keys(ld, n, where, &keys, &nkeys);
	if (ret)
		goto out;
	for (i = 0; allowed && i < nkeys && !ret; i++)
		if (!is_allowed(keys[i], allowed))
			ret = unknown_key(ld, lk_yaml_node(ld, pairs[i].key),
					  keys[i], allowed, where);
	dup = lk_find_duplicate(keys, nkeys);
	if (!ret && dup < nkeys)
		ret = lk_yaml_error(ld, lk_yaml_node(ld, pairs[dup].key),
				    "duplicate key '%s' in %s", keys[dup],
				    where);
out:
	free(keys);
	return ret;
}

yaml_node_t *lk_yaml_get(struct lk_loader *ld, const yaml_node_t *n,
			 const char *key)
{
	yaml_node_pair_t *p;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);

		if (!strcmp((const char *)k->data.scalar.value, key))
			return lk_yaml_node(ld, p->value);
	}
	return NULL;
}

static int one_string(struct lk_loader *ld, yaml_node_t *n, const char *what)
{
	const char *v;
	int ret = lk_yaml_scalar(ld, n, what, &v);

	if (!ret && !*v)
		ret = lk_yaml_error(ld, n, "%s: empty value", what);
	return ret;
}

static int list_strings(struct lk_loader *ld, const yaml_node_t *n,
			const char *what, yaml_node_t **items, size_t nitems)
{
	yaml_node_item_t *it = n->data.sequence.items.start;
	size_t i;
	int ret = 0;

	for (i = 0; i < nitems && !ret; i++) {
		items[i] = lk_yaml_node(ld, it[i]);
		ret = one_string(ld, items[i], what);
	}
	return ret;
}

int lk_yaml_strings(struct lk_loader *ld, const yaml_node_t *n,
		    const char *what, yaml_node_t ***items, size_t *nitems)
{
	int ret;

	*items = NULL;
	*nitems = 0;
	if (n->type == YAML_MAPPING_NODE)
		return lk_yaml_error(ld, n, "%s: expected a string or a "
				     "list of strings", what);
	if (n->type == YAML_SEQUENCE_NODE &&
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return lk_yaml_error(ld, n, "%s: empty list", what);
	*nitems = n->type == YAML_SCALAR_NODE
			  ? 1
			  : (size_t)(n->data.sequence.items.top -
				     n->data.sequence.items.start);
	*items = lk_calloc(*nitems, sizeof(**items));
	if (n->type == YAML_SCALAR_NODE) {
		(*items)[0] = (yaml_node_t *)n;
		ret = one_string(ld, (*items)[0], what);
	} else {
		ret = list_strings(ld, n, what, *items, *nitems);
	}
	if (ret) {
		free(*items);
		*items = NULL;
		*nitems = 0;
	}
	return ret;
}

int lk_yaml_long(struct lk_loader *ld, const yaml_node_t *n, const char *what,
		 long lo, long hi, long *out)
{
	const char *text;
	int ret = lk_yaml_scalar(ld, n, what, &text);

	if (!ret && (lk_parse_decimal(text, out) || *out < lo || *out > hi))
		ret = lk_yaml_error(ld, n, "%s: expected a whole number "
				    "between %ld and %ld, not '%s'", what, lo,
				    hi, text);
	return ret;
}
