/*
 * Extraction, second half: streams keyed by base register (split when
 * displacements lie far apart), µkernels as the weakly connected
 * components of the data-flow graph (loads duplicated per consumer,
 * loop-carried edges left out), coalescing of contiguous accesses,
 * re-rolling of unrolled copies, canonical order and naming, static
 * metrics (doc/loopkit-mdl.md, "extract"; the JSON in extract-json.c).
 */
#include <stdlib.h>
#include <string.h>

#include "extract-int.h"

struct uacc {
	size_t flow;
	int64_t off;
	unsigned size;
};

struct ukx {
	struct uacc *acc[2];       /* [0] in, [1] out */
	size_t nacc[2], aacc[2];
	long add, mul, other;
	int carried;
};

/* ---- Streams (rule 6). ---- */

static const struct xacc *sort_accs;

static int by_key_off(const void *pa, const void *pb)
{
	const struct xacc *a = &sort_accs[*(const size_t *)pa];
	const struct xacc *b = &sort_accs[*(const size_t *)pb];

	if (a->base != b->base)
		return a->base < b->base ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->scale != b->scale)
		return a->scale < b->scale ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static void streams(struct xloop *x)
{
	size_t *ix = lk_calloc(x->naccs + 1, sizeof(*ix)), i;

	for (i = 0; i < x->naccs; i++)
		ix[i] = i;
	sort_accs = x->accs;
	qsort(ix, x->naccs, sizeof(*ix), by_key_off);
	x->flows = lk_calloc(x->naccs + 1, sizeof(*x->flows));
	for (i = 0; i < x->naccs; i++) {
		struct xacc *a = &x->accs[ix[i]], *p;
		long long st = a->stride < 0 ? -a->stride : a->stride;
		long long gap = st * 4 > 4096 ? st * 4 : 4096;

		p = i ? &x->accs[ix[i - 1]] : NULL;
		if (p && p->base == a->base && p->index == a->index &&
		    p->scale == a->scale && a->off - p->off <= gap) {
			a->flow = p->flow;
			continue;
		}
		if (p && p->base == a->base && p->index == a->index &&
		    p->scale == a->scale)
			x->split++;
		a->flow = x->nflows;
		x->flows[x->nflows].base = a->base;
		x->flows[x->nflows].index = a->index;
		x->flows[x->nflows].scale = a->scale;
		x->flows[x->nflows++].stride = a->stride;
	}
	free(ix);
}

/* ---- Components (rules 8-11). ---- */

static size_t find(size_t *parent, size_t a)
{
	while (parent[a] != a)
		a = parent[a] = parent[parent[a]];
	return a;
}

static void add_acc(struct ukx *u, int dir, size_t flow, int64_t off,
		    unsigned size)
{
	LK_GROW(u->acc[dir], u->nacc[dir] + 1, u->aacc[dir]);
	u->acc[dir][u->nacc[dir]].flow = flow;
	u->acc[dir][u->nacc[dir]].off = off;
	u->acc[dir][u->nacc[dir]++].size = size;
}

static void count_op(struct ukx *u, const struct xnode *n)
{
	int fp = n->fp;

	switch (n->op) {
	case LK_OPC_ADD:
	case LK_OPC_SUB:
	case LK_OPC_HADD:
		if (fp) {
			u->add++;
			return;
		}
		break;
	case LK_OPC_MUL:
		if (fp) {
			u->mul++;
			return;
		}
		break;
	case LK_OPC_FMA:
		u->add++;
		u->mul++;
		return;
	default:
		break;
	}
	u->other++;
}

/* Is the edge from -> to a link of an accumulation chain? */
static int link(const struct xloop *x, size_t from, size_t to)
{
	return x->nodes[from].chain && x->nodes[from].chain == x->nodes[to].chain;
}

static struct ukx *components(struct xloop *x, size_t *ncomp, long *other)
{
	size_t *parent = lk_calloc(x->nnodes + 1, sizeof(*parent));
	size_t *comp = lk_calloc(x->nnodes + 1, sizeof(*comp));
	struct ukx *u = NULL;
	size_t n, i, nu = 0, au = 0;

	for (n = 0; n < x->nnodes; n++)
		parent[n] = n;
	for (n = 1; n < x->nnodes; n++) {
		const struct xnode *nd = &x->nodes[n];

		if (nd->kind != XN_OP && nd->kind != XN_STORE)
			continue;
		for (i = 0; i < nd->nin; i++)
			if (x->nodes[nd->in[i]].kind == XN_OP &&
			    !link(x, nd->in[i], n))
				parent[find(parent, nd->in[i])] =
					find(parent, n);
	}
	for (n = 1; n < x->nnodes; n++)
		comp[n] = (size_t)-1;
	for (n = 1; n < x->nnodes; n++) {
		const struct xnode *nd = &x->nodes[n];
		size_t r;
		struct ukx *c;

		if (nd->kind != XN_OP && nd->kind != XN_STORE)
			continue;
		r = find(parent, n);
		if (comp[r] == (size_t)-1) {
			LK_GROW(u, nu + 1, au);
			memset(&u[nu], 0, sizeof(u[nu]));
			comp[r] = nu++;
		}
		c = &u[comp[r]];
		if (nd->kind == XN_OP)
			count_op(c, nd);
		else
			add_acc(c, 1, x->accs[nd->acc].flow,
				x->accs[nd->acc].off, x->accs[nd->acc].size);
		for (i = 0; i < nd->nin; i++) {
			const struct xnode *in = &x->nodes[nd->in[i]];

			if (in->kind == XN_LOAD)
				add_acc(c, 0, x->accs[in->acc].flow,
					x->accs[in->acc].off,
					x->accs[in->acc].size);
			else if ((in->kind == XN_PHI && in->carried) ||
				 link(x, nd->in[i], n))
				c->carried = 1;
		}
	}
	/* A component that touches no memory and does no add or mul
	 * (address arithmetic kept in a register, a counter) is only
	 * counted in other_ops. */
	*other = 0;
	for (i = n = 0; i < nu; i++) {
		*other += u[i].other;
		if (!u[i].nacc[0] && !u[i].nacc[1] && !u[i].add && !u[i].mul) {
			free(u[i].acc[0]);
			free(u[i].acc[1]);
			continue;
		}
		u[n++] = u[i];
	}
	*ncomp = n;
	free(parent);
	free(comp);
	return u;
}

/* ---- Coalescing (rule 12). ---- */

static int by_flow_off(const void *pa, const void *pb)
{
	const struct uacc *a = pa, *b = pb;

	if (a->flow != b->flow)
		return a->flow < b->flow ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return (a->size > b->size) - (a->size < b->size);
}

static void coalesce(struct ukx *u)
{
	int dir;
	size_t i, n;

	for (dir = 0; dir < 2; dir++) {
		struct uacc *a = u->acc[dir];

		if (!u->nacc[dir])
			continue;
		qsort(a, u->nacc[dir], sizeof(*a), by_flow_off);
		for (i = 1, n = 0; i < u->nacc[dir]; i++) {
			int64_t end = a[n].off + a[n].size;

			if (a[i].flow == a[n].flow && a[i].off <= end) {
				if (a[i].off + a[i].size > end)
					a[n].size = (unsigned)(a[i].off +
							       a[i].size -
							       a[n].off);
				continue;
			}
			a[++n] = a[i];
		}
		u->nacc[dir] = n + 1;
	}
}

/* ---- Re-rolling (rule 13). ---- */

/* Is b the µkernel a shifted by j*delta[flow] on every flow? */
static int shifted(const struct ukx *a, const struct ukx *b,
		   const long long *delta, long long j)
{
	int dir;
	size_t i;

	if (a->add != b->add || a->mul != b->mul || a->other != b->other ||
	    a->carried != b->carried || a->nacc[0] != b->nacc[0] ||
	    a->nacc[1] != b->nacc[1])
		return 0;
	for (dir = 0; dir < 2; dir++)
		for (i = 0; i < a->nacc[dir]; i++) {
			const struct uacc *p = &a->acc[dir][i];
			const struct uacc *q = &b->acc[dir][i];

			if (p->flow != q->flow || p->size != q->size ||
			    p->off + j * delta[p->flow] != q->off)
				return 0;
		}
	return 1;
}

static long find_shift(const struct ukx *u, size_t n, const unsigned char *used,
		       size_t from, const long long *delta, long long j)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!used[i] && i != from && shifted(&u[from], &u[i], delta, j))
			return (long)i;
	return -1;
}

/* Can the n µkernels be split into groups {c + jΔ, j = 0..U-1}? Marks
 * the members that are not the group's first in drop. */
static int groups(const struct ukx *u, size_t n, long U, const long long *delta,
		  unsigned char *drop)
{
	size_t i;
	long j, k;

	memset(drop, 0, n);
	for (i = 0; i < n; i++) {
		if (drop[i] || find_shift(u, n, drop, i, delta, -1) >= 0)
			continue;          /* not the first of its group */
		for (j = 1; j < U; j++) {
			k = find_shift(u, n, drop, i, delta, j);
			if (k < 0)
				return 0;
			drop[k] = 1;
		}
	}
	for (i = 0, k = 0; i < n; i++)
		k += !drop[i];
	return (size_t)k * (size_t)U == n;
}

static long reroll(struct xloop *x, struct ukx *u, size_t *n,
		   long long *delta)
{
	unsigned char *drop = lk_calloc(*n + 1, 1);
	long U;
	size_t f, i, k;

	for (U = (long)*n; U > 1; U--) {
		int ok = *n % (size_t)U == 0;

		for (f = 0; ok && f < x->nflows; f++) {
			ok = x->flows[f].stride % U == 0;
			delta[f] = x->flows[f].stride / U;
		}
		if (ok && groups(u, *n, U, delta, drop))
			break;
	}
	if (U <= 1) {
		U = 1;
		for (f = 0; f < x->nflows; f++)
			delta[f] = x->flows[f].stride;
		memset(drop, 0, *n);
	}
	for (i = k = 0; i < *n; i++) {
		if (drop[i]) {
			free(u[i].acc[0]);
			free(u[i].acc[1]);
			continue;
		}
		u[k++] = u[i];
	}
	*n = k;
	free(drop);
	return U;
}

/* ---- Canonical order and naming (rule 14). ---- */

struct canon {
	struct ukx *u;
	size_t n;
	const long long *delta;
	char **ukey;               /* per µkernel, without flow names */
	char **fkey;               /* per flow */
	size_t *rank;              /* flow -> canonical number */
	int64_t *lo;               /* flow -> its smallest offset */
	struct xloop *x;
};

static int strpcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A µkernel's key: its counts and its accesses as (direction, Δ,
 * offset, size), sorted: neither flow numbers nor the order of the
 * accesses play a part. */
static void ukernel_key(const struct canon *c, const struct ukx *u,
			struct lk_buf *b)
{
	char **parts = lk_calloc(u->nacc[0] + u->nacc[1] + 1, sizeof(*parts));
	size_t i, np = 0;
	int dir;

	lk_buf_addf(b, "%zu,%zu,%ld,%ld,%ld,%d", u->nacc[0], u->nacc[1],
		    u->add, u->mul, u->other, u->carried);
	for (dir = 0; dir < 2; dir++)
		for (i = 0; i < u->nacc[dir]; i++)
			parts[np++] = lk_asprintf(
				";%d:%lld:%lld:%u", dir,
				c->delta[u->acc[dir][i].flow],
				(long long)u->acc[dir][i].off,
				u->acc[dir][i].size);
	qsort(parts, np, sizeof(*parts), strpcmp);
	for (i = 0; i < np; i++) {
		lk_buf_adds(b, parts[i]);
		free(parts[i]);
	}
	free(parts);
}

static const struct canon *sort_canon;

static int by_fkey(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int d = strcmp(sort_canon->fkey[a], sort_canon->fkey[b]);

	return d ? d : (a > b) - (a < b);
}

/* A flow's key: the sorted list of its accesses, each with its
 * µkernel's key: register names play no part. */
static void flow_keys(struct canon *c)
{
	size_t f, i;
	int dir;

	for (f = 0; f < c->x->nflows; f++) {
		char **parts = NULL;
		size_t np = 0, ap = 0;
		struct lk_buf b = LK_BUF_INIT;

		for (i = 0; i < c->n; i++)
			for (dir = 0; dir < 2; dir++) {
				size_t k;

				for (k = 0; k < c->u[i].nacc[dir]; k++) {
					const struct uacc *a = &c->u[i].acc[dir][k];

					if (a->flow != f)
						continue;
					LK_GROW(parts, np + 1, ap);
					parts[np++] = lk_asprintf(
						"%d:%lld:%u<%s>", dir,
						(long long)a->off, a->size,
						c->ukey[i]);
				}
			}
		qsort(parts, np, sizeof(*parts), strpcmp);
		lk_buf_addf(&b, "%lld#", c->delta[f]);
		for (i = 0; i < np; i++) {
			lk_buf_adds(&b, parts[i]);
			lk_buf_addch(&b, '|');
			free(parts[i]);
		}
		free(parts);
		c->fkey[f] = lk_buf_detach(&b);
		if (!c->fkey[f])
			c->fkey[f] = lk_strdup("");
	}
}

static int by_rank_off(const void *pa, const void *pb)
{
	const struct uacc *a = pa, *b = pb;
	size_t ra = sort_canon->rank[a->flow], rb = sort_canon->rank[b->flow];

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

static char *full_key(const struct canon *c, const struct ukx *u)
{
	struct lk_buf b = LK_BUF_INIT;
	int dir;
	size_t i;

	ukernel_key(c, u, &b);
	for (dir = 0; dir < 2; dir++)
		for (i = 0; i < u->nacc[dir]; i++)
			lk_buf_addf(&b, "/%zu", c->rank[u->acc[dir][i].flow]);
	return lk_buf_detach(&b);
}

static int by_full_key(const void *pa, const void *pb)
{
	char *a = full_key(sort_canon, pa), *b = full_key(sort_canon, pb);
	int d = strcmp(a, b);

	free(a);
	free(b);
	return d;
}

static void canonical_order(struct canon *c)
{
	size_t nf = c->x->nflows, i, *order;
	int dir;

	c->ukey = lk_calloc(c->n + 1, sizeof(*c->ukey));
	c->fkey = lk_calloc(nf + 1, sizeof(*c->fkey));
	c->rank = lk_calloc(nf + 1, sizeof(*c->rank));
	order = lk_calloc(nf + 1, sizeof(*order));
	for (i = 0; i < c->n; i++) {
		struct lk_buf b = LK_BUF_INIT;

		ukernel_key(c, &c->u[i], &b);
		c->ukey[i] = lk_buf_detach(&b);
	}
	flow_keys(c);
	for (i = 0; i < nf; i++)
		order[i] = i;
	sort_canon = c;
	qsort(order, nf, sizeof(*order), by_fkey);
	for (i = 0; i < nf; i++)
		c->rank[order[i]] = i;
	for (i = 0; i < c->n; i++)
		for (dir = 0; dir < 2; dir++)
			if (c->u[i].nacc[dir])
				qsort(c->u[i].acc[dir], c->u[i].nacc[dir],
				      sizeof(struct uacc), by_rank_off);
	if (c->n)   /* a loop without µkernels has no array */
		qsort(c->u, c->n, sizeof(*c->u), by_full_key);
	free(order);
}

/* Offsets per stream: the smallest (returned, per flow) becomes 0. */
static int64_t *normalise_offsets(struct ukx *u, size_t n, size_t nflows)
{
	int64_t *lo = lk_calloc(nflows + 1, sizeof(*lo));
	unsigned char *seen = lk_calloc(nflows + 1, 1);
	size_t i, k;
	int dir;

	for (i = 0; i < n; i++)
		for (dir = 0; dir < 2; dir++)
			for (k = 0; k < u[i].nacc[dir]; k++) {
				struct uacc *a = &u[i].acc[dir][k];

				if (!seen[a->flow] || a->off < lo[a->flow])
					lo[a->flow] = a->off;
				seen[a->flow] = 1;
			}
	for (i = 0; i < n; i++)
		for (dir = 0; dir < 2; dir++)
			for (k = 0; k < u[i].nacc[dir]; k++)
				u[i].acc[dir][k].off -= lo[u[i].acc[dir][k].flow];
	free(seen);
	return lo;
}

/* ---- Building the description. ---- */

static void meta_add(struct lk_mdl *m, const char *key,
		     enum lk_mdl_lit_kind kind, char *text)
{
	m->meta = lk_reallocarray(m->meta, m->nmeta + 1, sizeof(*m->meta));
	m->meta[m->nmeta].key = lk_strdup(key);
	m->meta[m->nmeta].kind = kind;
	m->meta[m->nmeta++].text = text;
}

static char *decimal(double v)
{
	char *s = lk_asprintf("%.4f", v);
	size_t n = strlen(s);

	while (n > 2 && s[n - 1] == '0' && s[n - 2] != '.')
		s[--n] = '\0';
	return s;
}

static void attr(struct lk_mdl_flow *f, const char *key,
		 enum lk_mdl_lit_kind kind, char *text)
{
	f->attrs = lk_reallocarray(f->attrs, f->nattrs + 1, sizeof(*f->attrs));
	f->attrs[f->nattrs].key = lk_strdup(key);
	f->attrs[f->nattrs].kind = kind;
	f->attrs[f->nattrs++].text = text;
}

static struct lk_mdl_expr *leaf(long long num, const char *name)
{
	struct lk_mdl_expr *e = lk_calloc(1, sizeof(*e));

	e->op = LK_MDL_VALUE;
	e->v.num = num;
	e->v.name = name ? lk_strdup(name) : NULL;
	return e;
}

static struct lk_mdl_expr *footprint(long long delta, unsigned span)
{
	struct lk_mdl_expr *e;

	if (!delta)
		return leaf(span, NULL);
	e = lk_calloc(1, sizeof(*e));
	e->op = LK_MDL_MUL;
	e->l = leaf(0, "n");
	e->r = leaf(delta < 0 ? -delta : delta, NULL);
	return e;
}

/* Does flow f share its base, index and scale with another flow in
 * use (one array reached at displacements far apart, or two arrays
 * from one base)? Then its 'disp' (its smallest offset from the base,
 * in bytes) says how far apart they are: a trailing stream re-reads
 * what the leading one brought in (features.c). */
static int split_from(const struct xloop *x, const size_t *used, size_t f)
{
	size_t g;

	for (g = 0; g < x->nflows; g++)
		if (g != f && used[g] && x->flows[g].base == x->flows[f].base &&
		    x->flows[g].index == x->flows[f].index &&
		    x->flows[g].scale == x->flows[f].scale)
			return 1;
	return 0;
}

static void flows_of(struct lk_mdl *m, const struct canon *c, size_t *used)
{
	const struct xloop *x = c->x;
	size_t f, r;

	m->flows = lk_calloc(x->nflows + 1, sizeof(*m->flows));
	for (r = 0; r < x->nflows; r++)
		for (f = 0; f < x->nflows; f++) {
			const struct xflow *xf = &x->flows[f];
			struct lk_mdl_flow *mf;

			if (c->rank[f] != r || !used[f])
				continue;
			used[f] = m->nflows + 1;
			mf = &m->flows[m->nflows++];
			mf->name = lk_asprintf("s%zu", m->nflows - 1);
			attr(mf, "base", LK_MDL_STR,
			     lk_asprintf("%%%s", lk_reg_name(xf->base)));
			if (xf->index) {
				attr(mf, "index", LK_MDL_STR,
				     lk_asprintf("%%%s",
						 lk_reg_name(xf->index)));
				attr(mf, "scale", LK_MDL_INT,
				     lk_asprintf("%u", xf->scale));
			}
			attr(mf, "stride", LK_MDL_INT,
			     lk_asprintf("%lld", xf->stride));
			if (split_from(x, used, f))
				attr(mf, "disp", LK_MDL_INT,
				     lk_asprintf("%lld", (long long)c->lo[f]));
		}
}

static void io_of(struct lk_mdl *m, const struct canon *c, const size_t *used)
{
	size_t f, i, k;
	int dir;

	for (dir = 0; dir < 2; dir++)
		for (f = 0; f < m->nflows; f++) {
			size_t xf;
			int64_t lo = 0, hi = 0;
			int seen = 0;
			struct lk_mdl_io *io;

			for (xf = 0; xf < c->x->nflows; xf++)
				if (used[xf] == f + 1)
					break;
			for (i = 0; i < c->n; i++)
				for (k = 0; k < c->u[i].nacc[dir]; k++) {
					const struct uacc *a = &c->u[i].acc[dir][k];

					if (a->flow != xf)
						continue;
					if (!seen || a->off < lo)
						lo = a->off;
					if (!seen || a->off + a->size > hi)
						hi = a->off + a->size;
					seen = 1;
				}
			if (!seen)
				continue;
			if (dir == 0) {
				m->body.in = lk_reallocarray(m->body.in,
					m->body.nin + 1, sizeof(*io));
				io = &m->body.in[m->body.nin++];
			} else {
				m->body.out = lk_reallocarray(m->body.out,
					m->body.nout + 1, sizeof(*io));
				io = &m->body.out[m->body.nout++];
			}
			io->flow = f;
			io->bytes = footprint(c->delta[xf], (unsigned)(hi - lo));
		}
}

static struct lk_mdl_value num(long long v)
{
	struct lk_mdl_value x = {v, NULL};

	return x;
}

static void ukernels_of(struct lk_mdl *m, const struct canon *c,
			const size_t *used)
{
	size_t i, k;
	int dir;

	m->body.ukernels = lk_calloc(c->n + 1, sizeof(*m->body.ukernels));
	m->body.nukernels = c->n;
	for (i = 0; i < c->n; i++) {
		struct lk_mdl_ukernel *mu = &m->body.ukernels[i];

		for (dir = 0; dir < 2; dir++) {
			struct lk_mdl_access *acc =
				lk_calloc(c->u[i].nacc[dir] + 1, sizeof(*acc));

			for (k = 0; k < c->u[i].nacc[dir]; k++) {
				const struct uacc *a = &c->u[i].acc[dir][k];

				acc[k].flow = used[a->flow] - 1;
				acc[k].stride = num(c->delta[a->flow]);
				acc[k].offset = num(a->off);
				acc[k].size = num(a->size);
			}
			if (dir == 0) {
				mu->in = acc;
				mu->nin = c->u[i].nacc[0];
			} else {
				mu->out = acc;
				mu->nout = c->u[i].nacc[1];
			}
		}
		mu->add = num(c->u[i].add);
		mu->mul = num(c->u[i].mul);
	}
}

/*
 * The recurrence that bounds the loop (doc/loopkit-mdl.md, "the carried
 * chain"): a register or stack slot value carried from one iteration to
 * the next (a carried φ to its final value; a slot's adds a store and a
 * load), or a value stored and loaded back k
 * iterations later (a load of a stream at the offset a store of the
 * same stream had k strides earlier). Its operations are counted per
 * latency class; the path kept is the longest by typical latencies
 * (the database's measured ones weigh it when predicting).
 */
static const double typical[LK_MDL_NCHAIN] = {3, 3, 4, 13, 1, 5};

static int chain_class(const struct xnode *n)
{
	/* integer adds, subtracts and logic take a cycle, not an FP
	 * operation's latency */
	if (!n->fp && n->op != LK_OPC_MUL && n->op != LK_OPC_DIV)
		return LK_MDL_CHAIN_OTHER;
	switch (n->op) {
	case LK_OPC_ADD: case LK_OPC_SUB: case LK_OPC_HADD:
		return LK_MDL_CHAIN_ADD;
	case LK_OPC_MUL:
		return LK_MDL_CHAIN_MUL;
	case LK_OPC_FMA:
		return LK_MDL_CHAIN_FMA;
	case LK_OPC_DIV: case LK_OPC_SQRT:
		return LK_MDL_CHAIN_DIV;
	default:
		return LK_MDL_CHAIN_OTHER;
	}
}

/* Node n's longest distance from the source through its inputs (d < 0:
 * not reached), its operations per class in c. */
static void relax(const struct xloop *x, size_t n, size_t top, double *d,
		  long *c)
{
	const struct xnode *nd = &x->nodes[n];
	int cls = nd->kind == XN_OP ? chain_class(nd) : -1, k;
	size_t i;

	for (i = 0; i < nd->nin; i++) {
		size_t in = nd->in[i];
		double w;

		if (in > top || d[in] < 0)
			continue;
		w = d[in] + (cls >= 0 ? typical[cls] : 0);
		if (w <= d[n])
			continue;
		d[n] = w;
		for (k = 0; k < LK_MDL_NCHAIN; k++)
			c[n * LK_MDL_NCHAIN + k] =
				c[in * LK_MDL_NCHAIN + k] + (k == cls);
	}
}

/* The longest path from node src to node dst, its operations per class
 * into count; 0 when dst is not reached. Nodes come after their inputs
 * but φs, made when a register is first read: src may be any node. */
static int longest_path(const struct xloop *x, size_t src, size_t dst,
			long *count)
{
	size_t top = src > dst ? src : dst, n;
	double *d;
	long *c;
	int reached;

	if (dst == src)
		return 0;
	d = lk_calloc(top + 1, sizeof(*d));
	c = lk_calloc((top + 1) * LK_MDL_NCHAIN, sizeof(*c));
	for (n = 0; n <= top; n++)
		d[n] = n == src ? 0 : -1;
	for (n = 1; n <= dst; n++)
		if (n != src)
			relax(x, n, top, d, c);
	reached = d[dst] >= 0;
	if (reached)
		memcpy(count, &c[dst * LK_MDL_NCHAIN],
		       LK_MDL_NCHAIN * sizeof(*count));
	free(d);
	free(c);
	return reached;
}

static double chain_weight(const long *count, long distance)
{
	double w = 0;
	int k;

	for (k = 0; k < LK_MDL_NCHAIN; k++)
		w += (double)count[k] * typical[k];
	return w / (double)distance;
}

static void keep_chain(const long *count, long distance,
		       struct lk_mdl_extraction *out)
{
	if (chain_weight(count, distance) <=
	    chain_weight(out->chain, out->chain_distance))
		return;
	memcpy(out->chain, count, sizeof(out->chain));
	out->chain_distance = distance;
}

/* Does load l read what store s wrote k >= 1 iterations earlier? */
static long memory_distance(const struct xloop *x, const struct xnode *l,
			    const struct xnode *s)
{
	const struct xacc *a = &x->accs[l->acc], *b = &x->accs[s->acc];
	long long gap = b->off - a->off;

	if (a->flow != b->flow || a->size != b->size || !a->stride ||
	    a->stride != b->stride || gap % a->stride)
		return 0;
	gap /= a->stride;
	return gap >= 1 && gap <= 16 ? (long)gap : 0;
}

static void recurrences(const struct xloop *x, struct lk_mdl_extraction *out)
{
	long count[LK_MDL_NCHAIN];
	size_t p, q;

	memset(out->chain, 0, sizeof(out->chain));
	out->chain_distance = 1;
	for (p = 1; p < x->nnodes; p++) {
		const struct xnode *n = &x->nodes[p];

		if (n->kind == XN_PHI && n->carried && n->final &&
		    longest_path(x, p, n->final, count)) {
			/* a stack slot's value goes through a store and a
			 * load to the next iteration */
			count[LK_MDL_CHAIN_FORWARD] += n->stack;
			keep_chain(count, 1, out);
		}
		if (n->kind != XN_LOAD)
			continue;
		for (q = p + 1; q < x->nnodes; q++) {
			long k;

			if (x->nodes[q].kind != XN_STORE ||
			    !(k = memory_distance(x, n, &x->nodes[q])) ||
			    !longest_path(x, p, q, count))
				continue;
			count[LK_MDL_CHAIN_FORWARD]++;
			keep_chain(count, k, out);
		}
	}
}

static const char *const chain_keys[LK_MDL_NCHAIN] = {
	"chain_add", "chain_mul", "chain_fma", "chain_div", "chain_other",
	"chain_forward"};

static void metrics(struct lk_mdl *m, const struct canon *c, const char *source,
		    struct lk_mdl_extraction *out)
{
	long add = 0, mul = 0, bytes = 0;
	size_t i, k;
	int dir;

	for (i = 0; i < c->n; i++) {
		add += c->u[i].add;
		mul += c->u[i].mul;
		for (dir = 0; dir < 2; dir++)
			for (k = 0; k < c->u[i].nacc[dir]; k++)
				bytes += c->u[i].acc[dir][k].size;
	}
	meta_add(m, "unroll", LK_MDL_INT, lk_asprintf("%ld", out->unroll));
	meta_add(m, "lanes", LK_MDL_INT, lk_asprintf("%ld", out->lanes));
	meta_add(m, "spill_fill", LK_MDL_INT,
		 lk_asprintf("%ld", out->spill_fill));
	meta_add(m, "carried", LK_MDL_INT, lk_asprintf("%ld", out->carried));
	meta_add(m, "other_ops", LK_MDL_INT,
		 lk_asprintf("%ld", out->other_ops));
	if (out->split)
		meta_add(m, "split", LK_MDL_INT, lk_asprintf("%ld", out->split));
	if (c->x->remat)
		meta_add(m, "remat", LK_MDL_INT,
			 lk_asprintf("%ld", c->x->remat));
	if (c->x->forward_fail)
		meta_add(m, "forward_fail", LK_MDL_INT,
			 lk_asprintf("%ld", c->x->forward_fail));
	recurrences(c->x, out);
	for (k = 0; k < LK_MDL_NCHAIN; k++)
		if (out->chain[k])
			meta_add(m, chain_keys[k], LK_MDL_INT,
				 lk_asprintf("%ld", out->chain[k]));
	if (out->chain_distance > 1)
		meta_add(m, "chain_distance", LK_MDL_INT,
			 lk_asprintf("%ld", out->chain_distance));
	if (bytes)
		meta_add(m, "flop_per_byte", LK_MDL_DEC,
			 decimal((double)(add + mul) / (double)bytes));
	if (mul)
		meta_add(m, "add_per_mul", LK_MDL_DEC,
			 decimal((double)add / (double)mul));
	meta_add(m, "source", LK_MDL_STR, lk_strdup(source));
}

void mdl_x_normalize(struct xloop *x, const char *source,
		     struct lk_mdl_extraction *out)
{
	struct lk_mdl *m = &out->mdl;
	struct canon c = {0};
	long long *delta;
	size_t i, k, *used;
	long other;
	int dir;

	streams(x);
	delta = lk_calloc(x->nflows + 1, sizeof(*delta));
	c.u = components(x, &c.n, &other);
	for (i = 0; i < c.n; i++)
		coalesce(&c.u[i]);
	out->unroll = reroll(x, c.u, &c.n, delta);
	c.lo = normalise_offsets(c.u, c.n, x->nflows);
	c.delta = delta;
	c.x = x;
	canonical_order(&c);
	out->lanes = x->lanes ? x->lanes : 1;
	out->spill_fill = x->spill_fill;
	out->forward_fail = x->forward_fail;
	out->carried = x->carried;
	out->other_ops = other / out->unroll;
	out->split = x->split;
	used = lk_calloc(x->nflows + 1, sizeof(*used));
	for (i = 0; i < c.n; i++)
		for (dir = 0; dir < 2; dir++)
			for (k = 0; k < c.u[i].nacc[dir]; k++)
				used[c.u[i].acc[dir][k].flow] = 1;
	m->version = 1;
	metrics(m, &c, source, out);
	flows_of(m, &c, used);
	m->scalars = lk_calloc(1, sizeof(*m->scalars));
	m->scalars[0].name = lk_strdup("n");
	m->nscalars = 1;
	m->body.trip = leaf(0, "n");
	io_of(m, &c, used);
	ukernels_of(m, &c, used);
	for (i = 0; i < c.n; i++) {
		free(c.u[i].acc[0]);
		free(c.u[i].acc[1]);
		free(c.ukey[i]);
	}
	for (i = 0; i < x->nflows; i++)
		free(c.fkey[i]);
	free(c.u);
	free(c.ukey);
	free(c.fkey);
	free(c.rank);
	free(c.lo);
	free(used);
	free(delta);
}
