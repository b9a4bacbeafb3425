/*
 * Replay: a binary's innermost loop re-run verbatim as a C benchmark
 * (doc/loopkit-mdl.md, "replay"). The loop's bytes go into a top-level
 * asm function between a prologue that sets every general register the
 * loop uses (stream bases at arrays sized for a memory level, index and
 * counter registers at a start, a bound register at start + trips x
 * step) and every vector register (1.0), and an epilogue. RIP-relative
 * reads are re-aimed at a scratch copy; a call advances the bases one
 * chunk, round-robin over the level's working set. The C text is
 * written by replay-emit.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/env.h"
#include "mdl-int.h"
#include "replay-int.h"

#define SPAN_MAX (64L << 20)         /* displacement span of a stream */
#define ITERATIONS_PER_CALL 8192L    /* canonical, as concretize */
#define MIN_CALL 1024L               /* canonical: see mdl_walk_trips */
#define SIMULATE_MAX (1L << 24)

const char *const mdl_rp_gpr_names[NGPR] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
};

void lk_mdl_replay_opts_init(struct lk_mdl_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->level = LK_MDL_L1;
	o->max_streams = 7;
}

void lk_mdl_replay_release(struct lk_mdl_replay *r)
{
	if (!r)
		return;
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

/* The 0..15 number of a decoder register, -1 for none or no GPR. */
static int gpr_of(unsigned reg)
{
	const char *name;
	int i;

	if (!reg || lk_reg_class_of(reg) != LK_REG_GPR)
		return -1;
	name = lk_reg_name(reg);
	for (i = 0; i < NGPR; i++)
		if (!strcmp(name, mdl_rp_gpr_names[i]))
			return i;
	return -1;
}

static int refuse(struct rp *p, const char *fmt, ...) LK_PRINTF(2, 3);

static int refuse(struct rp *p, const char *fmt, ...)
{
	va_list ap;

	if (p->reason)
		return 1;
	va_start(ap, fmt);
	p->reason = lk_vasprintf(fmt, ap);
	va_end(ap);
	return 1;
}

/* ---- The loop's registers, accesses and exit. ---- */

static int writes_flags(const struct lk_insn_ops *in)
{
	size_t k;

	for (k = 0; k < in->nops; k++)
		if (in->ops[k].kind == LK_OPND_REG &&
		    in->ops[k].rclass == LK_REG_FLAGS && in->ops[k].write)
			return 1;
	return 0;
}

/* mdl_induction_def, the register as its 0..15 number in *r. */
static int induction_def(const struct lk_insn_ops *in, int *r, long long *c)
{
	unsigned reg = 0;

	return mdl_induction_def(in, &reg, c) && (*r = gpr_of(reg)) >= 0;
}

static void note_vector(struct rp *p, const struct lk_operand *o)
{
	const char *name = lk_reg_name(o->reg);

	if (o->rclass == LK_REG_VEC && strlen(name) > 3) {
		int n = atoi(name + 3);

		if (n >= 0 && n < 32)
			p->vec |= 1u << n;
		if (o->bytes > p->vbytes)
			p->vbytes = o->bytes;
	} else if (o->rclass == LK_REG_MASK && name[0] == 'k') {
		int n = atoi(name + 1);

		if (n > 0 && n < 8 && o->read)
			p->mask |= 1u << n;
	}
	if (o->fp && o->elem_bytes == 4)
		p->fp4++;
	else if (o->fp && o->elem_bytes == 8)
		p->fp8++;
}

/* An 8-byte load into GPR g from a slot of the stack (%rsp-based, no
 * index): 'mov disp(%rsp), %g'. */
static int fill_of(const struct lk_insn_ops *in, int g, long long *disp)
{
	const struct lk_operand *s = in->nops == 2 ? &in->ops[1] : NULL;

	if (!s || in->op != LK_OPC_MOVE || in->ops[0].kind != LK_OPND_REG ||
	    gpr_of(in->ops[0].reg) != g || in->ops[0].bytes != 8 ||
	    s->kind != LK_OPND_MEM || s->agen || s->index ||
	    gpr_of(s->base) != RSP || s->bytes != 8)
		return 0;
	*disp = s->disp;
	return 1;
}

/* Does an instruction of the loop write a byte of [disp, disp + 8) of
 * the stack? */
static int slot_written(const struct rp *p, long long disp)
{
	size_t i, k;

	for (i = 0; i < p->n; i++)
		for (k = 0; k < p->ops[i].nops; k++) {
			const struct lk_operand *o = &p->ops[i].ops[k];
			long long n = o->bytes ? o->bytes : 8;

			if (o->kind == LK_OPND_MEM && o->write && !o->agen &&
			    gpr_of(o->base) == RSP && o->disp < disp + 8 &&
			    o->disp + n > disp)
				return 1;
		}
	return 0;
}

static int add_slot(struct rp *p, long long disp, int src)
{
	if (slot_written(p, disp))
		return refuse(p, "address not affine in the induction "
			      "registers (%lld(%%rsp) is written in the "
			      "loop)", disp);
	if (p->nslots < LK_ARRAY_SIZE(p->slots)) {
		p->slots[p->nslots].disp = disp;
		p->slots[p->nslots++].src = src;
	}
	return 0;
}

/* Registers: used, written, inductions and their steps; the registers
 * every definition of which fills them from one stack slot. */
static void scan(struct rp *p)
{
	unsigned char other[NGPR] = {0}, ind[NGPR] = {0};
	size_t i, k;

	for (i = 0; i < p->n; i++) {
		const struct lk_insn_ops *in = &p->ops[i];
		long long c = 0;
		int r = -1, def = induction_def(in, &r, &c);

		if (in->mnemonic[0] == 'v')
			p->vex = 1;
		for (k = 0; k < in->nops; k++) {
			const struct lk_operand *o = &in->ops[k];
			int g;

			if (o->kind == LK_OPND_MEM) {
				if ((g = gpr_of(o->base)) >= 0)
					p->used[g] = 1;
				if ((g = gpr_of(o->index)) >= 0)
					p->used[g] = 1;
				continue;
			}
			if (o->kind != LK_OPND_REG)
				continue;
			note_vector(p, o);
			if ((g = gpr_of(o->reg)) < 0)
				continue;
			p->used[g] = 1;
			if (!o->write)
				continue;
			p->written[g] = 1;
			if (def && g == r && k == 0) {
				ind[g] = 1;
				p->step[g] += c;
			} else {
				long long d;

				other[g] = 1;
				if (k == 0 && fill_of(in, g, &d) &&
				    (!p->filled[g] || p->fill_disp[g] == d)) {
					p->fill_disp[g] = d;
					p->filled[g] = p->filled[g] ? p->filled[g]
								   : 1;
				} else {
					p->filled[g] = 2;
				}
			}
		}
	}
	for (i = 0; i < NGPR; i++) {
		p->induction[i] = ind[i] && !other[i];
		p->filled[i] = p->filled[i] == 1 && !ind[i];
	}
}

/* The alignment an access needs: packed legacy-SSE memory operands
 * and the aligned moves (mova*, movdqa*, movnt*) fault otherwise. */
static unsigned alignment(const char *mnemonic, const struct lk_operand *o)
{
	if (o->bytes < 16)
		return 1;
	if (strstr(mnemonic, "mova") || strstr(mnemonic, "movdqa") ||
	    strstr(mnemonic, "movnt"))
		return o->bytes;
	if (mnemonic[0] == 'v' || strstr(mnemonic, "movu") ||
	    strstr(mnemonic, "lddqu") || strstr(mnemonic, "movdqu"))
		return 1;
	return o->bytes;
}

/*
 * The stack pointer's offset from a 64-byte boundary that aligns every
 * stack access needing it seen so far: the loop addresses slots of a
 * frame its function aligned (gcc's nussinov -O2 reads -0x18(%rsp)
 * with movaps, so %rsp = 8 mod 16; -O3 realigns the frame to 32).
 */
static void stack_align(struct rp *p, long long disp, unsigned al)
{
	long d;

	if (al <= 1 || al > 64)
		return;
	for (d = p->stack_shift; d < p->stack_shift + 64; d++) {
		long m = d % 64;
		size_t k;
		int ok = 1;

		for (k = 0; k < p->nstack && ok; k++)
			ok = ((m + p->stack[k].disp) % p->stack[k].align +
			      p->stack[k].align) % p->stack[k].align == 0;
		if (ok && ((m + disp) % al + al) % al == 0) {
			p->stack_shift = m;
			break;
		}
	}
	LK_GROW(p->stack, p->nstack + 1, p->astack);
	p->stack[p->nstack].disp = disp;
	p->stack[p->nstack++].align = al;
}

static int add_access(struct rp *p, const struct lk_insn_ops *in,
		      const struct lk_operand *o, const long long *pre)
{
	struct rp_acc *a;
	int b = gpr_of(o->base), x = gpr_of(o->index);

	if (o->vsib)
		return refuse(p, "indirect access (a gather or scatter)");
	/* RIP-relative: a fixed address (no index), re-aimed at a
	 * writable scratch slot; a store there (clang keeps a reduction's
	 * store to a global in the loop) hits one line, as it did. */
	if (o->base && lk_reg_class_of(o->base) == LK_REG_IP)
		return 0;
	if (b == RSP) {
		unsigned al = alignment(in->mnemonic, o);

		if (x >= 0 || o->disp < -128 || o->disp + (long)o->bytes >
		    FRAME - 128)
			return refuse(p, "displacement span over %ld bytes "
				      "(a stack access at %lld)", FRAME - 128,
				      (long long)o->disp);
		stack_align(p, o->disp, al);
		return 0;
	}
	if (b < 0)
		return refuse(p, "address not affine in the induction "
			      "registers (no base register: absolute data)");
	if (x >= 0 && o->scale == 1 && p->induction[b] && !p->induction[x]) {
		/* (%rax,%rdx) with %rax counting: %rdx is the array */
		int t = b;

		b = x;
		x = t;
	}
	LK_GROW(p->accs, p->naccs + 1, p->aaccs);
	a = &p->accs[p->naccs++];
	memset(a, 0, sizeof(*a));
	a->base = b;
	a->index = x;
	a->scale = x >= 0 ? o->scale : 0;
	/* the base's own increments fold into disp below */
	a->disp = o->disp + (p->induction[b] ? pre[b] : 0);
	a->pre_index = x >= 0 && p->induction[x] ? pre[x] : 0;
	a->bytes = o->bytes ? o->bytes : 8;
	a->write = o->write;
	a->align = alignment(in->mnemonic, o);
	a->stride = (p->induction[b] ? p->step[b] : 0) +
		    (x >= 0 && p->induction[x] ? (long long)a->scale *
		     p->step[x] : 0);
	return 0;
}

/* The accesses, with the inductions' increments before each one. */
static int accesses(struct rp *p)
{
	long long pre[NGPR] = {0};
	size_t i, k;

	for (i = 0; i < p->n; i++) {
		const struct lk_insn_ops *in = &p->ops[i];
		long long c;
		int r;

		if (induction_def(in, &r, &c) && p->induction[r]) {
			if (writes_flags(in)) {     /* add $8, %rax; jne */
				p->flag_insn = i;
				memcpy(p->pre_flags, pre, sizeof(pre));
				p->has_flags = 1;
			}
			pre[r] += c;
			continue;
		}
		if (in->op == LK_OPC_BRANCH &&
		    strncmp(in->mnemonic, "j", 1))
			return refuse(p, "call inside the loop (%s)",
				      in->mnemonic);
		if (p->written[RSP])
			return refuse(p, "the stack pointer changes in the "
				      "loop (%s)", in->mnemonic);
		for (k = 0; k < in->nops; k++)
			if (in->ops[k].kind == LK_OPND_MEM &&
			    !in->ops[k].agen &&
			    add_access(p, in, &in->ops[k], pre))
				return 1;
		if (writes_flags(in)) {
			p->flag_insn = i;
			memcpy(p->pre_flags, pre, sizeof(pre));
			p->has_flags = 1;
		}
	}
	return 0;
}

/* The compare and jump that end an iteration: the counter register,
 * the bound (a register, an immediate, or 0 for the flags of the
 * counter's own update) and the jump's condition. */
static int exit_test(struct rp *p, const char *jcc)
{
	const struct lk_insn_ops *in;
	const struct lk_operand *a, *b;
	long long c;
	int r;

	snprintf(p->cc, sizeof(p->cc), "%s", jcc + 1);
	if (jcc[0] != 'j' || !strcmp(jcc, "jrcxz") || !strcmp(jcc, "jecxz"))
		return refuse(p, "loop exit not understood (%s)", jcc);
	if (!p->has_flags)
		return refuse(p, "loop exit not understood (no flags set "
			      "before %s)", jcc);
	in = &p->ops[p->flag_insn];
	p->bound = -1;
	if (induction_def(in, &r, &c) && p->induction[r]) {
		/* sub $1, %rcx; jnz: the value after the update vs 0 */
		p->counter = r;
		p->value_flags = 1;
		p->pre_cmp = p->pre_flags[r] + c;
		p->width = in->ops[0].bytes ? in->ops[0].bytes : 8;
		return 0;
	}
	if (in->op != LK_OPC_COMPARE || in->nops < 2 ||
	    (strncmp(in->mnemonic, "cmp", 3) &&
	     strncmp(in->mnemonic, "test", 4)))
		return refuse(p, "loop exit not understood (%s before %s)",
			      in->mnemonic, jcc);
	a = &in->ops[0];
	b = &in->ops[1];
	p->width = a->bytes ? a->bytes : 8;
	if (!strncmp(in->mnemonic, "test", 4)) {
		if (a->kind != LK_OPND_REG || b->kind != LK_OPND_REG ||
		    a->reg != b->reg || (r = gpr_of(a->reg)) < 0 ||
		    !p->induction[r])
			return refuse(p, "loop exit not understood (test)");
		p->counter = r;
		p->value_flags = 1;
		p->pre_cmp = p->pre_flags[r];
		return 0;
	}
	if (a->kind == LK_OPND_REG && (r = gpr_of(a->reg)) >= 0 &&
	    p->induction[r]) {
		p->counter_first = 1;
	} else if (b->kind == LK_OPND_REG && (r = gpr_of(b->reg)) >= 0 &&
		   p->induction[r]) {
		const struct lk_operand *t = a;

		a = b;
		b = t;
	} else {
		return refuse(p, "loop exit not understood (a compare "
			      "without an induction register)");
	}
	p->counter = r;
	p->pre_cmp = p->pre_flags[r];
	if (b->kind == LK_OPND_IMM) {
		p->imm = b->imm;
		p->has_imm = 1;
	} else if (b->kind == LK_OPND_REG && (r = gpr_of(b->reg)) >= 0 &&
		   !p->written[r]) {
		p->bound = r;
	} else if (b->kind == LK_OPND_MEM && !b->agen && !b->index &&
		   gpr_of(b->base) == RSP && p->width == 8) {
		/* cmp %r15, 0x20(%rsp): the bound spilled */
		p->bound = RP_SLOT_BOUND;
		return add_slot(p, b->disp, RP_SLOT_BOUND);
	} else {
		return refuse(p, "loop exit not understood (the bound is "
			      "not a register or an immediate)");
	}
	return 0;
}

/* ---- Flags and the trip count. ---- */

static int64_t sext(uint64_t v, unsigned bytes)
{
	unsigned sh = bytes >= 8 ? 0 : 64 - 8 * bytes;

	return (int64_t)(v << sh) >> sh;
}

/* Does the jump (condition cc) go back after flags of x - y (sub) or of
 * x alone (!sub), bytes wide? -1 for a condition not known. */
static int taken(const char *cc, int64_t x, int64_t y, unsigned bytes,
		 int sub)
{
	uint64_t mask = bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
	uint64_t ux = (uint64_t)x & mask, uy = (uint64_t)y & mask;
	uint64_t res = sub ? (ux - uy) & mask : ux;
	int64_t sr = sext(res, bytes), sx = sext(ux, bytes), sy = sext(uy, bytes);
	int zf = res == 0, sf = sr < 0, cf = sub && ux < uy;
	int of = sub && (sx < 0) != (sy < 0) && (sr < 0) != (sx < 0);

	if (!strcmp(cc, "z") || !strcmp(cc, "e"))
		return zf;
	if (!strcmp(cc, "nz") || !strcmp(cc, "ne"))
		return !zf;
	if (!strcmp(cc, "s"))
		return sf;
	if (!strcmp(cc, "ns"))
		return !sf;
	if (!sub)
		return -1;
	if (!strcmp(cc, "b") || !strcmp(cc, "c") || !strcmp(cc, "nae"))
		return cf;
	if (!strcmp(cc, "nb") || !strcmp(cc, "ae") || !strcmp(cc, "nc"))
		return !cf;
	if (!strcmp(cc, "be") || !strcmp(cc, "na"))
		return cf || zf;
	if (!strcmp(cc, "nbe") || !strcmp(cc, "a"))
		return !cf && !zf;
	if (!strcmp(cc, "l") || !strcmp(cc, "nge"))
		return sf != of;
	if (!strcmp(cc, "nl") || !strcmp(cc, "ge"))
		return sf == of;
	if (!strcmp(cc, "le") || !strcmp(cc, "ng"))
		return zf || sf != of;
	if (!strcmp(cc, "nle") || !strcmp(cc, "g"))
		return !zf && sf == of;
	return -1;
}

/* Iterations run from counter start s and bound b, or 0 past limit
 * (or for an unknown condition). */
static long iterations(const struct rp *p, int64_t s, int64_t b, long limit)
{
	long k;

	for (k = 0; k < limit; k++) {
		int64_t v = s + (int64_t)k * p->step[p->counter] + p->pre_cmp;
		int t = p->value_flags ? taken(p->cc, v, 0, p->width, 0) :
			p->counter_first ? taken(p->cc, v, b, p->width, 1) :
					   taken(p->cc, b, v, p->width, 1);

		if (t < 0)
			return 0;
		if (!t)
			return k + 1;
	}
	return 0;
}

/* A counter start (bound fixed) or a bound (start fixed) giving exactly
 * trips iterations: *out, or 1 when none of the candidates does. */
static int solve(const struct rp *p, long trips, int free_start,
		 int64_t fixed, int64_t *out)
{
	long long st = p->step[p->counter];
	int64_t last = (int64_t)(trips - 1) * st + p->pre_cmp;
	const int64_t e[] = {0, -st, st, -1, 1};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(e); i++) {
		int64_t cand = free_start ? fixed - last + e[i] : last + e[i];
		long n = free_start ? iterations(p, cand, fixed, trips + 1) :
				      iterations(p, fixed, cand, trips + 1);

		if (n == trips) {
			*out = cand;
			return 0;
		}
	}
	return 1;
}

/* ---- Streams (one per base register) and the walk. ---- */

static int group_of(struct rp *p, int base)
{
	size_t g;

	for (g = 0; g < p->ngroups; g++)
		if (p->groups[g].reg == base)
			return (int)g;
	LK_GROW(p->groups, p->ngroups + 1, p->agroups);
	memset(&p->groups[p->ngroups], 0, sizeof(*p->groups));
	p->groups[p->ngroups].reg = base;
	return (int)p->ngroups++;
}

static int make_groups(struct rp *p, int max_streams)
{
	size_t i;

	for (i = 0; i < p->naccs; i++) {
		const struct rp_acc *a = &p->accs[i];
		int k = group_of(p, a->base);
		struct rp_group *g = &p->groups[k];

		if (llabs(a->stride) > llabs(g->stride))
			g->stride = a->stride;
		if (a->index >= 0)
			p->is_index[a->index] = 1;
	}
	for (i = 0; i < p->ngroups; i++) {
		int r = p->groups[i].reg;

		/* a base filled from the stack gets its array there */
		if (p->written[r] && !p->induction[r] &&
		    (!p->filled[r] || add_slot(p, p->fill_disp[r], r)))
			return refuse(p, "address not affine in the induction "
				      "registers (%%%s)", mdl_rp_gpr_names[r]);
		if (p->is_index[r])
			return refuse(p, "address not affine in the induction "
				      "registers (%%%s is a base and an "
				      "index)", mdl_rp_gpr_names[r]);
		if (r == p->bound)
			return refuse(p, "loop exit not understood (the bound "
				      "register %%%s addresses memory)",
				      mdl_rp_gpr_names[r]);
	}
	if (p->bound >= 0 && p->bound < NGPR && p->is_index[p->bound])
		return refuse(p, "loop exit not understood (the bound "
			      "register %%%s addresses memory)",
			      mdl_rp_gpr_names[p->bound]);
	if ((long)p->ngroups > max_streams)
		return refuse(p, "more than %d streams (%zu base registers)",
			      max_streams, p->ngroups);
	return 0;
}

/* The byte range of group g over one call, from its base's value. */
static void footprint(struct rp *p, struct rp_group *g)
{
	size_t i;
	int first = 1;

	for (i = 0; i < p->naccs; i++) {
		const struct rp_acc *a = &p->accs[i];
		long long off, lo, hi, run = (long long)(p->trips - 1) *
					     a->stride;

		if (a->base != g->reg)
			continue;
		off = a->disp + (a->index >= 0 ? (long long)a->scale *
				 (p->start[a->index] + a->pre_index) : 0);
		lo = off + (run < 0 ? run : 0);
		hi = off + (run > 0 ? run : 0) + a->bytes;
		if (first) {
			g->index_off = off - a->disp;
			g->disp_lo = g->disp_hi = a->disp;
		}
		if (first || lo < g->lo)
			g->lo = lo;
		if (first || hi > g->hi)
			g->hi = hi;
		if (a->disp < g->disp_lo)
			g->disp_lo = a->disp;
		if (a->disp > g->disp_hi)
			g->disp_hi = a->disp;
		first = 0;
	}
}

static long round_up(long x, long to)
{
	return (x + to - 1) / to * to;
}

/* Each stream's touch (walk.c): its accesses' offsets in one
 * iteration, before the index registers' starts (common to a stream's
 * accesses of one index). */
static void touch_groups(struct rp *p)
{
	struct mdl_span *sp = lk_calloc(p->naccs + 1, sizeof(*sp));
	size_t g, i, n;

	for (g = 0; g < p->ngroups; g++) {
		for (i = n = 0; i < p->naccs; i++) {
			const struct rp_acc *a = &p->accs[i];

			if (a->base != p->groups[g].reg)
				continue;
			sp[n].off = a->disp + (a->index >= 0 ?
				(long long)a->scale * a->pre_index : 0);
			sp[n++].size = a->bytes;
		}
		mdl_stream_touch(p->groups[g].stride, sp, n,
				 &p->groups[g].touch);
	}
	free(sp);
}

/* Trips per call: the compiled count when the bound is an immediate
 * and its footprint fits; else as many as the level allows, at most
 * ITERATIONS_PER_CALL canonical iterations, a multiple of what keeps
 * every chunk 64-byte aligned. The level's bytes are those of the
 * lines the streams touch (walk.c), not the bytes they span. */
static void choose_trips(struct rp *p, long unroll)
{
	long walk = 0, per_call, sweep, unit = 1, natural = 0, lanes = 1;
	size_t i;

	touch_groups(p);
	for (i = 0; i < p->ngroups; i++) {
		long s = labs((long)p->groups[i].stride), u = 64;

		walk += (long)p->groups[i].touch.touched;
		if (p->groups[i].touch.lanes > lanes)
			lanes = p->groups[i].touch.lanes;
		while (s && u > 1 && s % u)
			u /= 2;
		if (s && 64 / u > unit)
			unit = 64 / u;
	}
	p->walk = walk;
	if (p->has_imm && !p->is_base[p->counter])
		natural = iterations(p, 0, p->imm, SIMULATE_MAX);
	per_call = ITERATIONS_PER_CALL / unroll > 0 ? ITERATIONS_PER_CALL /
						     unroll : 1;
	sweep = walk ? p->bytes / walk : per_call;
	if (sweep < 1)
		sweep = 1;
	if (natural > 0 && (!walk || natural <= sweep)) {
		p->trips = natural;
		p->kept = 1;
	} else {
		p->trips = mdl_walk_trips(sweep, per_call,
					  MIN_CALL / unroll > 0 ?
						  MIN_CALL / unroll : 1,
					  lanes);
		if (p->trips >= unit)
			p->trips = p->trips / unit * unit;
	}
	p->chunks = walk ? sweep / p->trips : 1;
	if (p->chunks < 1)
		p->chunks = 1;
}

/* Counter start and bound; the index registers' starts (0). */
static int solve_exit(struct rp *p)
{
	int64_t v;

	if (p->is_base[p->counter]) {
		if (p->bound < 0)
			return refuse(p, "loop exit not understood (a "
				      "pointer compared with a constant)");
		if (solve(p, p->trips, 0, 0, &v))
			return refuse(p, "loop exit not understood "
				      "(condition %s)", p->cc);
		p->bound_delta = v;
		return 0;
	}
	if (p->bound >= 0) {
		p->start[p->counter] = 0;
		if (solve(p, p->trips, 0, 0, &v))
			return refuse(p, "loop exit not understood "
				      "(condition %s)", p->cc);
		p->bound_delta = v;
		return 0;
	}
	if (p->kept)
		return 0;             /* start 0 gives the compiled trips */
	if (solve(p, p->trips, 1, p->has_imm ? p->imm : 0, &v))
		return refuse(p, "loop exit not understood (condition %s)",
			      p->cc);
	p->start[p->counter] = v;
	return 0;
}

/* The smallest shift of a group's base, mod 64, aligning every access
 * that needs it (0 when none does, or none fits). */
static long align_shift(const struct rp *p, const struct rp_group *g)
{
	long d;
	size_t i;

	for (d = 0; d < 64; d++) {
		int ok = 1;

		for (i = 0; i < p->naccs && ok; i++) {
			const struct rp_acc *a = &p->accs[i];
			long long off = a->disp + (a->index >= 0 ?
				(long long)a->scale * (p->start[a->index] +
						       a->pre_index) : 0);

			if (a->base == g->reg && a->align > 1)
				ok = ((off - g->index_off + d) % a->align +
				      a->align) % a->align == 0;
		}
		if (ok)
			return d;
	}
	return 0;
}

static int layout(struct rp *p)
{
	size_t i;

	for (i = 0; i < p->ngroups; i++) {
		struct rp_group *g = &p->groups[i];
		long rel_lo, rel_hi, s = labs((long)g->stride), run;
		long step = round_up(p->trips * s, 64);

		mdl_walk_cycle(p->chunks, g->touch.lanes, &g->blocks,
			       &g->lanes);
		run = (g->blocks - 1) * step;
		footprint(p, g);
		g->shift = align_shift(p, g);
		if (g->disp_hi - g->disp_lo > SPAN_MAX)
			return refuse(p, "displacement span over 64 MiB (%lld "
				      "bytes from %%%s)", g->disp_hi -
				      g->disp_lo, mdl_rp_gpr_names[g->reg]);
		rel_lo = g->lo - g->index_off;
		rel_hi = g->hi - g->index_off;
		g->origin = round_up(rel_lo < 0 ? -rel_lo : 0, 64) + 64 +
			    (g->stride < 0 ? run : 0) + g->shift;
		g->chunk_step = g->stride < 0 ? -step : g->stride ? step : 0;
		g->alloc = round_up(g->origin + (g->stride > 0 ? run : 0) +
				    (rel_hi > 0 ? rel_hi : 0) +
				    (g->lanes - 1) * (long)g->touch.lane_step +
				    64, 64);
	}
	return 0;
}

/* ---- The entry. ---- */

static int decode(struct rp *p, const struct lk_cfg *cfg, size_t head)
{
	const struct lk_block *b = &cfg->blocks[head];
	size_t i;

	p->insns = &cfg->insns[b->first];
	p->ninsns = b->ninsns;
	p->loop_addr = b->start;
	p->ops = lk_calloc(b->ninsns + 1, sizeof(*p->ops));
	for (i = 0; i + 1 < b->ninsns; i++)
		if (lk_insn_operands(p->insns[i].bytes, p->insns[i].len,
				     &p->ops[p->n++]))
			return refuse(p, "an instruction does not decode");
	return 0;
}

/* Why a loop that is not one block is refused: a call or a system call
 * ends its header block, else control flow inside its body. */
static char *multi_block_reason(const struct lk_cfg *cfg, size_t head)
{
	const struct lk_block *b = &cfg->blocks[head];
	const struct lk_insn *last = b->ninsns ?
		&cfg->insns[b->first + b->ninsns - 1] : NULL;

	if (last && (last->kind == LK_INSN_CALL || last->kind == LK_INSN_ICALL))
		return lk_strdup("call inside the loop");
	if (last && last->kind == LK_INSN_SYSCALL)
		return lk_strdup("system call inside the loop");
	return lk_strdup("multi-block loop (control flow inside the body)");
}

/* A loop this CPU cannot run is refused, not run into a SIGILL: EVEX
 * (AVX-512) code without avx512f and avx512vl, FMA without fma, VEX
 * without avx. */
static int runs_here(struct rp *p)
{
	struct lk_insn_facts f;
	size_t i;

	for (i = 0; i < p->ninsns; i++) {
		const char *lacks = NULL;

		if (lk_insn_facts(p->insns[i].bytes, p->insns[i].len, &f))
			continue;
		if (f.encoding == LK_ENCODING_EVEX &&
		    (!__builtin_cpu_supports("avx512f") ||
		     !__builtin_cpu_supports("avx512vl")))
			lacks = "avx512f and avx512vl";
		else if (f.fma && !__builtin_cpu_supports("fma"))
			lacks = "fma";
		else if (f.encoding == LK_ENCODING_VEX &&
			 !__builtin_cpu_supports("avx"))
			lacks = "avx";
		if (lacks)
			return refuse(p, "the loop needs %s, which this CPU "
				      "lacks (%s)", lacks, f.mnemonic);
	}
	return 0;
}

static int analyse(struct rp *p, const struct lk_cfg *cfg, size_t head,
		   const struct lk_mdl_replay_opts *o, long unroll)
{
	const struct lk_block *b = &cfg->blocks[head];
	const struct lk_insn *last = &cfg->insns[b->first + b->ninsns - 1];
	struct lk_insn_facts f;
	size_t i;

	if (decode(p, cfg, head) || runs_here(p))
		return 1;
	scan(p);
	if (accesses(p))
		return 1;
	if (lk_insn_facts(last->bytes, last->len, &f))
		return refuse(p, "an instruction does not decode");
	if (exit_test(p, f.mnemonic))
		return 1;
	for (i = 0; i < p->naccs; i++)
		p->is_base[p->accs[i].base] = 1;
	if (make_groups(p, o->max_streams))
		return 1;
	choose_trips(p, unroll);
	return solve_exit(p) || layout(p);
}

int lk_mdl_replay(struct lk_ctx *ctx, const struct lk_cfg *cfg, size_t head,
		  const struct lk_mdl_replay_opts *o, struct lk_mdl_replay *out,
		  struct lk_buf *c_source)
{
	struct lk_mdl_extraction x;
	struct lk_env_caches caches;
	struct rp p;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	out->level = o->level;
	out->bytes = o->bytes;
	if (out->bytes <= 0) {
		lk_env_cache_sizes(&caches);
		out->bytes = lk_mdl_level_bytes(o->level, &caches);
	}
	if (out->bytes <= 0)
		return lk_error(ctx, LK_EINPUT, "the cache size behind level %s "
				"is unknown on this machine: give the working "
				"set in bytes", lk_mdl_level_name(o->level));
	ret = lk_mdl_extract(ctx, cfg, head, &x);
	if (ret)
		return ret;
	out->loop = x.loop;
	out->unroll = x.unroll > 0 ? x.unroll : 1;
	if (x.refused) {
		out->refused = 1;
		out->reason = !strcmp(x.reason, "control flow inside the loop "
				      "body") ? multi_block_reason(cfg, head)
					      : lk_strdup(x.reason);
		lk_mdl_extraction_release(&x);
		return 0;
	}
	lk_mdl_extraction_release(&x);
	p.bytes = out->bytes;
	p.binary = cfg->fn.binary;
	if (analyse(&p, cfg, head, o, out->unroll)) {
		out->refused = 1;
		out->reason = p.reason ? p.reason : lk_strdup("not replayable");
		p.reason = NULL;
	} else {
		out->trips = p.trips;
		out->chunks = p.chunks;
		out->kept = p.kept;
		out->streams = p.ngroups;
		out->walk = p.walk;
		mdl_rp_emit(&p, out, o->source ? o->source : cfg->fn.name,
			    c_source);
	}
	free(p.ops);
	free(p.accs);
	free(p.groups);
	free(p.rip_data);
	free(p.rip_known);
	free(p.stack);
	free(p.reason);
	return 0;
}
