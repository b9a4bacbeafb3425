/*
 * The predict tool 'mdl': every block given is predicted by MDL when it
 * is a single-block innermost loop (lk_mdl_block_predict), unsupported
 * with the reason otherwise. One tool per level the stored databases
 * have: mdl (L1), mdl-l2, mdl-l3, mdl-ram (doc/loopkit-predict.md).
 */
#include <stdlib.h>
#include <string.h>

#include "predict-mdl.h"

#define MDL_TOOL_VERSION "mdl-2"
#define MDL_TOOL_UNIT "tsc-calibrated-cycles/iter"

static const char *const tool_names[] = {"mdl", "mdl-l2", "mdl-l3",
					 "mdl-ram"};

struct mdl_tool {
	struct lk_mdl_dbs dbs;     /* its own copy, read when made */
	enum lk_mdl_level level;
	struct lk_mdl_predict_opts opts;
};

void lk_cli_mdl_tools_init(struct lk_cli_mdl_tools *t, struct lk_store *s,
			   const char *dir)
{
	memset(t, 0, sizeof(*t));
	t->store = s;
	t->dir = lk_strdup(s ? lk_store_dir(s) : dir);
	lk_ctx_init(&t->why);
}

void lk_cli_mdl_tools_release(struct lk_cli_mdl_tools *t)
{
	if (!t)
		return;
	lk_mdl_dbs_release(&t->dbs);
	if (t->owned)
		lk_store_close(t->store);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

/* Read the databases once; a directory without a store has none. */
static void load(struct lk_cli_mdl_tools *t)
{
	int ret = 0;

	if (t->loaded)
		return;
	t->loaded = 1;
	if (!t->store) {
		ret = lk_store_open(&t->why, t->dir, LK_STORE_READER,
				    &t->store);
		t->owned = !ret;
		if (ret == LK_ENOTFOUND)
			return;
	}
	if (!ret)
		ret = lk_mdl_dbs_load(&t->why, t->store, &t->dbs);
	t->failed = ret != 0;
}

static int tool_level(const char *name, enum lk_mdl_level *level)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(tool_names); i++)
		if (!strcmp(tool_names[i], name)) {
			*level = (enum lk_mdl_level)i;
			return 1;
		}
	return 0;
}

static void family_names(void *arg, struct lk_strv *out)
{
	struct lk_cli_mdl_tools *t = arg;
	unsigned levels;
	size_t i;

	load(t);
	levels = t->failed ? 0 : lk_mdl_dbs_levels(&t->dbs);
	for (i = 0; i < LK_ARRAY_SIZE(tool_names); i++)
		if (levels & (1u << i))
			lk_strv_push(out, tool_names[i]);
}

static int family_missing(struct lk_ctx *ctx, void *arg, const char *name)
{
	struct lk_cli_mdl_tools *t = arg;
	enum lk_mdl_level level;

	if (!tool_level(name, &level))
		return 1;
	load(t);
	if (t->failed)
		return lk_error(ctx, t->why.code, "%s", t->why.msg);
	if (!lk_mdl_dbs_levels(&t->dbs))
		return lk_error(ctx, LK_ENOTFOUND, "%s: no MDL database for "
				"the tool %s: build one with 'loopkit mdl db "
				"build --isa CLASS -o %s' (CLASS: scalar, sse, "
				"avx2, avx512)", t->dir, name, t->dir);
	return lk_error(ctx, LK_ENOTFOUND, "%s: no MDL database has %s "
			"values (the tool %s): build one with 'loopkit mdl db "
			"build --isa CLASS --levels %s -o %s'", t->dir,
			lk_mdl_level_name(level), name,
			lk_mdl_level_name(level), t->dir);
}

/* One block: ok, unsupported, or failed when its bytes do not decode. */
static void predict_block(const struct mdl_tool *m, const struct lk_pblock *b,
			  struct lk_pred *out)
{
	struct lk_mdl_block_prediction r;
	struct lk_ctx bctx;
	double t0 = lk_now();

	lk_ctx_init(&bctx);
	out->unit = lk_strdup(MDL_TOOL_UNIT);
	if (lk_mdl_block_predict(&bctx, &m->dbs, b->bytes, b->len, b->addr,
				 m->level, &m->opts, &r)) {
		lk_pred_set(out, "failed", 0, bctx.msg);
		out->raw = lk_strdup("");
	} else {
		lk_pred_set(out, r.ok ? "ok" : "unsupported", r.value,
			    r.reason);
		out->raw = r.trace;
		out->input = r.mdl;
		r.trace = r.mdl = NULL;
	}
	lk_mdl_block_prediction_release(&r);
	out->seconds = lk_now() - t0;
}

static int tool_predict(struct lk_ctx *ctx, struct lk_predictor *p,
			const struct lk_pblock *blocks, size_t n,
			struct lk_pred *out)
{
	size_t i;

	(void)ctx;
	for (i = 0; i < n; i++)
		predict_block(p->priv, &blocks[i], &out[i]);
	return 0;
}

static void tool_destroy(struct lk_predictor *p)
{
	struct mdl_tool *m = p->priv;

	lk_mdl_dbs_release(&m->dbs);
	free(m);
}

static int family_make(struct lk_ctx *ctx, void *arg, const char *name,
		       struct lk_predictor **out)
{
	struct lk_cli_mdl_tools *t = arg;
	struct mdl_tool *m = lk_calloc(1, sizeof(*m));
	struct lk_predictor *p;
	char *dbs;
	int ret;

	*out = NULL;
	tool_level(name, &m->level);
	m->opts.combine = LK_MDL_COMBINE_JOINT;
	lk_mdl_knn_opts_init(&m->opts.knn);
	ret = lk_mdl_dbs_load(ctx, t->store, &m->dbs);
	if (ret) {
		free(m);
		return ret;
	}
	p = lk_calloc(1, sizeof(*p));
	dbs = lk_mdl_dbs_text(&m->dbs);
	p->name = lk_strdup(name);
	p->version = lk_strdup(MDL_TOOL_VERSION);
	p->params = lk_asprintf("level=%s db=%s isa=per-block orders=%d "
				"kmax=%d distance=l2 combine=joint",
				lk_mdl_level_name(m->level), dbs,
				m->opts.knn.orders, m->opts.knn.kmax);
	p->predict = tool_predict;
	p->destroy = tool_destroy;
	p->priv = m;
	free(dbs);
	*out = p;
	return 0;
}

struct lk_predict_family lk_cli_mdl_family(struct lk_cli_mdl_tools *t)
{
	struct lk_predict_family f = {"mdl", family_names, family_make,
				      family_missing, t};

	return f;
}

int lk_cli_predict_stage(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_sweep *cfg,
			 const struct lk_stage_opts *opts,
			 struct lk_stage_summary *sum)
{
	struct lk_cli_mdl_tools t;
	struct lk_predict_family f;
	int ret;

	lk_cli_mdl_tools_init(&t, s, NULL);
	f = lk_cli_mdl_family(&t);
	ret = lk_predict_stage_families(ctx, s, campaign, cfg, opts, &f, 1,
					sum);
	lk_cli_mdl_tools_release(&t);
	return ret;
}
