/*
 * Algorithms 1-3 of the seed (arithmetic pre-schedule, load/store/
 * arithmetic bundles, neutral register allocation), with the defects of
 * their printed versions corrected: see concretize.h and
 * doc/loopkit-mdl.md.
 */
#include <string.h>

#include "loopkit/core.h"
#include "concretize.h"

static long min_l(long a, long b)
{
	return a < b ? a : b;
}

/* Emit up to want operations of kind k from *left; returns the next slot. */
static enum mdl_kind *emit_group(enum mdl_kind *out, enum mdl_kind k,
				 long want, long *left)
{
	long n = min_l(want, *left);

	*left -= n;
	while (n-- > 0)
		*out++ = k;
	return out;
}

void mdl_arith_order(long nadd, long nmul, int first_add,
		     enum mdl_kind *kinds)
{
	long lo = min_l(nadd, nmul), hi = nadd > nmul ? nadd : nmul;
	long ratio = lo ? hi / lo : 0;
	long add_group = nadd >= nmul ? ratio : 1;
	long mul_group = nadd >= nmul ? 1 : ratio;
	enum mdl_kind *out = kinds;

	/* The printed version divides by min (ratio off by one) and lets a
	 * counter go negative; groups are clamped here. */
	while (nadd > 0 && nmul > 0) {
		if (first_add) {
			out = emit_group(out, MDL_ADD, add_group, &nadd);
			out = emit_group(out, MDL_MUL, mul_group, &nmul);
		} else {
			out = emit_group(out, MDL_MUL, mul_group, &nmul);
			out = emit_group(out, MDL_ADD, add_group, &nadd);
		}
	}
	out = emit_group(out, MDL_MUL, nmul, &nmul);
	emit_group(out, MDL_ADD, nadd, &nadd);
}

long mdl_bundle_count(long nload, long nstore, long nfop, long bundles)
{
	long n = bundles, counts[3] = {nload, nstore, nfop};
	size_t i, nonzero = 0;

	for (i = 0; i < 3; i++)
		if (counts[i] > 0) {
			n = min_l(n, counts[i]);
			nonzero++;
		}
	return !nonzero || n < 1 ? 1 : n;
}

/* Copy bundle b's share of list (n entries, count bundles) to out. */
static struct mdl_insn *take_share(struct mdl_insn *out,
				   const struct mdl_insn *list, size_t n,
				   long b, long count)
{
	size_t per = n / (size_t)count;
	size_t from = per * (size_t)b;
	size_t len = b == count - 1 ? n - from : per;

	if (len)
		memcpy(out, list + from, len * sizeof(*out));
	return out + len;
}

void mdl_bundle_order(const struct mdl_insn *loads, size_t nload,
		      const struct mdl_insn *fops, size_t nfop,
		      const struct mdl_insn *stores, size_t nstore,
		      long bundles, struct mdl_insn *out)
{
	long count = mdl_bundle_count((long)nload, (long)nstore, (long)nfop,
				      bundles);
	long b;

	for (b = 0; b < count; b++) {
		out = take_share(out, loads, nload, b, count);
		out = take_share(out, fops, nfop, b, count);
		out = take_share(out, stores, nstore, b, count);
	}
}

/* The register whose last definition is the oldest; never-defined
 * registers only when no register is defined yet. */
static int oldest_def(const long *last_def, int nregs, int next)
{
	int r, best = -1;

	for (r = 0; r < nregs; r++)
		if (last_def[r] >= 0 &&
		    (best < 0 || last_def[r] < last_def[best]))
			best = r;
	return best >= 0 ? best : next;
}

static uint64_t read_before_write(const struct mdl_insn *body, size_t n)
{
	uint64_t written = 0, early = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mdl_insn *x = &body[i];
		uint64_t bit = (uint64_t)1 << x->reg;

		if (x->kind == MDL_LOAD) {
			written |= bit;
			continue;
		}
		if (x->kind != MDL_STORE)
			early |= ((uint64_t)1 << x->src) & ~written;
		early |= bit & ~written;
		if (x->kind != MDL_STORE)
			written |= bit;
	}
	return early;
}

uint64_t mdl_neutral_alloc(struct mdl_insn *body, size_t n, int nregs)
{
	long last_def[MDL_REGS_MAX];
	int last = -1;
	size_t i;

	if (nregs < 2 || nregs > MDL_REGS_MAX)
		LK_BUG("register count out of range");
	for (i = 0; i < MDL_REGS_MAX; i++)
		last_def[i] = -1;
	for (i = 0; i < n; i++) {
		struct mdl_insn *x = &body[i];

		if (x->kind == MDL_LOAD) {
			last = (last + 1) % nregs;
			x->reg = last;
			last_def[last] = (long)i;
		} else if (x->kind == MDL_STORE) {
			last = oldest_def(last_def, nregs, (last + 1) % nregs);
			x->reg = last;
		} else {
			x->src = (last + 1) % nregs;
			last = (last + 2) % nregs;
			x->reg = last;
			last_def[last] = (long)i;
		}
	}
	return read_before_write(body, n);
}
