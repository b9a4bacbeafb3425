/*
 * The exclusive profile: per function, calls, inclusive time counted
 * once per recursive chain, exclusive time and its spread; rendered as a
 * gprof-like flat table or as JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "memprof-int.h"

/*
 * Add call i to its function's profile. open[f] counts the calls of f
 * on the path from the root to i: only when it is 0 is i the outermost
 * instance, whose inclusive time holds all the inner ones'.
 */
static void add_call(struct lk_func_profile *f, const struct lk_call_node *n,
		     const long *open)
{
	if (!f->calls || n->self < f->min_self)
		f->min_self = n->self;
	if (n->self > f->max_self)
		f->max_self = n->self;
	f->calls++;
	f->self += n->self;
	if (!*open)
		f->total += n->inclusive;
}

/* Calls in id order are the tree in pre-order, each subtree contiguous:
 * one stack of open calls replays the path to every call. */
static void accumulate(const struct lk_trace *t,
		       const struct lk_call_node *nodes,
		       struct lk_func_profile *by_func)
{
	long *open = lk_calloc(t->names.n ? t->names.n : 1, sizeof(*open));
	size_t *stack = lk_calloc(t->ncalls ? t->ncalls : 1, sizeof(*stack));
	size_t depth = 0, i;
	uint32_t f;

	for (i = 0; i < t->ncalls; i++) {
		while (depth && stack[depth - 1] != nodes[i].parent)
			open[t->calls[stack[--depth]].func]--;
		f = t->calls[i].func;
		add_call(&by_func[f], &nodes[i], &open[f]);
		open[f]++;
		stack[depth++] = i;
	}
	free(open);
	free(stack);
}

static int by_self_desc(const void *a, const void *b)
{
	const struct lk_func_profile *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return strcmp(x->name, y->name);
}

int lk_profile_build(struct lk_ctx *ctx, const struct lk_trace *t,
		     const struct lk_call_node *nodes,
		     struct lk_func_profile **prof, size_t *n)
{
	struct lk_func_profile *p;
	size_t f, kept = 0;

	(void)ctx;
	p = lk_calloc(t->names.n ? t->names.n : 1, sizeof(*p));
	for (f = 0; f < t->names.n; f++)
		p[f].name = t->names.v[f];
	accumulate(t, nodes, p);
	/* Functions named in a binary trace but never called are left out. */
	for (f = 0; f < t->names.n; f++) {
		if (!p[f].calls)
			continue;
		p[f].mean_self = (double)p[f].self / (double)p[f].calls;
		p[kept++] = p[f];
	}
	qsort(p, kept, sizeof(*p), by_self_desc);
	*prof = p;
	*n = kept;
	return 0;
}

void lk_profile_flat(const struct lk_func_profile *p, size_t n,
		     struct lk_buf *out)
{
	double all = 0;
	size_t i;

	for (i = 0; i < n; i++)
		all += (double)p[i].self;
	lk_buf_adds(out, "Flat profile (values are TSC ticks, not core "
			 "cycles)\n\n");
	lk_buf_addf(out, "%7s %14s %10s %12s %14s  %s\n", "% self",
		    "self ticks", "calls", "self/call", "total ticks", "name");
	for (i = 0; i < n; i++)
		lk_buf_addf(out, "%7.2f %14llu %10ld %12.1f %14llu  %s\n",
			    all > 0 ? 100.0 * (double)p[i].self / all : 0.0,
			    (unsigned long long)p[i].self, p[i].calls,
			    p[i].mean_self, (unsigned long long)p[i].total,
			    p[i].name);
}

void lk_profile_json(const struct lk_func_profile *p, size_t n,
		     struct lk_buf *out)
{
	size_t i;

	lk_buf_addch(out, '[');
	for (i = 0; i < n; i++) {
		lk_buf_adds(out, i ? ",\n {\"name\": " : "\n {\"name\": ");
		lk_buf_add_json_str(out, p[i].name);
		lk_buf_addf(out,
			    ", \"calls\": %ld, \"total\": %llu, \"self\": %llu, "
			    "\"min_self\": %llu, \"max_self\": %llu, "
			    "\"mean_self\": %.17g}",
			    p[i].calls, (unsigned long long)p[i].total,
			    (unsigned long long)p[i].self,
			    (unsigned long long)p[i].min_self,
			    (unsigned long long)p[i].max_self, p[i].mean_self);
	}
	lk_buf_adds(out, n ? "\n]\n" : "]\n");
}
