/*
 * The memprof: section of a campaign file: the programs the memprof
 * stage compiles with the GCC plugin, runs and profiles.
 *
 *   memprof:
 *     programs: [mix.c, other.c]   # relative to this file; default:
 *                                  # the sweep's sources
 *     cflags: -O1 -march=native    # or a list; default: none
 *     strict: false                # a malformed trace line fails
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const memprof_keys[] = {"programs", "cflags", "strict",
					   NULL};

static int load_programs(struct lk_loader *ld, const yaml_node_t *n,
			 struct lk_memprof_cfg *m)
{
	char *dir = lk_path_dirname(ld->file);
	yaml_node_t **items = NULL;
	size_t nitems = 0, i;
	int ret = lk_yaml_strings(ld, n, "memprof.programs", &items, &nitems);

	for (i = 0; !ret && i < nitems; i++) {
		const char *v = (const char *)items[i]->data.scalar.value;
		const char *problem = lk_path_list_problem(
			&m->programs, &m->program_names, dir, v);

		if (problem)
			ret = lk_yaml_error(ld, items[i], "memprof.programs: "
					    "'%s' %s", v, problem);
	}
	free(items);
	free(dir);
	return ret;
}

/* Each string is split into words as a shell would (no expansion). */
static int load_cflags(struct lk_loader *ld, const yaml_node_t *n,
		       struct lk_memprof_cfg *m)
{
	yaml_node_t **items = NULL;
	size_t nitems = 0, i;
	int ret = lk_yaml_strings(ld, n, "memprof.cflags", &items, &nitems);

	for (i = 0; !ret && i < nitems; i++) {
		struct lk_ctx probe;

		lk_ctx_init(&probe);
		if (lk_strv_split(&probe, &m->cflags,
				  (const char *)items[i]->data.scalar.value))
			ret = lk_yaml_error(ld, items[i], "memprof.cflags: %s",
					    probe.msg);
	}
	free(items);
	return ret;
}

static int load_strict(struct lk_loader *ld, const yaml_node_t *n,
		       struct lk_memprof_cfg *m)
{
	const char *text;
	int ret = lk_yaml_scalar(ld, n, "memprof.strict", &text);

	if (!ret && lk_parse_bool(text, &m->strict))
		ret = lk_yaml_error(ld, n, "memprof.strict: expected true or "
				    "false, not '%s'", text);
	return ret;
}

int lk_load_memprof(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_memprof_cfg *m = &ld->sweep->memprof;
	yaml_node_t *v;
	int ret = lk_yaml_check_map(ld, n, memprof_keys, "memprof");

	m->given = 1;
	m->line = lk_yaml_line(n);
	v = ret ? NULL : lk_yaml_get(ld, n, "programs");
	if (v && !lk_yaml_is_null(v))
		ret = load_programs(ld, v, m);
	v = ret ? NULL : lk_yaml_get(ld, n, "cflags");
	if (v && !lk_yaml_is_null(v))
		ret = load_cflags(ld, v, m);
	v = ret ? NULL : lk_yaml_get(ld, n, "strict");
	if (v && !lk_yaml_is_null(v))
		ret = load_strict(ld, v, m);
	return ret;
}

void lk_memprof_cfg_release(struct lk_memprof_cfg *m)
{
	lk_strv_release(&m->programs);
	lk_strv_release(&m->program_names);
	lk_strv_release(&m->cflags);
	memset(m, 0, sizeof(*m));
}
