/*
 * The sweep loader: YAML text → a validated struct lk_sweep. This file
 * holds the top level and the simple keys; axes.c and filter.c the rest.
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static int load_name(struct lk_loader *ld, const yaml_node_t *n)
{
	const char *name;
	int ret = lk_yaml_scalar(ld, n, "name", &name);

	if (ret)
		return ret;
	if (!*name)
		return lk_yaml_error(ld, n, "name: empty value");
	free(ld->sweep->name);
	ld->sweep->name = lk_strdup(name);
	return 0;
}

/* "dir/sizes.yaml" → "sizes"; a leading dot is not an extension. */
static char *default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!*base)
		return lk_strdup("sweep");
	if (!dot || dot == base)
		return lk_strdup(base);
	return lk_strndup(base, (size_t)(dot - base));
}

static int load_sources(struct lk_loader *ld, const yaml_node_t *n)
{
	char *dir = lk_path_dirname(ld->file);
	yaml_node_t **items;
	size_t nitems, i;
	int ret = lk_yaml_strings(ld, n, "sources", &items, &nitems);

	for (i = 0; !ret && i < nitems; i++) {
		const char *v = (const char *)items[i]->data.scalar.value;
		const char *problem;

		problem = lk_sweep_source_problem(ld->sweep, dir, v);
		if (problem)
			ret = lk_yaml_error(ld, items[i], "source '%s' %s", v,
					    problem);
	}
	free(items);
	free(dir);
	return ret;
}

/*
 * A string list into sv, refusing repeats (they would double variants).
 * *items (free it) gets the nodes, for the lines of later complaints.
 */
static int load_unique_strings(struct lk_loader *ld, const yaml_node_t *n,
			       const char *what, struct lk_strv *sv,
			       yaml_node_t ***items)
{
	size_t nitems, i, dup;
	int ret = lk_yaml_strings(ld, n, what, items, &nitems);

	if (ret)
		return ret;
	lk_strv_release(sv);
	for (i = 0; i < nitems; i++)
		lk_strv_push(sv, (const char *)(*items)[i]->data.scalar.value);
	dup = lk_find_duplicate((const char *const *)sv->v, sv->n);
	if (dup < sv->n)
		ret = lk_yaml_error(ld, (*items)[dup], "%s: '%s' is listed "
				    "twice", what, sv->v[dup]);
	return ret;
}

static int load_compilers(struct lk_loader *ld, const yaml_node_t *n)
{
	yaml_node_t **items = NULL;
	int ret = load_unique_strings(ld, n, "compilers",
				      &ld->sweep->compilers, &items);

	free(items);
	return ret;
}

static int load_metrics(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_strv *metrics = &ld->sweep->metrics;
	yaml_node_t **items = NULL;
	size_t i;
	int ret = load_unique_strings(ld, n, "metrics", metrics, &items);

	for (i = 0; !ret && i < metrics->n; i++) {
		struct lk_buf hint = LK_BUF_INIT;

		if (lk_metric_known(metrics->v[i]))
			continue;
		lk_suggest_hint(&hint, metrics->v[i], lk_metric_names);
		ret = lk_yaml_error(ld, items[i], "unknown metric '%s' %s",
				    metrics->v[i], lk_buf_str(&hint));
		lk_buf_release(&hint);
	}
	free(items);
	return ret;
}

/* The caller has checked that 'name' is new. */
static int add_flagset(struct lk_loader *ld, const yaml_node_t *where,
		       const char *name, const char *flags)
{
	struct lk_sweep *s = ld->sweep;
	struct lk_strv words = LK_STRV_INIT;
	struct lk_ctx probe;
	int ret;

	/* Catch an unbalanced quote now, not at build time. */
	lk_ctx_init(&probe);
	ret = lk_strv_split(&probe, &words, flags);
	lk_strv_release(&words);
	if (ret)
		return lk_yaml_error(ld, where, "flags '%s': %s", name,
				     probe.msg);
	s->flagsets = lk_reallocarray(s->flagsets, s->nflagsets + 1,
				      sizeof(*s->flagsets));
	s->flagsets[s->nflagsets].name = lk_strdup(name);
	s->flagsets[s->nflagsets++].flags = lk_strdup(flags);
	return 0;
}

static int load_flag_map(struct lk_loader *ld, const yaml_node_t *n)
{
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, n, NULL, "flags");

	if (!ret && n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		ret = lk_yaml_error(ld, n, "flags: empty map");
	for (p = n->data.mapping.pairs.start;
	     !ret && p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);
		const char *flags;

		ret = lk_yaml_scalar(ld, lk_yaml_node(ld, p->value), "flags",
				     &flags);
		if (!ret && !*(const char *)k->data.scalar.value)
			ret = lk_yaml_error(ld, k, "flags: empty name");
		if (!ret)
			ret = add_flagset(ld, k,
					  (const char *)k->data.scalar.value,
					  flags);
	}
	return ret;
}

/* A map name -> flags, or a list of flag strings each naming itself. */
static int load_flags(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_strv names = LK_STRV_INIT;
	yaml_node_t **items = NULL;
	size_t i;
	int ret;

	lk_sweep_clear_flagsets(ld->sweep);
	if (n->type == YAML_MAPPING_NODE)
		return load_flag_map(ld, n);
	ret = load_unique_strings(ld, n, "flags", &names, &items);
	for (i = 0; !ret && i < names.n; i++)
		ret = add_flagset(ld, items[i], names.v[i], names.v[i]);
	lk_strv_release(&names);
	free(items);
	return ret;
}

/* cpu: [0, 1, "4-5"]: the list's items joined into one cpulist. */
static int cpu_list(struct lk_loader *ld, const yaml_node_t *v,
		    struct lk_buf *out)
{
	yaml_node_item_t *it = v->data.sequence.items.start;
	const char *item;
	int ret = 0;

	if (it == v->data.sequence.items.top)
		return lk_yaml_error(ld, v, "method.cpu: empty list");
	for (; !ret && it < v->data.sequence.items.top; it++) {
		ret = lk_yaml_scalar(ld, lk_yaml_node(ld, *it), "method.cpu",
				     &item);
		if (!ret && (!*item || strchr(item, ',')))
			ret = lk_yaml_error(ld, lk_yaml_node(ld, *it),
					    "method.cpu: a list item is one "
					    "CPU or one range (0-3)");
		if (!ret)
			lk_buf_addf(out, "%s%s", out->len ? "," : "", item);
	}
	return ret;
}

static int load_method_key(struct lk_loader *ld, const char *prefix,
			   const yaml_node_t *k, const yaml_node_t *v)
{
	char *key = lk_asprintf("%s%s", prefix,
				(const char *)k->data.scalar.value);
	char *where = lk_asprintf("%s:%ld", ld->file, lk_yaml_line(k));
	char *what = lk_asprintf("method.%s", key);
	struct lk_buf list = LK_BUF_INIT;
	const char *value;
	int ret;

	if (!strcmp(key, "cpu") && v->type == YAML_SEQUENCE_NODE) {
		ret = cpu_list(ld, v, &list);
		value = lk_buf_str(&list);
	} else {
		ret = lk_yaml_scalar(ld, v, what, &value);
	}
	if (!ret && !*value)
		ret = lk_yaml_error(ld, v, "%s: missing value", what);
	if (!ret)
		ret = lk_method_set(ld->ctx, &ld->sweep->method, key, value,
				    where);
	lk_buf_release(&list);
	free(what);
	free(where);
	free(key);
	return ret;
}

/* 'method' and its nested 'stability' map (keys stability.runs, ...). */
static int load_method_map(struct lk_loader *ld, const yaml_node_t *n,
			   const char *prefix)
{
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, n, NULL, *prefix ? "method.stability"
							 : "method");

	for (p = n->data.mapping.pairs.start;
	     !ret && p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = lk_yaml_node(ld, p->key);
		yaml_node_t *v = lk_yaml_node(ld, p->value);

		if (*prefix ||
		    strcmp((const char *)k->data.scalar.value, "stability"))
			ret = load_method_key(ld, prefix, k, v);
		else if (v->type == YAML_MAPPING_NODE)
			ret = load_method_map(ld, v, "stability.");
		else
			ret = lk_yaml_error(ld, v, "method.stability: expected "
					    "a map of runs, tolerance, "
					    "retries");
	}
	return ret;
}

static int load_method(struct lk_loader *ld, const yaml_node_t *n)
{
	ld->sweep->method_given = 1;
	return load_method_map(ld, n, "");
}

static int load_exclude(struct lk_loader *ld, const yaml_node_t *n)
{
	return lk_load_selectors(ld, n, "exclude", &ld->sweep->exclude,
			       &ld->sweep->nexclude);
}

static int load_only(struct lk_loader *ld, const yaml_node_t *n)
{
	return lk_load_selectors(ld, n, "only", &ld->sweep->only,
			       &ld->sweep->nonly);
}

/* In the order they load: filters need the axes, so defines come first. */
static const struct sweep_part {
	const char *key;
	int (*load)(struct lk_loader *ld, const yaml_node_t *n);
	int required;
} sweep_parts[] = {
	{"name", load_name, 0},
	{"sources", load_sources, 1}, /* unless asm: */
	{"compilers", load_compilers, 0},
	{"flags", load_flags, 0},
	{"defines", lk_load_axes, 0},
	{"asm", lk_load_asm, 0},    /* its implicit axes before filters */
	{"threads", lk_load_threads, 0}, /* implicit too */
	{"metrics", load_metrics, 0},
	{"method", load_method, 0},
	{"exclude", load_exclude, 0},
	{"only", load_only, 0},
	{"report", lk_load_report, 0},
	{"predict", lk_load_predict, 0},
	{"gen", lk_load_gen, 0},
	{"filter", lk_load_l1_filter, 0},
	{"memprof", lk_load_memprof, 0},
	{"analyze", lk_load_analyze, 0},
	{"mdl", lk_load_mdl, 0},
};

static int load_parts(struct lk_loader *ld, const yaml_node_t *root)
{
	const char *keys[LK_ARRAY_SIZE(sweep_parts) + 1];
	size_t i;
	int ret;

	for (i = 0; i < LK_ARRAY_SIZE(sweep_parts); i++)
		keys[i] = sweep_parts[i].key;
	keys[i] = NULL;
	ret = lk_yaml_check_map(ld, root, keys, "top level");
	for (i = 0; !ret && i < LK_ARRAY_SIZE(sweep_parts); i++) {
		const struct sweep_part *part = &sweep_parts[i];
		yaml_node_t *n = lk_yaml_get(ld, root, part->key);

		if (!n && part->required && !lk_yaml_get(ld, root, "asm"))
			ret = lk_yaml_error(ld, root, "missing required key "
					    "'%s'", part->key);
		else if (n && part->required && lk_yaml_get(ld, root, "asm"))
			ret = lk_yaml_error(ld, n, "sources: a sweep with an "
					    "asm: section generates its own");
		/* It stands in for sources: empty, there is nothing to
		 * measure. */
		else if (n && part->load == lk_load_asm && lk_yaml_is_null(n))
			ret = lk_yaml_error(ld, n, "asm: empty section (give "
					    "its bodies:)");
		/* "defines:" with its entries commented out: the default. */
		else if (n && (part->required || !lk_yaml_is_null(n)))
			ret = part->load(ld, n);
	}
	return ret;
}

static int load_sweep(struct lk_loader *ld, struct lk_sweep **out)
{
	yaml_node_t *root = yaml_document_get_root_node(ld->doc);
	int ret;

	if (!root)
		return lk_error_at(ld->ctx, LK_EINPUT, ld->file, 1,
				   "empty document");
	ld->sweep = lk_sweep_new();
	free(ld->sweep->name);
	ld->sweep->name = default_name(ld->file);
	ld->sweep->path = lk_strdup(ld->file);
	ret = load_parts(ld, root);
	if (ret) {
		lk_sweep_free(ld->sweep);
		return ret;
	}
	*out = ld->sweep;
	return 0;
}

/* Reader errors (bad UTF-8) carry an offset, not a mark. */
static long line_at(const char *text, size_t len, size_t offset)
{
	long line = 1;
	size_t i;

	for (i = 0; i < offset && i < len; i++)
		line += text[i] == '\n';
	return line;
}

static int syntax_error(struct lk_loader *ld, const yaml_parser_t *parser,
			const char *text, size_t len)
{
	long line = (long)parser->problem_mark.line + 1;

	if (parser->error == YAML_MEMORY_ERROR)
		return lk_error(ld->ctx, LK_ESYS, "%s: out of memory reading "
				"YAML", ld->file);
	if (parser->error == YAML_READER_ERROR)
		line = line_at(text, len, parser->problem_offset);
	return lk_error_at(ld->ctx, LK_EINPUT, ld->file, line,
			   "YAML syntax error: %s%s%s%s",
			   parser->problem ? parser->problem : "unknown",
			   parser->context ? " (" : "",
			   parser->context ? parser->context : "",
			   parser->context ? ")" : "");
}

/* A second document would be silently ignored: refuse it. */
static int check_one_document(struct lk_loader *ld, yaml_parser_t *parser,
			      const char *text, size_t len)
{
	yaml_document_t next;
	yaml_node_t *root;
	int ret = 0;

	if (!yaml_parser_load(parser, &next))
		return syntax_error(ld, parser, text, len);
	root = yaml_document_get_root_node(&next);
	if (root)
		ret = lk_yaml_error(ld, root, "more than one YAML document");
	yaml_document_delete(&next);
	return ret;
}

/* Events are cheap and aliases stay unexpanded: vet the depth first. */
static int check_depth(struct lk_loader *ld, yaml_parser_t *parser,
		       const char *text, size_t len)
{
	yaml_event_t ev;
	int depth = 0, ret = 0, done = 0;

	while (!ret && !done) {
		if (!yaml_parser_parse(parser, &ev))
			return syntax_error(ld, parser, text, len);
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			 ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > LK_YAML_DEPTH_MAX)
			ret = lk_error_at(ld->ctx, LK_EINPUT, ld->file,
					  (long)ev.start_mark.line + 1,
					  "lists and maps nested more than "
					  "%d deep", LK_YAML_DEPTH_MAX);
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	return ret;
}

static int start_parser(struct lk_ctx *ctx, yaml_parser_t *parser,
			const char *text, size_t len)
{
	if (!yaml_parser_initialize(parser))
		return lk_error(ctx, LK_ESYS, "out of memory");
	yaml_parser_set_input_string(parser, (const unsigned char *)text,
				     len);
	return 0;
}

int lk_sweep_parse(struct lk_ctx *ctx, const char *name, const char *text,
		   size_t len, struct lk_sweep **out)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct lk_loader ld = {ctx, name, &doc, NULL, 0, 0};
	int ret;

	*out = NULL;
	if (start_parser(ctx, &parser, text, len))
		return LK_ESYS;
	ret = check_depth(&ld, &parser, text, len);
	yaml_parser_delete(&parser);
	if (ret || start_parser(ctx, &parser, text, len))
		return ret ? ret : LK_ESYS;
	if (!yaml_parser_load(&parser, &doc)) {
		ret = syntax_error(&ld, &parser, text, len);
		goto out;
	}
	ret = load_sweep(&ld, out);
	if (!ret)
		ret = check_one_document(&ld, &parser, text, len);
	if (ret) {
		lk_sweep_free(*out);
		*out = NULL;
	}
	yaml_document_delete(&doc);
out:
	yaml_parser_delete(&parser);
	return ret;
}

int lk_sweep_load(struct lk_ctx *ctx, const char *path, struct lk_sweep **out)
{
	char *text;
	size_t len;
	int ret;

	*out = NULL;
	if ((ret = lk_file_read_input(ctx, path, &text, &len)))
		return ret;
	ret = lk_sweep_parse(ctx, path, text, len, out);
	free(text);
	return ret;
}
