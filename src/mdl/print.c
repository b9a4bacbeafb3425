/*
 * MDL text v1: the canonical printer, the canonical body (flows renamed
 * in order of appearance), the JSON rendering, and releasing a parsed
 * description.
 */
#include <stdlib.h>
#include <string.h>

#include "mdl-int.h"

struct printer {
	const struct lk_mdl *m;
	const size_t *rename;     /* flow index -> canonical number, or NULL */
	struct lk_buf *out;
};

static void put_flow(const struct printer *pr, size_t flow)
{
	if (pr->rename)
		lk_buf_addf(pr->out, "s%zu", pr->rename[flow]);
	else
		lk_buf_adds(pr->out, pr->m->flows[flow].name);
}

static void put_value(struct lk_buf *out, const struct lk_mdl_value *v)
{
	if (v->name)
		lk_buf_adds(out, v->name);
	else
		lk_buf_addf(out, "%lld", v->num);
}

static int prec(const struct lk_mdl_expr *e)
{
	if (e->op == LK_MDL_VALUE)
		return 3;
	return e->op == LK_MDL_ADD || e->op == LK_MDL_SUB ? 1 : 2;
}

static const char *op_text(enum lk_mdl_op op)
{
	static const char *const text[] = {"", "+", "-", "*", " mod ",
					   " div "};

	return text[op];
}

/*
 * Left-associative: the left operand is parenthesised when it binds
 * looser, the right one when it does not bind tighter; a negative
 * number on the right is parenthesised too ("n-(-1)").
 */
static void put_expr(struct lk_buf *out, const struct lk_mdl_expr *e)
{
	int lp, rp;

	if (e->op == LK_MDL_VALUE) {
		put_value(out, &e->v);
		return;
	}
	lp = prec(e->l) < prec(e);
	rp = prec(e->r) <= prec(e) ||
	     (e->r->op == LK_MDL_VALUE && !e->r->v.name && e->r->v.num < 0);
	lk_buf_adds(out, lp ? "(" : "");
	put_expr(out, e->l);
	lk_buf_adds(out, lp ? ")" : "");
	lk_buf_adds(out, op_text(e->op));
	lk_buf_adds(out, rp ? "(" : "");
	put_expr(out, e->r);
	lk_buf_adds(out, rp ? ")" : "");
}

static void put_attr(struct lk_buf *out, const struct lk_mdl_attr *a,
		     const char *sep)
{
	lk_buf_addf(out, "%s%s", a->key, sep);
	if (a->kind == LK_MDL_STR)
		lk_buf_addf(out, "\"%s\"", a->text);
	else
		lk_buf_adds(out, a->text);
}

static void put_io(const struct printer *pr, const char *kw,
		   const struct lk_mdl_io *io, size_t n)
{
	lk_buf_addf(pr->out, " %s", kw);
	for (size_t i = 0; i < n; i++) {
		lk_buf_addch(pr->out, ' ');
		put_flow(pr, io[i].flow);
		lk_buf_addch(pr->out, ' ');
		put_expr(pr->out, io[i].bytes);
	}
}

static void put_binding(const struct printer *pr, const char *ind,
			const struct lk_mdl_binding *b)
{
	static const char *const kw[] = {"fixed", "strided", "switch"};

	lk_buf_addf(pr->out, "%s  %s ", ind, kw[b->kind]);
	put_flow(pr, b->flow);
	if (b->kind == LK_MDL_STRIDED) {
		lk_buf_addch(pr->out, ' ');
		put_expr(pr->out, b->step);
	}
	if (b->kind == LK_MDL_SWITCH) {
		lk_buf_adds(pr->out, " in");
		for (size_t i = 0; i < b->nin; i++) {
			lk_buf_addch(pr->out, ' ');
			put_flow(pr, b->in[i]);
		}
	}
	lk_buf_addch(pr->out, '\n');
}

/* "  In:  a Stride: ..." then the others aligned under the first. */
static void put_accesses(const struct printer *pr, const char *ind,
			 const char *kw, const struct lk_mdl_access *a,
			 size_t n)
{
	lk_buf_addf(pr->out, "%s  %s", ind, kw);
	for (size_t i = 0; i < n; i++) {
		if (i)
			lk_buf_addf(pr->out, "%s       ", ind);
		else
			lk_buf_addf(pr->out, "%*s", (int)(5 - strlen(kw)), "");
		put_flow(pr, a[i].flow);
		lk_buf_adds(pr->out, " Stride: ");
		put_value(pr->out, &a[i].stride);
		lk_buf_adds(pr->out, " Offset: ");
		put_value(pr->out, &a[i].offset);
		lk_buf_adds(pr->out, " Size: ");
		put_value(pr->out, &a[i].size);
		lk_buf_addch(pr->out, '\n');
	}
	if (!n)
		lk_buf_addch(pr->out, '\n');
}

static void put_loop(const struct printer *pr, const struct lk_mdl_loop *l,
		     int depth)
{
	char *ind = lk_asprintf("%*s", 2 * depth, "");
	size_t i;

	lk_buf_addf(pr->out, "%sTrip: ", ind);
	put_expr(pr->out, l->trip);
	lk_buf_addf(pr->out, "\n%sI/O:", ind);
	put_io(pr, "In:", l->in, l->nin);
	put_io(pr, "Out:", l->out, l->nout);
	lk_buf_addf(pr->out, "\n%sLoopBody:\n", ind);
	for (i = 0; i < l->nbindings; i++)
		put_binding(pr, ind, &l->bindings[i]);
	for (i = 0; i < l->nloops; i++)
		put_loop(pr, &l->loops[i], depth + 1);
	for (i = 0; i < l->nukernels; i++) {
		const struct lk_mdl_ukernel *u = &l->ukernels[i];

		put_accesses(pr, ind, "In:", u->in, u->nin);
		put_accesses(pr, ind, "Out:", u->out, u->nout);
		lk_buf_addf(pr->out, "%s  Add: ", ind);
		put_value(pr->out, &u->add);
		lk_buf_adds(pr->out, " Mul: ");
		put_value(pr->out, &u->mul);
		lk_buf_addch(pr->out, '\n');
	}
	free(ind);
}

void lk_mdl_print(const struct lk_mdl *m, struct lk_buf *out)
{
	struct printer pr = {m, NULL, out};
	size_t i, j;

	lk_buf_addf(out, "MDL %ld\nMeta:\n", m->version);
	for (i = 0; i < m->nmeta; i++) {
		lk_buf_adds(out, "  ");
		put_attr(out, &m->meta[i], " = ");
		lk_buf_addch(out, '\n');
	}
	lk_buf_adds(out, "Data:\n");
	for (i = 0; i < m->nflows; i++) {
		lk_buf_addf(out, "  flow %s", m->flows[i].name);
		for (j = 0; j < m->flows[i].nattrs; j++) {
			lk_buf_addch(out, ' ');
			put_attr(out, &m->flows[i].attrs[j], "=");
		}
		lk_buf_addch(out, '\n');
	}
	for (i = 0; i < m->nscalars; i++)
		lk_buf_addf(out, "  scalar %s = %lld\n", m->scalars[i].name,
			    m->scalars[i].value);
	lk_buf_adds(out, "Body:\n");
	put_loop(&pr, &m->body, 0);
}

/* ---- The canonical body. ---- */

static void see(size_t *rename, size_t *next, size_t flow)
{
	if (rename[flow] == (size_t)-1)
		rename[flow] = (*next)++;
}

static void see_accesses(size_t *rename, size_t *next,
			 const struct lk_mdl_access *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		see(rename, next, a[i].flow);
}

/* Number the flows in the order the printer meets them. */
static void number_flows(const struct lk_mdl_loop *l, size_t *rename,
			 size_t *next)
{
	size_t i, j;

	for (i = 0; i < l->nin; i++)
		see(rename, next, l->in[i].flow);
	for (i = 0; i < l->nout; i++)
		see(rename, next, l->out[i].flow);
	for (i = 0; i < l->nbindings; i++) {
		see(rename, next, l->bindings[i].flow);
		for (j = 0; j < l->bindings[i].nin; j++)
			see(rename, next, l->bindings[i].in[j]);
	}
	for (i = 0; i < l->nloops; i++)
		number_flows(&l->loops[i], rename, next);
	for (i = 0; i < l->nukernels; i++) {
		see_accesses(rename, next, l->ukernels[i].in,
			     l->ukernels[i].nin);
		see_accesses(rename, next, l->ukernels[i].out,
			     l->ukernels[i].nout);
	}
}

void lk_mdl_canonical_body(const struct lk_mdl *m, struct lk_buf *out)
{
	size_t *rename = lk_calloc(m->nflows + 1, sizeof(*rename));
	struct printer pr = {m, rename, out};
	size_t next = 0;

	memset(rename, 0xff, (m->nflows + 1) * sizeof(*rename));
	number_flows(&m->body, rename, &next);
	put_loop(&pr, &m->body, 0);
	free(rename);
}

/* ---- JSON. ---- */

static void json_expr(struct lk_buf *out, const struct lk_mdl_expr *e)
{
	struct lk_buf b = LK_BUF_INIT;

	put_expr(&b, e);
	lk_buf_add_json_str(out, lk_buf_str(&b));
	lk_buf_release(&b);
}

/* An integer as a number, a scalar's name as a string. */
static void json_value(struct lk_buf *out, const struct lk_mdl_value *v)
{
	if (v->name)
		lk_buf_add_json_str(out, v->name);
	else
		lk_buf_addf(out, "%lld", v->num);
}

static void json_attrs(struct lk_buf *out, const struct lk_mdl_attr *a,
		       size_t n)
{
	lk_buf_addch(out, '{');
	for (size_t i = 0; i < n; i++) {
		lk_buf_adds(out, i ? ", " : "");
		lk_buf_add_json_str(out, a[i].key);
		lk_buf_adds(out, ": ");
		if (a[i].kind == LK_MDL_INT || a[i].kind == LK_MDL_DEC)
			lk_buf_adds(out, a[i].text);
		else
			lk_buf_add_json_str(out, a[i].text);
	}
	lk_buf_addch(out, '}');
}

static void json_io(const struct lk_mdl *m, struct lk_buf *out,
		    const struct lk_mdl_io *io, size_t n)
{
	lk_buf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		lk_buf_adds(out, i ? ", {\"flow\": " : "{\"flow\": ");
		lk_buf_add_json_str(out, m->flows[io[i].flow].name);
		lk_buf_adds(out, ", \"bytes\": ");
		json_expr(out, io[i].bytes);
		lk_buf_addch(out, '}');
	}
	lk_buf_addch(out, ']');
}

static void json_accesses(const struct lk_mdl *m, struct lk_buf *out,
			  const struct lk_mdl_access *a, size_t n)
{
	lk_buf_addch(out, '[');
	for (size_t i = 0; i < n; i++) {
		lk_buf_adds(out, i ? ", {\"flow\": " : "{\"flow\": ");
		lk_buf_add_json_str(out, m->flows[a[i].flow].name);
		lk_buf_adds(out, ", \"stride\": ");
		json_value(out, &a[i].stride);
		lk_buf_adds(out, ", \"offset\": ");
		json_value(out, &a[i].offset);
		lk_buf_adds(out, ", \"size\": ");
		json_value(out, &a[i].size);
		lk_buf_addch(out, '}');
	}
	lk_buf_addch(out, ']');
}

static void json_binding(const struct lk_mdl *m, struct lk_buf *out,
			 const struct lk_mdl_binding *b)
{
	static const char *const kind[] = {"fixed", "strided", "switch"};

	lk_buf_addf(out, "{\"kind\": \"%s\", \"flow\": ", kind[b->kind]);
	lk_buf_add_json_str(out, m->flows[b->flow].name);
	if (b->kind == LK_MDL_STRIDED) {
		lk_buf_adds(out, ", \"step\": ");
		json_expr(out, b->step);
	}
	if (b->kind == LK_MDL_SWITCH) {
		lk_buf_adds(out, ", \"in\": [");
		for (size_t i = 0; i < b->nin; i++) {
			lk_buf_adds(out, i ? ", " : "");
			lk_buf_add_json_str(out, m->flows[b->in[i]].name);
		}
		lk_buf_addch(out, ']');
	}
	lk_buf_addch(out, '}');
}

static void json_loop(const struct lk_mdl *m, struct lk_buf *out,
		      const struct lk_mdl_loop *l)
{
	size_t i;

	lk_buf_adds(out, "{\"trip\": ");
	json_expr(out, l->trip);
	lk_buf_adds(out, ", \"in\": ");
	json_io(m, out, l->in, l->nin);
	lk_buf_adds(out, ", \"out\": ");
	json_io(m, out, l->out, l->nout);
	lk_buf_adds(out, ", \"bindings\": [");
	for (i = 0; i < l->nbindings; i++) {
		lk_buf_adds(out, i ? ", " : "");
		json_binding(m, out, &l->bindings[i]);
	}
	lk_buf_adds(out, "], \"loops\": [");
	for (i = 0; i < l->nloops; i++) {
		lk_buf_adds(out, i ? ", " : "");
		json_loop(m, out, &l->loops[i]);
	}
	lk_buf_adds(out, "], \"ukernels\": [");
	for (i = 0; i < l->nukernels; i++) {
		const struct lk_mdl_ukernel *u = &l->ukernels[i];

		lk_buf_adds(out, i ? ", {\"in\": " : "{\"in\": ");
		json_accesses(m, out, u->in, u->nin);
		lk_buf_adds(out, ", \"out\": ");
		json_accesses(m, out, u->out, u->nout);
		lk_buf_adds(out, ", \"add\": ");
		json_value(out, &u->add);
		lk_buf_adds(out, ", \"mul\": ");
		json_value(out, &u->mul);
		lk_buf_addch(out, '}');
	}
	lk_buf_adds(out, "]}");
}

void lk_mdl_json(const struct lk_mdl *m, struct lk_buf *out)
{
	size_t i;

	lk_buf_addf(out, "{\"version\": %ld, \"meta\": ", m->version);
	json_attrs(out, m->meta, m->nmeta);
	lk_buf_adds(out, ", \"flows\": [");
	for (i = 0; i < m->nflows; i++) {
		lk_buf_adds(out, i ? ", {\"name\": " : "{\"name\": ");
		lk_buf_add_json_str(out, m->flows[i].name);
		lk_buf_adds(out, ", \"attrs\": ");
		json_attrs(out, m->flows[i].attrs, m->flows[i].nattrs);
		lk_buf_addch(out, '}');
	}
	lk_buf_adds(out, "], \"scalars\": {");
	for (i = 0; i < m->nscalars; i++) {
		lk_buf_adds(out, i ? ", " : "");
		lk_buf_add_json_str(out, m->scalars[i].name);
		lk_buf_addf(out, ": %lld", m->scalars[i].value);
	}
	lk_buf_adds(out, "}, \"body\": ");
	json_loop(m, out, &m->body);
	lk_buf_adds(out, "}\n");
}

/* ---- Release. ---- */

void mdl_value_release(struct lk_mdl_value *v)
{
	free(v->name);
	v->name = NULL;
}

void mdl_expr_free(struct lk_mdl_expr *e)
{
	if (!e)
		return;
	mdl_expr_free(e->l);
	mdl_expr_free(e->r);
	mdl_value_release(&e->v);
	free(e);
}

static void attrs_free(struct lk_mdl_attr *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].key);
		free(a[i].text);
	}
	free(a);
}

static void accesses_free(struct lk_mdl_access *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		mdl_value_release(&a[i].stride);
		mdl_value_release(&a[i].offset);
		mdl_value_release(&a[i].size);
	}
	free(a);
}

static void loop_release(struct lk_mdl_loop *l)
{
	size_t i;

	mdl_expr_free(l->trip);
	for (i = 0; i < l->nin; i++)
		mdl_expr_free(l->in[i].bytes);
	for (i = 0; i < l->nout; i++)
		mdl_expr_free(l->out[i].bytes);
	free(l->in);
	free(l->out);
	for (i = 0; i < l->nbindings; i++) {
		mdl_expr_free(l->bindings[i].step);
		free(l->bindings[i].in);
	}
	free(l->bindings);
	for (i = 0; i < l->nloops; i++)
		loop_release(&l->loops[i]);
	free(l->loops);
	for (i = 0; i < l->nukernels; i++) {
		accesses_free(l->ukernels[i].in, l->ukernels[i].nin);
		accesses_free(l->ukernels[i].out, l->ukernels[i].nout);
		mdl_value_release(&l->ukernels[i].add);
		mdl_value_release(&l->ukernels[i].mul);
	}
	free(l->ukernels);
}

const struct lk_mdl_attr *lk_mdl_attr_find(const struct lk_mdl_attr *a,
					   size_t n, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(a[i].key, key))
			return &a[i];
	return NULL;
}

void lk_mdl_release(struct lk_mdl *m)
{
	size_t i;

	if (!m)
		return;
	attrs_free(m->meta, m->nmeta);
	for (i = 0; i < m->nflows; i++) {
		free(m->flows[i].name);
		attrs_free(m->flows[i].attrs, m->flows[i].nattrs);
	}
	free(m->flows);
	for (i = 0; i < m->nscalars; i++)
		free(m->scalars[i].name);
	free(m->scalars);
	loop_release(&m->body);
	memset(m, 0, sizeof(*m));
}
