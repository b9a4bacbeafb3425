/*
 * The k-NN's feature vector of a description (doc/loopkit-mdl.md,
 * "predict"): loads and stores per stream, streams, adds and muls, in
 * elements per canonical iteration, so that coalescing (one 24-byte
 * access = three 8-byte ones) does not change them; and the lines that
 * accesses of a stride of a cache line or more touch each iteration
 * (each a new line: the seeds' unit strides do not tell what those
 * cost out of L1).
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/mdl.h"
#include "mdl-int.h"

struct leaves {
	const struct lk_mdl_ukernel **uks;
	size_t n, alloc;
};

static void collect(struct leaves *lv, const struct lk_mdl_loop *l)
{
	size_t i;

	for (i = 0; i < l->nukernels; i++) {
		LK_GROW(lv->uks, lv->n + 1, lv->alloc);
		lv->uks[lv->n++] = &l->ukernels[i];
	}
	for (i = 0; i < l->nloops; i++)
		collect(lv, &l->loops[i]);
}

size_t lk_mdl_ukernel_count(const struct lk_mdl *m)
{
	struct leaves lv = {0};
	size_t n;

	collect(&lv, &m->body);
	n = lv.n;
	free(lv.uks);
	return n;
}

static int value_of(struct lk_ctx *ctx, const char *file,
		    const struct lk_mdl *m, const struct lk_mdl_value *v,
		    long long *out)
{
	size_t i;

	if (!v->name) {
		*out = v->num;
		return 0;
	}
	for (i = 0; i < m->nscalars; i++)
		if (!strcmp(m->scalars[i].name, v->name)) {
			*out = m->scalars[i].value;
			return 0;
		}
	return lk_error(ctx, LK_EINPUT, "%s: scalar '%s' is not declared",
			file, v->name);
}

/* A stride of at least a cache line: each access a new line. */
#define FAR_STRIDE 64

struct far_access {
	size_t flow;
	long long stride;
	struct mdl_span span;
};

struct tally {
	long long in_bytes, out_bytes, add, mul;
	int elem;                   /* 8, or 4 when a size needs it */
	unsigned char *flows;       /* by flow index: accessed */
	size_t *rep;                /* by flow index: the stream it is */
	struct far_access *far;     /* the accesses of a far stride */
	size_t nfar, afar;
};

static void add_far(struct tally *t, size_t flow, long long stride,
		    long long off, long long size)
{
	LK_GROW(t->far, t->nfar + 1, t->afar);
	t->far[t->nfar++] = (struct far_access){flow, stride, {off, size}};
}

/* The lines far accesses touch per iteration: per flow, its accesses'
 * new lines (walk.c: offsets a stride apart, a column stencil's
 * a[i-1][j] and a[i+1][j], are one line each iteration, not two). */
static double far_lines(const struct tally *t, size_t nflows)
{
	struct mdl_span *sp = lk_calloc(t->nfar + 1, sizeof(*sp));
	struct mdl_touch touch;
	double lines = 0;
	size_t f, i, n;

	for (f = 0; f < nflows; f++) {
		long long stride = 0;

		for (i = n = 0; i < t->nfar; i++)
			if (t->far[i].flow == f) {
				if (llabs(t->far[i].stride) > llabs(stride))
					stride = t->far[i].stride;
				sp[n++] = t->far[i].span;
			}
		if (!n)
			continue;
		mdl_stream_touch(stride, sp, n, &touch);
		lines += (double)touch.touched / FAR_STRIDE;
	}
	free(sp);
	return lines;
}

static int tally_accesses(struct lk_ctx *ctx, const char *file,
			  const struct lk_mdl *m,
			  const struct lk_mdl_access *a, size_t n,
			  long long *bytes, struct tally *t)
{
	long long size, stride, off;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if ((ret = value_of(ctx, file, m, &a[i].size, &size)) ||
		    (ret = value_of(ctx, file, m, &a[i].stride, &stride)) ||
		    (ret = value_of(ctx, file, m, &a[i].offset, &off)))
			return ret;
		if (size <= 0 || size % 4)
			return lk_error(ctx, LK_EINPUT, "%s: flow %s: size %lld "
					"is not a whole number of 4- or 8-byte "
					"elements", file,
					m->flows[a[i].flow].name, size);
		if (size % 8)
			t->elem = 4;
		/* a trailing stream's lines are in a nearer cache: its
		 * accesses cost little beside the level's streams */
		if (t->rep[a[i].flow] != a[i].flow)
			continue;
		if (stride >= FAR_STRIDE || stride <= -FAR_STRIDE)
			add_far(t, a[i].flow, stride, off, size);
		*bytes += size;
		t->flows[a[i].flow] = 1;
	}
	return 0;
}

static int tally_ukernel(struct lk_ctx *ctx, const char *file,
			 const struct lk_mdl *m,
			 const struct lk_mdl_ukernel *u, struct tally *t)
{
	long long add, mul;
	int ret;

	if ((ret = value_of(ctx, file, m, &u->add, &add)) ||
	    (ret = value_of(ctx, file, m, &u->mul, &mul)))
		return ret;
	if (add < 0 || mul < 0)
		return lk_error(ctx, LK_EINPUT, "%s: Add: %lld Mul: %lld: "
				"counts cannot be negative", file, add, mul);
	t->add += add;
	t->mul += mul;
	if ((ret = tally_accesses(ctx, file, m, u->in, u->nin,
				  &t->in_bytes, t)))
		return ret;
	return tally_accesses(ctx, file, m, u->out, u->nout, &t->out_bytes,
			      t);
}

static void to_features(const struct lk_mdl *m, const struct tally *t,
			double *f)
{
	size_t i, streams = 0;

	for (i = 0; i < m->nflows; i++)
		streams += t->flows[i];
	memset(f, 0, LK_MDL_NFEATURES * sizeof(*f));
	if (streams) {
		f[LK_MDL_F_LOAD] = (double)(t->in_bytes / t->elem) /
				   (double)streams;
		f[LK_MDL_F_STORE] = (double)(t->out_bytes / t->elem) /
				    (double)streams;
	}
	f[LK_MDL_F_STREAMS] = (double)streams;
	f[LK_MDL_F_ADD] = (double)t->add;
	f[LK_MDL_F_MUL] = (double)t->mul;
	f[LK_MDL_F_FAR] = far_lines(t, m->nflows);
}

int lk_mdl_element_bytes(const struct lk_mdl *m)
{
	struct leaves lv = {0};
	struct lk_ctx ctx;
	size_t i, k;
	int dir, elem = 8;

	lk_ctx_init(&ctx);
	collect(&lv, &m->body);
	for (i = 0; i < lv.n; i++)
		for (dir = 0; dir < 2; dir++) {
			const struct lk_mdl_access *a = dir ? lv.uks[i]->out
							    : lv.uks[i]->in;
			size_t n = dir ? lv.uks[i]->nout : lv.uks[i]->nin;

			for (k = 0; k < n; k++) {
				long long size;

				if (!value_of(&ctx, "", m, &a[k].size, &size) &&
				    size % 8)
					elem = 4;
			}
		}
	free(lv.uks);
	return elem;
}

/* Flow f's attribute key as text ("" when absent). */
static const char *flow_attr(const struct lk_mdl *m, size_t f,
			     const char *key)
{
	const struct lk_mdl_attr *a = lk_mdl_attr_find(m->flows[f].attrs,
						       m->flows[f].nattrs, key);

	return a ? a->text : "";
}

/* Flow f's stride per canonical iteration (its first access's), 0 if
 * none is known. */
static long long flow_stride(const struct lk_mdl *m, const struct leaves *lv,
			     size_t f)
{
	struct lk_ctx quiet;
	long long v;
	size_t i, k;
	int dir;

	lk_ctx_init(&quiet);
	for (i = 0; i < lv->n; i++)
		for (dir = 0; dir < 2; dir++) {
			const struct lk_mdl_access *a = dir ? lv->uks[i]->out
							    : lv->uks[i]->in;
			size_t n = dir ? lv->uks[i]->nout : lv->uks[i]->nin;

			for (k = 0; k < n; k++)
				if (a[k].flow == f &&
				    !value_of(&quiet, "", m, &a[k].stride, &v))
					return v;
		}
	return 0;
}

/*
 * Trailing streams (doc/loopkit-mdl.md, "predict"): flows of one base,
 * index and scale with a 'disp' each (extraction splits an array
 * reached at displacements far apart into such flows: heat-3d's planes,
 * floyd-warshall's rows) walk the same way. The one furthest in the
 * walk's direction leads; another, D bytes behind, re-reads D / |stride|
 * iterations later the lines the leader brought in. When what the loop
 * touches meanwhile (those iterations times every flow's bytes per
 * iteration) fits in near bytes, the cache nearer than the level's,
 * the trailing flow is no stream of its own there: rep[f] is its
 * leader. near 0: every flow its own stream.
 */
static void trailing(const struct lk_mdl *m, const struct leaves *lv,
		     long long near, size_t *rep)
{
	long long *stride = lk_calloc(m->nflows + 1, sizeof(*stride));
	long long *disp = lk_calloc(m->nflows + 1, sizeof(*disp));
	unsigned char *has = lk_calloc(m->nflows + 1, 1);
	double per_iter = 0;
	size_t f, g, lead;

	for (f = 0; f < m->nflows; f++) {
		const char *d = flow_attr(m, f, "disp");
		char *end;

		rep[f] = f;
		stride[f] = flow_stride(m, lv, f);
		per_iter += (double)llabs(stride[f]);
		disp[f] = strtoll(d, &end, 10);
		has[f] = *d && !*end && stride[f];
	}
	for (f = 0; near > 0 && f < m->nflows; f++) {
		if (!has[f])
			continue;
		lead = f;
		for (g = 0; g < m->nflows; g++)
			if (has[g] && stride[g] == stride[f] &&
			    !strcmp(flow_attr(m, g, "base"),
				    flow_attr(m, f, "base")) &&
			    !strcmp(flow_attr(m, g, "index"),
				    flow_attr(m, f, "index")) &&
			    !strcmp(flow_attr(m, g, "scale"),
				    flow_attr(m, f, "scale")) &&
			    (stride[f] > 0 ? disp[g] > disp[lead]
					   : disp[g] < disp[lead]))
				lead = g;
		if (lead != f &&
		    (double)llabs(disp[lead] - disp[f]) /
				    (double)llabs(stride[f]) * per_iter <=
			    (double)near)
			rep[f] = lead;
	}
	free(stride);
	free(disp);
	free(has);
}

void lk_mdl_trailing(const struct lk_mdl *m, long long near,
		     struct lk_strv *out)
{
	struct leaves lv = {0};
	size_t *rep = lk_calloc(m->nflows + 1, sizeof(*rep)), f;

	collect(&lv, &m->body);
	trailing(m, &lv, near, rep);
	for (f = 0; f < m->nflows; f++)
		if (rep[f] != f)
			lk_strv_push(out, m->flows[f].name);
	free(rep);
	free(lv.uks);
}

int lk_mdl_features(struct lk_ctx *ctx, const char *file,
		    const struct lk_mdl *m, long k, double *f)
{
	return lk_mdl_features_near(ctx, file, m, k, 0, f);
}

int lk_mdl_features_near(struct lk_ctx *ctx, const char *file,
			 const struct lk_mdl *m, long k, long long near,
			 double *f)
{
	struct leaves lv = {0};
	struct tally t = {0, 0, 0, 0, 8, NULL, NULL, NULL, 0, 0};
	size_t i;
	int ret = 0;

	collect(&lv, &m->body);
	t.flows = lk_calloc(m->nflows + 1, 1);
	t.rep = lk_calloc(m->nflows + 1, sizeof(*t.rep));
	trailing(m, &lv, near, t.rep);
	if (!lv.n)
		ret = lk_error(ctx, LK_EINPUT, "%s: no µkernel (the innermost "
			       "loop has none)", file);
	else if (k >= (long)lv.n)
		ret = lk_error(ctx, LK_EINPUT, "%s: no µkernel %ld (it has "
			       "%zu)", file, k, lv.n);
	for (i = 0; !ret && i < lv.n; i++)
		if (k < 0 || (size_t)k == i)
			ret = tally_ukernel(ctx, file, m, lv.uks[i], &t);
	if (!ret)
		to_features(m, &t, f);
	free(t.flows);
	free(t.rep);
	free(t.far);
	free(lv.uks);
	return ret;
}
