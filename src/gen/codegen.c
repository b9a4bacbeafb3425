/*
 * Code generation: isl's AST generator on the transformed schedule,
 * printed as C with our statements' text (iterators replaced by their
 * values in the new loops), vectorisation pragmas on innermost loops
 * proved parallel, and the region put back into the original file.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/printer.h>

#include "gen-int.h"

struct loop_info {
	int parallel;
	int innermost;
};

struct codegen {
	struct lk_gen_scop *scop;
	isl_union_map *deps;
	int hint;
	long marked;
	int failed;
};

/* Does the loop at the build's innermost dimension carry a dependence? */
static isl_stat carried(isl_set *delta, void *user)
{
	int *par = user;
	isl_size n = isl_set_dim(delta, isl_dim_set), i;
	isl_set *same = isl_set_copy(delta);
	isl_bool sub;

	for (i = 0; i + 1 < n; i++)
		same = isl_set_fix_si(same, isl_dim_set, i, 0);
	delta = isl_set_fix_si(delta, isl_dim_set, n - 1, 0);
	/* Within one iteration of the outer loops, any distance but 0? */
	sub = isl_set_is_subset(same, delta);
	if (sub != isl_bool_true)
		*par = 0;
	isl_set_free(same);
	isl_set_free(delta);
	return isl_stat_ok;
}

static int loop_parallel(struct codegen *cg, isl_union_map *sched)
{
	isl_union_map *d = isl_union_map_apply_domain(
		isl_union_map_copy(cg->deps), isl_union_map_copy(sched));
	isl_union_set *deltas;
	int par = 1;

	d = isl_union_map_apply_range(d, sched);
	deltas = isl_union_map_deltas(d);
	if (!deltas ||
	    isl_union_set_foreach_set(deltas, carried, &par) < 0)
		par = 0;
	isl_union_set_free(deltas);
	return par;
}

static isl_id *before_for(isl_ast_build *build, void *user)
{
	struct codegen *cg = user;
	struct loop_info *li = lk_calloc(1, sizeof(*li));
	isl_id *id;

	li->parallel = loop_parallel(cg, isl_ast_build_get_schedule(build));
	id = isl_id_alloc(isl_ast_build_get_ctx(build), "loop", li);
	return isl_id_set_free_user(id, free);
}

static isl_bool find_for(isl_ast_node *node, void *user)
{
	int *found = user;

	if (isl_ast_node_get_type(node) == isl_ast_node_for)
		*found = 1;
	return *found ? isl_bool_false : isl_bool_true;
}

static isl_ast_node *after_for(isl_ast_node *node, isl_ast_build *build,
			       void *user)
{
	isl_id *id = isl_ast_node_get_annotation(node);
	struct loop_info *li = isl_id_get_user(id);
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	int found = 0;

	(void)build;
	(void)user;
	isl_ast_node_foreach_descendant_top_down(body, find_for, &found);
	if (li)
		li->innermost = !found;
	isl_ast_node_free(body);
	isl_id_free(id);
	return node;
}

static isl_printer *print_user(isl_printer *p, isl_ast_print_options *opts,
			       isl_ast_node *node, void *user)
{
	struct codegen *cg = user;
	isl_ast_expr *call = isl_ast_node_user_get_expr(node);
	isl_ast_expr *fn = isl_ast_expr_get_op_arg(call, 0);
	isl_id *id = isl_ast_expr_get_id(fn);
	const char *name = isl_id_get_name(id);
	long k = name ? strtol(name + 1, NULL, 10) : -1;
	const struct lk_gen_stmt *st;
	size_t i;

	isl_ast_print_options_free(opts);
	if (k < 0 || (size_t)k >= cg->scop->nstmts) {
		cg->failed = 1;
		goto out;
	}
	st = &cg->scop->stmts[k];
	p = isl_printer_start_line(p);
	for (i = 0; i < st->npieces; i++) {
		isl_ast_expr *arg;

		if (st->pieces[i].text) {
			p = isl_printer_print_str(p, st->pieces[i].text);
			continue;
		}
		arg = isl_ast_expr_get_op_arg(call, st->pieces[i].iter + 1);
		p = isl_printer_print_str(p, "(");
		p = isl_printer_print_ast_expr(p, arg);
		p = isl_printer_print_str(p, ")");
		isl_ast_expr_free(arg);
	}
	p = isl_printer_end_line(p);
out:
	isl_id_free(id);
	isl_ast_expr_free(fn);
	isl_ast_expr_free(call);
	return p;
}

static isl_printer *print_for(isl_printer *p, isl_ast_print_options *opts,
			      isl_ast_node *node, void *user)
{
	struct codegen *cg = user;
	isl_id *id = isl_ast_node_get_annotation(node);
	struct loop_info *li = id ? isl_id_get_user(id) : NULL;

	if (cg->hint && li && li->parallel && li->innermost) {
		p = isl_printer_start_line(p);
		p = isl_printer_print_str(p, cg->hint == 2 ? "#pragma omp simd"
							   : "#pragma GCC "
							     "ivdep");
		p = isl_printer_end_line(p);
		cg->marked++;
	}
	isl_id_free(id);
	return isl_ast_node_for_print(node, p, opts);
}

isl_id_list *gen_iterators(struct lk_gen_scop *s)
{
	const char *prefix = "c";
	isl_id_list *list;
	size_t i, j;
	int n;

	for (i = 0; i < s->nstmts; i++)
		for (j = 0; j < s->stmts[i].npieces; j++) {
			const char *t = s->stmts[i].pieces[j].text;
			const char *c;

			for (c = t; c && (c = strchr(c, 'c')); c++)
				if (c[1] >= '0' && c[1] <= '9')
					prefix = "lk_c";
		}
	for (i = 0; i < s->params.n; i++)
		if (s->params.v[i][0] == 'c')
			prefix = "lk_c";
	list = isl_id_list_alloc(s->isl, 32);
	for (n = 0; n < 32; n++) {
		char name[16];

		snprintf(name, sizeof(name), "%s%d", prefix, n);
		list = isl_id_list_add(list, isl_id_alloc(s->isl, name, NULL));
	}
	return list;
}

static isl_printer *printer(isl_ctx *isl)
{
	isl_printer *p = isl_printer_to_str(isl);

	p = isl_printer_set_output_format(p, ISL_FORMAT_C);
	p = isl_ast_expr_op_type_set_print_name(p, isl_ast_expr_op_min,
						"lk_min");
	p = isl_ast_expr_op_type_set_print_name(p, isl_ast_expr_op_max,
						"lk_max");
	p = isl_ast_expr_op_type_set_print_name(p, isl_ast_expr_op_fdiv_q,
						"lk_floord");
	return p;
}

static const char helpers[] =
	"#ifndef lk_floord\n"
	"#define lk_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) "
	": (n) / (d))\n"
	"#define lk_min(x, y) ((x) < (y) ? (x) : (y))\n"
	"#define lk_max(x, y) ((x) > (y) ? (x) : (y))\n"
	"#endif\n";

static char *print_ast(struct codegen *cg, isl_ast_node *ast)
{
	struct lk_gen_scop *s = cg->scop;
	isl_ast_print_options *opts = isl_ast_print_options_alloc(s->isl);
	isl_printer *p = printer(s->isl);
	struct lk_buf b = LK_BUF_INIT;
	char *text, *line, *save = NULL;

	opts = isl_ast_print_options_set_print_user(opts, print_user, cg);
	opts = isl_ast_print_options_set_print_for(opts, print_for, cg);
	p = isl_ast_node_print(ast, p, opts);
	text = isl_printer_get_str(p);
	isl_printer_free(p);
	if (!text)
		return NULL;
	/* The region's own indentation before isl's. */
	lk_buf_adds(&b, helpers);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		lk_buf_addf(&b, "%s%s\n", s->indent ? s->indent : "", line);
	free(text);
	return lk_buf_detach(&b);
}

static int generate(struct lk_ctx *ctx, struct lk_gen_scop *s,
		    struct lk_gen_result *r)
{
	struct codegen cg = {s, gen_all_deps(s), r->vector_hint, 0, 0};
	isl_ast_build *build = isl_ast_build_from_context(
		isl_set_copy(s->context));
	int ret = 0;

	build = isl_ast_build_set_iterators(build, gen_iterators(s));
	build = isl_ast_build_set_before_each_for(build, before_for, &cg);
	build = isl_ast_build_set_after_each_for(build, after_for, &cg);
	r->ast = isl_ast_build_node_from_schedule(
		build, isl_schedule_copy(r->schedule));
	isl_ast_build_free(build);
	if (r->ast)
		r->code = print_ast(&cg, r->ast);
	if (!r->ast || !r->code || cg.failed) {
		char *msg = gen_isl_error(s->isl);

		ret = lk_error(ctx, LK_EINPUT, "code generation failed "
			       "(a loop to unroll without a constant trip "
			       "count?): %s", msg);
		free(msg);
	} else if (r->vector_hint && !cg.marked) {
		ret = lk_error(ctx, LK_EINPUT, "vectorize: no innermost loop "
			       "is parallel (each carries a dependence)");
	}
	r->parallel_loops = cg.marked;
	isl_union_map_free(cg.deps);
	return ret;
}

static char *splice(const struct lk_gen_scop *s, const char *code)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_add(&b, s->text, s->body_begin);
	lk_buf_adds(&b, code);
	lk_buf_add(&b, s->text + s->body_end, s->text_len - s->body_end);
	return lk_buf_detach(&b);
}

/*
 * Steps that cannot break a dependence need no check: original and
 * vectorize leave the order alone, unroll strip-mines a loop (the same
 * order), and isl's scheduler takes every dependence as a validity
 * constraint. The check costs a quarter of a unit on adi and deriche.
 */
static int keeps_order(const struct lk_gen_step *st)
{
	static const char *const safe[] = {"original", "vectorize", "unroll",
					   "isl", "skew", "fuse",
					   "distribute", NULL};
	size_t i;

	for (i = 0; safe[i]; i++)
		if (!strcmp(st->name, safe[i]))
			return 1;
	return 0;
}

int lk_gen_transform(struct lk_ctx *ctx, struct lk_gen_scop *s,
		     const struct lk_gen_chain *chain,
		     struct lk_gen_result **out)
{
	struct lk_gen_result *r = lk_calloc(1, sizeof(*r));
	size_t i, nsteps = chain->nsteps;
	int ret;

	*out = NULL;
	ret = lk_gen_scop_deps(ctx, s);
	r->schedule = isl_schedule_copy(s->schedule);
	/* kernelify (always last) works on the code the others make. */
	r->kernelified = nsteps &&
			 !strcmp(chain->steps[nsteps - 1].name, "kernelify");
	nsteps -= r->kernelified;
	for (i = 0; !ret && i < nsteps; i++) {
		char *what = lk_asprintf("%s (step %zu of '%s')",
					 chain->steps[i].name, i + 1,
					 chain->text);

		ret = gen_apply_step(ctx, s, &chain->steps[i], &r->schedule,
				     &r->vector_hint);
		if (!ret && !keeps_order(&chain->steps[i]))
			ret = lk_gen_check_legal(ctx, s, r->schedule, what);
		free(what);
	}
	if (!ret)
		ret = generate(ctx, s, r);
	if (!ret)
		r->source = splice(s, r->code);
	if (!ret && r->kernelified)
		ret = gen_kernelify(ctx, s, &chain->steps[nsteps], r);
	if (ret)
		lk_gen_result_free(r);
	else
		*out = r;
	return ret;
}

const char *lk_gen_result_source(const struct lk_gen_result *r)
{
	return r->source;
}

void lk_gen_result_free(struct lk_gen_result *r)
{
	if (!r)
		return;
	isl_schedule_free(r->schedule);
	isl_ast_node_free(r->ast);
	free(r->code);
	free(r->source);
	free(r->transformed);
	lk_strv_release(&r->param_names);
	lk_strv_release(&r->param_values);
	free(r);
}
