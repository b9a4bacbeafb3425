/*
 * Extraction, first half: the registers of one loop (inductions,
 * invariants, refusals of indirect or non-affine addresses), and one
 * iteration walked in SSA form with stack slots forwarded (spill/fill),
 * memory operands fissed from their arithmetic and vector instructions
 * split into lanes: the graph normalize.c turns into MDL
 * (doc/loopkit-mdl.md, "extract"; loops and entry in extract-loop.c,
 * shuffles' lane selections in extract-shuffle.c).
 */
#include <stdlib.h>
#include <string.h>

#include "extract-int.h"
#include "mdl-int.h"

#define NREG 1024             /* register numbers of the decoder */

struct slot {
	unsigned base;
	int64_t addr;             /* one byte */
	size_t val;
	size_t store;             /* 1 + the instruction that wrote it */
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
	size_t cur;               /* 1 + the instruction being walked */
	struct xconsts consts;    /* vector registers holding known data */
	const char *binary;       /* the function's ELF file, or NULL */
	/* the values the last compare read: its flags are a function of
	 * them, for a cmov, setcc, adc or sbb that reads them */
	size_t cmp_vals[16];
	size_t ncmp;
};

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

static struct slot *slot_find(struct walk *w, unsigned base, int64_t addr)
{
	size_t i;

	for (i = 0; i < w->nslots; i++)
		if (w->slots[i].base == base && w->slots[i].addr == addr)
			return &w->slots[i];
	return NULL;
}

static size_t *slot_at(struct walk *w, unsigned base, int64_t addr)
{
	struct slot *s = slot_find(w, base, addr);

	return s ? &s->val : NULL;
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
				w->x->nodes[phi].stack = 1;
				w->x->nodes[phi].reg = o->base;
				w->x->nodes[phi].addr = addr;
			}
			w->x->nodes[phi].len = (unsigned)(addr + 1 -
						w->x->nodes[phi].addr);
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
			struct slot *s = slot_find(w, d->base, addr);

			if (!s) {
				LK_GROW(w->slots, w->nslots + 1, w->aslots);
				s = &w->slots[w->nslots++];
				s->base = d->base;
				s->addr = addr;
			}
			s->val = val;
			s->store = w->cur;
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

int mdl_induction_def(const struct lk_insn_ops *in, unsigned *reg,
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
		int indef = mdl_induction_def(in, &r, &c);

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

/* An implicit memory operand whose base register the instruction itself
 * moves: movs, stos, lods, cmps, scas, and push and pop (%rsp). */
static int moves_own_base(const struct lk_insn_ops *in,
			  const struct lk_operand *m)
{
	size_t k;

	if (!m->implicit || !m->base)
		return 0;
	for (k = 0; k < in->nops; k++)
		if (in->ops[k].kind == LK_OPND_REG && in->ops[k].implicit &&
		    in->ops[k].write && in->ops[k].reg == m->base)
			return 1;
	return 0;
}

/* Is every definition of r in the loop a fill from one stack slot that
 * the loop never writes ('mov 0x10(%rsp), %r9' where the register
 * allocator spilled a pointer)? Then r holds the same value in every
 * iteration: an invariant. */
static int filled_invariant(const struct walk *w, unsigned r)
{
	const struct lk_operand *slot = NULL;
	size_t i, k;
	unsigned b;

	for (i = 0; i < w->n; i++) {
		const struct lk_insn_ops *in = &w->ops[i];

		for (k = 0; k < in->nops; k++) {
			const struct lk_operand *o = &in->ops[k];

			if (o->kind != LK_OPND_REG || o->reg != r || !o->write)
				continue;
			if (k || in->op != LK_OPC_MOVE || in->nops != 2 ||
			    o->bytes != 8 || in->ops[1].kind != LK_OPND_MEM ||
			    in->ops[1].base != w->sp || in->ops[1].index ||
			    in->ops[1].bytes != 8 ||
			    (slot && slot->disp != in->ops[1].disp))
				return 0;
			slot = &in->ops[1];
		}
	}
	if (!slot)
		return 0;
	for (b = 0; b < 8; b++)
		if (stack_written(w, w->sp, slot->disp + b))
			return 0;
	return 1;
}

/* The invariant register r steps by in the loop (add/sub of a register,
 * lea (r,R)), else 0: a stride the binary does not hold. */
static unsigned register_step(const struct walk *w, unsigned r)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		const struct lk_insn_ops *in = &w->ops[i];
		const struct lk_operand *d = in->nops ? &in->ops[0] : NULL;
		unsigned by = 0;

		if (!d || d->kind != LK_OPND_REG || d->reg != r || !d->write ||
		    in->nops < 2)
			continue;
		if ((in->op == LK_OPC_ADD || in->op == LK_OPC_SUB) &&
		    in->ops[1].kind == LK_OPND_REG &&
		    in->ops[1].rclass == LK_REG_GPR)
			by = in->ops[1].reg;
		else if (in->op == LK_OPC_LEA &&
			 in->ops[1].kind == LK_OPND_MEM &&
			 in->ops[1].base == r && in->ops[1].index)
			by = in->ops[1].index;
		else if (in->op == LK_OPC_LEA &&
			 in->ops[1].kind == LK_OPND_MEM &&
			 in->ops[1].index == r && in->ops[1].base)
			by = in->ops[1].base;
		if (by && by < NREG && by != r && !w->written[by])
			return by;
	}
	return 0;
}

/* Every address must be affine in the inductions: its registers are
 * inductions, invariants, rip or the stack pointer. */
static int check_addresses(struct walk *w, char **reason)
{
	size_t i, k, d;

	for (i = 0; i < w->n; i++)
		for (k = 0; k < w->ops[i].nops; k++) {
			const struct lk_operand *o = &w->ops[i].ops[k];
			unsigned regs[2] = {o->base, o->index}, j, by;

			if (o->kind != LK_OPND_MEM || o->agen)
				continue;
			if (moves_own_base(&w->ops[i], o)) {
				*reason = o->base == w->sp ?
					lk_asprintf("a stack push or pop (%s), "
						    "which moves %%%s in the "
						    "loop",
						    w->ops[i].mnemonic,
						    lk_reg_name(o->base)) :
					lk_asprintf("a string instruction "
						    "(%s), which moves its "
						    "own address register "
						    "%%%s",
						    w->ops[i].mnemonic,
						    lk_reg_name(o->base));
				return 1;
			}
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
				    lk_reg_class_of(r) == LK_REG_IP ||
				    filled_invariant(w, r))
					continue;
				for (d = 0; d < w->n; d++)
					if (w->ops[d].nops &&
					    w->ops[d].ops[0].kind == LK_OPND_REG &&
					    w->ops[d].ops[0].reg == r &&
					    reads_memory(&w->ops[d]))
						break;
				if (d < w->n)
					*reason = lk_asprintf(
						"indirect access (%%%s is "
						"loaded in the loop)",
						lk_reg_name(r));
				else if ((by = register_step(w, r)))
					*reason = lk_asprintf(
						"a stride not in the binary "
						"(%%%s steps by %%%s, a "
						"register: a run-time size)",
						lk_reg_name(r),
						lk_reg_name(by));
				else
					*reason = lk_asprintf(
						"address not affine in the "
						"induction registers (%%%s)",
						lk_reg_name(r));
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

/* An operand whose value flows: not an implicit one, and not an AVX-512
 * writemask (MDL has no predicates: a masked access or operation counts
 * as the whole vector's). */
static int data_operand(const struct lk_operand *o)
{
	if (o->implicit || o->writemask)
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

/* Does in read the flags (cmov, setcc, adc, sbb; not a jump)? */
static int reads_flags(const struct lk_insn_ops *in)
{
	size_t k;

	if (in->op == LK_OPC_BRANCH)
		return 0;
	for (k = 0; k < in->nops; k++)
		if (in->ops[k].kind == LK_OPND_REG &&
		    in->ops[k].rclass == LK_REG_FLAGS && in->ops[k].read)
			return 1;
	return 0;
}

/* The flags the last compare set, as a node of its inputs (0: none). */
static size_t flags_value(struct walk *w)
{
	size_t n, i;

	if (!w->ncmp)
		return 0;
	n = node(w->x, XN_OP);
	w->x->nodes[n].op = LK_OPC_COMPARE;
	for (i = 0; i < w->ncmp; i++)
		add_input(w->x, n, w->cmp_vals[i]);
	return n;
}

/* A compare: the values it reads, for the flags' readers. */
static void compare(struct walk *w, const struct lk_insn_ops *in)
{
	size_t k, v[MAXV], nv, i;
	unsigned e, j, l;

	w->ncmp = 0;
	for (k = 0; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];

		if (!data_operand(o) || !o->read || o->kind == LK_OPND_IMM)
			continue;
		l = lanes_of(in, o, &e);
		for (j = 0; j < l; j++) {
			nv = read_lane(w, o, j, e, v);
			for (i = 0; i < nv && w->ncmp < 16; i++)
				w->cmp_vals[w->ncmp++] = v[i];
		}
	}
}

static void compute(struct walk *w, const struct lk_insn_ops *in,
		    const struct lk_operand *d)
{
	unsigned ed, ld = lanes_of(in, d, &ed), j, e;
	size_t k, v[MAXV], nv, i;
	int cross = in->op == LK_OPC_SHUFFLE || in->op == LK_OPC_HADD;
	size_t out[VBYTES], flags;
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
	flags = reads_flags(in) ? flags_value(w) : 0;
	for (j = 0; j < ld; j++) {
		size_t n = node(w->x, XN_OP);

		w->x->nodes[n].op = in->op;
		w->x->nodes[n].fp = d->fp;
		if (flags)
			add_input(w->x, n, flags);
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

/*
 * A shuffle's lanes are only where bytes go: register to register, the
 * bytes keep their values (vextracti128 moves 16 bytes that hold four
 * ints; made one value, the four would join in what reads them).
 */
static void permute(struct walk *w, const struct lk_insn_ops *in,
		    const struct perm *p)
{
	const struct lk_operand *d = &in->ops[0];
	size_t val[VBYTES], bytes[VBYTES];
	unsigned j, b;

	for (j = 0; j < p->n; j++) {
		const struct lk_operand *o = &in->ops[p->src[j]];

		if (d->kind == LK_OPND_REG && o->kind == LK_OPND_REG &&
		    o->rclass == LK_REG_VEC) {
			size_t v[MAXV];

			/* φs of what is read before written, by lane */
			reg_values(w, o->reg, p->lane[j] * p->elem, p->elem, v);
			for (b = 0; b < p->elem && j * p->elem + b < VBYTES &&
				    p->lane[j] * p->elem + b < VBYTES; b++)
				bytes[j * p->elem + b] =
					w->val[o->reg][p->lane[j] * p->elem + b];
			val[j] = 0;
		} else {
			val[j] = lane_value(w, o, p->lane[j], p->elem);
			for (b = 0; b < p->elem && j * p->elem + b < VBYTES;
			     b++)
				bytes[j * p->elem + b] = val[j];
		}
	}
	if (d->kind == LK_OPND_REG) {
		for (b = 0; b < p->n * p->elem && b < VBYTES; b++)
			w->val[d->reg][b] = bytes[b];
	} else {
		for (j = 0; j < p->n; j++)
			write_lane(w, d, j, p->elem, val[j]);
	}
	if (in->ops[0].kind == LK_OPND_MEM && is_stack(w, &in->ops[0]))
		w->x->spill_fill++;
}

/*
 * A load of stack bytes that no single store of this iteration wrote
 * all of (two stores, or a store and older bytes): the store cannot be
 * forwarded to it, and it waits for the stores to reach the cache
 * (gcc's nussinov assembles a vector from two 8-byte stores).
 */
static void check_forward(struct walk *w, const struct lk_operand *o)
{
	size_t first = 0;
	unsigned b, n = o->bytes ? o->bytes : 8;
	int mixed = 0, fresh = 0;

	for (b = 0; b < n; b++) {
		const struct slot *sl = slot_find(w, o->base, o->disp + b);
		size_t id = sl ? sl->store : 0;

		fresh |= id != 0;
		if (!b)
			first = id;
		else if (id != first)
			mixed = 1;
	}
	if (fresh && mixed)
		w->x->forward_fail++;
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
	if (mdl_induction_def(in, &r, &c) && w->induction[r]) {
		w->pre[r] += c;
		return;
	}
	for (k = 0; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];

		if (o->kind == LK_OPND_MEM && o->read && !o->agen &&
		    is_stack(w, o))
			check_forward(w, o);
		if (!data_operand(o))
			continue;
		if (o->write && !d)
			d = o;
		else if (o->read && !s && o->kind != LK_OPND_IMM)
			s = o;
	}
	if (!d) {
		/* compare, test: flags only */
		if (in->op == LK_OPC_COMPARE)
			compare(w, in);
		return;
	}
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
	if (mdl_x_permutation(in, &w->consts, &p)) {
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

/* ---- Constants read from the binary's data (index vectors). ---- */

/*
 * The vector registers insn defines: known constants when it is a move
 * or broadcast of RIP-relative data the binary holds (clang loads a
 * vpermt2pd's index vector from .rodata), else unknown.
 */
static void track_constants(struct xconsts *k, const char *binary,
			    const struct lk_insn *insn,
			    const struct lk_insn_ops *in)
{
	const struct lk_operand *d = &in->ops[0], *s = &in->ops[1];
	uint8_t data[VBYTES];
	struct lk_ctx quiet;
	unsigned b;
	size_t i;

	for (i = 0; i < in->nops; i++)
		if (in->ops[i].kind == LK_OPND_REG && in->ops[i].write &&
		    in->ops[i].rclass == LK_REG_VEC && in->ops[i].reg < k->n)
			k->known[in->ops[i].reg] = 0;
	if (!binary || in->nops < 2 ||
	    (in->op != LK_OPC_MOVE && in->op != LK_OPC_BROADCAST) ||
	    d->kind != LK_OPND_REG || d->rclass != LK_REG_VEC ||
	    d->reg >= k->n || !d->bytes || d->bytes > VBYTES ||
	    s->kind != LK_OPND_MEM || !s->base ||
	    lk_reg_class_of(s->base) != LK_REG_IP || !s->bytes ||
	    s->bytes > d->bytes || (in->op == LK_OPC_MOVE &&
				    s->bytes != d->bytes))
		return;
	lk_ctx_init(&quiet);
	if (lk_elf_read(&quiet, binary, insn->addr + insn->len +
			(uint64_t)s->disp, data, s->bytes))
		return;
	memset(k->bytes[d->reg], 0, VBYTES);
	for (b = 0; b < d->bytes; b++)
		k->bytes[d->reg][b] = data[b % s->bytes];
	k->known[d->reg] = 1;
}

/* The constants the loop starts with: those its one preheader (the one
 * other block jumping or falling into it) leaves in registers the loop
 * does not redefine. */
static void entry_constants(const struct lk_cfg *cfg, size_t head,
			    struct walk *w)
{
	size_t b, i, pred = 0, npred = 0;
	struct lk_insn_ops ops;

	for (b = 0; b < cfg->nblocks; b++)
		for (i = 0; b != head && i < cfg->blocks[b].nsucc; i++)
			if (cfg->blocks[b].succ[i] == head) {
				pred = b;
				npred++;
				break;
			}
	if (npred != 1 || !w->binary)
		return;
	for (i = 0; i < cfg->blocks[pred].ninsns; i++) {
		const struct lk_insn *insn =
			&cfg->insns[cfg->blocks[pred].first + i];

		if (!lk_insn_operands(insn->bytes, insn->len, &ops))
			track_constants(&w->consts, w->binary, insn, &ops);
	}
	for (i = 0; i < w->consts.n; i++)
		if (w->written[i])
			w->consts.known[i] = 0;
}

/* ---- Loop-carried values. ---- */

/* A stack slot φ's final value: what its bytes hold at the end of the
 * iteration, when one value. */
static void stack_final(struct walk *w, struct xnode *p, size_t n)
{
	size_t *v;
	unsigned b;

	p->final = 0;
	for (b = 0; b < p->len; b++) {
		v = slot_at(w, p->reg, p->addr + b);
		if (!v || (b && *v != p->final)) {
			p->final = 0;
			return;
		}
		p->final = *v;
	}
	if (p->final == n)
		p->final = 0;
}

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
		if (p->stack) {
			stack_final(w, p, n);
			continue;
		}
		p->final = w->val[p->reg][p->lo];
		for (b = p->lo; b < p->lo + p->len && b < VBYTES; b++)
			if (w->val[p->reg][b] != p->final)
				p->final = 0;
		if (p->final == n)
			p->final = 0;
	}
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

/*
 * Does the function keep a frame pointer: 'mov %rsp, %rbp' among its
 * first instructions, before any jump or call (push %rbp; mov %rsp,
 * %rbp)? Without one (gcc and clang from -O1), %rbp is one more
 * general register, and an access through it is data, not a slot.
 */
static int frame_pointer(const struct lk_cfg *cfg)
{
	size_t i;

	for (i = 0; i < cfg->ninsns && i < 32; i++) {
		const struct lk_insn *in = &cfg->insns[i];
		struct lk_insn_ops ops;

		if (in->kind != LK_INSN_PLAIN)
			return 0;
		if (lk_insn_operands(in->bytes, in->len, &ops) ||
		    ops.op != LK_OPC_MOVE || ops.nops != 2 ||
		    ops.ops[0].kind != LK_OPND_REG ||
		    ops.ops[1].kind != LK_OPND_REG)
			continue;
		if (ops.ops[0].reg == gpr("rbp") && ops.ops[1].reg == gpr("rsp"))
			return 1;
	}
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
	/* no register has this number: no frame pointer */
	w->bp = frame_pointer(cfg) ? gpr("rbp") : NREG;
	w->val = lk_calloc(NREG, sizeof(*w->val));
	if (decode_body(cfg, b, w)) {
		*reason = lk_strdup("an instruction does not decode");
		ret = 1;
		goto out;
	}
	scan_registers(w);
	ret = check_addresses(w, reason);
	w->binary = cfg->fn.binary;
	w->consts.n = NREG;
	w->consts.bytes = lk_calloc(NREG, sizeof(*w->consts.bytes));
	w->consts.known = lk_calloc(NREG, 1);
	if (!ret)
		entry_constants(cfg, head, w);
	for (i = 0; !ret && i < w->n; i++) {
		w->cur = i + 1;
		step(w, &w->ops[i]);
		track_constants(&w->consts, w->binary,
				&cfg->insns[b->first + i], &w->ops[i]);
	}
	for (i = 0; !ret && i < x->naccs; i++) {
		struct xacc *a = &x->accs[i];

		if (a->base && a->base < NREG && w->induction[a->base])
			a->stride += w->step[a->base];
		if (a->index && a->index < NREG && w->induction[a->index])
			a->stride += (long long)a->scale * w->step[a->index];
	}
	if (!ret) {
		finals(w);
		mdl_x_rematerialise(x);
		mdl_x_chains(x);
	}
out:
	free(w->ops);
	free(w->val);
	free(w->slots);
	free(w->swritten);
	free(w->consts.bytes);
	free(w->consts.known);
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
