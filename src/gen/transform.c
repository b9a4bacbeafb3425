/*
 * Transformations on the schedule tree: isl's scheduler with its fusion
 * options, tiling, interchange, unroll-and-jam, unrolling, and the
 * legality check every step goes through against the dependences.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/options.h>
#include <isl/schedule_node.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "gen-int.h"

/* ---- Legality. ---- */

/* The schedule of the statements in one space only. */
static isl_union_map *sched_of(isl_union_map *sched, isl_space *space)
{
	isl_union_set *dom = isl_union_set_from_set(isl_set_universe(space));

	return isl_union_map_intersect_domain(isl_union_map_copy(sched), dom);
}

struct pairs {
	isl_union_map *sched, *bad;
};

/*
 * The pairs of one dependence relation S_a -> S_b that the schedule
 * puts in the wrong order: ordering only the two statements the
 * dependence links, not every pair of the scop (isl's lex_ge over the
 * whole schedule was most of a unit's time in kernels with many
 * statements: deriche, adi).
 */
static isl_stat add_bad_pairs(isl_map *dep, void *user)
{
	struct pairs *p = user;
	isl_space *space = isl_map_get_space(dep);
	isl_union_map *a = sched_of(p->sched, isl_space_domain(
		isl_space_copy(space)));
	isl_union_map *b = sched_of(p->sched, isl_space_range(space));
	isl_union_map *order = isl_union_map_lex_ge_union_map(a, b);

	order = isl_union_map_intersect(isl_union_map_from_map(dep), order);
	p->bad = isl_union_map_union(p->bad, order);
	return p->bad ? isl_stat_ok : isl_stat_error;
}

static int violated(struct lk_ctx *ctx, struct lk_gen_scop *s,
		    isl_union_map *sched, isl_union_map *deps,
		    const char *kind, const char *what)
{
	struct pairs p = {sched, isl_union_map_empty(
		isl_union_map_get_space(deps))};
	isl_union_map *bad;
	isl_bool empty;
	char *text;
	int ret = 0;

	if (isl_union_map_foreach_map(deps, add_bad_pairs, &p) < 0)
		p.bad = isl_union_map_free(p.bad);
	bad = isl_union_map_coalesce(p.bad);
	empty = isl_union_map_is_empty(bad);
	if (empty < 0) {
		text = gen_isl_error(s->isl);
		ret = lk_error(ctx, LK_EINTERNAL, "%s: legality check "
			       "failed: %s", what, text);
		free(text);
	} else if (!empty) {
		text = isl_union_map_to_str(bad);
		ret = lk_error(ctx, LK_EINPUT, "%s is illegal: it violates "
			       "the %s dependence %s", what, kind, text);
		free(text);
	}
	isl_union_map_free(bad);
	return ret;
}

int lk_gen_check_legal(struct lk_ctx *ctx, struct lk_gen_scop *s,
		       isl_schedule *schedule, const char *what)
{
	isl_union_map *sched;
	int ret;

	if ((ret = lk_gen_scop_deps(ctx, s)))
		return ret;
	sched = isl_schedule_get_map(schedule);
	sched = isl_union_map_intersect_domain(sched,
					       isl_union_set_copy(s->domain));
	ret = violated(ctx, s, sched, s->raw, "RAW (flow)", what);
	if (!ret)
		ret = violated(ctx, s, sched, s->war, "WAR (anti)", what);
	if (!ret)
		ret = violated(ctx, s, sched, s->waw, "WAW (output)", what);
	isl_union_map_free(sched);
	return ret;
}

isl_union_map *gen_all_deps(struct lk_gen_scop *s)
{
	return isl_union_map_union(
		isl_union_map_union(isl_union_map_copy(s->raw),
				    isl_union_map_copy(s->war)),
		isl_union_map_copy(s->waw));
}

/* ---- The scheduler. ---- */

static long step_long(const struct lk_gen_step *st, const char *key,
		      long dflt)
{
	const char *v = lk_gen_step_get(st, key);
	long n;

	return v && !lk_parse_long(v, &n) ? n : dflt;
}

/*
 * The scheduler's result depends on the scop and isl's four scheduling
 * options only, not on the schedule it replaces: computed once per
 * option set and scop ('isl' and 'isl+tile+vectorize' share it), the
 * failures too. It was most of gen -c's time on adi and deriche.
 */
struct gen_schedule_memo {
	int options[4];
	isl_schedule *schedule;   /* NULL: the scheduler failed */
	char *error;
	struct gen_schedule_memo *next;
};

void gen_schedule_memo_free(struct gen_schedule_memo *memo)
{
	while (memo) {
		struct gen_schedule_memo *next = memo->next;

		isl_schedule_free(memo->schedule);
		free(memo->error);
		free(memo);
		memo = next;
	}
}

static isl_schedule *compute_schedule(struct lk_gen_scop *s)
{
	isl_union_map *deps = gen_all_deps(s);
	isl_schedule_constraints *sc;

	sc = isl_schedule_constraints_on_domain(isl_union_set_copy(s->domain));
	sc = isl_schedule_constraints_set_context(sc,
						  isl_set_copy(s->context));
	sc = isl_schedule_constraints_set_validity(sc,
						   isl_union_map_copy(deps));
	sc = isl_schedule_constraints_set_coincidence(
		sc, isl_union_map_copy(deps));
	sc = isl_schedule_constraints_set_proximity(sc, deps);
	return isl_schedule_constraints_compute_schedule(sc);
}

static struct gen_schedule_memo *memo_get(struct lk_gen_scop *s,
					  const int options[4])
{
	isl_ctx *isl = s->isl;
	struct gen_schedule_memo *m;
	int saved[4] = {isl_options_get_schedule_serialize_sccs(isl),
			isl_options_get_schedule_whole_component(isl),
			isl_options_get_schedule_outer_coincidence(isl),
			isl_options_get_schedule_max_coefficient(isl)};

	for (m = s->memo; m; m = m->next)
		if (!memcmp(m->options, options, sizeof(m->options)))
			return m;
	m = lk_calloc(1, sizeof(*m));
	memcpy(m->options, options, sizeof(m->options));
	isl_options_set_schedule_serialize_sccs(isl, options[0]);
	isl_options_set_schedule_whole_component(isl, options[1]);
	isl_options_set_schedule_outer_coincidence(isl, options[2]);
	isl_options_set_schedule_max_coefficient(isl, options[3]);
	m->schedule = compute_schedule(s);
	if (!m->schedule)
		m->error = gen_isl_error(isl);
	isl_options_set_schedule_serialize_sccs(isl, saved[0]);
	isl_options_set_schedule_whole_component(isl, saved[1]);
	isl_options_set_schedule_outer_coincidence(isl, saved[2]);
	isl_options_set_schedule_max_coefficient(isl, saved[3]);
	m->next = s->memo;
	s->memo = m;
	return m;
}

static int run_scheduler(struct lk_ctx *ctx, struct lk_gen_scop *s,
			 const struct lk_gen_step *st, isl_schedule **sched)
{
	isl_ctx *isl = s->isl;
	const char *fusion = lk_gen_step_get(st, "fusion");
	int options[4] = {isl_options_get_schedule_serialize_sccs(isl),
			  isl_options_get_schedule_whole_component(isl),
			  isl_options_get_schedule_outer_coincidence(isl),
			  isl_options_get_schedule_max_coefficient(isl)};
	struct gen_schedule_memo *m;

	if (!strcmp(st->name, "distribute") || (fusion && !strcmp(fusion,
								  "min")))
		options[0] = 1;
	if (!strcmp(st->name, "fuse") || !strcmp(st->name, "skew") ||
	    (fusion && !strcmp(fusion, "max")))
		options[1] = 1;
	options[2] = (int)step_long(st, "outer-coincidence", options[2]);
	options[3] = (int)step_long(st, "max-coefficient", options[3]);
	m = memo_get(s, options);
	if (!m->schedule)
		return lk_error(ctx, LK_EINPUT, "%s: isl's scheduler found no "
				"schedule: %s", st->name, m->error);
	isl_schedule_free(*sched);
	*sched = isl_schedule_copy(m->schedule);
	return 0;
}

/* ---- Walking bands. ---- */

typedef isl_schedule_node *(*band_fn)(isl_schedule_node *node, void *user);

/* Apply fn to every outermost band (a band with no band above it). */
static isl_schedule_node *outer_bands(isl_schedule_node *node, band_fn fn,
				      void *user)
{
	isl_size n, i;

	if (!node)
		return NULL;
	if (isl_schedule_node_get_type(node) == isl_schedule_node_band)
		return fn(node, user);
	n = isl_schedule_node_n_children(node);
	for (i = 0; node && i < n; i++) {
		node = isl_schedule_node_child(node, i);
		node = outer_bands(node, fn, user);
		node = isl_schedule_node_parent(node);
	}
	return node;
}

static int has_band_below(isl_schedule_node *node)
{
	isl_size n = isl_schedule_node_n_children(node), i;
	int found = 0;

	for (i = 0; !found && i < n; i++) {
		isl_schedule_node *kid = isl_schedule_node_get_child(node, i);

		found = isl_schedule_node_get_type(kid) ==
				isl_schedule_node_band ||
			has_band_below(kid);
		isl_schedule_node_free(kid);
	}
	return found;
}

/* Apply fn to every innermost band (no band below it). */
static isl_schedule_node *inner_bands(isl_schedule_node *node, band_fn fn,
				      void *user)
{
	isl_size n, i;

	if (!node)
		return NULL;
	if (isl_schedule_node_get_type(node) == isl_schedule_node_band &&
	    !has_band_below(node))
		return fn(node, user);
	n = isl_schedule_node_n_children(node);
	for (i = 0; node && i < n; i++) {
		node = isl_schedule_node_child(node, i);
		node = inner_bands(node, fn, user);
		node = isl_schedule_node_parent(node);
	}
	return node;
}

static isl_schedule *on_bands(isl_schedule *sched, int inner, band_fn fn,
			      void *user)
{
	isl_schedule_node *root = isl_schedule_get_root(sched);

	isl_schedule_free(sched);
	root = inner ? inner_bands(root, fn, user)
		     : outer_bands(root, fn, user);
	sched = isl_schedule_node_get_schedule(root);
	isl_schedule_node_free(root);
	return sched;
}

/* ---- Tiling. ---- */

struct sizes {
	long v[8];
	int n;
	long applied;     /* bands changed */
	int second;       /* tile2: sizes for the point band */
	long v2[8];
	int n2;
};

static void parse_sizes(const char *text, long *v, int *n, long dflt)
{
	char *copy = lk_strdup(text ? text : ""), *save = NULL, *tok;

	*n = 0;
	for (tok = strtok_r(copy, "x", &save); tok && *n < 8;
	     tok = strtok_r(NULL, "x", &save))
		if (!lk_parse_long(tok, &v[*n]))
			(*n)++;
	free(copy);
	if (!*n)
		v[(*n)++] = dflt;
}

static isl_multi_val *size_vector(isl_schedule_node *node, const long *v,
				  int n)
{
	isl_space *space = isl_schedule_node_band_get_space(node);
	isl_size dim = isl_space_dim(space, isl_dim_set), i;
	isl_multi_val *mv = isl_multi_val_zero(space);

	for (i = 0; i < dim; i++)
		mv = isl_multi_val_set_val(
			mv, i, isl_val_int_from_si(isl_multi_val_get_ctx(mv),
						   v[i < n ? i : n - 1]));
	return mv;
}

static isl_schedule_node *tile_band(isl_schedule_node *node, void *user)
{
	struct sizes *sz = user;

	node = isl_schedule_node_band_tile(node, size_vector(node, sz->v,
							     sz->n));
	if (sz->second) {
		node = isl_schedule_node_child(node, 0);
		node = isl_schedule_node_band_tile(
			node, size_vector(node, sz->v2, sz->n2));
		node = isl_schedule_node_parent(node);
	}
	sz->applied++;
	return node;
}

static int tile(struct lk_ctx *ctx, const struct lk_gen_step *st,
		isl_schedule **sched)
{
	struct sizes sz = {.second = !strcmp(st->name, "tile2")};

	if (sz.second) {
		parse_sizes(lk_gen_step_get(st, "outer"), sz.v, &sz.n, 64);
		parse_sizes(lk_gen_step_get(st, "inner"), sz.v2, &sz.n2, 8);
	} else {
		parse_sizes(lk_gen_step_get(st, "sizes"), sz.v, &sz.n, 32);
	}
	*sched = on_bands(*sched, 0, tile_band, &sz);
	if (!*sched)
		return LK_EINTERNAL;
	if (!sz.applied)
		return lk_error(ctx, LK_EINPUT, "%s: no loop to tile",
				st->name);
	return 0;
}

/* ---- Interchange. ---- */

struct interchange {
	long depth;
	long applied;
};

static isl_schedule_node *swap_members(isl_schedule_node *node, void *user)
{
	struct interchange *ic = user;
	isl_size n = isl_schedule_node_band_n_member(node);
	isl_multi_union_pw_aff *mupa;
	isl_union_pw_aff *a, *b;
	int d = (int)ic->depth;

	if (ic->applied || n < d + 2) {
		isl_size k = isl_schedule_node_n_children(node), i;

		for (i = 0; !ic->applied && node && i < k; i++) {
			node = isl_schedule_node_child(node, i);
			node = outer_bands(node, swap_members, user);
			node = isl_schedule_node_parent(node);
		}
		return node;
	}
	mupa = isl_schedule_node_band_get_partial_schedule(node);
	a = isl_multi_union_pw_aff_get_union_pw_aff(mupa, d);
	b = isl_multi_union_pw_aff_get_union_pw_aff(mupa, d + 1);
	mupa = isl_multi_union_pw_aff_set_union_pw_aff(mupa, d, b);
	mupa = isl_multi_union_pw_aff_set_union_pw_aff(mupa, d + 1, a);
	node = isl_schedule_node_delete(node);
	node = isl_schedule_node_insert_partial_schedule(node, mupa);
	ic->applied = 1;
	return node;
}

static int interchange(struct lk_ctx *ctx, const struct lk_gen_step *st,
		       isl_schedule **sched)
{
	struct interchange ic = {step_long(st, "depth", 0), 0};

	*sched = on_bands(*sched, 0, swap_members, &ic);
	if (!*sched)
		return LK_EINTERNAL;
	if (!ic.applied)
		return lk_error(ctx, LK_EINPUT, "interchange: no %ld "
				"perfectly nested loops to swap at depth %ld",
				ic.depth + 2, ic.depth);
	return 0;
}

/* ---- Unrolling. ---- */

static isl_schedule_node *mark_unroll(isl_schedule_node *node, void *user)
{
	isl_size n = isl_schedule_node_band_n_member(node), i;

	(void)user;
	for (i = 0; i < n; i++)
		node = isl_schedule_node_band_member_set_ast_loop_type(
			node, i, isl_ast_loop_unroll);
	return node;
}

struct unroll {
	long factor;      /* 0: full */
	int jam;
	long applied;
};

/*
 * Isolate the full tiles of a strip-mined loop ('tile' is the tile band,
 * its child the point band of factor u), so that unrolling the point loop
 * gives straight code in them and guards only in the last, partial tile
 * (as Polly does). The full tiles are the prefixes [outer..., t] whose
 * point range is the whole [0, u - 1].
 */
static isl_schedule_node *isolate_full_tiles(isl_schedule_node *tile,
					     long u)
{
	isl_schedule_node *below = isl_schedule_node_get_child(tile, 0);
	isl_union_set *dom;
	isl_union_map *prefix;
	isl_set *range, *loop, *extent, *bad;
	isl_map *m;
	isl_size n;

	below = isl_schedule_node_child(below, 0);
	prefix = isl_schedule_node_get_prefix_schedule_union_map(below);
	dom = isl_schedule_node_get_domain(below);
	isl_schedule_node_free(below);
	dom = isl_union_set_apply(dom, prefix);
	if (isl_union_set_n_set(dom) != 1) {
		isl_union_set_free(dom);
		return tile;
	}
	range = isl_set_from_union_set(dom);
	n = isl_set_dim(range, isl_dim_set);
	if (n < 2) {
		isl_set_free(range);
		return tile;
	}
	loop = isl_set_drop_constraints_involving_dims(isl_set_copy(range),
						       isl_dim_set, n - 1, 1);
	extent = isl_set_lower_bound_si(isl_set_copy(loop), isl_dim_set,
					n - 1, 0);
	extent = isl_set_upper_bound_si(extent, isl_dim_set, n - 1,
					(int)u - 1);
	bad = isl_set_project_out(isl_set_subtract(extent, range), isl_dim_set,
				  n - 1, 1);
	loop = isl_set_project_out(loop, isl_dim_set, n - 1, 1);
	m = isl_map_from_domain(isl_set_subtract(loop, bad));
	m = isl_map_move_dims(m, isl_dim_out, 0, isl_dim_in, n - 2, 1);
	range = isl_set_set_tuple_name(isl_map_wrap(m), "isolate");
	return isl_schedule_node_band_set_ast_build_options(
		tile, isl_union_set_from_set(range));
}

/* The last member of an innermost band: strip-mined by the factor, its
 * point loop unrolled (or unrolled whole). */
static isl_schedule_node *unroll_band(isl_schedule_node *node, void *user)
{
	struct unroll *u = user;
	isl_size n = isl_schedule_node_band_n_member(node);
	long sizes[1] = {u->factor};

	if (n > 1) {
		node = isl_schedule_node_band_split(node, n - 1);
		node = isl_schedule_node_child(node, 0);
	}
	if (u->factor) {
		node = isl_schedule_node_band_tile(
			node, size_vector(node, sizes, 1));
		node = isolate_full_tiles(node, u->factor);
		node = isl_schedule_node_child(node, 0);
		node = mark_unroll(node, NULL);
		node = isl_schedule_node_parent(node);
	} else {
		node = mark_unroll(node, NULL);
	}
	if (n > 1)
		node = isl_schedule_node_parent(node);
	u->applied++;
	return node;
}

/* Unroll-and-jam: the loop just outside the innermost one of a band is
 * strip-mined by the factor, its point loop sunk innermost and unrolled
 * (register tiling). */
static isl_schedule_node *jam_band(isl_schedule_node *node, void *user)
{
	struct unroll *u = user;
	isl_size n = isl_schedule_node_band_n_member(node);
	long sizes[1] = {u->factor};
	int up = 0;

	if (n < 2)
		return node;
	if (n > 2) {
		node = isl_schedule_node_band_split(node, n - 2);
		node = isl_schedule_node_child(node, 0);
		up++;
	}
	node = isl_schedule_node_band_split(node, 1);
	node = isl_schedule_node_band_tile(node, size_vector(node, sizes, 1));
	node = isl_schedule_node_child(node, 0);
	node = isl_schedule_node_band_sink(node);
	node = inner_bands(node, mark_unroll, NULL);
	node = isl_schedule_node_parent(node);
	while (up--)
		node = isl_schedule_node_parent(node);
	u->applied++;
	return node;
}

static int unroll(struct lk_ctx *ctx, const struct lk_gen_step *st,
		  isl_schedule **sched)
{
	const char *f = lk_gen_step_get(st, "factor");
	struct unroll u = {.jam = !strcmp(st->name, "unroll-jam")};

	u.factor = f && !strcmp(f, "full") ? 0 : step_long(st, "factor", 4);
	*sched = on_bands(*sched, 1, u.jam ? jam_band : unroll_band, &u);
	if (!*sched)
		return LK_EINTERNAL;
	if (!u.applied)
		return lk_error(ctx, LK_EINPUT, "%s: no %s", st->name,
				u.jam ? "innermost band of two perfectly "
					"nested loops to unroll and jam"
				      : "loop to unroll");
	return 0;
}

int gen_apply_step(struct lk_ctx *ctx, struct lk_gen_scop *s,
		   const struct lk_gen_step *st, isl_schedule **sched,
		   int *hint)
{
	const char *h;
	int ret = 0;

	if (!strcmp(st->name, "original"))
		return 0;
	if (!strcmp(st->name, "vectorize")) {
		h = lk_gen_step_get(st, "hint");
		*hint = h && !strcmp(h, "omp") ? 2 : 1;
		return 0;
	}
	if (!strcmp(st->name, "isl") || !strcmp(st->name, "skew") ||
	    !strcmp(st->name, "fuse") || !strcmp(st->name, "distribute"))
		ret = run_scheduler(ctx, s, st, sched);
	else if (!strcmp(st->name, "tile") || !strcmp(st->name, "tile2"))
		ret = tile(ctx, st, sched);
	else if (!strcmp(st->name, "interchange"))
		ret = interchange(ctx, st, sched);
	else if (!strcmp(st->name, "unroll") ||
		 !strcmp(st->name, "unroll-jam"))
		ret = unroll(ctx, st, sched);
	else
		ret = lk_error(ctx, LK_EINPUT, "unknown transformation '%s'",
			       st->name);
	if (!ret && !*sched) {
		char *msg = gen_isl_error(s->isl);

		ret = lk_error(ctx, LK_EINTERNAL, "%s: isl failed: %s",
			       st->name, msg);
		free(msg);
	}
	return ret;
}
