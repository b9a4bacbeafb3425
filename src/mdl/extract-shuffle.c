/*
 * Extraction: the lane selections of the shuffles whose selection is
 * known from the mnemonic and its immediate (rule 7 of
 * doc/loopkit-mdl.md); extract.c's walk applies them lane by lane.
 */
#include <stdlib.h>
#include <string.h>

#include "extract-int.h"

/* ---- Shuffles whose lane selection is known (rule 7). ---- */

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

/* valign[dq], vperm(pd|q) by an immediate, vpermilpd, vperm2f128,
 * extract and insert of 128/256-bit halves: lanes across the register. */
static int perm_cross(const char *m, const struct lk_operand *d, int s1,
		      int s2, int one, long long imm, int has_imm,
		      unsigned b2, unsigned L, struct perm *p)
{
	unsigned j, k, w;

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
	/* vperm2f128/vperm2i128: each 128-bit half of the destination one
	 * half of either source (imm[1:0], imm[5:4]); zeroing not known */
	if ((!strcmp(m, "perm2f128") || !strcmp(m, "perm2i128")) &&
	    has_imm && s1 && !(imm & 0x88) && d->bytes == 32) {
		p->elem = 8;
		for (j = 0; j < 4; j++) {
			k = (unsigned)(imm >> (j < 2 ? 0 : 4)) & 3;
			sel(p, j, k < 2 ? s1 : s2, (k & 1) * 2 + j % 2);
		}
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

static int perm_shuffle(const char *m, const struct lk_operand *d, int s1,
			int s2, int one, long long imm, int has_imm,
			unsigned b2, struct perm *p)
{
	size_t n = strlen(m);
	unsigned L, j;

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
	return perm_cross(m, d, s1, s2, one, imm, has_imm, b2, L, p);
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

/* The element of index vector bytes b at lane j, elem bytes wide. */
static unsigned long long index_at(const uint8_t *b, unsigned j, unsigned elem)
{
	unsigned long long v = 0;
	unsigned i;

	for (i = elem; i-- > 0;)
		v = v << 8 | b[j * elem + i];
	return v;
}

/* vpermt2*, vpermi2*: two tables, lanes chosen by the index vector;
 * vperm(pd|q|d|ps) by register: one table. The index register must be a
 * known constant. */
static int perm_index(const char *m, const struct lk_insn_ops *in,
		      const struct xconsts *k, struct perm *p)
{
	size_t n = strlen(m);
	int t2 = !strncmp(m, "permt2", 6), i2 = !strncmp(m, "permi2", 6);
	int one = !strcmp(m, "permpd") || !strcmp(m, "permq") ||
		  !strcmp(m, "permd") || !strcmp(m, "permps");
	const struct lk_operand *d = &in->ops[0], *ix;
	unsigned elem, L, j;
	unsigned long long x;

	if (!k || (!t2 && !i2 && !one) || in->nops < 3 ||
	    in->ops[1].kind != LK_OPND_REG || in->ops[2].implicit)
		return 0;
	if (one && in->ops[2].kind == LK_OPND_IMM)
		return 0;            /* by an immediate: perm_cross's */
	ix = i2 ? &in->ops[0] : &in->ops[1];
	if (ix->kind != LK_OPND_REG || ix->reg >= k->n || !k->known[ix->reg])
		return 0;
	elem = !strcmp(m + n - 2, "pd") || m[n - 1] == 'q' ? 8 : 4;
	L = d->bytes / elem;
	if (!L || L > VBYTES)
		return 0;
	p->elem = elem;
	for (j = 0; j < L; j++) {
		x = index_at(k->bytes[ix->reg], j, elem);
		if (one)
			sel(p, j, 2, (unsigned)(x % L));
		else if ((x & L) == 0)   /* x mod 2L < L: the first table */
			sel(p, j, i2 ? 1 : 0, (unsigned)(x % L));
		else
			sel(p, j, 2, (unsigned)(x % L));
	}
	return 1;
}

/* The lane selection of in, when it is a known shuffle without a mask:
 * s1, s2 are its two sources (the legacy two-operand forms read the
 * destination as s1), one its only source. */
int mdl_x_permutation(const struct lk_insn_ops *in,
		      const struct xconsts *known, struct perm *p)
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
	if (perm_index(m, in, known, p))
		return p->n > 0;
	return perm_shuffle(m, d, s1, s2, s[0], imm, has_imm,
			    in->ops[s2].bytes, p) && p->n;
}
