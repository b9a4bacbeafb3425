/*
 * The asm: section of a sweep file (doc/loopkit-asm.md):
 *
 *   asm:
 *     syntax: att                # or intel
 *     unroll: 100                # body copies per kernel call
 *     memory: 4096               # scratch bytes, address in %r14
 *     select: prefix             # all | prefix | permutations | subsets
 *     bodies:                    # version -> instructions
 *       fma: ["vfmadd231pd %ymm11, %ymm10, %ymm0", ...]
 *     init:                      # version -> lines run once per call
 *       fma: ["vxorpd %ymm11, %ymm11, %ymm11"]
 *     chains: 1..8               # instead: templates with {r}
 *     regs: [xmm0-xmm11]
 *     difference: true           # also 2 x unroll: n/2n differencing
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const asm_keys[] = {"syntax", "unroll", "memory",
				       "select", "bodies", "init", "chains",
				       "regs", "difference", NULL};
static const char *const select_names[] = {"all", "prefix", "permutations",
					   "subsets", NULL};

#define ASM_UNROLL_MAX 100000L
#define ASM_CHAINS_MAX 32L

static int load_word(struct lk_loader *ld, const yaml_node_t *n,
		     const char *what, const char *const *words, int *out)
{
	const char *text;
	int ret = lk_yaml_scalar(ld, n, what, &text), i;

	for (i = 0; !ret && words[i]; i++)
		if (!strcmp(words[i], text)) {
			*out = i;
			return 0;
		}
	if (!ret) {
		struct lk_buf hint = LK_BUF_INIT;

		lk_suggest_hint(&hint, text, words);
		ret = lk_yaml_error(ld, n, "%s: '%s' %s", what, text,
				    lk_buf_str(&hint));
		lk_buf_release(&hint);
	}
	return ret;
}

static int load_flag(struct lk_loader *ld, const yaml_node_t *n,
		     const char *what, int *out)
{
	const char *text;
	int ret = lk_yaml_scalar(ld, n, what, &text);

	if (!ret && lk_parse_bool(text, out))
		ret = lk_yaml_error(ld, n, "%s: expected true or false, not "
				    "'%s'", what, text);
	return ret;
}

static void push_chain(struct lk_asm_cfg *a, long k)
{
	a->chains = lk_reallocarray(a->chains, a->nchains + 1,
				    sizeof(*a->chains));
	a->chains[a->nchains++] = k;
}

/* "A..B" or one number, appended. */
static int chain_text(struct lk_loader *ld, const yaml_node_t *n,
		      const char *text, struct lk_asm_cfg *a)
{
	const char *dots = strstr(text, "..");
	char *lo = dots ? lk_strndup(text, (size_t)(dots - text))
			: lk_strdup(text);
	long from, to, k;
	int bad = lk_parse_decimal(lo, &from);

	to = from;
	if (!bad && dots)
		bad = lk_parse_decimal(dots + 2, &to);
	free(lo);
	if (bad || from < 1 || to < from || to > ASM_CHAINS_MAX)
		return lk_yaml_error(ld, n, "asm.chains: '%s' is not a "
				     "count or range A..B within 1..%ld",
				     text, ASM_CHAINS_MAX);
	for (k = from; k <= to; k++)
		push_chain(a, k);
	return 0;
}

static int load_chains(struct lk_loader *ld, const yaml_node_t *n,
		       struct lk_asm_cfg *a)
{
	yaml_node_t **items = NULL;
	size_t nitems = 0, i, j;
	int ret = lk_yaml_strings(ld, n, "asm.chains", &items, &nitems);

	for (i = 0; !ret && i < nitems; i++)
		ret = chain_text(ld, items[i],
				 (const char *)items[i]->data.scalar.value, a);
	for (i = 0; !ret && i < a->nchains; i++)
		for (j = 0; j < i; j++)
			if (a->chains[i] == a->chains[j])
				ret = lk_yaml_error(ld, n, "asm.chains: %ld is "
						    "listed twice",
						    a->chains[i]);
	free(items);
	return ret;
}

static int load_regs(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_asm_cfg *a)
{
	yaml_node_t **items = NULL;
	size_t nitems = 0, i;
	int ret = lk_yaml_strings(ld, n, "asm.regs", &items, &nitems);

	for (i = 0; !ret && i < nitems; i++) {
		char *where = lk_asprintf("%s:%ld: asm.regs", ld->file,
					  lk_yaml_line(items[i]));

		ret = lk_asm_regs_parse(ld->ctx,
					(const char *)items[i]->data.scalar
						.value, where, &a->regs);
		free(where);
	}
	free(items);
	return ret;
}

/* The lines of one version: a string or a list of strings. */
static int load_lines(struct lk_loader *ld, const yaml_node_t *n,
		      const char *what, struct lk_strv *lines, long **at)
{
	yaml_node_t **items = NULL;
	size_t nitems = 0, i;
	int ret = lk_yaml_strings(ld, n, what, &items, &nitems);

	if (!ret && at)
		*at = lk_calloc(nitems + 1, sizeof(**at));
	for (i = 0; !ret && i < nitems; i++) {
		lk_strv_push(lines, (const char *)items[i]->data.scalar.value);
		if (at)
			(*at)[i] = lk_yaml_line(items[i]);
	}
	free(items);
	return ret;
}

static int load_bodies(struct lk_loader *ld, const yaml_node_t *n,
		       struct lk_asm_cfg *a)
{
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, n, NULL, "asm.bodies");

	if (!ret && n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		ret = lk_yaml_error(ld, n, "asm.bodies: empty map");
	for (p = n->data.mapping.pairs.start;
	     !ret && p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);
		struct lk_asm_version *v;
		char *what;

		a->versions = lk_reallocarray(a->versions, a->nversions + 1,
					      sizeof(*a->versions));
		v = &a->versions[a->nversions++];
		memset(v, 0, sizeof(*v));
		v->name = lk_strdup((const char *)k->data.scalar.value);
		v->line = lk_yaml_line(k);
		what = lk_asprintf("asm.bodies.%s", v->name);
		if (!*v->name)
			ret = lk_yaml_error(ld, k, "asm.bodies: empty name");
		if (!ret)
			ret = load_lines(ld, lk_yaml_node(ld, p->value), what,
					 &v->body, &v->body_lines);
		free(what);
	}
	return ret;
}

static int load_init(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_asm_cfg *a)
{
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, n, NULL, "asm.init");

	for (p = n->data.mapping.pairs.start;
	     !ret && p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);
		const char *name = (const char *)k->data.scalar.value;
		struct lk_asm_version *v = NULL;
		size_t i;

		for (i = 0; i < a->nversions; i++)
			if (!strcmp(a->versions[i].name, name))
				v = &a->versions[i];
		if (!v) {
			ret = lk_yaml_error(ld, k, "asm.init: '%s' is not a "
					    "version of asm.bodies", name);
			break;
		}
		v->init_given = 1;
		if (!lk_yaml_is_null(lk_yaml_node(ld, p->value)))
			ret = load_lines(ld, lk_yaml_node(ld, p->value),
					 "asm.init", &v->init, NULL);
	}
	return ret;
}

static int load_scalars(struct lk_loader *ld, const yaml_node_t *n,
			struct lk_asm_cfg *a)
{
	yaml_node_t *v;
	int ret = 0, word = 0;

	if ((v = lk_yaml_get(ld, n, "syntax")) && !lk_yaml_is_null(v)) {
		static const char *const syntaxes[] = {"att", "intel", NULL};

		ret = load_word(ld, v, "asm.syntax", syntaxes, &word);
		a->intel = word == 1;
	}
	v = ret ? NULL : lk_yaml_get(ld, n, "unroll");
	if (v && !lk_yaml_is_null(v))
		ret = lk_yaml_long(ld, v, "asm.unroll", 1, ASM_UNROLL_MAX,
				   &a->unroll);
	v = ret ? NULL : lk_yaml_get(ld, n, "memory");
	if (v && !lk_yaml_is_null(v))
		ret = lk_yaml_long(ld, v, "asm.memory", 64, 1L << 30,
				   &a->memory);
	v = ret ? NULL : lk_yaml_get(ld, n, "select");
	if (v && !lk_yaml_is_null(v)) {
		ret = load_word(ld, v, "asm.select", select_names, &word);
		a->select = (enum lk_asm_select)word;
	}
	v = ret ? NULL : lk_yaml_get(ld, n, "difference");
	if (v && !lk_yaml_is_null(v))
		ret = load_flag(ld, v, "asm.difference", &a->difference);
	return ret;
}

static int load_lists(struct lk_loader *ld, const yaml_node_t *n,
		      struct lk_asm_cfg *a)
{
	yaml_node_t *v = lk_yaml_get(ld, n, "bodies");
	int ret;

	if (!v || lk_yaml_is_null(v))
		return lk_yaml_error(ld, n, "asm: missing 'bodies'");
	ret = load_bodies(ld, v, a);
	v = ret ? NULL : lk_yaml_get(ld, n, "init");
	if (v && !lk_yaml_is_null(v))
		ret = load_init(ld, v, a);
	v = ret ? NULL : lk_yaml_get(ld, n, "chains");
	if (v && !lk_yaml_is_null(v))
		ret = load_chains(ld, v, a);
	v = ret ? NULL : lk_yaml_get(ld, n, "regs");
	if (v && !lk_yaml_is_null(v)) {
		if (!a->chains)
			return lk_yaml_error(ld, v, "asm.regs: only with "
					     "asm.chains");
		ret = load_regs(ld, v, a);
	}
	v = ret ? NULL : lk_yaml_get(ld, n, "select");
	if (!ret && v && a->chains && a->select != LK_ASM_ALL)
		ret = lk_yaml_error(ld, v, "asm.select: with asm.chains every "
				    "template is in every variant (select: "
				    "all)");
	return ret;
}

int lk_load_asm(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_asm_cfg *a = &ld->sweep->asm_body;
	int ret;

	a->given = 1;
	a->line = lk_yaml_line(n);
	a->unroll = 100;
	a->memory = 4096;
	ret = lk_yaml_check_map(ld, n, asm_keys, "asm");
	if (!ret)
		ret = load_scalars(ld, n, a);
	if (!ret)
		ret = load_lists(ld, n, a);
	if (!ret)
		ret = lk_sweep_asm_finish(ld->ctx, ld->sweep);
	return ret;
}
