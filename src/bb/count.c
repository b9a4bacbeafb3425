/*
 * Which blocks to measure, and the counts of the others by flow
 * conservation (see count.h for the equations).
 */
#include <stdlib.h>
#include <string.h>

#include "count-int.h"

struct term {
	size_t var;
	int sign;
};

struct equation {
	size_t first, nterms; /* into flow.terms */
};

/*
 * Variables: [0, nblocks) block counts, then one per edge, then one per
 * open entry and one per open exit. Every equation sums to zero.
 */
struct flow {
	size_t nblocks, nvars;
	struct term *terms;
	size_t nterms, terms_alloc;
	struct equation *eqs;
	size_t neqs, eqs_alloc;
	size_t *edge_from, *edge_to;
	size_t nedges;
	unsigned char *open_in, *open_out;
};

static const struct lk_insn *last_insn(const struct lk_cfg *cfg,
				       const struct lk_block *b)
{
	return &cfg->insns[b->first + b->ninsns - 1];
}

static int is_call(const struct lk_insn *insn)
{
	return insn->kind == LK_INSN_CALL || insn->kind == LK_INSN_ICALL;
}

static int has_ijump(const struct lk_cfg *cfg)
{
	size_t b;

	for (b = 0; b < cfg->nblocks; b++)
		if (last_insn(cfg, &cfg->blocks[b])->kind == LK_INSN_IJUMP)
			return 1;
	return 0;
}

/*
 * Where flow crosses the function's boundary unseen by the CFG: the
 * entry; every block when a jump table may reach it; and without
 * LK_COUNT_BALANCED the fall-through of calls (a frame of this function
 * can be on the stack when the region starts or ends). Blocks leave at
 * exits, at blocks with no successor that are not exits (a call that
 * does not return), and at calls when unbalanced.
 */
static void mark_open(const struct lk_cfg *cfg, unsigned flags,
		      struct flow *f)
{
	int any_in = has_ijump(cfg);
	size_t b, s;

	for (b = 0; b < cfg->nblocks; b++) {
		const struct lk_block *blk = &cfg->blocks[b];
		int call = is_call(last_insn(cfg, blk));

		if (any_in || blk->start == cfg->fn.addr || b == 0)
			f->open_in[b] = 1;
		if (blk->exits || !blk->nsucc)
			f->open_out[b] = 1;
		if (!call || (flags & LK_COUNT_BALANCED))
			continue;
		f->open_out[b] = 1;
		for (s = 0; s < blk->nsucc; s++)
			f->open_in[blk->succ[s]] = 1;
	}
}

static void eq_begin(struct flow *f)
{
	LK_GROW(f->eqs, f->neqs + 1, f->eqs_alloc);
	f->eqs[f->neqs].first = f->nterms;
	f->eqs[f->neqs].nterms = 0;
	f->neqs++;
}

static void eq_add(struct flow *f, size_t var, int sign)
{
	LK_GROW(f->terms, f->nterms + 1, f->terms_alloc);
	f->terms[f->nterms].var = var;
	f->terms[f->nterms].sign = sign;
	f->nterms++;
	f->eqs[f->neqs - 1].nterms++;
}

static void add_edges(const struct lk_cfg *cfg, struct flow *f)
{
	size_t b, s, alloc = 0, alloc2 = 0;

	for (b = 0; b < cfg->nblocks; b++)
		for (s = 0; s < cfg->blocks[b].nsucc; s++) {
			LK_GROW(f->edge_from, f->nedges + 1, alloc);
			LK_GROW(f->edge_to, f->nedges + 1, alloc2);
			f->edge_from[f->nedges] = b;
			f->edge_to[f->nedges] = cfg->blocks[b].succ[s];
			f->nedges++;
		}
}

/* count(b) - (flow through b's edges on one side) - (open flow) = 0. */
static void block_equation(struct flow *f, size_t b, int out, size_t open_var)
{
	size_t e;

	eq_begin(f);
	eq_add(f, b, 1);
	for (e = 0; e < f->nedges; e++)
		if ((out ? f->edge_from[e] : f->edge_to[e]) == b)
			eq_add(f, f->nblocks + e, -1);
	if (open_var != (size_t)-1)
		eq_add(f, open_var, -1);
}

static void flow_build(const struct lk_cfg *cfg, unsigned flags,
		       struct flow *f)
{
	size_t b, next, *in_var, *out_var;

	memset(f, 0, sizeof(*f));
	f->nblocks = cfg->nblocks;
	f->open_in = lk_calloc(cfg->nblocks + 1, 1);
	f->open_out = lk_calloc(cfg->nblocks + 1, 1);
	in_var = lk_calloc(cfg->nblocks + 1, sizeof(*in_var));
	out_var = lk_calloc(cfg->nblocks + 1, sizeof(*out_var));
	mark_open(cfg, flags, f);
	add_edges(cfg, f);
	next = f->nblocks + f->nedges;
	for (b = 0; b < cfg->nblocks; b++) {
		in_var[b] = f->open_in[b] ? next++ : (size_t)-1;
		out_var[b] = f->open_out[b] ? next++ : (size_t)-1;
	}
	f->nvars = next;
	for (b = 0; b < cfg->nblocks; b++) {
		block_equation(f, b, 0, in_var[b]);
		block_equation(f, b, 1, out_var[b]);
	}
	/* Every call that starts in the region returns in it. */
	if (flags & LK_COUNT_BALANCED) {
		eq_begin(f);
		for (b = 0; b < cfg->nblocks; b++) {
			if (in_var[b] != (size_t)-1)
				eq_add(f, in_var[b], 1);
			if (out_var[b] != (size_t)-1)
				eq_add(f, out_var[b], -1);
		}
	}
	free(in_var);
	free(out_var);
}

static void flow_release(struct flow *f)
{
	free(f->terms);
	free(f->eqs);
	free(f->edge_from);
	free(f->edge_to);
	free(f->open_in);
	free(f->open_out);
}

/*
 * Solve every equation left with one unknown until none is; with val
 * NULL only track which variables become known. Returns whether every
 * block count is known.
 */
static int propagate(const struct flow *f, unsigned char *known, int64_t *val)
{
	size_t i, t, b;
	int changed = 1;

	while (changed) {
		changed = 0;
		for (i = 0; i < f->neqs; i++) {
			const struct equation *eq = &f->eqs[i];
			const struct term *unknown = NULL;
			size_t nunknown = 0;
			int64_t sum = 0;

			for (t = eq->first; t < eq->first + eq->nterms; t++) {
				const struct term *tm = &f->terms[t];

				if (!known[tm->var]) {
					unknown = tm;
					nunknown++;
				} else if (val) {
					sum += tm->sign * val[tm->var];
				}
			}
			if (nunknown != 1)
				continue;
			if (val)
				val[unknown->var] = -sum * unknown->sign;
			known[unknown->var] = 1;
			changed = 1;
		}
	}
	for (b = 0; b < f->nblocks; b++)
		if (!known[b])
			return 0;
	return 1;
}

static int derivable(const struct flow *f, const unsigned char *measured,
		     unsigned char *known)
{
	memset(known, 0, f->nvars);
	memcpy(known, measured, f->nblocks);
	return propagate(f, known, NULL);
}

/* Loop depth, roughly: how many back edges' address ranges hold b. */
static void loop_depth(const struct lk_cfg *cfg, size_t *depth)
{
	size_t b, s, i;

	for (b = 0; b < cfg->nblocks; b++)
		for (s = 0; s < cfg->blocks[b].nsucc; s++) {
			size_t head = cfg->blocks[b].succ[s];

			if (head > b)
				continue;
			for (i = head; i <= b; i++)
				depth[i]++;
		}
}

static const size_t *sort_depth;

static int by_depth_desc(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_depth[x] != sort_depth[y])
		return sort_depth[x] > sort_depth[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

void lk_count_hot_order(const struct lk_cfg *cfg, size_t *order)
{
	size_t i, *depth = lk_calloc(cfg->nblocks + 1, sizeof(*depth));

	loop_depth(cfg, depth);
	for (i = 0; i < cfg->nblocks; i++)
		order[i] = i;
	sort_depth = depth;
	qsort(order, cfg->nblocks, sizeof(*order), by_depth_desc);
	free(depth);
}

size_t lk_count_plan(const struct lk_cfg *cfg, unsigned flags,
		     unsigned char *measured)
{
	size_t n = cfg->nblocks, i, nmeasured = n, *order;
	unsigned char *known;
	struct flow f;

	memset(measured, 1, n);
	if (n > LK_COUNT_PLAN_MAX)
		return n;
	flow_build(cfg, flags, &f);
	order = lk_calloc(n + 1, sizeof(*order));
	known = lk_calloc(f.nvars + 1, 1);
	lk_count_hot_order(cfg, order);
	/* Drop the hottest blocks first: each one kept costs a trap per
	 * execution. Greedy, so minimal under removal, not minimum. */
	for (i = 0; i < n; i++) {
		measured[order[i]] = 0;
		if (derivable(&f, measured, known))
			nmeasured--;
		else
			measured[order[i]] = 1;
	}
	free(known);
	free(order);
	flow_release(&f);
	return nmeasured;
}

/* Every equation holds and no count, edge or open flow is negative. */
static int consistent(const struct flow *f, const unsigned char *known,
		      const int64_t *val)
{
	size_t i, t;

	for (i = 0; i < f->nvars; i++)
		if (known[i] && val[i] < 0)
			return 0;
	for (i = 0; i < f->neqs; i++) {
		const struct equation *eq = &f->eqs[i];
		int64_t sum = 0;

		for (t = eq->first; t < eq->first + eq->nterms; t++) {
			if (!known[f->terms[t].var])
				break;
			sum += f->terms[t].sign * val[f->terms[t].var];
		}
		if (t == eq->first + eq->nterms && sum)
			return 0;
	}
	return 1;
}

int lk_count_derive(struct lk_ctx *ctx, const struct lk_cfg *cfg,
		    unsigned flags, const unsigned char *measured,
		    uint64_t *counts)
{
	unsigned char *known;
	int64_t *val;
	struct flow f;
	size_t b;
	int ret = 0;

	flow_build(cfg, flags, &f);
	known = lk_calloc(f.nvars + 1, 1);
	val = lk_calloc(f.nvars + 1, sizeof(*val));
	for (b = 0; b < f.nblocks; b++) {
		known[b] = measured[b];
		val[b] = measured[b] ? (int64_t)counts[b] : 0;
	}
	if (!propagate(&f, known, val))
		ret = lk_error(ctx, LK_EINTERNAL, "%s: %s", cfg->fn.name,
			       "some block counts do not follow from the "
			       "measured ones");
	else if (!consistent(&f, known, val))
		ret = lk_error(ctx, LK_EINTERNAL, "%s: %s", cfg->fn.name,
			       "the measured counts break flow conservation "
			       "(the CFG misses an edge)");
	for (b = 0; !ret && b < f.nblocks; b++)
		counts[b] = (uint64_t)val[b];
	free(val);
	free(known);
	flow_release(&f);
	return ret;
}
