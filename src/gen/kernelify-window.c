/*
 * The micro-kernel's window: the iterations its one loop runs, chosen so
 * that no compiler splits it (elements touched at every iteration and
 * reached by a moving access stay outside), its working set (distinct
 * 64-byte lines of the accesses' exact images) fits the L1 budget, and
 * every array's extents hold those images (the proof is a subset check).
 */
#include <stdlib.h>
#include <string.h>

#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>

#include "kernelify.h"

/* ---- Accesses, extents, the working set. ---- */

static isl_stat first_piece(isl_set *set, isl_multi_aff *ma, void *user)
{
	isl_multi_aff **out = user;

	isl_set_free(set);
	if (*out)
		isl_multi_aff_free(ma);
	else
		*out = ma;
	return isl_stat_ok;
}

/* The access function of one access relation (one affine piece), or
 * NULL. */
static isl_multi_aff *access_function(struct kfy *k, isl_map *access)
{
	isl_pw_multi_aff *pma;
	isl_multi_aff *ma = NULL;

	access = kfy_fix_sizes(k, access);
	if (isl_map_is_single_valued(access) != isl_bool_true) {
		isl_map_free(access);
		return NULL;
	}
	pma = isl_pw_multi_aff_from_map(access);
	if (isl_pw_multi_aff_n_piece(pma) == 1)
		isl_pw_multi_aff_foreach_piece(pma, first_piece, &ma);
	isl_pw_multi_aff_free(pma);
	return ma;
}

struct images {
	struct kfy *k;
	isl_set *window;
	isl_multi_aff *iters;
	isl_union_set *all;
	int bad;
};

static isl_stat add_access(isl_basic_map *access, void *user)
{
	struct images *im = user;
	isl_multi_aff *f = access_function(im->k,
					   isl_map_from_basic_map(access));

	if (!f) {
		im->bad = 1;
		return isl_stat_ok;
	}
	f = isl_multi_aff_pullback_multi_aff(f, isl_multi_aff_copy(im->iters));
	im->all = isl_union_set_add_set(im->all, isl_set_apply(
		isl_set_copy(im->window), isl_map_from_multi_aff(f)));
	return isl_stat_ok;
}

/* An array's accesses by one statement: one basic map per access (or
 * per convex part of its domain). */
static isl_stat add_image(isl_map *accesses, void *user)
{
	isl_stat r = isl_map_foreach_basic_map(accesses, add_access, user);

	isl_map_free(accesses);
	return r;
}

/* Every element the window's iterations touch, by array. */
static isl_union_set *touched(struct kfy *k, const struct kfy_plan *p,
			      isl_set *window, int *bad)
{
	struct images im = {k, window, NULL,
			    isl_union_set_empty(isl_set_get_space(window)), 0};
	size_t i;

	for (i = 0; i < p->nbody; i++) {
		const struct lk_gen_stmt *st = &k->s->stmts[p->body[i].stmt];

		im.iters = p->body[i].iters;
		isl_union_map_foreach_map(st->reads, add_image, &im);
		isl_union_map_foreach_map(st->writes, add_image, &im);
	}
	*bad = im.bad;
	return im.all;
}

static isl_set *window_of(struct kfy *k, long first, long inc, long trip)
{
	char *text = lk_asprintf("{ [x] : %ld <= x <= %ld and "
				 "(x - %ld) mod %ld = 0 }", first,
				 first + (trip - 1) * inc, first, inc);
	isl_set *w = isl_set_read_from_str(k->s->isl, text);

	free(text);
	return w;
}

static const char *elem_type(struct kfy *k, const char *array)
{
	const struct kfy_var *v = kfy_decl_find(&k->decls, array);

	return v ? v->type : NULL;
}

struct sizing {
	struct kfy *k;
	struct kfy_plan *p;
	long bytes, lines;
	int bad;                  /* 1 negative index, 2 unknown array */
};

/*
 * The 64-byte lines an image touches in its array (declared aligned to
 * 64 bytes): element addresses row-major over the extents, with the
 * offsets, divided by 64. -1 if isl cannot say.
 */
static long lines_of(struct kfy *k, const struct kfy_array *a, long size,
		     isl_set *image)
{
	struct lk_buf b = LK_BUF_INIT;
	char *addr = lk_strdup("0"), *next;
	isl_map *to_line;
	long n;
	int d;

	lk_buf_addf(&b, "{ %s[", a->name);
	for (d = 0; d < a->dims; d++) {
		lk_buf_addf(&b, "%si%d", d ? ", " : "", d);
		next = lk_asprintf("(%s) * %ld + i%d + %ld", addr,
				   a->extent[d], d, a->offset[d]);
		free(addr);
		addr = next;
	}
	lk_buf_addf(&b, "] -> [floor((%s) * %ld / %d)] }", addr, size,
		    KFY_LINE);
	to_line = isl_map_read_from_str(k->s->isl, lk_buf_str(&b));
	n = to_line ? kfy_count(isl_set_apply(isl_set_copy(image), to_line))
		    : -1;
	free(addr);
	lk_buf_release(&b);
	return n;
}

/*
 * Rows of an odd number of whole lines, and every outer dimension's
 * stride too: a walk down any dimension cycles through all the L1's
 * sets (a power of two). A row of 192 doubles is 24 lines, and a column
 * walk of it would use 8 of 64 sets: 64 lines of a 512-line cache.
 */
static void pad_extents(struct kfy_array *a, long size)
{
	int d;

	if (a->dims < 2 || size <= 0 || KFY_LINE % size)
		return;
	while (a->extent[a->dims - 1] * size % (2 * KFY_LINE) != KFY_LINE)
		a->extent[a->dims - 1]++;
	for (d = a->dims - 2; d >= 1; d--)
		a->extent[d] |= 1;
}

/*
 * One array's image: extents from its bounding box (padded), the
 * offsets that make a negative index land inside, and the proof that
 * the box holds every element touched.
 */
static isl_stat size_array(isl_set *image, void *user)
{
	struct sizing *sz = user;
	struct kfy_array *a;
	const char *name = isl_set_get_tuple_name(image);
	isl_size dims = isl_set_dim(image, isl_dim_set);
	isl_set *box;
	long lo, hi, n;
	int d;

	if (!name || !elem_type(sz->k, name) || dims > 8) {
		sz->bad = 2;
		isl_set_free(image);
		return isl_stat_ok;
	}
	a = &sz->p->arrays[sz->p->narrays++];
	a->name = lk_strdup(name);
	a->dims = dims;
	box = isl_set_universe(isl_set_get_space(image));
	for (d = 0; d < dims; d++) {
		if (kfy_dim_bounds(image, d, &lo, &hi))
			sz->bad = 2;
		a->offset[d] = lo < 0 ? -lo : 0;
		if (lo < 0 && sz->p->offsets < 1 + (d > 0))
			sz->p->offsets = 1 + (d > 0);
		a->extent[d] = hi + a->offset[d] + 1;
		box = isl_set_lower_bound_si(box, isl_dim_set, (unsigned)d,
					     (int)-a->offset[d]);
		box = isl_set_upper_bound_si(box, isl_dim_set, (unsigned)d,
					     (int)hi);
	}
	if (isl_set_is_subset(image, box) != isl_bool_true)
		sz->bad = 2;
	isl_set_free(box);
	pad_extents(a, kfy_type_size(elem_type(sz->k, name)));
	n = lines_of(sz->k, a, kfy_type_size(elem_type(sz->k, name)), image);
	if (n < 0)
		sz->bad = 2;
	sz->lines += n;
	a->touched = kfy_count(image);
	sz->bytes += a->touched * kfy_type_size(elem_type(sz->k, name));
	return isl_stat_ok;
}

void kfy_arrays_release(struct kfy_plan *p)
{
	size_t i;

	for (i = 0; i < p->narrays; i++)
		free(p->arrays[i].name);
	free(p->arrays);
	p->arrays = NULL;
	p->narrays = 0;
}

/* Size the arrays for a window: 0 fine, 2 unusable. */
static int size_window(struct kfy *k, struct kfy_plan *p, long first,
		       long trip)
{
	isl_set *w = window_of(k, first, p->inc, trip);
	struct sizing sz = {k, p, 0, 0, 0};
	isl_union_set *all;
	int bad;

	kfy_arrays_release(p);
	p->offsets = 0;
	all = touched(k, p, w, &bad);
	p->arrays = lk_calloc((size_t)isl_union_set_n_set(all) + 1,
			      sizeof(*p->arrays));
	isl_union_set_foreach_set(all, size_array, &sz);
	isl_union_set_free(all);
	isl_set_free(w);
	p->first = first;
	p->trip = trip;
	p->working_set = sz.bytes;
	p->working_set_lines = sz.lines;
	return bad ? 2 : sz.bad;
}

/* Does the window [first, first + (trip - 1) inc] meet a conflict? */
static int conflicting(struct kfy *k, const struct kfy_plan *p, long first,
		       long trip)
{
	isl_set *w = window_of(k, first, p->inc, trip);
	isl_bool disjoint = isl_set_is_disjoint(w, p->conflicts);

	isl_set_free(w);
	return disjoint != isl_bool_true;
}

/* Within the budget: the distinct 64-byte lines, not the bytes (a
 * column walk uses 8 bytes of every line it brings in). */
static int within(const struct kfy *k, const struct kfy_plan *p)
{
	return p->working_set_lines >= 0 &&
	       p->working_set_lines * KFY_LINE <= k->l1 ? 0 : 3;
}

/*
 * 0 fits, 1 unusable at this trip count, 2 unusable, 3 over the L1
 * budget. The window from the loop's start, else the one ending at its
 * end (decreasing subscripts, as in deriche's j = -c1), else the first
 * with offsets, which C allows only on the outermost dimension (a
 * pointer into the array; a negative index into an inner array type is
 * undefined even inside the object).
 */
static int fits(struct kfy *k, struct kfy_plan *p, long first, long hi,
		long trip)
{
	long end = hi - (trip - 1) * p->inc;
	int r = size_window(k, p, first, trip);

	if (r || !p->offsets)
		return r ? r : within(k, p);
	if (!conflicting(k, p, end, trip)) {
		r = size_window(k, p, end, trip);
		if (!r && !p->offsets)
			return within(k, p);
	}
	r = size_window(k, p, first, trip);
	if (r || p->offsets > 1)
		return r ? r : 1;
	return within(k, p);
}

/* The longest trip count, a multiple of g in [lo, hi], that fits: its
 * multiple of g (0 when none), -1 for a window that cannot be used. */
static long longest(struct kfy *k, struct kfy_plan *p, long first, long end,
		    long lo, long hi)
{
	long g = k->granule, low = (lo + g - 1) / g, high = hi / g;
	long best = 0, mid;
	int r;

	while (low <= high) {
		mid = low + (high - low) / 2;
		r = fits(k, p, first, end, mid * g);
		if (r == 2)
			return -1;
		if (!r)
			best = mid;
		if (!r)
			low = mid + 1;
		else
			high = mid - 1;
	}
	return best;
}

/*
 * The longest trip count, a multiple of the granule, that fits: from
 * KFY_TRIP_MIN up, else, when KFY_TRIP_MIN iterations fit in bytes but
 * not in lines (a column walk takes a line per element), from
 * KFY_TRIP_SHORT up.
 */
int kfy_choose_trip(struct kfy *k, const struct cand *c,
		    struct kfy_plan *p, long first, long hi)
{
	long g = k->granule, high = KFY_TRIP_MAX;
	long best;

	if (high < (KFY_TRIP_MIN + g - 1) / g * g)
		high = (KFY_TRIP_MIN + g - 1) / g * g;
	best = longest(k, p, first, hi, KFY_TRIP_MIN, high);
	/* Short only where lines, not bytes, are over: a column walk. */
	if (!best && fits(k, p, first, hi, (KFY_TRIP_MIN + g - 1) / g * g) ==
			     3 && p->working_set <= k->l1)
		best = longest(k, p, first, hi, KFY_TRIP_SHORT,
			       KFY_TRIP_MIN - 1);
	if (best < 0)
		return kfy_fail(k, c, "an access is not an affine "
				"function of the iterators, or its "
				"array's type is unknown");
	if (!best)
		return kfy_fail(k, c, "even the smallest trip count (256, 64 "
				"for a column walk) has a working set (in "
				"64-byte lines) above l1, or an index below 0 "
				"in an inner dimension");
	return fits(k, p, first, hi, best * g) ? kfy_fail(k, c, "internal") : 0;
}

/* ---- Elements both loop-invariant and reached by a moving access. ---- */

struct conflicts {
	struct kfy *k;
	isl_multi_aff *iters;
	int write;
	isl_multi_aff **h;        /* cK -> A[...], every access of the body */
	int *writes;
	size_t n;
};

static isl_stat note_access(isl_basic_map *access, void *user)
{
	struct conflicts *cf = user;
	isl_multi_aff *f = access_function(cf->k,
					   isl_map_from_basic_map(access));

	if (!f)
		return isl_stat_ok;
	cf->h = lk_reallocarray(cf->h, cf->n + 1, sizeof(*cf->h));
	cf->writes = lk_reallocarray(cf->writes, cf->n + 1,
				     sizeof(*cf->writes));
	cf->h[cf->n] = isl_multi_aff_pullback_multi_aff(
		f, isl_multi_aff_copy(cf->iters));
	cf->writes[cf->n++] = cf->write;
	return isl_stat_ok;
}

static isl_stat note_accesses(isl_map *m, void *user)
{
	isl_stat r = isl_map_foreach_basic_map(m, note_access, user);

	isl_map_free(m);
	return r;
}

static int invariant(isl_multi_aff *h)
{
	isl_size n = isl_multi_aff_dim(h, isl_dim_out), i;
	int inv = 1;

	for (i = 0; inv && i < n; i++) {
		isl_aff *a = isl_multi_aff_get_aff(h, i);

		inv = isl_aff_involves_dims(a, isl_dim_in, 0, 1) ==
		      isl_bool_false;
		isl_aff_free(a);
	}
	return inv;
}

static int same_array(isl_multi_aff *a, isl_multi_aff *b)
{
	const char *x = isl_multi_aff_get_tuple_name(a, isl_dim_out);
	const char *y = isl_multi_aff_get_tuple_name(b, isl_dim_out);

	return x && y && !strcmp(x, y);
}

/* The iterations where the moving access 'mv' meets the element the
 * invariant access 'inv' always touches. */
static isl_set *meets(isl_multi_aff *inv, isl_multi_aff *mv)
{
	isl_space *sp = isl_space_domain(isl_multi_aff_get_space(inv));
	isl_set *elem = isl_set_apply(isl_set_universe(sp),
				      isl_map_from_multi_aff(
					      isl_multi_aff_copy(inv)));

	return isl_set_preimage_multi_aff(elem, isl_multi_aff_copy(mv));
}

/*
 * A compiler splits, versions or peels a loop where an element written
 * (or read) at every iteration is also reached by a moving access
 * (floyd-warshall's paths[k][k] at j = k): p->conflicts gets those
 * iterations, and the window will start after the last one past lo,
 * keeping the stride (returned).
 */
long kfy_past_conflicts(struct kfy *k, struct kfy_plan *p, long lo)
{
	struct conflicts cf = {.k = k};
	isl_set *after;
	long last = lo - 1, min;
	size_t i, j;

	for (i = 0; i < p->nbody; i++) {
		const struct lk_gen_stmt *st = &k->s->stmts[p->body[i].stmt];

		cf.iters = p->body[i].iters;
		cf.write = 1;
		isl_union_map_foreach_map(st->writes, note_accesses, &cf);
		cf.write = 0;
		isl_union_map_foreach_map(st->reads, note_accesses, &cf);
	}
	p->conflicts = isl_set_empty(isl_space_domain(
		isl_multi_aff_get_space(p->body[0].iters)));
	for (i = 0; i < cf.n; i++)
		p->accumulates |= cf.writes[i] && invariant(cf.h[i]) &&
				  isl_multi_aff_dim(cf.h[i], isl_dim_out) > 0;
	for (i = 0; i < cf.n; i++)
		for (j = 0; j < cf.n; j++)
			if (i != j && (cf.writes[i] || cf.writes[j]) &&
			    invariant(cf.h[i]) && !invariant(cf.h[j]) &&
			    same_array(cf.h[i], cf.h[j]))
				p->conflicts = isl_set_union(
					p->conflicts, meets(cf.h[i], cf.h[j]));
	for (i = 0; i < cf.n; i++)
		isl_multi_aff_free(cf.h[i]);
	free(cf.h);
	free(cf.writes);
	after = isl_set_lower_bound_si(isl_set_copy(p->conflicts),
				       isl_dim_set, 0, (int)lo);
	if (isl_set_is_empty(after) == isl_bool_false &&
	    kfy_dim_bounds(after, 0, &min, &last))
		last = lo - 1;
	isl_set_free(after);
	return lo + (last - lo + p->inc) / p->inc * p->inc;
}

