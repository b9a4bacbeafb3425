/*
 * Micro-kernelification: the hottest innermost loop of the transformed
 * nest, with its outer loops fixed at a representative iteration, as a
 * standalone benchmark of one loop with constant bounds. Hotness and the
 * representative point come from the AST isl generates with the size
 * symbols fixed; the loop's statement instances and their accesses are
 * extended past the original bounds as affine functions of the one
 * iterator, so the arrays' extents are the bounding boxes of the exact
 * images of the chosen iterations (doc/loopkit-gen.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/mat.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "loopkit/env.h"
#include "kernelify.h"

#define GRANULE_DEFAULT 64

static long step_value(const struct lk_gen_step *st, const char *key,
		       long dflt)
{
	const char *v = lk_gen_step_get(st, key);
	long n;

	return v && !lk_parse_long(v, &n) ? n : dflt;
}

static long val_long(isl_val *v, int *ok)
{
	long n = 0;

	if (v && isl_val_is_int(v))
		n = isl_val_get_num_si(v);
	else
		*ok = 0;
	isl_val_free(v);
	return n;
}

long kfy_count(isl_set *set)
{
	int ok = 1;
	long n = val_long(isl_set_count_val(set), &ok);

	isl_set_free(set);
	return ok ? n : -1;
}

/* Minimum and maximum of dimension d of a bounded set: 0, else -1. */
int kfy_dim_bounds(isl_set *set, int d, long *min, long *max)
{
	isl_aff *a = isl_aff_var_on_domain(
		isl_local_space_from_space(isl_set_get_space(set)),
		isl_dim_set, (unsigned)d);
	int ok = 1;

	*min = val_long(isl_set_min_val(set, a), &ok);
	*max = val_long(isl_set_max_val(set, a), &ok);
	isl_aff_free(a);
	return ok ? 0 : -1;
}

isl_map *kfy_fix_sizes(struct kfy *k, isl_map *m)
{
	isl_size np = isl_map_dim(m, isl_dim_param);

	m = isl_map_intersect_params(m, isl_set_copy(k->sizes));
	return isl_map_project_out(m, isl_dim_param, 0, (unsigned)np);
}

/* ---- The size symbols. ---- */

/* The value the user gave name (gen --param NAME=VALUE): 1 and *v. */
static int given_size(const struct lk_gen_scop *s, const char *name,
		      long long *v)
{
	size_t i, len = strlen(name);

	for (i = s->size_values.n; i-- > 0;) {
		const char *kv = s->size_values.v[i];
		long val;

		if (!strncmp(kv, name, len) && kv[len] == '=' &&
		    !lk_parse_long(kv + len + 1, &val)) {
			*v = val;
			return 1;
		}
	}
	return 0;
}

static int read_sizes(struct kfy *k, const char *size)
{
	struct lk_gen_scop *s = k->s;
	char *prefix = gen_params_prefix(s), *define;
	struct lk_buf b = LK_BUF_INIT;
	size_t i;
	int ret;

	define = lk_asprintf("%s_DATASET", size);
	for (i = 0; define[i]; i++)
		define[i] = (char)(define[i] >= 'a' && define[i] <= 'z' ?
				   define[i] - 'a' + 'A' : define[i]);
	ret = kfy_decls_read(k->ctx, s, define, &k->decls);
	lk_buf_addf(&b, "%s{ : ", prefix);
	for (i = 0; !ret && i < s->params.n; i++) {
		const struct kfy_var *v = kfy_decl_find(&k->decls,
							s->params.v[i]);
		long long val = 0;

		if (given_size(s, s->params.v[i], &val))
			;
		else if (v && v->known && !v->is_float)
			val = v->ival;
		else
			ret = lk_error(k->ctx, LK_EINPUT, "kernelify: no value "
				       "for the size symbol '%s' at %s: no "
				       "call of %s passes it a constant; "
				       "give it with --param %s=VALUE",
				       s->params.v[i], define, s->function,
				       s->params.v[i]);
		if (!ret)
			lk_buf_addf(&b, "%s%s = %lld", i ? " and " : "",
				    s->params.v[i], val);
	}
	lk_buf_adds(&b, " }");
	if (!ret)
		k->sizes = isl_set_read_from_str(s->isl, lk_buf_str(&b));
	if (!ret && !k->sizes)
		ret = lk_error(k->ctx, LK_EINTERNAL, "kernelify: isl cannot "
			       "read the sizes '%s'", lk_buf_str(&b));
	lk_buf_release(&b);
	free(prefix);
	free(define);
	return ret;
}

/* ---- The AST at those sizes. ---- */

static void kuser_free(void *p)
{
	struct kuser *u = p;

	isl_map_free(u->sched);
	free(u);
}

static isl_ast_node *at_domain(isl_ast_node *node, isl_ast_build *build,
			       void *user)
{
	struct kfy *k = user;
	isl_union_map *um = isl_ast_build_get_schedule(build);
	struct kuser *u = lk_calloc(1, sizeof(*u));
	const char *name;
	isl_id *id;

	u->sched = kfy_fix_sizes(k, isl_map_from_union_map(um));
	u->sched = isl_map_reset_tuple_id(u->sched, isl_dim_out);
	name = isl_map_get_tuple_name(u->sched, isl_dim_in);
	u->stmt = name ? atoi(name + 1) : -1;
	u->executions = kfy_count(isl_map_domain(isl_map_copy(u->sched)));
	if (u->stmt < 0 || (size_t)u->stmt >= k->s->nstmts ||
	    u->executions < 0)
		k->failed = 1;
	id = isl_id_alloc(isl_ast_node_get_ctx(node), "kuser", u);
	id = isl_id_set_free_user(id, kuser_free);
	return isl_ast_node_set_annotation(node, id);
}

static isl_bool find_for(isl_ast_node *node, void *user)
{
	int *found = user;

	if (isl_ast_node_get_type(node) == isl_ast_node_for)
		*found = 1;
	return *found ? isl_bool_false : isl_bool_true;
}

static isl_bool collect_user(isl_ast_node *node, void *user)
{
	struct cand *c = user;
	isl_id *id;

	if (isl_ast_node_get_type(node) != isl_ast_node_user)
		return isl_bool_true;
	id = isl_ast_node_get_annotation(node);
	c->users = lk_reallocarray(c->users, c->nusers + 1,
				   sizeof(*c->users));
	c->users[c->nusers++] = isl_id_get_user(id);
	isl_id_free(id);
	return isl_bool_true;
}

static isl_stat out_dims(isl_map *m, void *user)
{
	isl_size *n = user;

	*n = isl_map_dim(m, isl_dim_out);
	isl_map_free(m);
	return isl_stat_ok;
}

/* A loop's schedule dimension: the last of the build's schedule there. */
static isl_ast_node *after_for(isl_ast_node *node, isl_ast_build *build,
			       void *user)
{
	struct kfy *k = user;
	isl_union_map *um = isl_ast_build_get_schedule(build);
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_id *id = isl_ast_expr_get_id(it);
	isl_size n = -1;

	(void)k;
	isl_union_map_foreach_map(um, out_dims, &n);
	isl_id_free(id);
	isl_ast_expr_free(it);
	isl_union_map_free(um);
	id = isl_id_alloc(isl_ast_node_get_ctx(node), "kfor",
			  (void *)(intptr_t)n);
	return isl_ast_node_set_annotation(node, id);
}

static int loop_depth(isl_ast_node *loop)
{
	isl_id *id = isl_ast_node_get_annotation(loop);
	int depth = id ? (int)(intptr_t)isl_id_get_user(id) - 1 : -1;

	isl_id_free(id);
	return depth;
}

static void add_candidate(struct kfy *k, isl_ast_node *node,
			  const char *const *outer)
{
	struct cand *c;
	size_t i;

	if (k->ncands == k->alloc) {
		k->alloc = k->alloc ? 2 * k->alloc : 8;
		k->cands = lk_reallocarray(k->cands, k->alloc,
					   sizeof(*k->cands));
	}
	c = &k->cands[k->ncands++];
	memset(c, 0, sizeof(*c));
	c->loop = node;
	c->depth = loop_depth(node);
	for (i = 0; i < KFY_DEPTH_MAX; i++)
		c->outer[i] = outer[i] ? lk_strdup(outer[i]) : NULL;
	isl_ast_node_foreach_descendant_top_down(node, collect_user, c);
	for (i = 0; i < c->nusers; i++) {
		c->executions += c->users[i]->executions;
		c->hotness += c->users[i]->executions *
			      k->s->stmts[c->users[i]->stmt].ops;
	}
}

static void walk(struct kfy *k, isl_ast_node *node, const char **outer);

static void walk_child(struct kfy *k, isl_ast_node *child,
		       const char **outer)
{
	if (child)
		walk(k, child, outer);
	isl_ast_node_free(child);
}

/* A loop: a candidate if innermost, else its body under its name. */
static void walk_for(struct kfy *k, isl_ast_node *node, const char **outer)
{
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_id *id = isl_ast_expr_get_id(it);
	int d = loop_depth(node), inner = 0;
	const char *saved = NULL;

	isl_ast_node_foreach_descendant_top_down(body, find_for, &inner);
	if (!inner) {
		add_candidate(k, node, outer);
	} else {
		if (d >= 0 && d < KFY_DEPTH_MAX) {
			saved = outer[d];
			outer[d] = isl_id_get_name(id);
		}
		walk(k, body, outer);
		if (d >= 0 && d < KFY_DEPTH_MAX)
			outer[d] = saved;
	}
	isl_id_free(id);
	isl_ast_expr_free(it);
	isl_ast_node_free(body);
}

/*
 * The innermost loops, each with the loops around it on its own path
 * (sibling nests reuse the names and depths of each other's loops).
 */
static void walk(struct kfy *k, isl_ast_node *node, const char **outer)
{
	isl_ast_node_list *list;
	isl_size i, n;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		walk_for(k, node, outer);
		break;
	case isl_ast_node_if:
		walk_child(k, isl_ast_node_if_get_then_node(node), outer);
		if (isl_ast_node_if_has_else_node(node) == isl_bool_true)
			walk_child(k, isl_ast_node_if_get_else_node(node),
				   outer);
		break;
	case isl_ast_node_block:
		list = isl_ast_node_block_get_children(node);
		n = isl_ast_node_list_n_ast_node(list);
		for (i = 0; i < n; i++)
			walk_child(k, isl_ast_node_list_get_at(list, i), outer);
		isl_ast_node_list_free(list);
		break;
	case isl_ast_node_mark:
		walk_child(k, isl_ast_node_mark_get_node(node), outer);
		break;
	default:
		break;
	}
}

static isl_ast_node *build_ast(struct kfy *k, isl_schedule *sched)
{
	isl_ast_build *b = isl_ast_build_from_context(
		isl_set_copy(k->sizes));
	isl_ast_node *ast;

	b = isl_ast_build_set_iterators(b, gen_iterators(k->s));
	b = isl_ast_build_set_at_each_domain(b, at_domain, k);
	b = isl_ast_build_set_after_each_for(b, after_for, k);
	ast = isl_ast_build_node_from_schedule(b, isl_schedule_copy(sched));
	isl_ast_build_free(b);
	return ast;
}

static int by_heat(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->hotness != y->hotness)
		return x->hotness < y->hotness ? 1 : -1;
	if (x->executions != y->executions)
		return x->executions < y->executions ? 1 : -1;
	return 0;
}

/* ---- One candidate: the representative point and the body. ---- */

static isl_set *outer_of(struct kfy *k, const struct cand *c, int dims)
{
	isl_set *all = NULL;
	size_t i;

	(void)k;
	for (i = 0; i < c->nusers; i++) {
		isl_set *r = isl_map_range(isl_map_copy(c->users[i]->sched));
		isl_size n = isl_set_dim(r, isl_dim_set);

		r = isl_set_project_out(r, isl_dim_set, (unsigned)dims,
					(unsigned)(n - dims));
		all = all ? isl_set_union(all, r) : r;
	}
	return all;
}

/* Whether v is the value of a loop fixed before dimension d. */
static int taken(const struct cand *c, const struct kfy_plan *p, int d,
		 long v)
{
	int e;

	for (e = 0; e < d; e++)
		if (c->outer[e] && p->fixed[e] == v)
			return 1;
	return 0;
}

/* The first value of dimension d in 'outer' at or past 'from'. */
static int first_from(isl_set *outer, int d, long from, long *v)
{
	isl_set *past = isl_set_lower_bound_si(isl_set_copy(outer),
					       isl_dim_set, (unsigned)d, from);
	long hi;
	int ret = kfy_dim_bounds(past, d, v, &hi);

	isl_set_free(past);
	return ret;
}

/*
 * Outer dimension by dimension: the first value at or past the middle,
 * or past it, if there is one, a value no outer loop has: a point on a
 * diagonal (floyd-warshall's i == k) is a special case, where compilers
 * find invariant comparisons and branch on them.
 */
static int representative(struct kfy *k, const struct cand *c,
			  struct kfy_plan *p)
{
	isl_set *outer = outer_of(k, c, c->depth);
	long lo, hi, v;
	int d, tries, ret = 0;

	for (d = 0; !ret && d < c->depth; d++) {
		if (kfy_dim_bounds(outer, d, &lo, &hi)) {
			ret = -1;
			break;
		}
		ret = first_from(outer, d, lo + (hi - lo) / 2, &p->fixed[d]);
		v = p->fixed[d];
		for (tries = 0; !ret && c->outer[d] && taken(c, p, d, v) &&
				tries < KFY_DEPTH_MAX; tries++) {
			long next;

			if (first_from(outer, d, v + 1, &next))
				break;
			v = next;
		}
		if (!ret && !taken(c, p, d, v))
			p->fixed[d] = v;
		outer = isl_set_fix_si(outer, isl_dim_set, (unsigned)d,
				       p->fixed[d]);
	}
	isl_set_free(outer);
	return ret;
}

/* The instances of u at the representative point: S[i] -> [cK]. */
static isl_map *at_point(const struct kuser *u, const struct kfy_plan *p)
{
	isl_map *m = isl_map_copy(u->sched);
	isl_size n = isl_map_dim(m, isl_dim_out);
	int d;

	for (d = 0; d < p->depth; d++)
		m = isl_map_fix_si(m, isl_dim_out, (unsigned)d, p->fixed[d]);
	m = isl_map_project_out(m, isl_dim_out, (unsigned)p->depth + 1,
				(unsigned)(n - p->depth - 1));
	return isl_map_project_out(m, isl_dim_out, 0, (unsigned)p->depth);
}

/*
 * cK -> S[i] as one affine function: the affine hull of the instances
 * at the point, which must be a function of cK defined everywhere and
 * agree with every actual instance.
 */
static isl_multi_aff *extend(isl_map *inst)
{
	/* Without its strides (c2 = 4e): the function holds on them. */
	isl_map *f = isl_map_from_basic_map(isl_basic_map_remove_divs(
		isl_map_affine_hull(isl_map_copy(inst))));
	isl_pw_multi_aff *pma;
	isl_multi_aff *ma = NULL;
	isl_bool ok;

	f = isl_map_reverse(f);
	ok = isl_map_is_single_valued(f);
	if (ok == isl_bool_true) {
		isl_set *dom = isl_map_domain(isl_map_copy(f));
		isl_set *all = isl_set_universe(isl_set_get_space(dom));

		ok = isl_set_is_subset(all, dom);
		isl_set_free(all);
		isl_set_free(dom);
	}
	if (ok == isl_bool_true) {
		isl_map *real = isl_map_reverse(isl_map_copy(inst));

		ok = isl_map_is_subset(real, f);
		isl_map_free(real);
	}
	if (ok != isl_bool_true) {
		isl_map_free(f);
		isl_map_free(inst);
		return NULL;
	}
	pma = isl_pw_multi_aff_from_map(f);
	if (isl_pw_multi_aff_isa_multi_aff(pma) == isl_bool_true)
		ma = isl_pw_multi_aff_as_multi_aff(pma);
	else
		isl_pw_multi_aff_free(pma);
	isl_map_free(inst);
	return ma;
}

static int natural_range(const struct cand *c, struct kfy_plan *p,
			 long *lo, long *hi)
{
	isl_set *r = NULL;
	size_t i;
	int ret;

	for (i = 0; i < c->nusers; i++) {
		isl_set *one = isl_map_range(at_point(c->users[i], p));

		r = r ? isl_set_union(r, one) : one;
	}
	ret = kfy_dim_bounds(r, 0, lo, hi);
	p->natural_trip = ret ? 0 : kfy_count(isl_set_copy(r));
	isl_set_free(r);
	return ret;
}

int kfy_fail(struct kfy *k, const struct cand *c, const char *why)
{
	lk_error(k->ctx, LK_EINPUT, "kernelify: no innermost loop "
		 "qualifies; the last tried (dimension %d, hotness %ld): %s",
		 c->depth, c->hotness, why);
	return LK_EINPUT;
}

static int plan_body(struct kfy *k, const struct cand *c,
		     struct kfy_plan *p)
{
	size_t i;

	p->body = lk_calloc(c->nusers + 1, sizeof(*p->body));
	for (i = 0; i < c->nusers; i++) {
		p->body[i].stmt = c->users[i]->stmt;
		p->body[i].iters = extend(at_point(c->users[i], p));
		if (!p->body[i].iters)
			return kfy_fail(k, c, "a statement's iterators are "
					"not affine in the loop's iterator at "
					"the representative point");
		p->nbody++;
	}
	return 0;
}

static long loop_inc(isl_ast_node *loop)
{
	isl_ast_expr *e = isl_ast_node_for_get_inc(loop);
	isl_val *v = isl_ast_expr_get_val(e);
	int ok = 1;
	long inc = val_long(v, &ok);

	isl_ast_expr_free(e);
	return ok && inc > 0 ? inc : 0;
}

/* Domains with equalities hide the text's access function. */
static int domains_full(struct kfy *k, const struct cand *c)
{
	size_t i;
	int full = 1;

	for (i = 0; full && i < c->nusers; i++) {
		isl_basic_set *hull = isl_set_affine_hull(isl_set_copy(
			k->s->stmts[c->users[i]->stmt].domain));
		isl_mat *eq = isl_basic_set_equalities_matrix(
			hull, isl_dim_cst, isl_dim_param, isl_dim_set,
			isl_dim_div);

		full = eq && isl_mat_rows(eq) == 0;
		isl_mat_free(eq);
		isl_basic_set_free(hull);
	}
	return full;
}

static int plan_candidate(struct kfy *k, const struct cand *c,
			  struct kfy_plan *p)
{
	isl_ast_expr *it = isl_ast_node_for_get_iterator(c->loop);
	isl_id *id = isl_ast_expr_get_id(it);
	long lo, hi;
	int ret;

	memset(p, 0, sizeof(*p));
	p->loop = lk_strdup(isl_id_get_name(id));
	isl_id_free(id);
	isl_ast_expr_free(it);
	p->depth = c->depth;
	p->hotness = c->hotness;
	p->executions = c->executions;
	p->inc = loop_inc(c->loop);
	if (c->depth < 0 || c->depth >= KFY_DEPTH_MAX || !p->inc)
		return kfy_fail(k, c, "a loop too deep or with a non-constant "
				"stride");
	if (!domains_full(k, c))
		return kfy_fail(k, c, "a statement's domain has an equality, "
				"so its accesses cannot be extended past it");
	if (representative(k, c, p) || natural_range(c, p, &lo, &hi))
		return kfy_fail(k, c, "no representative iteration");
	ret = plan_body(k, c, p);
	if (!ret)
		lo = kfy_past_conflicts(k, p, lo);
	if (!ret)
		ret = kfy_choose_trip(k, c, p, lo, hi);
	return ret;
}

void kfy_plan_release(struct kfy_plan *p)
{
	size_t i;

	free(p->loop);
	for (i = 0; i < p->nbody; i++)
		isl_multi_aff_free(p->body[i].iters);
	free(p->body);
	isl_set_free(p->conflicts);
	kfy_arrays_release(p);
	memset(p, 0, sizeof(*p));
}

/* ---- The step. ---- */

static void add_param(struct lk_gen_result *r, const char *name,
		      const char *fmt, ...) LK_PRINTF(3, 4);

static void add_param(struct lk_gen_result *r, const char *name,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lk_strv_push(&r->param_names, name);
	lk_strv_push_take(&r->param_values, lk_vasprintf(fmt, ap));
	va_end(ap);
}

static void record(struct lk_gen_result *r, const struct kfy *k,
		   const struct kfy_plan *p, const char *size,
		   char *const *outer)
{
	int d;

	add_param(r, "working_set_bytes", "%ld", p->working_set);
	add_param(r, "working_set_lines", "%ld", p->working_set_lines);
	add_param(r, "kernel.l1", "%ld", k->l1);
	add_param(r, "kernel.l1.from", "%s", k->l1_from);
	add_param(r, "kernel.loop", "%s", p->loop);
	add_param(r, "kernel.trip", "%ld", p->trip);
	add_param(r, "kernel.hotness", "%ld", p->hotness);
	add_param(r, "kernel.size", "%s", size);
	for (d = 0; d < p->depth; d++) {
		char *key;

		if (!outer[d])
			continue;
		key = lk_asprintf("fixed.%s", outer[d]);
		add_param(r, key, "%ld", p->fixed[d]);
		free(key);
	}
}

static int choose(struct kfy *k, const char *size, struct lk_gen_result *r)
{
	isl_ast_node *ast = build_ast(k, r->schedule);
	struct kfy_plan p = {0};
	const char *outer[KFY_DEPTH_MAX] = {0};
	size_t i, j;
	int ret = LK_EINPUT;

	if (ast)
		walk(k, ast, outer);
	if (!ast || k->failed) {
		char *msg = gen_isl_error(k->s->isl);

		ret = lk_error(k->ctx, LK_EINTERNAL, "kernelify: code "
			       "generation at the %s sizes failed: %s", size,
			       msg);
		free(msg);
	} else if (!k->ncands) {
		ret = lk_error(k->ctx, LK_EINPUT, "kernelify: the nest has no "
			       "loop");
	}
	if (k->ncands)
		qsort(k->cands, k->ncands, sizeof(*k->cands), by_heat);
	for (i = 0; ret == LK_EINPUT && i < k->ncands; i++) {
		kfy_plan_release(&p);
		ret = plan_candidate(k, &k->cands[i], &p);
	}
	if (!ret) {
		lk_ctx_clear(k->ctx);
		record(r, k, &p, size, k->cands[i - 1].outer);
		r->transformed = r->source;
		r->source = kfy_emit(k->s, &k->decls, &p, r, size);
	}
	kfy_plan_release(&p);
	for (i = 0; i < k->ncands; i++) {
		free(k->cands[i].users);
		for (j = 0; j < KFY_DEPTH_MAX; j++)
			free(k->cands[i].outer[j]);
	}
	free(k->cands);
	isl_ast_node_free(ast);
	return ret;
}

long kfy_default_l1(const char **from)
{
	long l1d = lk_env_l1d_bytes();

	*from = l1d > 0 ? "host L1D" : "default L1D";
	if (l1d <= 0)
		l1d = KFY_L1D_FALLBACK;
	return l1d / KFY_L1_FILL_DEN * KFY_L1_FILL_NUM;
}

long lk_gen_kernelify_default_l1(void)
{
	const char *from;

	return kfy_default_l1(&from);
}

int gen_kernelify(struct lk_ctx *ctx, struct lk_gen_scop *s,
		  const struct lk_gen_step *st, struct lk_gen_result *r)
{
	struct kfy k = {.ctx = ctx, .s = s};
	const char *size = lk_gen_step_get(st, "size");
	int ret;

	k.l1 = step_value(st, "l1", 0);
	k.l1_from = "l1=";
	if (k.l1 <= 0)
		k.l1 = kfy_default_l1(&k.l1_from);
	k.granule = step_value(st, "granule", GRANULE_DEFAULT);
	if (!size)
		size = "small";
	ret = read_sizes(&k, size);
	if (!ret)
		ret = choose(&k, size, r);
	isl_set_free(k.sizes);
	kfy_decls_release(&k.decls);
	return ret;
}
