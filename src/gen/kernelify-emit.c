/*
 * The standalone micro-kernel a kernelify step writes: global arrays of
 * the proved extents (distinct objects, so no compiler versions the loop
 * for aliasing), the kernel function of one loop with constant bounds,
 * deterministic initialisation, and the kernel suite's two modes:
 * --checksum (one call, a hash of every array) and measurement with
 * LK_MEASURE_NAMED.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <isl/printer.h>

#include "kernelify.h"

static const char prelude[] =
	"#include <lkrt.h>\n"
	"#include <math.h>\n"
	"#include <stdint.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"#if defined(__SSE__)\n"
	"#include <xmmintrin.h>\n"
	"#endif\n"
	"\n"
	"#ifndef lk_floord\n"
	"#define lk_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) "
	": (n) / (d))\n"
	"#define lk_min(x, y) ((x) < (y) ? (x) : (y))\n"
	"#define lk_max(x, y) ((x) > (y) ? (x) : (y))\n"
	"#endif\n"
	"#ifndef floord\n"
	"#define floord(n, d) lk_floord(n, d)\n"
	"#endif\n"
	"\n"
	"/* gcc's predictive commoning unrolls a loop with reuse across\n"
	" * iterations by two and leaves a second loop for the rest; at -O3\n"
	" * it unswitches a loop on an invariant condition (a library call's\n"
	" * error path, a comparison with an element the loop does not\n"
	" * write) into two loops, and splits paths to the latch (sqrt's\n"
	" * errno path gets a latch of its own). */\n"
	"#if defined(__clang__)\n"
	"#define LK_KERNEL __attribute__((noinline))\n"
	"#else\n"
	"#define LK_KERNEL __attribute__((noinline, noipa, "
	"optimize(\"no-predictive-commoning\", \"no-unswitch-loops\", "
	"\"no-split-paths\")))\n"
	"#endif\n\n";

static int contains(const struct lk_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static int is_float_type(const char *type)
{
	return strstr(type, "double") || strstr(type, "float");
}

static void header(struct lk_buf *b, const struct lk_gen_scop *s,
		   const struct kfy_plan *p, const struct lk_gen_result *r)
{
	size_t i;

	lk_buf_addf(b, "/*\n * loopkit gen: micro-kernel of %s (%s), the "
		    "innermost loop %s:\n * %ld iterations from %ld by %ld, "
		    "the outer loops fixed, every\n * array sized to hold "
		    "the accesses' images (doc/loopkit-gen.md).\n *\n",
		    s->function, s->file, p->loop, p->trip, p->first, p->inc);
	for (i = 0; i < r->param_names.n; i++)
		lk_buf_addf(b, " * param %s=%s\n", r->param_names.v[i],
			    r->param_values.v[i]);
	lk_buf_adds(b, " */\n");
}

static const struct kfy_array *find_array(const struct kfy_plan *p,
					  const char *name)
{
	size_t i;

	for (i = 0; i < p->narrays; i++)
		if (!strcmp(p->arrays[i].name, name))
			return &p->arrays[i];
	return NULL;
}

/* " = value;" for a scalar: the call site's, else 1. */
static void scalar_value(struct lk_buf *b, const struct kfy_var *v)
{
	if (v->known && v->is_float)
		lk_buf_addf(b, " = %.17g;\n", v->fval);
	else
		lk_buf_addf(b, " = %lld;\n", v->known ? v->ival : 1);
}

/* "(double (*)[E1])((double *)lk_A + OFF)" when an index may be negative. */
static void array_view(struct lk_buf *b, const struct kfy_array *a,
		       const char *type)
{
	long off = 0;
	int k;

	for (k = 0; k < a->dims; k++)
		off = off * a->extent[k] + a->offset[k];
	if (!off) {
		lk_buf_addf(b, "#define %s lk_%s\n", a->name, a->name);
		return;
	}
	if (a->dims == 1) {
		lk_buf_addf(b, "#define %s ((%s *)lk_%s + %ld)\n", a->name,
			    type, a->name, off);
		return;
	}
	lk_buf_addf(b, "#define %s ((%s (*)", a->name, type);
	for (k = 1; k < a->dims; k++)
		lk_buf_addf(b, "[%ld]", a->extent[k]);
	lk_buf_addf(b, ")((%s *)lk_%s + %ld))\n", type, a->name, off);
}

/* Arrays and written scalars under lk_ names (a kernel's y1 is libm's). */
static void array_decls(struct lk_buf *b, const struct kfy_decls *d,
			const struct kfy_plan *p)
{
	size_t i;
	int k;

	for (i = 0; i < p->narrays; i++) {
		const struct kfy_array *a = &p->arrays[i];
		const struct kfy_var *v = kfy_decl_find(d, a->name);

		lk_buf_addf(b, "static %s lk_%s", v->type, a->name);
		for (k = 0; k < a->dims; k++)
			lk_buf_addf(b, "[%ld]", a->extent[k]);
		if (a->dims)
			lk_buf_adds(b, " __attribute__((aligned(64)));\n");
		else
			scalar_value(b, v);
		array_view(b, a, v->type);
	}
}

/* Read-only scalars of the statements, with the call site's values. */
static void scalar_decls(struct lk_buf *b, const struct lk_gen_scop *s,
			 const struct kfy_decls *d, const struct kfy_plan *p,
			 struct lk_strv *done)
{
	size_t i, j;

	for (i = 0; i < p->nbody; i++) {
		const struct lk_gen_stmt *st = &s->stmts[p->body[i].stmt];

		for (j = 0; j < st->npieces; j++) {
			const char *t = st->pieces[j].text;

			while (t && *t) {
				size_t n = 0;
				const struct kfy_var *v;
				char *word;

				if (!isalpha((unsigned char)*t) && *t != '_') {
					t++;
					continue;
				}
				while (isalnum((unsigned char)t[n]) ||
				       t[n] == '_')
					n++;
				word = lk_strndup(t, n);
				t += n;
				v = kfy_decl_find(d, word);
				if (v && !v->array && !find_array(p, word) &&
				    !contains(done, word)) {
					lk_strv_push(done, word);
					lk_buf_addf(b, "static %s lk_%s",
						    v->type, word);
					scalar_value(b, v);
					lk_buf_addf(b, "#define %s lk_%s\n",
						    word, word);
				}
				free(word);
			}
		}
	}
}

static void print_iter(struct lk_buf *b, isl_multi_aff *ma, int k)
{
	isl_aff *a = isl_multi_aff_get_aff(ma, k);
	isl_printer *p = isl_printer_to_str(isl_aff_get_ctx(a));
	char *text;

	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	p = isl_printer_print_aff(p, a);
	text = isl_printer_get_str(p);
	lk_buf_addf(b, "(%s)", text ? text : "0");
	free(text);
	isl_printer_free(p);
	isl_aff_free(a);
}

static void body(struct lk_buf *b, const struct lk_gen_scop *s,
		 const struct kfy_plan *p)
{
	size_t i, j;

	for (i = 0; i < p->nbody; i++) {
		const struct lk_gen_stmt *st = &s->stmts[p->body[i].stmt];
		isl_multi_aff *ma = isl_multi_aff_set_dim_name(
			isl_multi_aff_copy(p->body[i].iters), isl_dim_in, 0,
			p->loop);

		lk_buf_adds(b, "\t\t");
		for (j = 0; j < st->npieces; j++) {
			if (st->pieces[j].text)
				lk_buf_adds(b, st->pieces[j].text);
			else
				print_iter(b, ma, st->pieces[j].iter);
		}
		lk_buf_addch(b, '\n');
		isl_multi_aff_free(ma);
	}
}

static void kernel(struct lk_buf *b, const struct lk_gen_scop *s,
		   const struct kfy_plan *p, const struct lk_gen_result *r)
{
	lk_buf_addf(b, "LK_KERNEL void %s(void)\n{\n\tlong %s;\n\n",
		    s->function, p->loop);
	/* clang unrolls a running maximum kept in memory and turns the
	 * last select into a branch: two back edges to one header; and,
	 * with windows sized to half the L1, unrolls simple loops away
	 * entirely at -O3 -march=native (atax tiled: 960 iterations, a
	 * column walk of 64 gathered into vectors). Its vectoriser still
	 * interleaves. gcc only needs telling on the short windows. */
	lk_buf_adds(b, "#if defined(__clang__)\n"
		       "#pragma clang loop unroll(disable)\n"
		       "#endif\n");
	if (p->trip < KFY_TRIP_MIN)
		lk_buf_adds(b, "#if !defined(__clang__)\n"
			       "#pragma GCC unroll 1\n"
			       "#endif\n");
	if (r->vector_hint)
		lk_buf_adds(b, r->vector_hint == 2 ? "#pragma omp simd\n"
						   : "#pragma GCC ivdep\n");
	lk_buf_addf(b, "\tfor (%s = %ld; %s <= %ld; %s += %ld) {\n", p->loop,
		    p->first, p->loop, p->first + (p->trip - 1) * p->inc,
		    p->loop, p->inc);
	body(b, s, p);
	lk_buf_adds(b, "\t}\n}\n\n");
}

static void init_and_sum(struct lk_buf *b, const struct kfy_decls *d,
			 const struct kfy_plan *p)
{
	size_t i;

	lk_buf_adds(b, "static void lk_kernel_init(void)\n{\n"
		       "\tsize_t i;\n\n\t(void)i;\n");
	for (i = 0; i < p->narrays; i++) {
		const struct kfy_array *a = &p->arrays[i];
		const char *t = kfy_decl_find(d, a->name)->type;

		if (!a->dims)
			continue;
		lk_buf_addf(b, "\tfor (i = 0; i < sizeof(lk_%s) / sizeof(%s); "
			    "i++)\n\t\t((%s *)lk_%s)[i] = ", a->name, t, t,
			    a->name);
		if (is_float_type(t))
			lk_buf_addf(b, "(%s)(i %% 61 + 1) / 61;\n", t);
		else
			lk_buf_addf(b, "(%s)(i %% 61);\n", t);
	}
	lk_buf_adds(b, "}\n\nstatic uint64_t lk_kernel_sum(void)\n{\n"
		       "\tuint64_t h = UINT64_C(0xcbf29ce484222325);\n"
		       "\tconst unsigned char *c;\n\tsize_t i;\n\n");
	for (i = 0; i < p->narrays; i++)
		lk_buf_addf(b, "\tfor (c = (const unsigned char *)&lk_%s, "
			    "i = 0; i < sizeof(lk_%s); i++)\n\t\th = (h ^ "
			    "c[i]) * "
			    "UINT64_C(0x100000001b3);\n", p->arrays[i].name,
			    p->arrays[i].name);
	lk_buf_adds(b, "\treturn h;\n}\n\n");
}

static void main_fn(struct lk_buf *b, const struct lk_gen_scop *s)
{
	char *name = lk_gen_kernel_name(s);

	lk_buf_addf(b,
		    "int main(int argc, char **argv)\n{\n"
		    "\tint checksum = argc == 2 && "
		    "!strcmp(argv[1], \"--checksum\");\n\n"
		    "\tif (argc > 1 && !checksum) {\n"
		    "\t\tfprintf(stderr, \"usage: %%s [--checksum]\\n\", "
		    "argv[0]);\n\t\treturn 2;\n\t}\n"
		    "\tlk_kernel_init();\n"
		    "\tif (checksum) {\n\t\t%s();\n"
		    "\t\tprintf(\"checksum %%016llx\\n\",\n"
		    "\t\t       (unsigned long long)lk_kernel_sum());\n"
		    "\t\treturn 0;\n\t}\n"
		    "\tlk_init(argc, argv);\n"
		    "#if defined(__SSE__)\n"
		    "\t/* Repeated calls must not slow down on subnormals. */\n"
		    "\t_mm_setcsr(_mm_getcsr() | 0x8040);\n"
		    "#endif\n"
		    "\tLK_MEASURE_NAMED(\"%s\", %s());\n"
		    "\treturn lk_finish();\n}\n",
		    s->function, name, s->function);
	free(name);
}

char *kfy_emit(const struct lk_gen_scop *s, const struct kfy_decls *d,
	       const struct kfy_plan *p, const struct lk_gen_result *r,
	       const char *size)
{
	struct lk_buf b = LK_BUF_INIT;
	struct lk_strv done = LK_STRV_INIT;

	(void)size;
	header(&b, s, p, r);
	lk_buf_adds(&b, prelude);
	array_decls(&b, d, p);
	scalar_decls(&b, s, d, p, &done);
	lk_buf_addch(&b, '\n');
	kernel(&b, s, p, r);
	init_and_sum(&b, d, p);
	main_fn(&b, s);
	lk_strv_release(&done);
	return lk_buf_detach(&b);
}

size_t lk_gen_kernel_params(const char *source, struct lk_strv *names,
			    struct lk_strv *values)
{
	const char *end = strstr(source, " */\n"), *line;
	size_t n = 0;

	if (strncmp(source, "/*\n * loopkit gen: micro-kernel of ", 35) ||
	    !end)
		return 0;
	for (line = strstr(source, "\n * param "); line && line < end;
	     line = strstr(line + 1, "\n * param ")) {
		const char *key = line + 10, *eq = strchr(key, '=');
		const char *nl = strchr(key, '\n');

		if (!eq || !nl || eq > nl)
			continue;
		lk_strv_push_take(names, lk_strndup(key, (size_t)(eq - key)));
		lk_strv_push_take(values, lk_strndup(eq + 1,
						     (size_t)(nl - eq - 1)));
		n++;
	}
	return n;
}
