/*
 * What the static counts say per call: totals (numbers, or expressions
 * when a trip count is only known symbolically), the readable form the
 * plugin also writes, and JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/memprof.h"

static int is_symbolic(const char *factor)
{
	return !strncmp(factor, "sym:", 4);
}

static int func_is_symbolic(const struct lk_mem_func *f)
{
	size_t i, j;

	for (i = 0; i < f->nblocks; i++)
		for (j = 0; j < f->blocks[i].factors.n; j++)
			if (is_symbolic(f->blocks[i].factors.v[j]))
				return 1;
	return 0;
}

/* The block's count times its numeric factors (all of them numeric). */
static double block_total(const struct lk_mem_block *b, long count)
{
	double v = (double)count;
	size_t j;

	for (j = 0; j < b->factors.n; j++)
		v *= strtod(b->factors.v[j], NULL);
	return v;
}

/* "3 + 2*10 + 1*(n)": one term per block with statements of the kind. */
static char *sym_total(const struct lk_mem_func *f, int stores)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i, j;
	long count;

	for (i = 0; i < f->nblocks; i++) {
		const struct lk_mem_block *blk = &f->blocks[i];

		count = stores ? blk->stores : blk->loads;
		if (!count)
			continue;
		lk_buf_addf(&b, "%s%ld", b.len ? " + " : "", count);
		for (j = 0; j < blk->factors.n; j++) {
			const char *fac = blk->factors.v[j];

			if (is_symbolic(fac))
				lk_buf_addf(&b, "*(%s)", fac + 4);
			else
				lk_buf_addf(&b, "*%s", fac);
		}
	}
	if (!b.len)
		lk_buf_adds(&b, "0");
	return lk_buf_detach(&b);
}

void lk_mem_func_totals(const struct lk_mem_func *f, struct lk_mem_totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	if (func_is_symbolic(f)) {
		t->loads = t->stores = NAN;
		t->sym_loads = sym_total(f, 0);
		t->sym_stores = sym_total(f, 1);
		return;
	}
	t->numeric = 1;
	for (i = 0; i < f->nblocks; i++) {
		t->loads += block_total(&f->blocks[i], f->blocks[i].loads);
		t->stores += block_total(&f->blocks[i], f->blocks[i].stores);
	}
}

void lk_mem_totals_release(struct lk_mem_totals *t)
{
	if (!t)
		return;
	free(t->sym_loads);
	free(t->sym_stores);
	t->sym_loads = t->sym_stores = NULL;
}

/* "1 * 10 * (n) load" */
static void readable_line(const struct lk_mem_block *b, long count,
			  const char *kind, struct lk_buf *out)
{
	size_t j;

	if (!count)
		return;
	lk_buf_addf(out, "%ld", count);
	for (j = 0; j < b->factors.n; j++) {
		const char *fac = b->factors.v[j];

		if (is_symbolic(fac))
			lk_buf_addf(out, " * (%s)", fac + 4);
		else
			lk_buf_addf(out, " * %s", fac);
	}
	lk_buf_addf(out, " %s\n", kind);
}

void lk_mem_static_readable(const struct lk_mem_static *s, struct lk_buf *out)
{
	size_t i, j;

	for (i = 0; i < s->nfuncs; i++) {
		const struct lk_mem_func *f = &s->funcs[i];

		lk_buf_addf(out, "function '%s'\n", f->name);
		for (j = 0; j < f->nblocks; j++) {
			readable_line(&f->blocks[j], f->blocks[j].loads,
				      "load", out);
			readable_line(&f->blocks[j], f->blocks[j].stores,
				      "store", out);
		}
	}
}

/* Totals are products of integers: print them as integers when exact. */
static void json_number(struct lk_buf *out, double v)
{
	if (fabs(v) < 9007199254740992.0 && v == floor(v))
		lk_buf_addf(out, "%.0f", v);
	else
		lk_buf_addf(out, "%.17g", v);
}

static void json_func(const struct lk_mem_func *f, struct lk_buf *out)
{
	struct lk_mem_totals t;

	lk_mem_func_totals(f, &t);
	lk_buf_adds(out, "{\"name\": ");
	lk_buf_add_json_str(out, f->name);
	lk_buf_adds(out, ", \"file\": ");
	lk_buf_add_json_str(out, f->file);
	lk_buf_addf(out, ", \"line\": %ld, \"loads\": ", f->line);
	if (t.numeric)
		json_number(out, t.loads);
	else
		lk_buf_add_json_str(out, t.sym_loads);
	lk_buf_adds(out, ", \"stores\": ");
	if (t.numeric)
		json_number(out, t.stores);
	else
		lk_buf_add_json_str(out, t.sym_stores);
	lk_buf_addf(out, ", \"symbolic\": %s}",
		    t.numeric ? "false" : "true");
	lk_mem_totals_release(&t);
}

void lk_mem_static_json(const struct lk_mem_static *s, struct lk_buf *out)
{
	size_t i;

	lk_buf_addch(out, '[');
	for (i = 0; i < s->nfuncs; i++) {
		lk_buf_adds(out, i ? ",\n " : "\n ");
		json_func(&s->funcs[i], out);
	}
	lk_buf_adds(out, s->nfuncs ? "\n]\n" : "]\n");
}
