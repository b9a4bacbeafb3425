/*
 * The polyhedral model of a scop: the statements' isl domains and access
 * relations from the texts the front end wrote, the original schedule
 * tree from the loop tree, and the dependences by isl's flow analysis.
 */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/space.h>
#include <isl/options.h>
#include <isl/printer.h>

#include "gen-int.h"

char *gen_params_prefix(const struct lk_gen_scop *scop)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	lk_buf_addch(&b, '[');
	for (i = 0; i < scop->params.n; i++)
		lk_buf_addf(&b, "%s%s", i ? ", " : "", scop->params.v[i]);
	lk_buf_adds(&b, "] -> ");
	return lk_buf_detach(&b);
}

char *gen_isl_error(isl_ctx *isl)
{
	const char *msg = isl_ctx_last_error_msg(isl);
	char *s = lk_strdup(msg ? msg : "unknown isl error");

	isl_ctx_reset_error(isl);
	return s;
}

static char *tuple(const struct lk_gen_stmt *st)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	lk_buf_addf(&b, "%s[", st->name);
	for (i = 0; i < st->iters.n; i++)
		lk_buf_addf(&b, "%s%s", i ? ", " : "", st->iters.v[i]);
	lk_buf_addch(&b, ']');
	return lk_buf_detach(&b);
}

static int isl_fail(struct walker *w, const struct lk_gen_stmt *st,
		    const char *what, const char *text)
{
	char *msg = gen_isl_error(w->scop->isl);

	lk_error_at(w->ctx, LK_EINPUT, w->file, st->line,
		    "unsupported %s (isl cannot read '%s': %s)", what, text,
		    msg);
	free(msg);
	return LK_EINPUT;
}

static int stmt_domain(struct walker *w, size_t k, const char *prefix)
{
	struct lk_gen_stmt *st = &w->scop->stmts[k];
	const struct stmt_build *sb = &w->builds[k];
	struct lk_buf b = LK_BUF_INIT;
	char *tup = tuple(st);
	size_t i;
	int ret = 0;

	lk_buf_addf(&b, "%s{ %s", prefix, tup);
	for (i = 0; i < sb->conds.n; i++)
		lk_buf_addf(&b, "%s(%s)", i ? " and " : " : ", sb->conds.v[i]);
	lk_buf_adds(&b, " }");
	st->domain = isl_set_read_from_str(w->scop->isl, lk_buf_str(&b));
	if (!st->domain)
		ret = isl_fail(w, st, "loop bounds or condition",
			       lk_buf_str(&b));
	free(tup);
	lk_buf_release(&b);
	return ret;
}

static int stmt_accesses(struct walker *w, size_t k, const char *prefix,
			 const struct lk_strv *texts, isl_union_map **out)
{
	struct lk_gen_stmt *st = &w->scop->stmts[k];
	char *tup = tuple(st);
	size_t i;
	int ret = 0;

	*out = isl_union_map_empty(isl_set_get_space(st->domain));
	for (i = 0; !ret && i < texts->n; i++) {
		char *text = lk_asprintf("%s{ %s -> %s }", prefix, tup,
					 texts->v[i]);
		isl_map *m = isl_map_read_from_str(w->scop->isl, text);

		if (!m)
			ret = isl_fail(w, st, "access", text);
		else
			*out = isl_union_map_add_map(
				*out, isl_map_intersect_domain(
					      m, isl_set_copy(st->domain)));
		free(text);
	}
	free(tup);
	return ret;
}

/* { S[...] -> [i, -j] } over the statements below a band. */
static void band_entries(const struct lk_gen_scop *s, const struct snode *n,
			 size_t depth, struct lk_buf *b, int *first)
{
	size_t i;

	if (n->stmt >= 0) {
		const struct lk_gen_stmt *st = &s->stmts[n->stmt];
		char *tup = tuple(st);

		lk_buf_addf(b, "%s%s -> [", *first ? "" : "; ", tup);
		free(tup);
		*first = 0;
		return;
	}
	for (i = 0; i < n->nkids; i++)
		band_entries(s, n->kids[i], depth, b, first);
}

static void band_text(const struct lk_gen_scop *s, const struct snode *n,
		      const struct snode *band, struct lk_buf *b, int *first)
{
	size_t i;

	if (n->stmt >= 0) {
		band_entries(s, n, 0, b, first);
		for (i = 0; i < band->iters.n; i++)
			lk_buf_addf(b, "%s%s%s", i ? ", " : "",
				    band->signs[i] < 0 ? "-" : "",
				    band->iters.v[i]);
		lk_buf_addch(b, ']');
		return;
	}
	for (i = 0; i < n->nkids; i++)
		band_text(s, n->kids[i], band, b, first);
}

static isl_schedule *schedule_of(struct walker *w, const struct snode *n);

static isl_schedule *sequence_of(struct walker *w, const struct snode *n)
{
	isl_schedule *s = NULL;
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		isl_schedule *k = schedule_of(w, n->kids[i]);

		if (!k)
			continue;
		s = s ? isl_schedule_sequence(s, k) : k;
	}
	return s;
}

static isl_schedule *schedule_of(struct walker *w, const struct snode *n)
{
	struct lk_gen_scop *s = w->scop;
	struct lk_buf b = LK_BUF_INIT;
	isl_schedule *child;
	isl_union_pw_multi_aff *upma;
	char *prefix;
	int first = 1;

	if (n->stmt >= 0)
		return isl_schedule_from_domain(isl_union_set_from_set(
			isl_set_copy(s->stmts[n->stmt].domain)));
	child = sequence_of(w, n);
	if (!child || !n->iters.n)
		return child;
	prefix = gen_params_prefix(s);
	lk_buf_addf(&b, "%s{ ", prefix);
	band_text(s, n, n, &b, &first);
	lk_buf_adds(&b, " }");
	upma = isl_union_pw_multi_aff_read_from_str(s->isl, lk_buf_str(&b));
	free(prefix);
	lk_buf_release(&b);
	if (!upma) {
		isl_schedule_free(child);
		return NULL;
	}
	return isl_schedule_insert_partial_schedule(
		child, isl_multi_union_pw_aff_from_union_pw_multi_aff(upma));
}

static int build_unions(struct walker *w, const char *prefix)
{
	struct lk_gen_scop *s = w->scop;
	isl_space *space;
	size_t k;
	int ret = 0;

	for (k = 0; !ret && k < s->nstmts; k++) {
		ret = stmt_domain(w, k, prefix);
		if (!ret)
			ret = stmt_accesses(w, k, prefix, &w->builds[k].reads,
					    &s->stmts[k].reads);
		if (!ret)
			ret = stmt_accesses(w, k, prefix, &w->builds[k].writes,
					    &s->stmts[k].writes);
	}
	if (ret)
		return ret;
	space = isl_set_get_space(s->stmts[0].domain);
	s->domain = isl_union_set_empty(isl_space_params(
		isl_space_copy(space)));
	s->reads = isl_union_map_empty(isl_space_params(
		isl_space_copy(space)));
	s->writes = isl_union_map_empty(isl_space_params(space));
	for (k = 0; k < s->nstmts; k++) {
		s->domain = isl_union_set_add_set(
			s->domain, isl_set_copy(s->stmts[k].domain));
		s->reads = isl_union_map_union(
			s->reads, isl_union_map_copy(s->stmts[k].reads));
		s->writes = isl_union_map_union(
			s->writes, isl_union_map_copy(s->stmts[k].writes));
	}
	return 0;
}

int gen_model_build(struct walker *w, struct snode *root)
{
	struct lk_gen_scop *s = w->scop;
	char *prefix, *ctx_text;
	int ret;

	s->isl = isl_ctx_alloc();
	isl_options_set_on_error(s->isl, ISL_ON_ERROR_CONTINUE);
	prefix = gen_params_prefix(s);
	ret = build_unions(w, prefix);
	if (!ret) {
		ctx_text = lk_asprintf("%s{ : }", prefix);
		s->context = isl_set_read_from_str(s->isl, ctx_text);
		free(ctx_text);
		s->schedule = sequence_of(w, root);
		if (!s->schedule || !s->context)
			ret = isl_fail(w, &s->stmts[0], "loop nest", "schedule");
	}
	free(prefix);
	return ret;
}

/* ---- Dependences. ---- */

static isl_union_map *flow(struct lk_gen_scop *s, isl_union_map *sink,
			   isl_union_map *must, isl_union_map *may,
			   int want_may)
{
	isl_union_access_info *ai = isl_union_access_info_from_sink(sink);
	isl_union_flow *f;
	isl_union_map *deps;

	if (must)
		ai = isl_union_access_info_set_must_source(ai, must);
	if (may)
		ai = isl_union_access_info_set_may_source(ai, may);
	ai = isl_union_access_info_set_schedule(
		ai, isl_schedule_copy(s->schedule));
	f = isl_union_access_info_compute_flow(ai);
	deps = want_may ? isl_union_flow_get_may_dependence(f)
			: isl_union_flow_get_must_dependence(f);
	isl_union_flow_free(f);
	return isl_union_map_coalesce(deps);
}

int lk_gen_scop_deps(struct lk_ctx *ctx, struct lk_gen_scop *s)
{
	if (s->raw)
		return 0;
	s->raw = flow(s, isl_union_map_copy(s->reads),
		      isl_union_map_copy(s->writes), NULL, 1);
	s->waw = flow(s, isl_union_map_copy(s->writes),
		      isl_union_map_copy(s->writes), NULL, 1);
	s->war = flow(s, isl_union_map_copy(s->writes), NULL,
		      isl_union_map_copy(s->reads), 1);
	if (!s->raw || !s->waw || !s->war) {
		char *msg = gen_isl_error(s->isl);

		lk_error(ctx, LK_EINTERNAL, "%s: dependence analysis failed: "
			 "%s", s->file, msg);
		free(msg);
		return LK_EINTERNAL;
	}
	return 0;
}

void lk_gen_scop_add_size(struct lk_gen_scop *scop, const char *name_value)
{
	lk_strv_push(&scop->size_values, name_value);
}

void lk_gen_scop_free(struct lk_gen_scop *s)
{
	size_t i, j;

	if (!s)
		return;
	for (i = 0; i < s->nstmts; i++) {
		struct lk_gen_stmt *st = &s->stmts[i];

		free(st->name);
		lk_strv_release(&st->iters);
		for (j = 0; j < st->npieces; j++)
			free(st->pieces[j].text);
		free(st->pieces);
		isl_set_free(st->domain);
		isl_union_map_free(st->reads);
		isl_union_map_free(st->writes);
	}
	free(s->stmts);
	isl_set_free(s->context);
	isl_union_set_free(s->domain);
	isl_union_map_free(s->reads);
	isl_union_map_free(s->writes);
	isl_schedule_free(s->schedule);
	gen_schedule_memo_free(s->memo);
	isl_union_map_free(s->raw);
	isl_union_map_free(s->war);
	isl_union_map_free(s->waw);
	if (s->isl)
		isl_ctx_free(s->isl);
	free(s->file);
	free(s->text);
	free(s->function);
	lk_strv_release(&s->cflags);
	free(s->indent);
	lk_strv_release(&s->params);
	lk_strv_release(&s->size_values);
	free(s);
}

char *lk_gen_kernel_name(const struct lk_gen_scop *scop)
{
	const char *base;
	const char *dot;

	if (scop->function && !strncmp(scop->function, "kernel_", 7) &&
	    scop->function[7])
		return lk_strdup(scop->function + 7);
	base = strrchr(scop->file, '/');
	base = base ? base + 1 : scop->file;
	dot = strrchr(base, '.');
	return dot && dot != base ? lk_strndup(base, (size_t)(dot - base))
				  : lk_strdup(base);
}
