/*
 * Extraction: the innermost loops of a CFG, the scope check (one
 * block) and the public entry; after extract.c's walk, the carried
 * values re-materialised as loads and the accumulation chains
 * (doc/loopkit-mdl.md, "extract").
 */
#include <stdlib.h>
#include <string.h>

#include "extract-int.h"

/* ---- Innermost loops. ---- */

/* Predecessor lists, each edge once; an edge to a block still on the
 * DFS stack is a back edge, and its source goes to src[] too. */
struct edges {
	size_t **pred, *npred;
	size_t **src, *nsrc;       /* back-edge sources per header */
};

static void push(size_t **list, size_t *n, size_t b)
{
	*list = lk_reallocarray(*list, *n + 1, sizeof(**list));
	(*list)[(*n)++] = b;
}

static void dfs(const struct lk_cfg *cfg, struct edges *e,
		unsigned char *color, size_t b)
{
	size_t i;

	color[b] = 1;
	for (i = 0; i < cfg->blocks[b].nsucc; i++) {
		size_t s = cfg->blocks[b].succ[i];

		if (s >= cfg->nblocks)
			continue;
		push(&e->pred[s], &e->npred[s], b);
		if (color[s] == 1)
			push(&e->src[s], &e->nsrc[s], b);
		else if (!color[s])
			dfs(cfg, e, color, s);
	}
	color[b] = 2;
}

/* The natural loop of header h: h and every block reaching one of its
 * back-edge sources without passing through h (not the edges that
 * enter the loop: from there the walk would climb into the loops
 * around it). */
static void body_of(const struct lk_cfg *cfg, const struct edges *e,
		    size_t h, unsigned char *in)
{
	size_t *stack = lk_calloc(cfg->nblocks + 1, sizeof(*stack));
	size_t top = 0, i;

	memset(in, 0, cfg->nblocks);
	in[h] = 1;
	for (i = 0; i < e->nsrc[h]; i++)
		if (!in[e->src[h][i]]) {
			in[e->src[h][i]] = 1;
			stack[top++] = e->src[h][i];
		}
	while (top) {
		size_t b = stack[--top];

		for (i = 0; i < e->npred[b]; i++)
			if (!in[e->pred[b][i]]) {
				in[e->pred[b][i]] = 1;
				stack[top++] = e->pred[b][i];
			}
	}
	free(stack);
}

static void edges_build(const struct lk_cfg *cfg, struct edges *e)
{
	size_t nb = cfg->nblocks, i;
	unsigned char *color = lk_calloc(nb + 1, 1);

	e->pred = lk_calloc(nb + 1, sizeof(*e->pred));
	e->npred = lk_calloc(nb + 1, sizeof(*e->npred));
	e->src = lk_calloc(nb + 1, sizeof(*e->src));
	e->nsrc = lk_calloc(nb + 1, sizeof(*e->nsrc));
	for (i = 0; i < nb; i++)
		if (!color[i] && (i == 0 || !e->npred[i]))
			dfs(cfg, e, color, i);
	free(color);
}

static void edges_release(const struct lk_cfg *cfg, struct edges *e)
{
	size_t i;

	for (i = 0; i < cfg->nblocks; i++) {
		free(e->pred[i]);
		free(e->src[i]);
	}
	free(e->pred);
	free(e->npred);
	free(e->src);
	free(e->nsrc);
}

void lk_mdl_loops(const struct lk_cfg *cfg, size_t **heads, int **depths,
		  size_t *n)
{
	size_t nb = cfg->nblocks, i, j;
	unsigned char *in = lk_calloc(nb + 1, 1);
	int *within = lk_calloc(nb + 1, sizeof(*within));
	struct edges e;

	*heads = NULL;
	*n = 0;
	edges_build(cfg, &e);
	for (i = 0; i < nb; i++) {
		int inner = 1;

		if (!e.nsrc[i])
			continue;
		body_of(cfg, &e, i, in);
		for (j = 0; j < nb; j++) {
			within[j] += in[j];   /* the loops holding block j */
			inner = inner && (j == i || !e.nsrc[j] || !in[j]);
		}
		if (!inner)
			continue;
		*heads = lk_reallocarray(*heads, *n + 1, sizeof(**heads));
		(*heads)[(*n)++] = i;
	}
	if (depths) {
		*depths = lk_calloc(*n + 1, sizeof(**depths));
		for (j = 0; j < *n; j++)
			(*depths)[j] = within[(*heads)[j]];
	}
	edges_release(cfg, &e);
	free(within);
	free(in);
}

/* ---- Loop-carried values. ---- */

/*
 * Register rotation (rule 8, stretch): a carried value that is the
 * previous iteration's load of stream s at offset o is a load of s at
 * o - stride (repeatedly: a value rotated through k registers is a load
 * at o - k * stride).
 */
void mdl_x_rematerialise(struct xloop *x)
{
	int again = 1, round;
	size_t n;

	for (round = 0; again && round < 16; round++) {
		again = 0;
		for (n = 1; n < x->nnodes; n++) {
			struct xnode *p = &x->nodes[n];
			struct xacc a;

			if (p->kind != XN_PHI || !p->carried || !p->final ||
			    x->nodes[p->final].kind != XN_LOAD)
				continue;
			a = x->accs[x->nodes[p->final].acc];
			if (a.size < p->len)
				continue;
			a.off -= a.stride;
			LK_GROW(x->accs, x->naccs + 1, x->aaccs);
			x->accs[x->naccs] = a;
			p->kind = XN_LOAD;
			p->acc = x->naccs++;
			p->carried = 0;
			x->carried--;
			x->remat++;
			again = 1;
		}
	}
}

static int accumulates(const struct xnode *n)
{
	return n->kind == XN_OP && n->fp &&
	       (n->op == LK_OPC_ADD || n->op == LK_OPC_SUB ||
		n->op == LK_OPC_FMA);
}

/* Does node n reach φ p through accumulating nodes? Marks the path. */
static int reaches(struct xloop *x, size_t n, size_t p, unsigned char *seen)
{
	struct xnode *nd = &x->nodes[n];
	size_t i;

	if (!accumulates(nd) || seen[n])
		return 0;
	seen[n] = 1;
	for (i = 0; i < nd->nin; i++)
		if (nd->in[i] == p ||
		    (nd->in[i] < n && reaches(x, nd->in[i], p, seen))) {
			nd->chain = p;
			return 1;
		}
	return 0;
}

/*
 * An in-order reduction (acc += a; acc += b; ... in one iteration) is
 * one accumulation chain from a carried φ to its final value: its
 * links are loop-carried in the source, so they are no DDG edges
 * (rule 9): each link marks its µkernel carried instead.
 */
void mdl_x_chains(struct xloop *x)
{
	unsigned char *seen = lk_calloc(x->nnodes + 1, 1);
	size_t n;

	for (n = 1; n < x->nnodes; n++) {
		const struct xnode *p = &x->nodes[n];

		if (p->kind != XN_PHI || !p->carried || !p->final)
			continue;
		memset(seen, 0, x->nnodes);
		reaches(x, p->final, n, seen);
	}
	free(seen);
}

/* ---- The public entry. ---- */

static int self_loop(const struct lk_cfg *cfg, size_t head)
{
	const struct lk_block *b = &cfg->blocks[head];
	const struct lk_insn *last;
	size_t i;

	if (!b->ninsns)
		return 0;
	last = &cfg->insns[b->first + b->ninsns - 1];
	if (last->kind != LK_INSN_CJUMP || !last->has_target ||
	    last->target != b->start)
		return 0;
	for (i = 0; i < b->nsucc; i++)
		if (b->succ[i] == head)
			return 1;
	return 0;
}

int lk_mdl_extract(struct lk_ctx *ctx, const struct lk_cfg *cfg, size_t head,
		   struct lk_mdl_extraction *out)
{
	struct xloop x;
	char *source;

	memset(out, 0, sizeof(*out));
	if (head >= cfg->nblocks)
		return lk_error(ctx, LK_EINPUT, "%s: no block %zu",
				cfg->fn.name, head);
	out->loop = cfg->blocks[head].start;
	if (!self_loop(cfg, head)) {
		out->refused = 1;
		out->reason = lk_strdup("control flow inside the loop body");
		return 0;
	}
	if (mdl_x_walk(cfg, head, &x, &out->reason)) {
		out->refused = 1;
		mdl_x_release(&x);
		return 0;
	}
	source = lk_asprintf("%s@0x%llx", cfg->fn.name,
			     (unsigned long long)out->loop);
	mdl_x_normalize(&x, source, out);
	free(source);
	mdl_x_release(&x);
	return 0;
}

void lk_mdl_extraction_release(struct lk_mdl_extraction *x)
{
	if (!x)
		return;
	free(x->reason);
	lk_mdl_release(&x->mdl);
	memset(x, 0, sizeof(*x));
}

/* b better than a: accepted before refused, then deeper, then first. */
static int better_pick(const struct lk_mdl_extraction *a,
		       const struct lk_mdl_extraction *b)
{
	if (a->refused != b->refused)
		return a->refused;
	return b->depth > a->depth;
}

int lk_mdl_pick_loop(struct lk_ctx *ctx, const struct lk_cfg *cfg,
		     uint64_t addr, const char *binary,
		     struct lk_mdl_pick *out)
{
	size_t *heads = NULL, i;
	int *depths, ret = 0, found = 0;
	struct lk_buf starts = LK_BUF_INIT;

	memset(out, 0, sizeof(*out));
	lk_mdl_loops(cfg, &heads, &depths, &out->nloops);
	for (i = 0; !ret && i < out->nloops; i++) {
		struct lk_mdl_extraction x;

		lk_buf_addf(&starts, "%s0x%llx", i ? ", " : "",
			    (unsigned long long)cfg->blocks[heads[i]].start);
		if (addr && cfg->blocks[heads[i]].start != addr)
			continue;
		ret = lk_mdl_extract(ctx, cfg, heads[i], &x);
		x.depth = depths[i];
		if (!ret && (!found || better_pick(&out->x, &x))) {
			lk_mdl_extraction_release(&out->x);
			out->x = x;
			out->head = heads[i];
			found = 1;
		} else {
			lk_mdl_extraction_release(&x);
		}
	}
	if (!ret && !found && addr)
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: no innermost loop at "
			       "0x%llx%s%s (%s%s)", cfg->fn.name,
			       (unsigned long long)addr, binary ? " in " : "",
			       binary ? binary : "",
			       out->nloops ? "innermost loops start at: "
					   : "it has no loop",
			       lk_buf_str(&starts));
	else if (!ret && !found)
		ret = lk_error(ctx, LK_ENOTFOUND, "%s: no loop%s%s",
			       cfg->fn.name, binary ? " in " : "",
			       binary ? binary : "");
	if (ret)
		lk_mdl_pick_release(out);
	lk_buf_release(&starts);
	free(heads);
	free(depths);
	return ret;
}

void lk_mdl_pick_release(struct lk_mdl_pick *p)
{
	if (!p)
		return;
	lk_mdl_extraction_release(&p->x);
	memset(p, 0, sizeof(*p));
}
