/*
 * The call tree by interval nesting, and its indented rendering. Both
 * walk the calls in id (entry) order with an explicit stack: a trace of
 * a deep recursion must not take the C stack with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memprof-int.h"

/* Calls that never returned end at the last TSC the trace saw. */
static uint64_t last_tsc(const struct lk_trace *t)
{
	uint64_t last = 0;
	size_t i;

	for (i = 0; i < t->ncalls; i++) {
		if (t->calls[i].enter > last)
			last = t->calls[i].enter;
		if (t->calls[i].exit > last)
			last = t->calls[i].exit;
	}
	return last;
}

static uint64_t call_end(const struct lk_call *c, uint64_t last)
{
	return c->exit ? c->exit : last;
}

/* Where call i was read: "FILE:LINE" (text) or "FILE: record I"
 * (binary); NULL for a trace built in memory. */
static char *origin_of(const struct lk_trace *t, size_t i)
{
	if (!t->source)
		return NULL;
	if (t->lines)
		return lk_asprintf("%s:%lu", t->source,
				   (unsigned long)t->lines[i]);
	return lk_asprintf("%s: record %zu", t->source, i);
}

/* Call i overlaps call p (still open) without nesting in it. */
static int overlap_error(struct lk_ctx *ctx, const struct lk_trace *t,
			 size_t i, size_t p, uint64_t last)
{
	const struct lk_call *c = &t->calls[i], *o = &t->calls[p];
	char *at = origin_of(t, i), other[48] = "";
	int ret;

	if (at && t->lines)
		snprintf(other, sizeof(other), " (line %lu)",
			 (unsigned long)t->lines[p]);
	else if (at)
		snprintf(other, sizeof(other), " (record %zu)", p);
	ret = lk_error(ctx, LK_EINPUT,
		       "%s%scall %llu [%llu, %llu] overlaps call %llu%s "
		       "[%llu, %llu] without nesting in it",
		       at ? at : "", at ? ": " : "",
		       (unsigned long long)c->id,
		       (unsigned long long)c->enter,
		       (unsigned long long)call_end(c, last),
		       (unsigned long long)o->id, other,
		       (unsigned long long)o->enter,
		       (unsigned long long)call_end(o, last));
	free(at);
	return ret;
}

/*
 * stack[0..*depth) holds the open calls, innermost last. The parent of
 * call i is the innermost one that contains it; calls that ended by the
 * time it entered are done with and popped. A call on the stack that
 * neither contains it nor ended before it entered overlaps it.
 */
static int attach(struct lk_ctx *ctx, const struct lk_trace *t,
		  struct lk_call_node *nodes, size_t *stack, size_t *depth,
		  size_t i, uint64_t last)
{
	const struct lk_call *c = &t->calls[i], *top;
	uint64_t end = call_end(c, last);
	size_t parent;

	while (*depth) {
		top = &t->calls[stack[*depth - 1]];
		if (top->enter <= c->enter && end <= call_end(top, last))
			break;
		if (call_end(top, last) > c->enter)
			return overlap_error(ctx, t, i, stack[*depth - 1],
					     last);
		(*depth)--;
	}
	nodes[i].inclusive = end - c->enter;
	nodes[i].self = nodes[i].inclusive;
	nodes[i].parent = LK_NO_PARENT;
	nodes[i].depth = (uint32_t)*depth;
	if (*depth) {
		parent = stack[*depth - 1];
		nodes[i].parent = parent;
		nodes[parent].self -= nodes[i].inclusive;
	}
	stack[(*depth)++] = i;
	return 0;
}

int lk_calltree_build(struct lk_ctx *ctx, const struct lk_trace *t,
		      struct lk_call_node **nodes)
{
	uint64_t last = last_tsc(t);
	size_t *stack, depth = 0, i;
	int ret = 0;

	*nodes = lk_calloc(t->ncalls ? t->ncalls : 1, sizeof(**nodes));
	stack = lk_calloc(t->ncalls ? t->ncalls : 1, sizeof(*stack));
	for (i = 0; i < t->ncalls && !ret; i++) {
		if (i && t->calls[i].id <= t->calls[i - 1].id)
			ret = lk_error(ctx, LK_EINPUT,
				       "calls not sorted by id (%llu after "
				       "%llu)",
				       (unsigned long long)t->calls[i].id,
				       (unsigned long long)t->calls[i - 1].id);
		else
			ret = attach(ctx, t, *nodes, stack, &depth, i, last);
	}
	free(stack);
	if (ret) {
		free(*nodes);
		*nodes = NULL;
	}
	return ret;
}

/* Past this depth the indentation stops growing and the depth is shown
 * instead: a million-deep recursion would print terabytes of spaces. */
#define MAX_INDENT 32

void lk_calltree_print(const struct lk_trace *t,
		       const struct lk_call_node *nodes, size_t max_lines,
		       struct lk_buf *out)
{
	size_t i, n = t->ncalls;
	uint32_t d;

	if (max_lines && max_lines < n)
		n = max_lines;
	for (i = 0; i < n; i++) {
		for (d = 0; d < nodes[i].depth && d < MAX_INDENT; d++)
			lk_buf_adds(out, "  ");
		if (nodes[i].depth > MAX_INDENT)
			lk_buf_addf(out, "[%u] ", nodes[i].depth);
		lk_buf_addf(out, "%s  %llu  %llu\n",
			    t->names.v[t->calls[i].func],
			    (unsigned long long)nodes[i].inclusive,
			    (unsigned long long)nodes[i].self);
	}
	if (n < t->ncalls)
		lk_buf_addf(out, "... %zu more calls\n", t->ncalls - n);
}
