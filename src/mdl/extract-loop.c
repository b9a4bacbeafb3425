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

static void dfs(const struct lk_cfg *cfg, size_t **pred, size_t *npred,
		unsigned char *color, size_t b, unsigned char *backto)
{
	size_t i;

	color[b] = 1;
	for (i = 0; i < cfg->blocks[b].nsucc; i++) {
		size_t s = cfg->blocks[b].succ[i];

		if (s >= cfg->nblocks)
			continue;
		pred[s] = lk_reallocarray(pred[s], npred[s] + 1,
					  sizeof(**pred));
		pred[s][npred[s]++] = b;
		if (color[s] == 1)
			backto[s] = 1;
		else if (!color[s])
			dfs(cfg, pred, npred, color, s, backto);
	}
	color[b] = 2;
}

/* The natural loop of header h: h and every block reaching one of its
 * back-edge sources without passing through h. */
static void body_of(const struct lk_cfg *cfg, size_t **pred,
		    const size_t *npred, size_t h, unsigned char *in)
{
	size_t *stack = lk_calloc(cfg->nblocks + 1, sizeof(*stack));
	size_t top = 0, i;

	memset(in, 0, cfg->nblocks);
	in[h] = 1;
	for (i = 0; i < npred[h]; i++)
		if (!in[pred[h][i]]) {
			/* only sources dominated by h matter; a DFS back
			 * edge's source is one */
			in[pred[h][i]] = 1;
			stack[top++] = pred[h][i];
		}
	while (top) {
		size_t b = stack[--top];

		for (i = 0; i < npred[b]; i++)
			if (!in[pred[b][i]]) {
				in[pred[b][i]] = 1;
				stack[top++] = pred[b][i];
			}
	}
	free(stack);
}

void lk_mdl_loops(const struct lk_cfg *cfg, size_t **heads, size_t *n)
{
	size_t nb = cfg->nblocks, i, j;
	size_t **pred = lk_calloc(nb + 1, sizeof(*pred));
	size_t *npred = lk_calloc(nb + 1, sizeof(*npred));
	unsigned char *color = lk_calloc(nb + 1, 1);
	unsigned char *back = lk_calloc(nb + 1, 1);
	unsigned char *in = lk_calloc(nb + 1, 1);

	*heads = NULL;
	*n = 0;
	for (i = 0; i < nb; i++)
		if (!color[i] && (i == 0 || !npred[i]))
			dfs(cfg, pred, npred, color, i, back);
	for (i = 0; i < nb; i++) {
		int inner = 1;

		if (!back[i])
			continue;
		body_of(cfg, pred, npred, i, in);
		for (j = 0; j < nb && inner; j++)
			inner = j == i || !back[j] || !in[j];
		if (!inner)
			continue;
		*heads = lk_reallocarray(*heads, *n + 1, sizeof(**heads));
		(*heads)[(*n)++] = i;
	}
	for (i = 0; i < nb; i++)
		free(pred[i]);
	free(pred);
	free(npred);
	free(color);
	free(back);
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
