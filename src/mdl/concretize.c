/*
 * Concretisation: the innermost µkernels of an MDL description as the
 * instruction lists of one unrolled loop body (loads, stores, add, mul
 * of the machine's widths), ordered and register-allocated by
 * Algorithms 1-3 (schedule.c); emit.c prints the C benchmark.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/env.h"
#include "concretize.h"

#define UNROLL_MAX 4096
#define INSNS_MAX (1L << 16)
#define ITERATIONS_PER_CALL 8192L
#define MIN_CALL 1024L             /* canonical: see mdl_walk_trips */

void lk_mdl_concrete_opts_init(struct lk_mdl_concrete_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->level = LK_MDL_L1;
	o->unroll = 8;
	o->bundles = 1;
	o->first = LK_MDL_FIRST_MUL;
}

static int value_of(struct cz *z, const struct lk_mdl_value *v, long *out)
{
	size_t i;

	if (!v->name) {
		*out = (long)v->num;
		return 0;
	}
	for (i = 0; i < z->m->nscalars; i++)
		if (!strcmp(z->m->scalars[i].name, v->name)) {
			*out = (long)z->m->scalars[i].value;
			return 0;
		}
	return lk_error(z->ctx, LK_EINPUT, "%s: scalar '%s' is not declared",
			z->file, v->name);
}

/* The µkernels of every innermost loop, in order. */
static void collect_leaves(struct cz *z, const struct lk_mdl_loop *l)
{
	size_t i;

	for (i = 0; i < l->nukernels; i++) {
		LK_GROW(z->uks, z->nuks + 1, z->auks);
		z->uks[z->nuks++] = &l->ukernels[i];
	}
	for (i = 0; i < l->nloops; i++)
		collect_leaves(z, &l->loops[i]);
}

static struct cz_stream *stream_of(struct cz *z, size_t flow)
{
	struct cz_stream *s;
	size_t i;

	for (i = 0; i < z->nstreams; i++)
		if (z->streams[i].flow == flow)
			return &z->streams[i];
	LK_GROW(z->streams, z->nstreams + 1, z->astreams);
	s = &z->streams[z->nstreams++];
	memset(s, 0, sizeof(*s));
	s->flow = flow;
	s->fresh = 1;
	return s;
}

static int resolve_access(struct cz *z, const struct lk_mdl_access *a,
			  struct cz_access *out)
{
	const char *name = z->m->flows[a->flow].name;
	int ret = value_of(z, &a->stride, &out->stride);

	if (!ret)
		ret = value_of(z, &a->offset, &out->offset);
	if (!ret)
		ret = value_of(z, &a->size, &out->size);
	if (ret)
		return ret;
	if (out->size <= 0 || out->size > (1L << 20))
		return lk_error(z->ctx, LK_EINPUT, "%s: flow %s: size %ld is "
				"not between 1 and 1 MiB", z->file, name,
				out->size);
	if (labs(out->stride) > (1L << 24) || labs(out->offset) > (1L << 28))
		return lk_error(z->ctx, LK_EINPUT, "%s: flow %s: stride or "
				"offset too large to concretise", z->file,
				name);
	return 0;
}

/* Record access a of the stream it belongs to: one stride per stream. */
static int add_access(struct cz *z, const struct lk_mdl_access *a, int out)
{
	struct cz_access acc = {0};
	struct cz_stream *s;
	int ret = resolve_access(z, a, &acc);

	if (ret)
		return ret;
	s = stream_of(z, a->flow);
	if (s->fresh) {
		s->stride = acc.stride;
		s->min_off = acc.offset;
		s->max_end = acc.offset + acc.size;
		s->fresh = 0;
	} else if (s->stride != acc.stride) {
		return lk_error(z->ctx, LK_EINPUT, "%s: flow %s has strides "
				"%ld and %ld: a concretised stream has one",
				z->file, z->m->flows[a->flow].name, s->stride,
				acc.stride);
	}
	if (acc.offset < s->min_off)
		s->min_off = acc.offset;
	if (acc.offset + acc.size > s->max_end)
		s->max_end = acc.offset + acc.size;
	acc.stream = (int)(s - z->streams);
	acc.out = out;
	LK_GROW(z->accs, z->naccs + 1, z->aaccs);
	z->accs[z->naccs++] = acc;
	return 0;
}

static int add_ukernel(struct cz *z, const struct lk_mdl_ukernel *u)
{
	long add, mul;
	int ret = value_of(z, &u->add, &add);
	size_t i;

	if (!ret)
		ret = value_of(z, &u->mul, &mul);
	if (ret)
		return ret;
	if (add < 0 || mul < 0 || add > 4096 || mul > 4096)
		return lk_error(z->ctx, LK_EINPUT, "%s: Add: %ld Mul: %ld: "
				"counts must be between 0 and 4096", z->file,
				add, mul);
	z->nadd += add;
	z->nmul += mul;
	for (i = 0; !ret && i < u->nin; i++)
		ret = add_access(z, &u->in[i], 0);
	for (i = 0; !ret && i < u->nout; i++)
		ret = add_access(z, &u->out[i], 1);
	return ret;
}

/* 8-byte elements unless a size is not a multiple of 8. */
static int choose_element(struct cz *z)
{
	size_t i;

	z->elem = 8;
	for (i = 0; i < z->naccs; i++)
		if (z->accs[i].size % 8)
			z->elem = 4;
	for (i = 0; i < z->naccs; i++)
		if (z->accs[i].size % z->elem)
			return lk_error(z->ctx, LK_EINPUT, "%s: flow %s: size "
					"%ld is not a whole number of 4- or "
					"8-byte elements", z->file,
					z->m->flows[z->streams[z->accs[i]
					.stream].flow].name, z->accs[i].size);
	return 0;
}

static int gather(struct cz *z)
{
	size_t i;
	int ret = 0;

	collect_leaves(z, &z->m->body);
	if (!z->nuks)
		return lk_error(z->ctx, LK_EINPUT, "%s: no µkernel to "
				"concretise (the innermost loop has none)",
				z->file);
	for (i = 0; !ret && i < z->nuks; i++)
		ret = add_ukernel(z, z->uks[i]);
	if (ret)
		return ret;
	if (!z->naccs && !z->nadd && !z->nmul)
		return lk_error(z->ctx, LK_EINPUT, "%s: the µkernels have no "
				"access and no arithmetic: nothing to "
				"concretise", z->file);
	if (z->nstreams > CZ_STREAMS_MAX)
		return lk_error(z->ctx, LK_EINPUT, "%s: %zu streams: more than "
				"the %d the benchmark keeps in registers",
				z->file, z->nstreams, CZ_STREAMS_MAX);
	return choose_element(z);
}

/* Widest first: the packed widths down to 16 bytes, then one element. */
static int piece_width(const struct cz *z, long left)
{
	int w;

	for (w = z->machine->packed_bytes; w >= 16; w /= 2)
		if (left >= w)
			return w;
	return z->elem;
}

static void push(struct mdl_insn **list, size_t *n, size_t *alloc,
		 const struct mdl_insn *x)
{
	LK_GROW(*list, *n + 1, *alloc);
	(*list)[(*n)++] = *x;
}

/* The memory instructions covering [disp, disp + bytes). */
static void add_region(struct cz *z, const struct cz_access *a, long disp,
		       long bytes)
{
	struct mdl_insn x = {0};

	x.kind = a->out ? MDL_STORE : MDL_LOAD;
	x.stream = a->stream;
	while (bytes > 0) {
		x.bytes = piece_width(z, bytes);
		x.disp = disp;
		if (a->out)
			push(&z->stores, &z->nstores, &z->astores, &x);
		else
			push(&z->loads, &z->nloads, &z->aloads, &x);
		disp += x.bytes;
		bytes -= x.bytes;
	}
}

/* One asm iteration = unroll canonical iterations: a contiguous access
 * (|stride| = size) is one region, any other one region per iteration. */
static void expand_accesses(struct cz *z)
{
	long u = z->opts->unroll, i;
	size_t k;

	for (k = 0; k < z->naccs; k++) {
		const struct cz_access *a = &z->accs[k];

		if (labs(a->stride) == a->size) {
			long lo = a->stride < 0 ? (u - 1) * a->stride : 0;

			add_region(z, a, a->offset + lo, u * a->size);
			continue;
		}
		for (i = 0; i < u; i++)
			add_region(z, a, a->offset + i * a->stride, a->size);
	}
}

/* Arithmetic: unroll x count element operations, in the widest pieces,
 * ordered by Algorithm 1. */
static void expand_arith(struct cz *z)
{
	long left[2] = {z->nadd * z->opts->unroll * z->elem,
			z->nmul * z->opts->unroll * z->elem};
	long nops[2] = {0, 0}, widths_at[2] = {0, 0}, total, i;
	int *widths[2];
	enum mdl_kind *kinds;
	int k;

	for (k = 0; k < 2; k++) {
		widths[k] = lk_calloc((size_t)(left[k] / z->elem) + 1,
				      sizeof(int));
		while (left[k] > 0) {
			int w = piece_width(z, left[k]);

			widths[k][nops[k]++] = w;
			left[k] -= w;
		}
	}
	total = nops[0] + nops[1];
	kinds = lk_calloc((size_t)total + 1, sizeof(*kinds));
	mdl_arith_order(nops[0], nops[1], z->opts->first == LK_MDL_FIRST_ADD,
			kinds);
	for (i = 0; i < total; i++) {
		struct mdl_insn x = {0};

		k = kinds[i] == MDL_MUL;
		x.kind = kinds[i];
		x.bytes = widths[k][widths_at[k]++];
		push(&z->fops, &z->nfops, &z->afops, &x);
	}
	free(kinds);
	free(widths[0]);
	free(widths[1]);
}

static int schedule(struct cz *z)
{
	size_t n;

	expand_accesses(z);
	expand_arith(z);
	n = z->nloads + z->nstores + z->nfops;
	if ((long)n > INSNS_MAX)
		return lk_error(z->ctx, LK_EINPUT, "%s: %zu instructions in "
				"the loop body at unroll %d: more than %ld",
				z->file, n, z->opts->unroll, INSNS_MAX);
	z->nbody = n;
	z->body = lk_calloc(n + 1, sizeof(*z->body));
	z->bundles = mdl_bundle_count((long)z->nloads, (long)z->nstores,
				      (long)z->nfops, z->opts->bundles);
	mdl_bundle_order(z->loads, z->nloads, z->fops, z->nfops, z->stores,
			 z->nstores, z->opts->bundles, z->body);
	z->init = mdl_neutral_alloc(z->body, n, z->machine->registers);
	return 0;
}

static long round_up(long x, long to)
{
	return (x + to - 1) / to * to;
}

/* Stream k's touch per asm iteration (walk.c), from its loads and
 * stores in the body. */
static void touch_stream(struct cz *z, size_t k)
{
	struct mdl_span *sp = lk_calloc(z->nbody + 1, sizeof(*sp));
	size_t i, n = 0;

	for (i = 0; i < z->nbody; i++) {
		const struct mdl_insn *x = &z->body[i];

		if ((x->kind == MDL_LOAD || x->kind == MDL_STORE) &&
		    x->stream == (int)k) {
			sp[n].off = x->disp;
			sp[n++].size = x->bytes;
		}
	}
	mdl_stream_touch((long long)z->streams[k].stride * z->opts->unroll,
			 sp, n, &z->streams[k].touch);
	free(sp);
}

/* Trips per call and chunks so that the walk over the arrays touches
 * the working set's bytes: the bytes of the lines touched, a stream of
 * a stride of a line or more cycling through lanes (walk.c). */
static void size_walk(struct cz *z)
{
	long u = z->opts->unroll, walk = 0, per_call, sweep, lanes = 1;
	size_t k;

	for (k = 0; k < z->nstreams; k++) {
		touch_stream(z, k);
		walk += (long)z->streams[k].touch.touched;
		if (z->streams[k].touch.lanes > lanes)
			lanes = z->streams[k].touch.lanes;
	}
	per_call = ITERATIONS_PER_CALL / u > 0 ? ITERATIONS_PER_CALL / u : 1;
	sweep = walk ? z->bytes / walk : per_call;
	if (sweep < 1)
		sweep = 1;
	z->trips = mdl_walk_trips(sweep, per_call,
				  MIN_CALL / u > 0 ? MIN_CALL / u : 1, lanes);
	z->chunks = sweep / z->trips;
	z->walked = z->chunks * z->trips * walk;
	for (k = 0; k < z->nstreams; k++) {
		struct cz_stream *s = &z->streams[k];
		long span, pad = round_up(s->min_off < 0 ? -s->min_off : 0, 64);

		mdl_walk_cycle(z->chunks, s->touch.lanes, &s->blocks,
			       &s->lanes);
		s->lane_step = (long)s->touch.lane_step;
		span = s->blocks * z->trips * u * labs(s->stride);
		s->origin = pad + (s->stride < 0 ? span - labs(s->stride) : 0);
		s->chunk_step = z->trips * u * s->stride;
		s->alloc = round_up(pad + span + (s->max_end > 0 ? s->max_end
						  : 0) +
				    (s->lanes - 1) * s->lane_step + 64, 64);
	}
}

static int check_opts(struct cz *z)
{
	const struct lk_mdl_concrete_opts *o = z->opts;
	struct lk_env_caches caches;

	if (o->unroll < 1 || o->unroll > UNROLL_MAX || o->bundles < 1)
		return lk_error(z->ctx, LK_EINPUT, "unroll must be between 1 "
				"and %d and bundles at least 1", UNROLL_MAX);
	z->bytes = o->bytes;
	if (z->bytes <= 0) {
		lk_env_cache_sizes(&caches);
		z->bytes = lk_mdl_level_bytes(o->level, &caches);
	}
	if (z->bytes <= 0)
		return lk_error(z->ctx, LK_EINPUT, "the cache size behind "
				"level %s is unknown on this machine: give the "
				"working set in bytes", lk_mdl_level_name(o->level));
	return 0;
}

static void cz_release(struct cz *z)
{
	free(z->uks);
	free(z->streams);
	free(z->accs);
	free(z->loads);
	free(z->stores);
	free(z->fops);
	free(z->body);
}

int lk_mdl_concretize(struct lk_ctx *ctx, const struct lk_mdl *m,
		      const struct lk_mdl_machine *machine,
		      const struct lk_mdl_concrete_opts *opts,
		      struct lk_buf *c_source)
{
	struct cz z = {0};
	int ret;

	z.ctx = ctx;
	z.m = m;
	z.machine = machine;
	z.opts = opts;
	z.file = opts->source ? opts->source : "<mdl>";
	ret = check_opts(&z);
	if (!ret)
		ret = gather(&z);
	if (!ret)
		ret = schedule(&z);
	if (!ret) {
		size_walk(&z);
		ret = mdl_emit(&z, c_source);
	}
	cz_release(&z);
	return ret;
}
