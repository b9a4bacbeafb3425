/*
 * Extraction, first half: the innermost loops of a CFG, the scope check
 * (one block), the registers (inductions, invariants, refusals of
 * indirect or non-affine addresses), and one iteration walked in SSA
 * form with stack slots forwarded (spill/fill), memory operands fissed
 * from their arithmetic and vector instructions split into lanes: the
 * graph normalize.c turns into MDL (doc/loopkit-mdl.md, "extract").
 */
#include <stdlib.h>
#include <string.h>

#include "extract-int.h"

#define NREG 1024             /* register numbers of the decoder */
#define VBYTES 64             /* the widest register */

struct slot {
	unsigned base;
	int64_t addr;             /* one byte */
	size_t val;
};

struct walk {
	struct xloop *x;
	struct lk_insn_ops *ops;
	size_t n;
	unsigned char written[NREG], induction[NREG], other_def[NREG];
	long long step[NREG], pre[NREG];
	size_t (*val)[VBYTES];    /* the value of each byte of a register */
	struct slot *slots;       /* stack bytes written this iteration */
	size_t nslots, aslots;
	struct slot *swritten;    /* stack bytes written anywhere */
	size_t nsw, asw;
	unsigned sp, bp;          /* rsp, rbp */
};

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

/* ---- The graph. ---- */

static size_t node(struct xloop *x, enum xnode_kind kind)
{
	LK_GROW(x->nodes, x->nnodes + 1, x->anodes);
	if (!x->nnodes) {
		memset(&x->nodes[0], 0, sizeof(x->nodes[0]));
		x->nnodes = 1;
		LK_GROW(x->nodes, x->nnodes + 1, x->anodes);
	}
	memset(&x->nodes[x->nnodes], 0, sizeof(x->nodes[0]));
	x->nodes[x->nnodes].kind = kind;
	return x->nnodes++;
}

static void add_input(struct xloop *x, size_t n, size_t v)
{
	struct xnode *nd = &x->nodes[n];
	size_t i;

	for (i = 0; i < nd->nin; i++)
		if (nd->in[i] == v)
			return;
	LK_GROW(nd->in, nd->nin + 1, nd->ain);
	nd->in[nd->nin++] = v;
}

static size_t access(struct walk *w, const struct lk_operand *o, int64_t off,
		     unsigned size, int write)
{
	struct xloop *x = w->x;
	struct xacc *a;

	LK_GROW(x->accs, x->naccs + 1, x->aaccs);
	a = &x->accs[x->naccs];
	memset(a, 0, sizeof(*a));
	a->base = o->base;
	a->index = o->index;
	a->scale = o->index ? o->scale : 0;
	a->off = o->disp + off;
	if (o->base && w->induction[o->base])
		a->off += w->pre[o->base];
	if (o->index && w->induction[o->index])
		a->off += (int64_t)o->scale * w->pre[o->index];
	a->size = size;
	a->write = write;
	return x->naccs++;
}

static int is_stack(const struct walk *w, const struct lk_operand *o)
{
	return o->base == w->sp || o->base == w->bp;
}

static int is_rip(const struct lk_operand *o)
{
	return o->base && lk_reg_class_of(o->base) == LK_REG_IP;
}

static size_t *slot_at(struct walk *w, unsigned base, int64_t addr)
{
	size_t i;

	for (i = 0; i < w->nslots; i++)
		if (w->slots[i].base == base && w->slots[i].addr == addr)
			return &w->slots[i].val;
	return NULL;
}

static int stack_written(const struct walk *w, unsigned base, int64_t addr)
{
	size_t i;

	for (i = 0; i < w->nsw; i++)
		if (w->swritten[i].base == base && w->swritten[i].addr == addr)
			return 1;
	return 0;
}

/* The values in bytes [lo, lo+len) of a register or a stack slot, each
 * once, into v (at most len); bytes not written yet this iteration read
 * the value they had on entry (one φ per chunk). */
static size_t reg_values(struct walk *w, unsigned reg, unsigned lo,
			 unsigned len, size_t *v)
{
	size_t nv = 0, k, phi = 0;
	unsigned b;

	for (b = lo; b < lo + len && b < VBYTES; b++) {
		size_t val = w->val[reg][b];

		if (!val) {
			if (!phi) {
				phi = node(w->x, XN_PHI);
				w->x->nodes[phi].carried = w->written[reg] &&
					!w->induction[reg];
				w->x->carried += w->x->nodes[phi].carried;
				w->x->nodes[phi].reg = reg;
				w->x->nodes[phi].lo = b;
			}
			w->x->nodes[phi].len = b + 1 - w->x->nodes[phi].lo;
			val = w->val[reg][b] = phi;
		}
		for (k = 0; k < nv && v[k] != val; k++)
			;
		if (k == nv)
			v[nv++] = val;
	}
	return nv;
}

static size_t slot_values(struct walk *w, const struct lk_operand *o,
			  int64_t off, unsigned len, size_t *v)
{
	size_t nv = 0, k, phi = 0;
	unsigned b;

	for (b = 0; b < len; b++) {
		int64_t addr = o->disp + off + b;
		size_t *s = slot_at(w, o->base, addr), val;

		if (s) {
			val = *s;
		} else {
			if (!phi) {
				phi = node(w->x, XN_PHI);
				w->x->nodes[phi].carried =
					stack_written(w, o->base, addr);
				w->x->carried += w->x->nodes[phi].carried;
			}
			val = phi;
		}
		for (k = 0; k < nv && v[k] != val; k++)
			;
		if (k == nv)
			v[nv++] = val;
	}
	return nv;
}

/* An operand's lanes and the width of one. */
static unsigned lanes_of(const struct lk_insn_ops *in, const struct lk_operand *o,
			 unsigned *elem)
{
	unsigned e = o->elem_bytes ? o->elem_bytes : o->bytes;

	if (!e)
		e = 8;
	if (e > VBYTES)
		e = VBYTES;
	*elem = e;
	if (o->kind == LK_OPND_IMM || o->rclass == LK_REG_GPR)
		return 1;
	if (in->scalar)
		return 1;
	return o->bytes >= e ? o->bytes / e : 1;
}

/* The values lane j (elem bytes wide) of a source operand reads. */
static size_t read_lane(struct walk *w, const struct lk_operand *o, unsigned j,
			unsigned elem, size_t *v)
{
	size_t n;

	switch (o->kind) {
	case LK_OPND_REG:
		if (o->rclass == LK_REG_GPR)
			return reg_values(w, o->reg, 0, o->bytes ? o->bytes : 8, v);
		return reg_values(w, o->reg, j * elem, elem, v);
	case LK_OPND_MEM:
		if (is_rip(o))
			return 0;         /* a constant */
		if (is_stack(w, o)) {
			n = slot_values(w, o, (int64_t)j * elem, elem, v);
			return n;
		}
		v[0] = node(w->x, XN_LOAD);
		w->x->nodes[v[0]].acc = access(w, o, (int64_t)j * elem, elem, 0);
		return 1;
	default:
		return 0;
	}
}

/* Lane j of destination d (elem bytes wide) becomes val. */
static void write_lane(struct walk *w, const struct lk_operand *d, unsigned j,
		       unsigned elem, size_t val)
{
	unsigned b;

	if (d->kind == LK_OPND_REG) {
		unsigned lo = d->rclass == LK_REG_GPR ? 0 : j * elem;
		unsigned len = d->rclass == LK_REG_GPR ? 8 : elem;

		for (b = lo; b < lo + len && b < VBYTES; b++)
			w->val[d->reg][b] = val;
		return;
	}
	if (is_stack(w, d)) {
		for (b = 0; b < elem; b++) {
			int64_t addr = d->disp + (int64_t)j * elem + b;
			size_t *s = slot_at(w, d->base, addr);

			if (!s) {
				LK_GROW(w->slots, w->nslots + 1, w->aslots);
				w->slots[w->nslots].base = d->base;
				w->slots[w->nslots].addr = addr;
				s = &w->slots[w->nslots++].val;
			}
			*s = val;
		}
		return;
	}
	{
		size_t st = node(w->x, XN_STORE);

		w->x->nodes[st].acc = access(w, d, (int64_t)j * elem, elem, 1);
		if (val)
			add_input(w->x, st, val);
	}
}

/* ---- Registers. ---- */

/* Is instruction in "r <- r + c" (add/sub imm, inc, dec, lea c(r))? */
static int induction_def(const struct lk_insn_ops *in, unsigned *reg,
			 long long *c)
{
	const struct lk_operand *d = &in->ops[0];

	if (!in->nops || d->kind != LK_OPND_REG || d->rclass != LK_REG_GPR ||
	    !d->write)
		return 0;
	*reg = d->reg;
	switch (in->op) {
	case LK_OPC_ADD:
	case LK_OPC_SUB:
		if (in->nops < 2 || in->ops[1].kind != LK_OPND_IMM ||
		    strncmp(in->mnemonic, in->op == LK_OPC_ADD ? "add" : "sub",
			    4))
			return 0;
		*c = in->op == LK_OPC_ADD ? in->ops[1].imm : -in->ops[1].imm;
		return 1;
	case LK_OPC_INC:
	case LK_OPC_DEC:
		*c = in->op == LK_OPC_INC ? 1 : -1;
		return 1;
	case LK_OPC_LEA:
		if (in->nops < 2 || in->ops[1].kind != LK_OPND_MEM ||
		    in->ops[1].base != d->reg || in->ops[1].index)
			return 0;
		*c = in->ops[1].disp;
		return 1;
	default:
		return 0;
	}
}

static int reads_memory(const struct lk_insn_ops *in)
{
	size_t i;

	for (i = 0; i < in->nops; i++)
		if (in->ops[i].kind == LK_OPND_MEM && in->ops[i].read &&
		    !in->ops[i].agen)
			return 1;
	return 0;
}

static void scan_registers(struct walk *w)
{
	unsigned short ind[NREG] = {0};
	size_t i, k;

	for (i = 0; i < w->n; i++) {
		const struct lk_insn_ops *in = &w->ops[i];
		unsigned r;
		long long c;
		int indef = induction_def(in, &r, &c);

		for (k = 0; k < in->nops; k++) {
			const struct lk_operand *o = &in->ops[k];

			if (o->kind == LK_OPND_MEM && o->write && is_stack(w, o)) {
				unsigned b;

				for (b = 0; b < (o->bytes ? o->bytes : 8); b++) {
					LK_GROW(w->swritten, w->nsw + 1, w->asw);
					w->swritten[w->nsw].base = o->base;
					w->swritten[w->nsw++].addr = o->disp + b;
				}
			}
			if (o->kind != LK_OPND_REG || !o->write || o->reg >= NREG)
				continue;
			w->written[o->reg] = 1;
			if (o->rclass != LK_REG_GPR)
				continue;
			if (indef && o->reg == r && k == 0) {
				ind[r]++;
				w->step[r] += c;
			} else {
				w->other_def[o->reg] = 1;
			}
		}
	}
	for (i = 0; i < NREG; i++)
		w->induction[i] = ind[i] && !w->other_def[i];
}

/* Every address must be affine in the inductions: its registers are
 * inductions, invariants, rip or the stack pointer. */
static int check_addresses(struct walk *w, char **reason)
{
	size_t i, k, d;

	for (i = 0; i < w->n; i++)
		for (k = 0; k < w->ops[i].nops; k++) {
			const struct lk_operand *o = &w->ops[i].ops[k];
			unsigned regs[2] = {o->base, o->index}, j;

			if (o->kind != LK_OPND_MEM || o->agen)
				continue;
			if (o->vsib) {
				*reason = lk_asprintf("indirect access (%s: a "
						      "gather or scatter)",
						      w->ops[i].mnemonic);
				return 1;
			}
			for (j = 0; j < 2; j++) {
				unsigned r = regs[j];

				if (!r || r >= NREG || !w->written[r] ||
				    w->induction[r] ||
				    lk_reg_class_of(r) == LK_REG_IP)
					continue;
				for (d = 0; d < w->n; d++)
					if (w->ops[d].nops &&
					    w->ops[d].ops[0].kind == LK_OPND_REG &&
					    w->ops[d].ops[0].reg == r &&
					    reads_memory(&w->ops[d]))
						break;
				*reason = d < w->n ?
					lk_asprintf("indirect access (%%%s is "
						    "loaded in the loop)",
						    lk_reg_name(r)) :
					lk_asprintf("address not affine in the "
						    "induction registers "
						    "(%%%s)", lk_reg_name(r));
				return 1;
			}
		}
	return 0;
}

/* ---- One instruction. ---- */

static int forwards(enum lk_op_class op)
{
	return op == LK_OPC_MOVE || op == LK_OPC_BROADCAST;
}

static int zero_idiom(const struct lk_insn_ops *in)
{
	unsigned reg = 0;
	size_t k, nreg = 0;

	if (!strstr(in->mnemonic, "xor") && in->op != LK_OPC_SUB)
		return 0;
	for (k = 0; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];

		if (o->implicit)
			continue;
		if (o->kind != LK_OPND_REG)
			return 0;
		if (o->read) {
			if (nreg && o->reg != reg)
				return 0;
			reg = o->reg;
			nreg++;
		}
	}
	return nreg >= 2 || (nreg == 1 && in->nops >= 2 &&
			     in->ops[0].reg == in->ops[1].reg);
}

static int data_operand(const struct lk_operand *o)
{
	if (o->implicit)
		return 0;
	if (o->kind == LK_OPND_REG)
		return o->rclass == LK_REG_GPR || o->rclass == LK_REG_VEC ||
		       o->rclass == LK_REG_MASK;
	return o->kind == LK_OPND_MEM ? !o->agen : o->kind == LK_OPND_IMM;
}

#define MAXV (VBYTES * 4)

static void move(struct walk *w, const struct lk_insn_ops *in,
		 const struct lk_operand *d, const struct lk_operand *s)
{
	unsigned es, ed, ls, ld, j;
	size_t v[MAXV], nv;

	ls = lanes_of(in, s, &es);
	ld = lanes_of(in, d, &ed);
	if (in->op == LK_OPC_BROADCAST) {
		nv = read_lane(w, s, 0, es, v);
		for (j = 0; j < ld; j++)
			write_lane(w, d, j, ed, nv ? v[0] : 0);
		return;
	}
	if (d->kind == LK_OPND_REG && s->kind == LK_OPND_REG &&
	    d->rclass == LK_REG_VEC && s->rclass == LK_REG_VEC) {
		unsigned n = in->scalar ? es : (d->bytes < s->bytes ? d->bytes :
						s->bytes), b;

		/* φs by element, not by byte */
		for (b = 0; b < n && b < VBYTES; b += es)
			reg_values(w, s->reg, b, es < n - b ? es : n - b, v);
		for (b = 0; b < n && b < VBYTES; b++)
			w->val[d->reg][b] = w->val[s->reg][b];
		return;
	}
	/* A load or a store: lanes of the memory side's elements. */
	if (d->kind == LK_OPND_MEM) {
		ls = lanes_of(in, d, &es);
		for (j = 0; j < ls; j++) {
			nv = read_lane(w, s, s->rclass == LK_REG_GPR ? 0 : j, es, v);
			if (is_stack(w, d) || nv <= 1) {
				write_lane(w, d, j, es, nv ? v[0] : 0);
			} else {
				size_t st = node(w->x, XN_STORE), k;

				w->x->nodes[st].acc = access(w, d, (int64_t)j * es,
							     es, 1);
				for (k = 0; k < nv; k++)
					add_input(w->x, st, v[k]);
			}
		}
		if (is_stack(w, d))
			w->x->spill_fill++;
		return;
	}
	if (s->kind == LK_OPND_MEM && is_stack(w, s))
		w->x->spill_fill++;
	for (j = 0; j < ls; j++) {
		nv = read_lane(w, s, j, es, v);
		write_lane(w, d, d->rclass == LK_REG_GPR ? 0 : j,
			   d->rclass == LK_REG_GPR ? 8 : es, nv ? v[0] : 0);
	}
	(void)ld;
}

static void compute(struct walk *w, const struct lk_insn_ops *in,
		    const struct lk_operand *d)
{
	unsigned ed, ld = lanes_of(in, d, &ed), j, e;
	size_t k, v[MAXV], nv, i;
	int cross = in->op == LK_OPC_SHUFFLE || in->op == LK_OPC_HADD;
	size_t out[VBYTES];
	int stack = 0;

	for (k = 0; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];

		if (!data_operand(o) || !o->read || o->kind == LK_OPND_IMM)
			continue;
		if (lanes_of(in, o, &e) != ld && lanes_of(in, o, &e) != 1)
			cross = 1;
		stack |= o->kind == LK_OPND_MEM && is_stack(w, o);
	}
	if (ld > VBYTES)
		ld = VBYTES;
	for (j = 0; j < ld; j++) {
		size_t n = node(w->x, XN_OP);

		w->x->nodes[n].op = in->op;
		w->x->nodes[n].fp = d->fp;
		for (k = 0; k < in->nops; k++) {
			const struct lk_operand *o = &in->ops[k];
			unsigned l, lo, lj;

			if (!data_operand(o) || !o->read ||
			    o->kind == LK_OPND_IMM)
				continue;
			l = lanes_of(in, o, &e);
			lo = cross ? 0 : (l == 1 ? 0 : j);
			lj = cross ? l : lo + 1;
			for (; lo < lj; lo++) {
				nv = read_lane(w, o, lo, e, v);
				for (i = 0; i < nv; i++)
					add_input(w->x, n, v[i]);
			}
		}
		out[j] = n;
	}
	for (j = 0; j < ld; j++)
		write_lane(w, d, j, ed, out[j]);
	if (stack || (d->kind == LK_OPND_MEM && is_stack(w, d)))
		w->x->spill_fill++;
}

/* ---- Shuffles whose lane selection is known (rule 7). ---- */

/* Destination lane j is lane lane[j] of operand src[j] (0: the
 * destination's own old value). */
struct perm {
	unsigned elem, n;
	unsigned char src[VBYTES], lane[VBYTES];
};

static void sel(struct perm *p, unsigned j, int src, unsigned lane)
{
	if (j < VBYTES) {
		p->src[j] = (unsigned char)src;
		p->lane[j] = (unsigned char)lane;
		if (j + 1 > p->n)
			p->n = j + 1;
	}
}

/* unpck[lh]p[sd], punpck[lh](qdq|dq): per 128-bit block, the low or
 * high halves of s1 and s2 interleaved. */
static void unpck(struct perm *p, unsigned bytes, int hi, int s1, int s2)
{
	unsigned per = 16 / p->elem, half = per / 2, k, i;

	for (k = 0; k < bytes / 16; k++)
		for (i = 0; i < half; i++) {
			sel(p, k * per + 2 * i, s1, k * per + (hi ? half : 0) + i);
			sel(p, k * per + 2 * i + 1, s2,
			    k * per + (hi ? half : 0) + i);
		}
}

static int perm_shuffle(const char *m, const struct lk_operand *d, int s1,
			int s2, int one, long long imm, int has_imm,
			unsigned b2, struct perm *p)
{
	size_t n = strlen(m);
	unsigned L, j, k, w;

	p->elem = n > 2 && (!strcmp(m + n - 2, "pd") ||
			    !strcmp(m + n - 2, "dq") || m[n - 1] == 'q') ? 8 : 4;
	L = d->bytes / p->elem;
	if (!strncmp(m, "unpck", 5) || !strncmp(m, "punpck", 6)) {
		if (!strcmp(m + n - 3, "ldq") || !strcmp(m + n - 3, "hdq"))
			p->elem = 4;
		else if (strcmp(m + n - 2, "pd") && strcmp(m + n - 2, "ps") &&
			 strcmp(m + n - 3, "qdq"))
			return 0;
		unpck(p, d->bytes, m[m[0] == 'p' ? 6 : 5] == 'h', s1, s2);
		return 1;
	}
	if (!strcmp(m, "shufpd") && has_imm) {
		for (j = 0; j < L; j++)
			sel(p, j, j % 2 ? s2 : s1, (j & ~1u) + ((imm >> j) & 1));
		return 1;
	}
	if ((!strcmp(m, "shufps") || !strcmp(m, "pshufd")) && has_imm) {
		if (m[0] == 'p')
			s1 = s2 = one;
		for (j = 0; j < L; j++)
			sel(p, j, j % 4 < 2 ? s1 : s2,
			    (j & ~3u) + ((imm >> (2 * (j % 4))) & 3));
		return 1;
	}
	if (!strcmp(m, "movhlps") || !strcmp(m, "movlhps")) {
		p->elem = 8;
		if (m[3] == 'h') {
			sel(p, 0, s2, 1);
			sel(p, 1, s1, 1);
		} else {
			sel(p, 0, s1, 0);
			sel(p, 1, s2, 0);
		}
		return 1;
	}
	if (!strcmp(m, "movddup")) {
		p->elem = 8;
		for (j = 0; j < d->bytes / 8; j++)
			sel(p, j, one, j & ~1u);
		return 1;
	}
	if ((!strcmp(m, "alignq") || !strcmp(m, "alignd")) && has_imm) {
		for (j = 0; j < L; j++) {
			unsigned t = j + (unsigned)(imm % (2 * L));

			sel(p, j, t < L ? s2 : s1, t < L ? t : t - L);
		}
		return 1;
	}
	if ((!strcmp(m, "permpd") || !strcmp(m, "permq")) && has_imm &&
	    one == s2 && s1 == 0) {
		for (j = 0; j < L; j++)
			sel(p, j, one, (j & ~3u) + ((imm >> (2 * (j % 4))) & 3));
		return 1;
	}
	if (!strcmp(m, "permilpd") && has_imm && s1 == 0) {
		for (j = 0; j < L; j++)
			sel(p, j, one, (j & ~1u) + ((imm >> (j % 8)) & 1));
		return 1;
	}
	if (!strncmp(m, "extract", 7) && strcmp(m, "extractps") && has_imm) {
		p->elem = 8;
		w = d->bytes / 8;
		for (j = 0; j < w; j++)
			sel(p, j, one, (unsigned)imm * w + j);
		return w > 0;
	}
	if (!strncmp(m, "insert", 6) && strcmp(m, "insertps") && has_imm &&
	    s1 != s2 && b2 >= 8) {
		p->elem = 8;
		w = b2 / 8;
		for (j = 0; j < d->bytes / 8; j++) {
			k = j / w == (unsigned)imm ? 1 : 0;
			sel(p, j, k ? s2 : s1, k ? j % w : j);
		}
		return 1;
	}
	return 0;
}

/* movhpd, movhps, movlpd, movlps: one 8-byte half, loaded or stored. */
static int perm_half(const char *m, const struct lk_operand *d, int s1,
		     int s2, struct perm *p)
{
	int hi;

	if (strcmp(m, "movhpd") && strcmp(m, "movhps") &&
	    strcmp(m, "movlpd") && strcmp(m, "movlps"))
		return 0;
	hi = m[3] == 'h';
	p->elem = 8;
	if (d->kind == LK_OPND_MEM) {
		sel(p, 0, s2, hi);
		return 1;
	}
	sel(p, 0, hi ? s1 : s2, 0);
	sel(p, 1, hi ? s2 : s1, hi ? 0 : 1);
	return 1;
}

/* The lane selection of in, when it is a known shuffle without a mask:
 * s1, s2 are its two sources (the legacy two-operand forms read the
 * destination as s1), one its only source. */
static int permutation(const struct lk_insn_ops *in, struct perm *p)
{
	const struct lk_operand *d = &in->ops[0];
	int s[3], ns = 0, s1, s2;
	long long imm = 0;
	int has_imm = 0;
	const char *m = in->mnemonic;
	size_t k;

	memset(p, 0, sizeof(*p));
	if (in->op != LK_OPC_SHUFFLE && in->op != LK_OPC_BROADCAST &&
	    in->op != LK_OPC_MOVE)
		return 0;
	if (!in->nops || !d->write || d->implicit ||
	    (d->kind == LK_OPND_REG && d->rclass != LK_REG_VEC) ||
	    (d->kind != LK_OPND_REG && d->kind != LK_OPND_MEM))
		return 0;
	for (k = 1; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];

		if (o->implicit)
			continue;
		if (o->kind == LK_OPND_IMM) {
			imm = o->imm;
			has_imm = 1;
			continue;
		}
		if (o->kind == LK_OPND_REG && o->rclass != LK_REG_VEC)
			return 0;         /* a mask, a GPR */
		if (ns < 3)
			s[ns++] = (int)k;
	}
	if (!ns || ns > 2)
		return 0;
	s1 = ns == 2 ? s[0] : 0;
	s2 = ns == 2 ? s[1] : s[0];
	if (m[0] == 'v')
		m++;
	if (perm_half(m, d, s1, s2, p))
		return 1;
	if (in->op == LK_OPC_MOVE)
		return 0;
	return perm_shuffle(m, d, s1, s2, s[0], imm, has_imm,
			    in->ops[s2].bytes, p) && p->n;
}

/* The value of lane 'lane' (elem bytes) of operand o: one node (a join
 * when the bytes hold several values, a constant for none). */
static size_t lane_value(struct walk *w, const struct lk_operand *o,
			 unsigned lane, unsigned elem)
{
	size_t v[MAXV], nv, n, i;

	if (o->kind == LK_OPND_REG)
		nv = reg_values(w, o->reg, lane * elem, elem, v);
	else
		nv = read_lane(w, o, lane, elem, v);
	if (nv == 1)
		return v[0];
	if (!nv)
		return node(w->x, XN_CONST);
	n = node(w->x, XN_OP);
	w->x->nodes[n].op = LK_OPC_SHUFFLE;
	for (i = 0; i < nv; i++)
		add_input(w->x, n, v[i]);
	return n;
}

static void permute(struct walk *w, const struct lk_insn_ops *in,
		    const struct perm *p)
{
	size_t val[VBYTES];
	unsigned j;

	for (j = 0; j < p->n; j++)
		val[j] = lane_value(w, &in->ops[p->src[j]], p->lane[j],
				    p->elem);
	for (j = 0; j < p->n; j++)
		write_lane(w, &in->ops[0], j, p->elem, val[j]);
	if (in->ops[0].kind == LK_OPND_MEM && is_stack(w, &in->ops[0]))
		w->x->spill_fill++;
}

static void step(struct walk *w, const struct lk_insn_ops *in)
{
	const struct lk_operand *d = NULL, *s = NULL;
	struct perm p;
	unsigned r, e;
	long long c;
	size_t k;

	if (in->op == LK_OPC_BRANCH || in->op == LK_OPC_NOP)
		return;
	if (induction_def(in, &r, &c) && w->induction[r]) {
		w->pre[r] += c;
		return;
	}
	for (k = 0; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];

		if (!data_operand(o))
			continue;
		if (o->write && !d)
			d = o;
		else if (o->read && !s && o->kind != LK_OPND_IMM)
			s = o;
	}
	if (!d)
		return;               /* compare, test: flags only */
	if (d->kind == LK_OPND_REG) {
		unsigned l = lanes_of(in, d, &e);

		if (l > w->x->lanes && d->rclass == LK_REG_VEC)
			w->x->lanes = l;
	}
	if (zero_idiom(in)) {
		size_t z = node(w->x, XN_CONST);
		unsigned j, l = lanes_of(in, d, &e);

		for (j = 0; j < l; j++)
			write_lane(w, d, j, e, z);
		return;
	}
	if (permutation(in, &p)) {
		permute(w, in, &p);
		return;
	}
	if (forwards(in->op) && s)
		move(w, in, d, s);
	else if (forwards(in->op) && !s && in->nops > 1 &&
		 in->ops[1].kind == LK_OPND_IMM) {
		size_t z = node(w->x, XN_CONST);

		write_lane(w, d, 0, d->bytes ? d->bytes : 8, z);
	} else
		compute(w, in, d);
}

/* ---- Loop-carried values. ---- */

/* Each register φ's final value: what its bytes hold at the end. */
static void finals(struct walk *w)
{
	struct xloop *x = w->x;
	size_t n;
	unsigned b;

	for (n = 1; n < x->nnodes; n++) {
		struct xnode *p = &x->nodes[n];

		if (p->kind != XN_PHI || !p->carried || !p->reg || !p->len)
			continue;
		p->final = w->val[p->reg][p->lo];
		for (b = p->lo; b < p->lo + p->len && b < VBYTES; b++)
			if (w->val[p->reg][b] != p->final)
				p->final = 0;
		if (p->final == n)
			p->final = 0;
	}
}

/*
 * Register rotation (rule 8, stretch): a carried value that is the
 * previous iteration's load of stream s at offset o is a load of s at
 * o - stride (repeatedly: a value rotated through k registers is a load
 * at o - k * stride).
 */
static void rematerialise(struct xloop *x)
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
static void chains(struct xloop *x)
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

/* ---- The loop. ---- */

static int decode_body(const struct lk_cfg *cfg, const struct lk_block *b,
		       struct walk *w)
{
	size_t i;

	w->ops = lk_calloc(b->ninsns + 1, sizeof(*w->ops));
	for (i = 0; i + 1 < b->ninsns; i++) {
		const struct lk_insn *insn = &cfg->insns[b->first + i];

		if (lk_insn_operands(insn->bytes, insn->len, &w->ops[w->n]))
			return 1;
		w->n++;
	}
	return 0;
}

static unsigned gpr(const char *name)
{
	unsigned r;

	for (r = 1; r < NREG; r++)
		if (!strcmp(lk_reg_name(r), name))
			return r;
	return 0;
}

int mdl_x_walk(const struct lk_cfg *cfg, size_t head, struct xloop *x,
	       char **reason)
{
	const struct lk_block *b = &cfg->blocks[head];
	struct walk *w = lk_calloc(1, sizeof(*w));
	int ret = 0;
	size_t i;

	memset(x, 0, sizeof(*x));
	w->x = x;
	w->sp = gpr("rsp");
	w->bp = gpr("rbp");
	w->val = lk_calloc(NREG, sizeof(*w->val));
	if (decode_body(cfg, b, w)) {
		*reason = lk_strdup("an instruction does not decode");
		ret = 1;
		goto out;
	}
	scan_registers(w);
	ret = check_addresses(w, reason);
	for (i = 0; !ret && i < w->n; i++)
		step(w, &w->ops[i]);
	for (i = 0; !ret && i < x->naccs; i++) {
		struct xacc *a = &x->accs[i];

		if (a->base && a->base < NREG && w->induction[a->base])
			a->stride += w->step[a->base];
		if (a->index && a->index < NREG && w->induction[a->index])
			a->stride += (long long)a->scale * w->step[a->index];
	}
	if (!ret) {
		finals(w);
		rematerialise(x);
		chains(x);
	}
out:
	free(w->ops);
	free(w->val);
	free(w->slots);
	free(w->swritten);
	free(w);
	return ret;
}

void mdl_x_release(struct xloop *x)
{
	size_t i;

	for (i = 0; i < x->nnodes; i++)
		free(x->nodes[i].in);
	free(x->nodes);
	free(x->accs);
	free(x->flows);
	memset(x, 0, sizeof(*x));
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
