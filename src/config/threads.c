/*
 * The 'threads:' key: the thread count as an implicit sweep axis named
 * threads. Its value is a variant parameter (exclude/only, the report and
 * analyze see it; it is part of the variant's key), never a -D: the
 * runner sets OMP_NUM_THREADS and LK_THREADS for the launch, so one
 * build serves every count.
 */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

/* More threads than CPUs is allowed (oversubscription is an experiment
 * too), up to the most CPUs loopkit can pin. */
#define THREADS_MAX LK_CPUS_MAX

static const char *const range_keys[] = {"from", "to", "step", "times", NULL};

/* The CPUs the machine has online: what 'nproc' stands for. */
static long nproc(void)
{
	struct lk_cpuset online;

	if (!lk_cpus_online(&online) && lk_cpuset_count(&online))
		return lk_cpuset_count(&online);
	return lk_cpu_count();
}

/* A count: a whole number in 1..THREADS_MAX, or nproc. */
static int count_of(struct lk_loader *ld, const yaml_node_t *n,
		    const char *what, long *out, int *is_nproc)
{
	const char *text;
	int ret = lk_yaml_scalar(ld, n, what, &text);

	*is_nproc = !ret && !strcmp(text, "nproc");
	if (ret || *is_nproc) {
		*out = nproc();
		return ret;
	}
	if (lk_parse_decimal(text, out) || *out < 1 || *out > THREADS_MAX)
		return lk_yaml_error(ld, n,
				     "%s: expected nproc or a whole "
				     "number between 1 and %d, not '%s'",
				     what, THREADS_MAX, text);
	return 0;
}

/*
 * Append count to the axis. A count written twice is refused; one that
 * nproc turned into a repeat ([1, 2, nproc] on two CPUs) is dropped, so
 * a file written for a bigger machine still loads.
 */
static int add_count(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_axis *ax, long count, int is_nproc,
		     unsigned char *nproc_made)
{
	size_t i;

	for (i = 0; i < ax->values.n; i++)
		if (strtol(ax->values.v[i], NULL, 10) == count)
			break;
	if (i == ax->values.n) {
		nproc_made[i] = (unsigned char)is_nproc;
		lk_strv_pushf(&ax->values, "%ld", count);
		return 0;
	}
	if (is_nproc || nproc_made[i])
		return 0;
	return lk_yaml_error(ld, n, "threads: %ld is listed twice", count);
}

static int load_list(struct lk_loader *ld, const yaml_node_t *n,
		     struct lk_axis *ax)
{
	yaml_node_item_t *it = n->data.sequence.items.start;
	size_t count = (size_t)(n->data.sequence.items.top - it), i;
	unsigned char *nproc_made = lk_calloc(count + 1, 1);
	int ret = count ? 0 : lk_yaml_error(ld, n, "threads: empty list");

	for (i = 0; !ret && i < count; i++) {
		yaml_node_t *item = lk_yaml_node(ld, it[i]);
		long c;
		int is_nproc;

		ret = count_of(ld, item, "threads", &c, &is_nproc);
		if (!ret)
			ret = add_count(ld, item, ax, c, is_nproc, nproc_made);
	}
	free(nproc_made);
	return ret;
}

/* from, from + step, ... or from, from x times, ... up to to. */
static int load_range(struct lk_loader *ld, const yaml_node_t *n,
		      struct lk_axis *ax)
{
	yaml_node_t *from_n, *to_n, *step_n, *times_n;
	long from = 1, to = 1, step = 1, times = 1, c;
	int ret = lk_yaml_check_map(ld, n, range_keys, "threads"), is_nproc;

	from_n = ret ? NULL : lk_yaml_get(ld, n, "from");
	to_n = ret ? NULL : lk_yaml_get(ld, n, "to");
	step_n = ret ? NULL : lk_yaml_get(ld, n, "step");
	times_n = ret ? NULL : lk_yaml_get(ld, n, "times");
	if (!ret && (!from_n || !to_n))
		return lk_yaml_error(ld, n,
				     "threads: a range needs 'from' "
				     "and 'to'");
	if (!ret && step_n && times_n)
		return lk_yaml_error(ld, times_n,
				     "threads: a range has "
				     "'step' or 'times', not "
				     "both");
	if (!ret)
		ret = count_of(ld, from_n, "threads.from", &from, &is_nproc);
	if (!ret)
		ret = count_of(ld, to_n, "threads.to", &to, &is_nproc);
	if (!ret && step_n)
		ret = lk_yaml_long(ld, step_n, "threads.step", 1, THREADS_MAX,
				   &step);
	if (!ret && times_n)
		ret = lk_yaml_long(ld, times_n, "threads.times", 2, THREADS_MAX,
				   &times);
	if (!ret && to < from)
		return lk_yaml_error(ld, n,
				     "threads: from %ld to %ld gives no "
				     "values (nproc is %ld here)",
				     from, to, nproc());
	for (c = from; !ret && c <= to; c = times > 1 ? c * times : c + step)
		lk_strv_pushf(&ax->values, "%ld", c);
	return ret;
}

static int check_name(struct lk_loader *ld, const yaml_node_t *n)
{
	const struct lk_sweep *s = ld->sweep;
	size_t i;

	for (i = 0; i < s->naxes; i++)
		if (!strcmp(s->axes[i].name, "threads"))
			return lk_yaml_error(ld, n,
					     "threads: an axis of that "
					     "name is already defined (line "
					     "%ld); rename it",
					     s->axes[i].line);
	return 0;
}

int lk_load_threads(struct lk_loader *ld, const yaml_node_t *n)
{
	struct lk_sweep *s = ld->sweep;
	struct lk_axis *ax;
	long c;
	int ret = check_name(ld, n), is_nproc;

	if (ret)
		return ret;
	s->axes = lk_reallocarray(s->axes, s->naxes + 1, sizeof(*s->axes));
	ax = &s->axes[s->naxes++];
	memset(ax, 0, sizeof(*ax));
	ax->name = lk_strdup("threads");
	ax->line = lk_yaml_line(n);
	ax->implicit = 1;
	if (n->type == YAML_SEQUENCE_NODE)
		ret = load_list(ld, n, ax);
	else if (n->type == YAML_MAPPING_NODE)
		ret = load_range(ld, n, ax);
	else if (!(ret = count_of(ld, n, "threads", &c, &is_nproc)))
		lk_strv_pushf(&ax->values, "%ld", c);
	return ret;
}

long lk_variant_threads(const struct lk_sweep *s, const struct lk_variant *v)
{
	size_t i;

	for (i = 0; i < s->naxes; i++)
		if (s->axes[i].implicit && !strcmp(s->axes[i].name, "threads"))
			return v->values[i] ? strtol(v->values[i], NULL, 10)
					    : 0;
	return 0;
}
