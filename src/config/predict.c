/*
 * The 'predict:' section: tools, mcpu, iterations, timeout and the
 * adapters for external predictors. Whether a tool is installed is the
 * predict stage's question (it names this file and the tool's line).
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

#define ITERATIONS_MAX 1000000L

static const char *const predict_keys[] = {"tools", "mcpu", "iterations",
					   "timeout", "adapters", NULL};
static const char *const adapter_keys[] = {"name", "command", "parse",
					   "version", "markers", "arch",
					   NULL};
static const char *const placeholders[] = {"{asm}", "{arch}", "{mcpu}",
					   "{iterations}", NULL};

void lk_predict_config_init(struct lk_predict_config *c)
{
	memset(c, 0, sizeof(*c));
	c->iterations[0] = 100;
	c->iterations[1] = 200;
	c->timeout = 60;
}

static void adapter_release(struct lk_adapter_config *a)
{
	free(a->name);
	lk_strv_release(&a->command);
	free(a->parse);
	lk_strv_release(&a->version);
	free(a->arch);
}

void lk_predict_config_release(struct lk_predict_config *c)
{
	size_t i;

	lk_strv_release(&c->tools);
	free(c->tool_lines);
	free(c->mcpu);
	for (i = 0; i < c->nadapters; i++)
		adapter_release(&c->adapters[i]);
	free(c->adapters);
	lk_predict_config_init(c);
}

static int load_tools(struct lk_loader *ld, const yaml_node_t *n,
		      struct lk_predict_config *c)
{
	yaml_node_t **items;
	size_t nitems, i, dup;
	int ret = lk_yaml_strings(ld, n, "predict.tools", &items, &nitems);

	if (ret)
		return ret;
	c->tool_lines = lk_calloc(nitems, sizeof(*c->tool_lines));
	for (i = 0; i < nitems; i++) {
		lk_strv_push(&c->tools,
			     (const char *)items[i]->data.scalar.value);
		c->tool_lines[i] = lk_yaml_line(items[i]);
	}
	dup = lk_find_duplicate((const char *const *)c->tools.v, c->tools.n);
	if (dup < c->tools.n)
		ret = lk_yaml_error(ld, items[dup], "predict.tools: '%s' is "
				    "listed twice", c->tools.v[dup]);
	free(items);
	return ret;
}

static int load_mcpu(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_predict_config *c)
{
	const char *v;
	int ret = lk_yaml_scalar(ld, n, "predict.mcpu", &v);

	if (ret)
		return ret;
	if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-_.") !=
			   strlen(v))
		return lk_yaml_error(ld, n, "predict.mcpu: '%s' is not a "
				     "CPU name (e.g. znver4, skylake)", v);
	/* "native" would be recorded but is not what ran: resolve it. */
	if (strcmp(v, "native") && strcmp(v, "host"))
		c->mcpu = lk_strdup(v);
	c->mcpu_line = lk_yaml_line(n);
	return 0;
}

static int load_iterations(struct lk_loader *ld, const yaml_node_t *n,
			   struct lk_predict_config *c)
{
	static const char what[] = "predict.iterations";
	yaml_node_t **items;
	size_t nitems, i;
	long v[2] = {0, 0};
	int ret;

	if (n->type != YAML_SEQUENCE_NODE)
		return lk_yaml_error(ld, n, "%s: expected a list of two "
				     "counts, e.g. [100, 200]", what);
	ret = lk_yaml_strings(ld, n, what, &items, &nitems);
	if (!ret && nitems != 2)
		ret = lk_yaml_error(ld, n, "%s: expected two counts, not %zu",
				    what, nitems);
	for (i = 0; !ret && i < 2; i++) {
		const char *s = (const char *)items[i]->data.scalar.value;

		if (lk_parse_decimal(s, &v[i]) || v[i] < 1 ||
		    v[i] > ITERATIONS_MAX)
			ret = lk_yaml_error(ld, items[i], "%s: '%s' is not a "
					    "count from 1 to %ld", what, s,
					    ITERATIONS_MAX);
	}
	if (!ret && v[0] >= v[1])
		ret = lk_yaml_error(ld, n, "%s: the first count must be "
				    "the smaller (%ld >= %ld)", what, v[0],
				    v[1]);
	if (!ret) {
		c->iterations[0] = v[0];
		c->iterations[1] = v[1];
	}
	free(items);
	return ret;
}

static int load_timeout(struct lk_loader *ld, const yaml_node_t *n,
			struct lk_predict_config *c)
{
	const char *v;
	double t;
	int ret = lk_yaml_scalar(ld, n, "predict.timeout", &v);

	if (ret)
		return ret;
	if (lk_parse_number(v, &t) || t <= 0 || t > 1e6)
		return lk_yaml_error(ld, n, "predict.timeout: '%s' is not a "
				     "number of seconds above 0", v);
	c->timeout = t;
	return 0;
}

/* "{asm}" in a flow list is a YAML map: say to quote it. */
static int argv_list(struct lk_loader *ld, const yaml_node_t *n,
		     const char *what, struct lk_strv *out)
{
	yaml_node_item_t *it;
	int ret = 0;

	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return lk_yaml_error(ld, n, "%s: expected a non-empty list "
				     "(the program and its arguments)", what);
	for (it = n->data.sequence.items.start;
	     !ret && it < n->data.sequence.items.top; it++) {
		yaml_node_t *x = lk_yaml_node(ld, *it);
		const char *v;

		if (x->type == YAML_MAPPING_NODE)
			ret = lk_yaml_error(ld, x, "%s: a map in the command; "
					    "quote placeholders: \"{asm}\"",
					    what);
		else if (!(ret = lk_yaml_scalar(ld, x, what, &v)) && !*v)
			ret = lk_yaml_error(ld, x, "%s: empty argument", what);
		else if (!ret)
			lk_strv_push(out, v);
	}
	return ret;
}

/* Every {word} must be a known placeholder, and {asm} must be there. */
static int check_placeholders(struct lk_loader *ld, const yaml_node_t *n,
			      const char *what, const struct lk_strv *argv)
{
	int has_asm = 0;
	size_t i;

	for (i = 0; i < argv->n; i++) {
		const char *p = argv->v[i];

		while ((p = strchr(p, '{'))) {
			size_t len = strcspn(p, "}");
			char *ph = lk_strndup(p, len + (p[len] == '}'));
			struct lk_buf hint = LK_BUF_INIT;
			size_t k;
			int known = 0;

			for (k = 0; placeholders[k]; k++)
				known |= !strcmp(ph, placeholders[k]);
			has_asm |= !strcmp(ph, "{asm}");
			if (!known) {
				lk_suggest_hint(&hint, ph, placeholders);
				lk_yaml_error(ld, n, "%s: unknown placeholder "
					      "'%s' %s", what, ph,
					      lk_buf_str(&hint));
			}
			lk_buf_release(&hint);
			free(ph);
			if (!known)
				return LK_EINPUT;
			p += len;
		}
	}
	if (!has_asm)
		return lk_yaml_error(ld, n, "%s: no {asm} (the file holding "
				     "the block) in the command", what);
	return 0;
}

static int adapter_parse(struct lk_loader *ld, const yaml_node_t *n,
			 struct lk_adapter_config *a)
{
	const char *v;
	regex_t re;
	int rc, ret = lk_yaml_scalar(ld, n, "parse", &v);

	if (ret)
		return ret;
	rc = regcomp(&re, v, REG_EXTENDED);
	if (rc) {
		char msg[256];

		regerror(rc, &re, msg, sizeof(msg));
		return lk_yaml_error(ld, n, "adapter '%s': parse: bad "
				     "regular expression '%s': %s", a->name,
				     v, msg);
	}
	rc = re.re_nsub < 1;
	regfree(&re);
	if (rc)
		return lk_yaml_error(ld, n, "adapter '%s': parse: no group; "
				     "the first (...) must capture the "
				     "number", a->name);
	a->parse = lk_strdup(v);
	return 0;
}

static int adapter_scalar(struct lk_loader *ld, const yaml_node_t *map,
			  const char *key, const char *name, char **out)
{
	yaml_node_t *n = lk_yaml_get(ld, map, key);
	char *what = lk_asprintf("adapter '%s': %s", name, key);
	const char *v;
	int ret = 0;

	if (n && !(ret = lk_yaml_scalar(ld, n, what, &v))) {
		if (!*v)
			ret = lk_yaml_error(ld, n, "%s: empty value", what);
		else
			*out = lk_strdup(v);
	}
	free(what);
	return ret;
}

static int reserved_name(const char *name)
{
	return !strncmp(name, "llvm-mca", 8) || !strcmp(name, "bprof");
}

static int adapter_body(struct lk_loader *ld, const yaml_node_t *n,
			struct lk_adapter_config *a)
{
	yaml_node_t *cmd = lk_yaml_get(ld, n, "command");
	yaml_node_t *parse = lk_yaml_get(ld, n, "parse");
	yaml_node_t *ver = lk_yaml_get(ld, n, "version");
	char *what = lk_asprintf("adapter '%s': command", a->name);
	char *markers = NULL;
	int ret = 0;

	if (!cmd || !parse)
		ret = lk_yaml_error(ld, n, "adapter '%s': missing '%s'",
				    a->name, cmd ? "parse" : "command");
	if (!ret)
		ret = argv_list(ld, cmd, what, &a->command);
	if (!ret)
		ret = check_placeholders(ld, cmd, what, &a->command);
	if (!ret)
		ret = adapter_parse(ld, parse, a);
	free(what);
	what = lk_asprintf("adapter '%s': version", a->name);
	if (!ret && ver)
		ret = argv_list(ld, ver, what, &a->version);
	free(what);
	if (!ret)
		ret = adapter_scalar(ld, n, "arch", a->name, &a->arch);
	if (!ret)
		ret = adapter_scalar(ld, n, "markers", a->name, &markers);
	if (!ret && markers && strcmp(markers, "iaca") &&
	    strcmp(markers, "none"))
		ret = lk_yaml_error(ld, lk_yaml_get(ld, n, "markers"),
				    "adapter '%s': markers: '%s' (allowed: "
				    "iaca, none)", a->name, markers);
	a->iaca_markers = markers && !strcmp(markers, "iaca");
	free(markers);
	return ret;
}

static int load_adapter(struct lk_loader *ld, const yaml_node_t *n,
			struct lk_predict_config *c)
{
	struct lk_adapter_config *a;
	char *name = NULL;
	size_t i;
	int ret = lk_yaml_check_map(ld, n, adapter_keys, "predict.adapters");

	if (!ret)
		ret = adapter_scalar(ld, n, "name", "?", &name);
	if (!ret && !name)
		ret = lk_yaml_error(ld, n, "predict.adapters: an adapter "
				    "without a name");
	if (!ret && reserved_name(name))
		ret = lk_yaml_error(ld, n, "adapter '%s': the name is "
				    "loopkit's own tool's", name);
	for (i = 0; !ret && i < c->nadapters; i++)
		if (!strcmp(c->adapters[i].name, name))
			ret = lk_yaml_error(ld, n, "adapter '%s' is declared "
					    "twice", name);
	if (ret) {
		free(name);
		return ret;
	}
	c->adapters = lk_reallocarray(c->adapters, c->nadapters + 1,
				      sizeof(*c->adapters));
	a = &c->adapters[c->nadapters++];
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->line = lk_yaml_line(n);
	return adapter_body(ld, n, a);
}

static int load_adapters(struct lk_loader *ld, const yaml_node_t *n,
			 struct lk_predict_config *c)
{
	yaml_node_item_t *it;
	int ret = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return lk_yaml_error(ld, n, "predict.adapters: expected a "
				     "list of {name, command, parse, ...}");
	for (it = n->data.sequence.items.start;
	     !ret && it < n->data.sequence.items.top; it++)
		ret = load_adapter(ld, lk_yaml_node(ld, *it), c);
	return ret;
}

int lk_load_predict(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_predict_config *c = &ld->sweep->predict;
	static const struct {
		const char *key;
		int (*load)(struct lk_loader *, const yaml_node_t *,
			    struct lk_predict_config *);
	} parts[] = {
		{"adapters", load_adapters}, {"tools", load_tools},
		{"mcpu", load_mcpu}, {"iterations", load_iterations},
		{"timeout", load_timeout},
	};
	size_t i;
	int ret = lk_yaml_check_map(ld, n, predict_keys, "predict");

	lk_predict_config_release(c);
	c->line = lk_yaml_line(n);
	for (i = 0; !ret && i < LK_ARRAY_SIZE(parts); i++) {
		yaml_node_t *v = lk_yaml_get(ld, n, parts[i].key);

		if (v && !lk_yaml_is_null(v))
			ret = parts[i].load(ld, v, c);
	}
	return ret;
}
