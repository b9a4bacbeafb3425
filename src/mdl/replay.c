/*
 * Replay: a binary's innermost loop re-run verbatim as a C benchmark
 * (doc/loopkit-mdl.md, "replay"). The loop's bytes go into a top-level
 * asm function between a prologue that sets every general register the
 * loop uses (stream bases at arrays sized for a memory level, index and
 * counter registers at a start, a bound register at start + trips x
 * step) and every vector register (1.0), and an epilogue. RIP-relative
 * reads are re-aimed at a scratch copy; a call advances the bases one
 * chunk, round-robin over the level's working set.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/env.h"
#include "mdl-int.h"
#include "replay-int.h"

#define NGPR 16
#define RSP 4
#define FRAME 65536L                 /* the kernel's stack scratch */
#define SPAN_MAX (64L << 20)         /* displacement span of a stream */
#define ITERATIONS_PER_CALL 8192L    /* canonical, as concretize */
#define SIMULATE_MAX (1L << 24)

static const char *const gpr_names[NGPR] = {
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
		if (!strcmp(name, gpr_names[i]))
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

/* "r <- r + c" (add/sub imm, inc, dec, lea c(r)) into *r, *c. */
static int induction_def(const struct lk_insn_ops *in, int *r, long long *c)
{
	const struct lk_operand *d = &in->ops[0];

	if (!in->nops || d->kind != LK_OPND_REG || !d->write ||
	    (*r = gpr_of(d->reg)) < 0)
		return 0;
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
		    gpr_of(in->ops[1].base) != *r || in->ops[1].index)
			return 0;
		*c = in->ops[1].disp;
		return 1;
	default:
		return 0;
	}
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

/* Registers: used, written, inductions and their steps. */
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
				other[g] = 1;
			}
		}
	}
	for (i = 0; i < NGPR; i++)
		p->induction[i] = ind[i] && !other[i];
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

static int add_access(struct rp *p, const struct lk_insn_ops *in,
		      const struct lk_operand *o, const long long *pre)
{
	struct rp_acc *a;
	int b = gpr_of(o->base), x = gpr_of(o->index);

	if (o->vsib)
		return refuse(p, "indirect access (a gather or scatter)");
	if (o->base && lk_reg_class_of(o->base) == LK_REG_IP) {
		if (o->write)
			return refuse(p, "written RIP-relative data");
		return 0;
	}
	if (b == RSP) {
		if (x >= 0 || o->disp < -128 || o->disp + (long)o->bytes >
		    FRAME - 128)
			return refuse(p, "displacement span over %ld bytes "
				      "(a stack access at %lld)", FRAME - 128,
				      (long long)o->disp);
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

		if (p->is_index[r])
			return refuse(p, "address not affine in the induction "
				      "registers (%%%s is a base and an "
				      "index)", gpr_names[r]);
		if (r == p->bound)
			return refuse(p, "loop exit not understood (the bound "
				      "register %%%s addresses memory)",
				      gpr_names[r]);
	}
	if (p->bound >= 0 && p->is_index[p->bound])
		return refuse(p, "loop exit not understood (the bound "
			      "register %%%s addresses memory)",
			      gpr_names[p->bound]);
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

/* Trips per call: the compiled count when the bound is an immediate
 * and its footprint fits; else as many as the level allows, at most
 * ITERATIONS_PER_CALL canonical iterations, a multiple of what keeps
 * every chunk 64-byte aligned. */
static void choose_trips(struct rp *p, long unroll)
{
	long walk = 0, per_call, sweep, unit = 1, natural = 0;
	size_t i;

	for (i = 0; i < p->ngroups; i++) {
		long s = labs((long)p->groups[i].stride), u = 64;

		walk += s;
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
		p->trips = sweep < per_call ? sweep : per_call;
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
		long rel_lo, rel_hi, s = labs((long)g->stride);
		long step = round_up(p->trips * s, 64);
		long run = (p->chunks - 1) * step;

		footprint(p, g);
		g->shift = align_shift(p, g);
		if (g->disp_hi - g->disp_lo > SPAN_MAX)
			return refuse(p, "displacement span over 64 MiB (%lld "
				      "bytes from %%%s)", g->disp_hi -
				      g->disp_lo, gpr_names[g->reg]);
		rel_lo = g->lo - g->index_off;
		rel_hi = g->hi - g->index_off;
		g->origin = round_up(rel_lo < 0 ? -rel_lo : 0, 64) + 64 +
			    (g->stride < 0 ? run : 0) + g->shift;
		g->chunk_step = g->stride < 0 ? -step : g->stride ? step : 0;
		g->alloc = round_up(g->origin + (g->stride > 0 ? run : 0) +
				    (rel_hi > 0 ? rel_hi : 0) + 64, 64);
	}
	return 0;
}

/* ---- The C file. ---- */

static void emit_header(const struct rp *p, const struct lk_mdl_replay *r,
			const char *source, struct lk_buf *out)
{
	size_t i;

	lk_buf_adds(out, "/* loopkit-mdl-replay: source=");
	for (i = 0; source[i]; i++)
		lk_buf_addch(out, source[i] == '*' ||
				  (unsigned char)source[i] <= ' ' ? '_' :
				  source[i]);
	lk_buf_addf(out, " loop=0x%llx level=%s bytes=%ld trips=%ld kept=%d "
		    "chunks=%ld streams=%zu unroll=%ld iterations-per-step=%ld "
		    "*/\n", (unsigned long long)r->loop,
		    lk_mdl_level_name(r->level), r->bytes, r->trips, r->kept,
		    r->chunks, p->ngroups, r->unroll, r->trips);
	lk_buf_addf(out, "/*\n * Generated by loopkit mdl replay "
		    "(doc/loopkit-mdl.md). One step calls the\n * loop once: "
		    "%ld iterations of its compiled code (%ld canonical "
		    "iterations\n * each), the base registers on chunk c of "
		    "their arrays, c going round\n * the %ld chunks in turn. "
		    "The loop, verbatim:\n", r->trips, r->unroll, r->chunks);
	for (i = 0; i < p->ninsns; i++) {
		const char *t = p->insns[i].att ? p->insns[i].att : "?";

		lk_buf_adds(out, " *   ");
		for (; *t; t++)
			lk_buf_addch(out, t[0] == '*' && t[1] == '/' ? '.' : *t);
		lk_buf_adds(out, "\n");
	}
	lk_buf_adds(out, " */\n#include <lkrt.h>\n\n");
}

static void emit_tables(const struct rp *p, struct lk_buf *out)
{
	static const char *const fields[] = {"rp_alloc", "rp_origin",
					     "rp_chunk_step", "rp_index_off"};
	size_t i, f;
	int r;

	lk_buf_addf(out, "#define RP_GROUPS %zu\n#define RP_CHUNKS %ldL\n"
		    "typedef %s rp_elem;\n\n", p->ngroups, p->chunks,
		    p->fp4 > p->fp8 ? "float" : "double");
	lk_buf_adds(out, "/* Per stream (base register): bytes allocated, "
		    "the address of chunk 0\n * from the array's start, the "
		    "change from one chunk to the next, and\n * what the index "
		    "registers add to the base. */\n");
	lk_buf_adds(out, "static const int rp_reg[RP_GROUPS + 1] = {");
	for (i = 0; i < p->ngroups; i++)
		lk_buf_addf(out, "%d, ", p->groups[i].reg);
	lk_buf_adds(out, "0};\n");
	for (f = 0; f < LK_ARRAY_SIZE(fields); f++) {
		lk_buf_addf(out, "static const long %s[RP_GROUPS + 1] = {",
			    fields[f]);
		for (i = 0; i < p->ngroups; i++) {
			const struct rp_group *g = &p->groups[i];
			long v = f == 0 ? g->alloc : f == 1 ? g->origin :
				 f == 2 ? g->chunk_step : g->index_off;

			lk_buf_addf(out, "%ldL, ", v);
		}
		lk_buf_adds(out, "0};\n");
	}
	lk_buf_adds(out, "\n/* The registers on entry, rax..r15 (bases set "
		    "per step). */\nstatic long rp_gpr[16] = {");
	for (r = 0; r < NGPR; r++)
		lk_buf_addf(out, "%lldL%s", (long long)p->start[r],
			    r + 1 < NGPR ? ", " : "};\n");
	lk_buf_adds(out, "static rp_elem rp_ones[64 / sizeof(rp_elem)] "
		    "__attribute__((aligned(64)));\nstatic char *rp_base"
		    "[RP_GROUPS + 1];\nstatic char *rp_array[RP_GROUPS + 1];\n"
		    "static long rp_chunk;\n\n");
}

static void emit_bytes(struct lk_buf *out, const uint8_t *b, size_t n)
{
	size_t i;

	if (!n)
		return;
	lk_buf_adds(out, "\t\".byte ");
	for (i = 0; i < n; i++)
		lk_buf_addf(out, "0x%02x%s", b[i], i + 1 < n ? "," : "\\n\"\n");
}

static void emit_prologue(const struct rp *p, struct lk_buf *out)
{
	const char *mov = p->vex ? "vmovups" : "movups";
	const char *v = p->vbytes > 32 ? "zmm" : p->vbytes > 16 ? "ymm" :
					  "xmm";
	int r;

	lk_buf_adds(out, "__attribute__((visibility(\"hidden\"))) void\n"
		    "lk_replay_kernel(const long *gpr, const void *ones);\n\n"
		    "__asm__(\n\t\".text\\n\"\n\t\".p2align 6\\n\"\n"
		    "\t\".globl lk_replay_kernel\\n\"\n"
		    "\t\".hidden lk_replay_kernel\\n\"\n"
		    "\t\".type lk_replay_kernel, @function\\n\"\n"
		    "\t\"lk_replay_kernel:\\n\"\n"
		    "\t\"push %rbx\\n\"\n\t\"push %rbp\\n\"\n"
		    "\t\"push %r12\\n\"\n\t\"push %r13\\n\"\n"
		    "\t\"push %r14\\n\"\n\t\"push %r15\\n\"\n");
	lk_buf_addf(out, "\t\"sub $%ld, %%rsp\\n\"\n", FRAME);
	for (r = 0; r < 32; r++)
		if (p->vec >> r & 1)
			lk_buf_addf(out, "\t\"%s (%%rsi), %%%s%d\\n\"\n", mov,
				    r >= 16 ? "zmm" : v, r);
	for (r = 1; r < 8; r++)
		if (p->mask >> r & 1)
			lk_buf_addf(out, "\t\"mov $-1, %%eax\\n\"\n\t\"kmovw "
				    "%%eax, %%k%d\\n\"\n", r);
	for (r = 0; r < NGPR; r++)
		if (p->used[r] && r != RSP && r != 7)
			lk_buf_addf(out, "\t\"mov %d(%%rdi), %%%s\\n\"\n", r * 8,
				    gpr_names[r]);
	if (p->used[7])
		lk_buf_adds(out, "\t\"mov 56(%rdi), %rdi\\n\"\n");
	lk_buf_addf(out, "\t\"jmp .Lrp_loop\\n\"\n\t\".p2align 6\\n\"\n");
	if (p->loop_addr & 63)
		lk_buf_addf(out, "\t\".skip %u, 0x90\\n\"\n",
			    (unsigned)(p->loop_addr & 63));
	lk_buf_adds(out, "\t\".Lrp_loop:\\n\"\n");
}

/* The loop's bytes; a RIP-relative displacement re-aimed at slot k of
 * the scratch data (64 bytes of ones each). */
static void emit_loop(struct rp *p, struct lk_buf *out)
{
	size_t i;

	for (i = 0; i < p->ninsns; i++) {
		const struct lk_insn *in = &p->insns[i];
		struct lk_insn_facts f;

		if (lk_insn_facts(in->bytes, in->len, &f) || !f.rip_relative ||
		    f.disp_offset + 4 > in->len) {
			emit_bytes(out, in->bytes, in->len);
			continue;
		}
		emit_bytes(out, in->bytes, f.disp_offset);
		lk_buf_addf(out, "\t\".long .Lrp_rip%zu - .Lrp_end%zu\\n\"\n",
			    p->nrip, i);
		emit_bytes(out, in->bytes + f.disp_offset + 4,
			   in->len - f.disp_offset - 4);
		lk_buf_addf(out, "\t\".Lrp_end%zu:\\n\"\n", i);
		p->nrip++;
	}
}

static void emit_epilogue(const struct rp *p, struct lk_buf *out)
{
	size_t k;

	lk_buf_addf(out, "\t\"add $%ld, %%rsp\\n\"\n", FRAME);
	if (p->vex)
		lk_buf_adds(out, "\t\"vzeroupper\\n\"\n");
	lk_buf_adds(out, "\t\"pop %r15\\n\"\n\t\"pop %r14\\n\"\n"
		    "\t\"pop %r13\\n\"\n\t\"pop %r12\\n\"\n"
		    "\t\"pop %rbp\\n\"\n\t\"pop %rbx\\n\"\n\t\"ret\\n\"\n"
		    "\t\".size lk_replay_kernel, .-lk_replay_kernel\\n\"\n");
	if (p->nrip)
		lk_buf_adds(out, "\t\".pushsection .rodata\\n\"\n"
			    "\t\".p2align 6\\n\"\n");
	for (k = 0; k < p->nrip; k++)
		lk_buf_addf(out, "\t\".Lrp_rip%zu:\\n\"\n\t\".rept %d\\n\"\n"
			    "\t\"%s 1.0\\n\"\n\t\".endr\\n\"\n", k,
			    p->fp4 > p->fp8 ? 16 : 8,
			    p->fp4 > p->fp8 ? ".float" : ".double");
	if (p->nrip)
		lk_buf_adds(out, "\t\".popsection\\n\"\n");
	lk_buf_adds(out, ");\n\n");
}

static void emit_driver(const struct rp *p, struct lk_buf *out)
{
	lk_buf_adds(out, "/* One measured step: the loop on the current "
		    "chunk. */\nstatic void rp_step(void)\n{\n\tlong g;\n\n"
		    "\tfor (g = 0; g < RP_GROUPS; g++)\n"
		    "\t\trp_gpr[rp_reg[g]] = (long)(rp_array[g] + "
		    "rp_origin[g] +\n\t\t\trp_chunk * rp_chunk_step[g]) - "
		    "rp_index_off[g];\n");
	if (p->bound >= 0)
		lk_buf_addf(out, "\trp_gpr[%d] = rp_gpr[%d] + %lldL;\n",
			    p->bound, p->counter, (long long)p->bound_delta);
	lk_buf_adds(out,
		"\tlk_replay_kernel(rp_gpr, rp_ones);\n"
		"\tif (++rp_chunk == RP_CHUNKS)\n\t\trp_chunk = 0;\n}\n\n"
		"int main(int argc, char **argv)\n{\n\tlong k, i;\n"
		"\tunsigned csr;\n\n\tlk_init(argc, argv);\n"
		"\t/* Flush denormals to zero, read them as zero. */\n"
		"\t__asm__ volatile(\"stmxcsr %0\" : \"=m\"(csr));\n"
		"\tcsr |= 0x8040;\n"
		"\t__asm__ volatile(\"ldmxcsr %0\" : : \"m\"(csr));\n"
		"\tfor (i = 0; i < (long)(64 / sizeof(rp_elem)); i++)\n"
		"\t\trp_ones[i] = 1;\n"
		"\t/* Stream k starts k * (1 KiB + 64) bytes into its pages: "
		"no\n\t * two streams alias modulo 4 KiB. */\n"
		"\tfor (k = 0; k < RP_GROUPS; k++) {\n"
		"\t\tlong stagger = k * (1024 + 64);\n\t\trp_elem *e;\n\n"
		"\t\trp_base[k] = lk_alloc((size_t)(rp_alloc[k] + stagger));\n"
		"\t\trp_array[k] = rp_base[k] + stagger;\n"
		"\t\te = (rp_elem *)(void *)rp_array[k];\n"
		"\t\tfor (i = 0; i < rp_alloc[k] / (long)sizeof(rp_elem); i++)\n"
		"\t\t\te[i] = 1;\n\t}\n"
		"\tLK_MEASURE_NAMED(\"replay\", rp_step());\n"
		"\tfor (k = 0; k < RP_GROUPS; k++)\n\t\tlk_free(rp_base[k]);\n"
		"\treturn lk_finish();\n}\n");
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

static int analyse(struct rp *p, const struct lk_cfg *cfg, size_t head,
		   const struct lk_mdl_replay_opts *o, long unroll)
{
	const struct lk_block *b = &cfg->blocks[head];
	const struct lk_insn *last = &cfg->insns[b->first + b->ninsns - 1];
	struct lk_insn_facts f;
	size_t i;

	if (decode(p, cfg, head))
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
		emit_header(&p, out, o->source ? o->source : cfg->fn.name,
			    c_source);
		emit_tables(&p, c_source);
		emit_prologue(&p, c_source);
		emit_loop(&p, c_source);
		emit_epilogue(&p, c_source);
		emit_driver(&p, c_source);
	}
	free(p.ops);
	free(p.accs);
	free(p.groups);
	free(p.reason);
	return 0;
}

int lk_mdl_replay_record(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_mdl_replay *r,
			 const struct lk_buf *c_source, int64_t *variant_id)
{
	char src_hash[LK_HASH_HEX], hash[LK_HASH_HEX], num[5][32];
	struct lk_hash h;
	char *path = NULL;
	int ret = mdl_store_object(ctx, s, c_source, src_hash, &path);

	if (ret)
		goto out;
	snprintf(num[0], sizeof(num[0]), "0x%llx",
		 (unsigned long long)r->loop);
	snprintf(num[1], sizeof(num[1]), "%ld", r->bytes);
	snprintf(num[2], sizeof(num[2]), "%ld", r->trips);
	snprintf(num[3], sizeof(num[3]), "%ld", r->unroll);
	snprintf(num[4], sizeof(num[4]), "%ld", r->chunks);
	{
		const struct lk_param params[] = {
			{"loop", num[0]}, {"level", lk_mdl_level_name(r->level)},
			{"bytes", num[1]}, {"iterations-per-step", num[2]},
			{"unroll", num[3]}, {"chunks", num[4]}};
		struct lk_variant_rec rec;

		lk_hash_init(&h);
		lk_hash_add_str(&h, src_hash);
		lk_hash_add_str(&h, "gcc -O2");
		lk_hash_final(&h, hash);
		rec = (struct lk_variant_rec){hash, path, src_hash, "gcc",
					      "default", "-O2", params,
					      LK_ARRAY_SIZE(params)};
		ret = lk_store_variant_put(ctx, s, campaign, &rec, variant_id);
	}
out:
	free(path);
	return ret;
}
