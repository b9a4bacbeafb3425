/*
 * The report: section of a campaign file: the page's title, the keys the
 * statistics are grouped by, where the files go.
 *
 *   report:
 *     title: Analyzers on the demo kernels
 *     group-by: [family, transformation, compiler]   # [] for none
 *     output: report/          # relative to this file's directory
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const report_keys[] = {"title", "group-by", "output",
					  NULL};

static int load_title(struct lk_loader *ld, const yaml_node_t *n,
		      struct lk_report_cfg *r)
{
	const char *title;
	int ret = lk_yaml_scalar(ld, n, "report.title", &title);

	if (!ret && !*title)
		ret = lk_yaml_error(ld, n, "report.title: empty value");
	if (!ret) {
		free(r->title);
		r->title = lk_strdup(title);
	}
	return ret;
}

/* A list of keys, [] meaning no grouping at all; repeats refused. */
static int load_group_by(struct lk_loader *ld, const yaml_node_t *n,
			 struct lk_report_cfg *r)
{
	yaml_node_t **items = NULL;
	size_t nitems = 0, i, dup;
	int ret = 0;

	r->group_by_given = 1;
	r->group_by_line = lk_yaml_line(n);
	lk_strv_release(&r->group_by);
	if (n->type == YAML_SEQUENCE_NODE &&
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return 0;
	ret = lk_yaml_strings(ld, n, "report.group-by", &items, &nitems);
	for (i = 0; !ret && i < nitems; i++)
		lk_strv_push(&r->group_by,
			     (const char *)items[i]->data.scalar.value);
	dup = ret ? 0 : lk_find_duplicate((const char *const *)r->group_by.v,
					  r->group_by.n);
	if (!ret && dup < r->group_by.n)
		ret = lk_yaml_error(ld, items[dup], "report.group-by: '%s' is "
				    "listed twice", r->group_by.v[dup]);
	free(items);
	return ret;
}

static int load_output(struct lk_loader *ld, const yaml_node_t *n,
		       struct lk_report_cfg *r)
{
	const char *out;
	char *dir;
	int ret = lk_yaml_scalar(ld, n, "report.output", &out);

	if (!ret && !*out)
		ret = lk_yaml_error(ld, n, "report.output: empty value");
	if (ret)
		return ret;
	dir = lk_path_dirname(ld->file);
	free(r->output);
	r->output = out[0] == '/' ? lk_strdup(out) : lk_path_join(dir, out);
	free(dir);
	return 0;
}

int lk_load_report(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_report_cfg *r = &ld->sweep->report;
	yaml_node_t *v;
	int ret = lk_yaml_check_map(ld, n, report_keys, "report");

	r->given = 1;
	v = ret ? NULL : lk_yaml_get(ld, n, "title");
	if (v && !lk_yaml_is_null(v))
		ret = load_title(ld, v, r);
	v = ret ? NULL : lk_yaml_get(ld, n, "group-by");
	if (v && !lk_yaml_is_null(v))
		ret = load_group_by(ld, v, r);
	v = ret ? NULL : lk_yaml_get(ld, n, "output");
	if (v && !lk_yaml_is_null(v))
		ret = load_output(ld, v, r);
	return ret;
}

void lk_report_cfg_release(struct lk_report_cfg *r)
{
	free(r->title);
	free(r->output);
	lk_strv_release(&r->group_by);
	memset(r, 0, sizeof(*r));
}
