/*
 * The 'gen:' section and the transformation chains it lists: names,
 * parameters and their values are all checked here, before anything
 * is generated.
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

/* What each transformation accepts: keys and the kind of their values. */
enum value_kind { V_INT, V_SIZES, V_INT_OR_FULL, V_WORD, V_BYTES };

struct key_spec {
	const char *key;
	enum value_kind kind;
	const char *const *words;  /* V_WORD */
};

struct transform_spec {
	const char *name;
	struct key_spec keys[4];
};

static const char *const fusion_words[] = {"default", "min", "max", NULL};
static const char *const hint_words[] = {"ivdep", "omp", NULL};
static const char *const bool_words[] = {"0", "1", NULL};
static const char *const size_words[] = {"mini", "small", "medium", "large",
					 NULL};

static const struct transform_spec transforms[] = {
	{"original", {{0}}},
	{"isl", {{"fusion", V_WORD, fusion_words},
		 {"max-coefficient", V_INT, NULL},
		 {"outer-coincidence", V_WORD, bool_words}}},
	{"skew", {{0}}},
	{"fuse", {{0}}},
	{"distribute", {{0}}},
	{"tile", {{"sizes", V_SIZES, NULL}}},
	{"tile2", {{"outer", V_SIZES, NULL}, {"inner", V_SIZES, NULL}}},
	{"interchange", {{"depth", V_INT, NULL}}},
	{"unroll-jam", {{"factor", V_INT, NULL}}},
	{"unroll", {{"factor", V_INT_OR_FULL, NULL}}},
	{"vectorize", {{"hint", V_WORD, hint_words}}},
	{"kernelify", {{"l1", V_BYTES, NULL},
		       {"size", V_WORD, size_words},
		       {"granule", V_INT, NULL}}},
};

const char *const lk_gen_transform_names[] = {
	"original", "isl", "skew", "fuse", "distribute", "tile", "tile2",
	"interchange", "unroll-jam", "unroll", "vectorize", "kernelify", NULL,
};

#define CHAIN_STEPS_MAX 16
#define SIZE_MAX_VALUE 4096
#define L1_MIN_BYTES 1024L
#define L1_MAX_BYTES (16L << 20)

static const struct transform_spec *find_transform(const char *name)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(transforms); i++)
		if (!strcmp(transforms[i].name, name))
			return &transforms[i];
	return NULL;
}

static int fail(struct lk_ctx *ctx, const char *where, const char *fmt, ...)
	LK_PRINTF(3, 4);

static int fail(struct lk_ctx *ctx, const char *where, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = lk_vasprintf(fmt, ap);
	va_end(ap);
	if (where)
		lk_error(ctx, LK_EINPUT, "%s: %s", where, msg);
	else
		lk_error(ctx, LK_EINPUT, "%s", msg);
	free(msg);
	return LK_EINPUT;
}

static int small_int(const char *v)
{
	long n;

	return !lk_parse_decimal(v, &n) && n >= 1 && n <= SIZE_MAX_VALUE;
}

/* "32", "32x16x8": up to 8 sizes. */
static int sizes_ok(const char *v)
{
	char *copy = lk_strdup(v), *save = NULL, *tok;
	int n = 0, ok = *v && v[strlen(v) - 1] != 'x';

	for (tok = strtok_r(copy, "x", &save); ok && tok;
	     tok = strtok_r(NULL, "x", &save))
		ok = small_int(tok) && ++n <= 8;
	free(copy);
	return ok && n > 0 && !strstr(v, "xx") && v[0] != 'x';
}

static int word_ok(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(*words, v))
			return 1;
	return 0;
}

static int check_value(struct lk_ctx *ctx, const char *where,
		       const struct transform_spec *t,
		       const struct key_spec *k, const char *v)
{
	int ok = 0;
	long n;
	struct lk_buf allowed = LK_BUF_INIT;
	const char *const *w;

	switch (k->kind) {
	case V_INT:
		ok = small_int(v) || (!strcmp(k->key, "depth") &&
				      !strcmp(v, "0"));
		break;
	case V_SIZES:
		ok = sizes_ok(v);
		break;
	case V_INT_OR_FULL:
		ok = !strcmp(v, "full") || (small_int(v) && strcmp(v, "1"));
		break;
	case V_WORD:
		ok = word_ok(v, k->words);
		break;
	case V_BYTES:
		ok = !lk_parse_decimal(v, &n) && n >= L1_MIN_BYTES &&
		     n <= L1_MAX_BYTES;
		break;
	}
	if (ok)
		return 0;
	if (k->kind == V_WORD)
		for (w = k->words; *w; w++)
			lk_buf_addf(&allowed, "%s%s", w == k->words ? "" : ", ",
				    *w);
	fail(ctx, where, "%s: bad value '%s' for %s (%s)", t->name, v, k->key,
	     k->kind == V_INT	  ? "an integer 1..4096"
	     : k->kind == V_SIZES ? "sizes like 32 or 32x32, each 1..4096"
	     : k->kind == V_INT_OR_FULL ? "an integer 2..4096 or 'full'"
	     : k->kind == V_BYTES ? "bytes, 1024..16777216"
				  : lk_buf_str(&allowed));
	lk_buf_release(&allowed);
	return LK_EINPUT;
}

static int parse_param(struct lk_ctx *ctx, const char *where,
		       const struct transform_spec *t, const char *kv,
		       struct lk_gen_step *step)
{
	const char *eq = strchr(kv, '=');
	const char *keys[5] = {0};
	const struct key_spec *k = NULL;
	char *key;
	size_t i;
	int ret;

	key = eq ? lk_strndup(kv, (size_t)(eq - kv)) : lk_strdup(kv);
	for (i = 0; i < 4 && t->keys[i].key; i++) {
		keys[i] = t->keys[i].key;
		if (!strcmp(key, keys[i]))
			k = &t->keys[i];
	}
	if (!k) {
		struct lk_buf hint = LK_BUF_INIT;

		lk_suggest_hint(&hint, key, keys);
		ret = fail(ctx, where, "%s: unknown parameter '%s' %s",
			   t->name, key, keys[0] ? lk_buf_str(&hint)
						 : "(it takes none)");
		lk_buf_release(&hint);
	} else if (!eq || !eq[1]) {
		ret = fail(ctx, where, "%s: parameter '%s' needs a value "
			   "(%s=...)", t->name, key, key);
	} else if (lk_gen_step_get(step, key)) {
		ret = fail(ctx, where, "%s: parameter '%s' given twice",
			   t->name, key);
	} else if (!(ret = check_value(ctx, where, t, k, eq + 1))) {
		lk_strv_push(&step->keys, key);
		lk_strv_push(&step->values, eq + 1);
	}
	free(key);
	return ret;
}

static void step_release(struct lk_gen_step *s)
{
	free(s->name);
	lk_strv_release(&s->keys);
	lk_strv_release(&s->values);
}

/* "tile,sizes=32x32" */
static int parse_step(struct lk_ctx *ctx, const char *where, char *text,
		      struct lk_gen_step *step)
{
	char *save = NULL, *tok = strtok_r(text, ",", &save);
	const struct transform_spec *t;
	int ret = 0;

	memset(step, 0, sizeof(*step));
	if (!tok || !*tok)
		return fail(ctx, where, "empty transformation");
	t = find_transform(tok);
	if (!t && strchr(tok, '='))
		return fail(ctx, where, "'%s' is a parameter with no "
			    "transformation before it (a step is "
			    "name,key=value: tile,sizes=32x32; in a YAML "
			    "[flow, list] quote a chain whose parameters "
			    "come first)", tok);
	if (!t) {
		struct lk_buf hint = LK_BUF_INIT;

		lk_suggest_hint(&hint, tok, lk_gen_transform_names);
		ret = fail(ctx, where, "unknown transformation '%s' %s", tok,
			   lk_buf_str(&hint));
		lk_buf_release(&hint);
		return ret;
	}
	step->name = lk_strdup(tok);
	while (!ret && (tok = strtok_r(NULL, ",", &save)))
		ret = parse_param(ctx, where, t, tok, step);
	if (ret)
		step_release(step);
	return ret;
}

static int has_empty_part(const char *text)
{
	size_t n = strlen(text);

	return !n || strchr("+,", text[0]) || strchr("+,", text[n - 1]) ||
	       strstr(text, "++") || strstr(text, ",,") ||
	       strstr(text, "+,") || strstr(text, ",+");
}

static void canonical(struct lk_gen_chain *c)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i, j;

	for (i = 0; i < c->nsteps; i++) {
		lk_buf_addf(&b, "%s%s", i ? "+" : "", c->steps[i].name);
		for (j = 0; j < c->steps[i].keys.n; j++)
			lk_buf_addf(&b, ",%s=%s", c->steps[i].keys.v[j],
				    c->steps[i].values.v[j]);
	}
	c->text = lk_buf_detach(&b);
}

int lk_gen_chain_parse(struct lk_ctx *ctx, const char *text, const char *where,
		       struct lk_gen_chain *out)
{
	struct lk_gen_chain c = {0};
	char *copy, *save = NULL, *part;
	size_t i;
	int ret = 0;

	if (strspn(text, " \t") == strlen(text))
		return fail(ctx, where, "empty transformation");
	if (strpbrk(text, " \t\n\r"))
		return fail(ctx, where, "transformation '%s': no spaces "
			    "allowed (write tile,sizes=32x32+unroll)", text);
	if (has_empty_part(text))
		return fail(ctx, where, "transformation '%s': an empty step "
			    "or parameter", text);
	copy = lk_strdup(text);
	c.steps = lk_calloc(CHAIN_STEPS_MAX, sizeof(*c.steps));
	for (part = strtok_r(copy, "+", &save); !ret && part;
	     part = strtok_r(NULL, "+", &save)) {
		if (c.nsteps == CHAIN_STEPS_MAX)
			ret = fail(ctx, where, "transformation '%s': more "
				   "than %d steps", text, CHAIN_STEPS_MAX);
		else if (!(ret = parse_step(ctx, where, part,
					    &c.steps[c.nsteps])))
			c.nsteps++;
	}
	free(copy);
	for (i = 0; !ret && i + 1 < c.nsteps; i++)
		if (!strcmp(c.steps[i].name, "kernelify"))
			ret = fail(ctx, where, "transformation '%s': kernelify "
				   "can only be the last step", text);
	if (ret) {
		lk_gen_chain_release(&c);
		return ret;
	}
	canonical(&c);
	*out = c;
	return 0;
}

void lk_gen_chain_release(struct lk_gen_chain *c)
{
	size_t i;

	for (i = 0; i < c->nsteps; i++)
		step_release(&c->steps[i]);
	free(c->steps);
	free(c->text);
	memset(c, 0, sizeof(*c));
}

const char *lk_gen_step_get(const struct lk_gen_step *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->keys.n; i++)
		if (!strcmp(s->keys.v[i], key))
			return s->values.v[i];
	return NULL;
}

void lk_gen_config_release(struct lk_gen_config *g)
{
	size_t i;

	for (i = 0; i < g->nchains; i++)
		lk_gen_chain_release(&g->chains[i]);
	free(g->chains);
	free(g->verify_define);
	memset(g, 0, sizeof(*g));
}

/* ---- The YAML section. ---- */

/* A flow list item of parameters alone ("sizes=8x8", "sizes=8x8+unroll"):
 * YAML split [original, isl+tile,sizes=8x8] at its commas, and no step
 * name has '=', so the item continues the chain before it. */
static int continues_chain(const yaml_node_t *seq, const yaml_node_t *item)
{
	const char *v = (const char *)item->data.scalar.value;
	size_t name = strcspn(v, ",+=");

	return seq->type == YAML_SEQUENCE_NODE &&
	       seq->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE &&
	       item->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       v[name] == '=';
}

/* The chain that starts at items[*i], with the items that continue it;
 * *i ends on its last item. */
static char *chain_text(const yaml_node_t *seq, yaml_node_t **items,
			size_t nitems, size_t *i)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_addf(&b, "%s", (const char *)items[*i]->data.scalar.value);
	while (*i + 1 < nitems && continues_chain(seq, items[*i + 1]))
		lk_buf_addf(&b, ",%s",
			    (const char *)items[++*i]->data.scalar.value);
	return lk_buf_detach(&b);
}

static int add_chain(struct lk_loader *ld, const yaml_node_t *item,
		     const char *text)
{
	struct lk_gen_config *g = &ld->sweep->gen;
	struct lk_gen_chain *c = &g->chains[g->nchains];
	char *where = lk_asprintf("%s:%ld", ld->file, lk_yaml_line(item));
	size_t j;
	int ret = lk_gen_chain_parse(ld->ctx, text, where, c);

	free(where);
	if (ret)
		return ret;
	c->line = lk_yaml_line(item);
	g->nchains++;
	for (j = 0; j + 1 < g->nchains; j++)
		if (!strcmp(g->chains[j].text, c->text))
			return lk_yaml_error(ld, item, "gen.transformations: "
					     "'%s' is listed twice", c->text);
	return 0;
}

static int load_chains(struct lk_loader *ld, const yaml_node_t *n)
{
	yaml_node_t **items;
	size_t nitems, i;
	int ret = lk_yaml_strings(ld, n, "gen.transformations", &items,
				  &nitems);

	if (ret)
		return ret;
	ld->sweep->gen.chains = lk_calloc(nitems, sizeof(struct lk_gen_chain));
	for (i = 0; !ret && i < nitems; i++) {
		const yaml_node_t *first = items[i];
		char *text = chain_text(n, items, nitems, &i);

		ret = add_chain(ld, first, text);
		free(text);
	}
	free(items);
	return ret;
}

static int load_verify(struct lk_loader *ld, const yaml_node_t *n)
{
	const char *v;
	int ret = lk_yaml_scalar(ld, n, "gen.verify", &v);

	if (ret)
		return ret;
	if (!strcmp(v, "true") || !strcmp(v, "yes"))
		ld->sweep->gen.verify = 1;
	else if (!strcmp(v, "false") || !strcmp(v, "no"))
		ld->sweep->gen.verify = 0;
	else
		return lk_yaml_error(ld, n, "gen.verify: expected true or "
				     "false, not '%s'", v);
	return 0;
}

static int load_verify_define(struct lk_loader *ld, const yaml_node_t *n)
{
	const char *v;
	int ret = lk_yaml_scalar(ld, n, "gen.verify-define", &v);

	if (ret)
		return ret;
	if (!lk_is_identifier(v))
		return lk_yaml_error(ld, n, "gen.verify-define: '%s' is not "
				     "a macro name", v);
	free(ld->sweep->gen.verify_define);
	ld->sweep->gen.verify_define = lk_strdup(v);
	return 0;
}

/* Axis names that would collide with the generator's parameters. */
static int check_axes(struct lk_loader *ld, const yaml_node_t *n)
{
	static const char *const taken[] = {"kernel", "family",
					    "transformation", NULL};
	size_t i;

	for (i = 0; i < ld->sweep->naxes; i++)
		if (word_ok(ld->sweep->axes[i].name, taken))
			return lk_yaml_error(ld, n, "gen: the -D axis '%s' "
					     "clashes with a generator "
					     "parameter of that name",
					     ld->sweep->axes[i].name);
	return 0;
}

int lk_load_gen(struct lk_loader *ld, const yaml_node_t *n)
{
	static const char *const keys[] = {"transformations", "verify",
					   "verify-define", NULL};
	struct lk_gen_config *g = &ld->sweep->gen;
	const yaml_node_t *v;
	int ret = 0;

	if (lk_yaml_is_null(n))
		ret = 0;
	else if ((ret = lk_yaml_check_map(ld, n, keys, "gen")))
		return ret;
	g->present = 1;
	g->verify = 1;
	g->verify_define = lk_strdup("MINI_DATASET");
	if (!lk_yaml_is_null(n)) {
		if ((v = lk_yaml_get(ld, n, "transformations")))
			ret = load_chains(ld, v);
		if (!ret && (v = lk_yaml_get(ld, n, "verify")))
			ret = load_verify(ld, v);
		if (!ret && (v = lk_yaml_get(ld, n, "verify-define")))
			ret = load_verify_define(ld, v);
	}
	if (!ret && !g->nchains) {
		g->chains = lk_calloc(1, sizeof(*g->chains));
		ret = lk_gen_chain_parse(ld->ctx, "original", NULL,
					 &g->chains[0]);
		g->nchains = !ret;
	}
	return ret ? ret : check_axes(ld, n);
}
