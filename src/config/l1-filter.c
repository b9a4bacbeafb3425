/*
 * The 'filter:' section: settings of the L1-residency filter.
 *
 *	filter:
 *	  threshold: 1%          # or 0.01
 *	  l1d-size: host         # or bytes: 32768, 48KiB
 *	  l1d-assoc: host        # or ways
 *	  line-size: host        # or bytes
 *	  calls: [1, 3]          # kernel calls of the two cachegrind runs
 *	  timeout: 300           # seconds per cachegrind run
 *	  working-set-param: working_set_bytes
 *	  enabled: true
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config-int.h"

static const char *const keys[] = {
	"threshold", "l1d-size",	  "l1d-assoc", "line-size", "calls",
	"timeout",   "working-set-param", "enabled",   NULL};

static int scalar(struct lk_loader *ld, const yaml_node_t *v,
		  const char *key, const char **out)
{
	char *what = lk_asprintf("filter.%s", key);
	int ret = lk_yaml_scalar(ld, v, what, out);

	if (!ret && !**out)
		ret = lk_yaml_error(ld, v, "%s: missing value", what);
	free(what);
	return ret;
}

/* "1%" or "0.01", in [0, 1]. */
static int load_threshold(struct lk_loader *ld, const yaml_node_t *v,
			  struct lk_l1_filter_cfg *f)
{
	const char *text;
	char *num;
	size_t len;
	double t = -1;
	int ret = scalar(ld, v, "threshold", &text);

	if (ret)
		return ret;
	len = strlen(text);
	num = lk_strdup(text);
	if (len > 1 && num[len - 1] == '%') {
		num[len - 1] = '\0';
		if (!lk_parse_number(num, &t))
			t /= 100;
		else
			t = -1;
	} else if (lk_parse_number(num, &t)) {
		t = -1;
	}
	free(num);
	if (!(t >= 0 && t <= 1))
		return lk_yaml_error(ld, v, "filter.threshold: expected a "
				     "fraction in [0, 1] such as 0.01 or 1%%, "
				     "not '%s'", text);
	f->threshold = t;
	f->has_threshold = 1;
	return 0;
}

/* "host", a positive integer, or one with a KiB suffix. */
static int load_size(struct lk_loader *ld, const yaml_node_t *v,
		     const char *key, long *out)
{
	const char *text;
	char *num;
	size_t len;
	long n = 0, scale = 1;
	int ret = scalar(ld, v, key, &text);

	if (ret)
		return ret;
	if (!strcmp(text, "host")) {
		*out = 0;
		return 0;
	}
	len = strlen(text);
	num = lk_strdup(text);
	if (len > 3 && !strcmp(num + len - 3, "KiB")) {
		num[len - 3] = '\0';
		scale = 1024;
	}
	if (lk_parse_decimal(num, &n) || n <= 0 || n > (1L << 30) / scale)
		ret = lk_yaml_error(ld, v, "filter.%s: expected 'host' or a "
				    "positive number, not '%s'", key, text);
	else
		*out = n * scale;
	free(num);
	return ret;
}

static int load_calls(struct lk_loader *ld, const yaml_node_t *v,
		      struct lk_l1_filter_cfg *f)
{
	yaml_node_t **items = NULL;
	size_t n, i;
	long c[2] = {0, 0};
	int ret = lk_yaml_strings(ld, v, "filter.calls", &items, &n);

	if (!ret && n != 2)
		ret = lk_yaml_error(ld, v, "filter.calls: expected two "
				    "numbers of kernel calls, such as [1, 3]");
	for (i = 0; !ret && i < n; i++) {
		const char *t = (const char *)items[i]->data.scalar.value;

		if (lk_parse_decimal(t, &c[i]) || c[i] < 1 || c[i] > 1000000)
			ret = lk_yaml_error(ld, items[i], "filter.calls: '%s' "
					    "is not a number of calls in "
					    "[1, 1000000]", t);
	}
	if (!ret && c[0] >= c[1])
		ret = lk_yaml_error(ld, v, "filter.calls: the second run "
				    "must make more calls than the first");
	if (!ret) {
		f->calls[0] = c[0];
		f->calls[1] = c[1];
	}
	free(items);
	return ret;
}

static int load_timeout(struct lk_loader *ld, const yaml_node_t *v,
			struct lk_l1_filter_cfg *f)
{
	const char *text;
	double t = 0;
	int ret = scalar(ld, v, "timeout", &text);

	if (ret)
		return ret;
	if (lk_parse_number(text, &t) || t <= 0 || t > 1e6)
		return lk_yaml_error(ld, v, "filter.timeout: expected seconds "
				     "in (0, 1000000], not '%s'", text);
	f->timeout = t;
	return 0;
}

static int load_param(struct lk_loader *ld, const yaml_node_t *v,
		      struct lk_l1_filter_cfg *f)
{
	const char *text;
	int ret = scalar(ld, v, "working-set-param", &text);

	if (ret)
		return ret;
	if (strlen(text) >= sizeof(f->working_set_param))
		return lk_yaml_error(ld, v, "filter.working-set-param: name "
				     "longer than %zu characters",
				     sizeof(f->working_set_param) - 1);
	strcpy(f->working_set_param, text);
	return 0;
}

static int load_enabled(struct lk_loader *ld, const yaml_node_t *v,
			struct lk_l1_filter_cfg *f)
{
	const char *text;
	int enabled, ret = scalar(ld, v, "enabled", &text);

	if (ret)
		return ret;
	if (lk_parse_bool(text, &enabled))
		return lk_yaml_error(ld, v, "filter.enabled: expected true or "
				     "false, not '%s'", text);
	f->disabled = !enabled;
	return 0;
}

static int load_key(struct lk_loader *ld, const char *key,
		    const yaml_node_t *v, struct lk_l1_filter_cfg *f)
{
	if (!strcmp(key, "threshold"))
		return load_threshold(ld, v, f);
	if (!strcmp(key, "l1d-size"))
		return load_size(ld, v, key, &f->l1d_size);
	if (!strcmp(key, "l1d-assoc"))
		return load_size(ld, v, key, &f->l1d_assoc);
	if (!strcmp(key, "line-size"))
		return load_size(ld, v, key, &f->line_size);
	if (!strcmp(key, "calls"))
		return load_calls(ld, v, f);
	if (!strcmp(key, "timeout"))
		return load_timeout(ld, v, f);
	if (!strcmp(key, "working-set-param"))
		return load_param(ld, v, f);
	return load_enabled(ld, v, f);
}

int lk_load_l1_filter(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_l1_filter_cfg *f = &ld->sweep->filter;
	yaml_node_pair_t *p;
	int ret = lk_yaml_check_map(ld, n, keys, "filter");

	for (p = n->data.mapping.pairs.start;
	     !ret && p < n->data.mapping.pairs.top; p++)
		ret = load_key(ld,
			       (const char *)lk_yaml_node(ld, p->key)
				       ->data.scalar.value,
			       lk_yaml_node(ld, p->value), f);
	return ret;
}
