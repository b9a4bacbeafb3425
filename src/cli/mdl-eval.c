/*
 * loopkit mdl eval and the campaign's mdl stage (doc/loopkit-mdl.md,
 * "eval"): every variant's innermost loops extracted to MDL, predicted
 * at each memory level from the seed database of the loop's ISA class,
 * replayed at the same level as ground truth, and llvm-mca's figure for
 * the same loop block beside them. It joins four stages (mdl, measure,
 * predict and the store), which is why it lives in the CLI layer, as
 * loopkit mdl replay and db build do. The rows go to the store's
 * mdl_evals table, which the report reads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/binary.h"
#include "loopkit/config.h"
#include "loopkit/env.h"
#include "loopkit/mdl.h"
#include "loopkit/measure.h"
#include "loopkit/predict.h"
#include "loopkit/report.h"
#include "loopkit/stats.h"

#define NLEVELS 4

struct eval {
	struct lk_ctx *ctx;
	struct lk_store *s;
	const struct lk_mdl_cfg *cfg;
	const struct lk_stage_opts *opts;
	char *replay_name;             /* <campaign>:mdl-replay */
	int64_t replay_campaign;
	struct lk_mdl_predict_opts popts;
	struct lk_mdl_dbs dbs;         /* the latest of each class */
	struct lk_mdl_eval_row *rows;
	size_t n, alloc;
	size_t *block;                 /* per row: into bs, or SIZE_MAX */
	long *trips;                   /* per row: its replay's iterations */
	size_t balloc, talloc;
	struct lk_block_set bs;
	long loops, refused, replays_now, replays_earlier;
	struct lk_buf notes;           /* indented lines of the summary */
};

static struct lk_mdl_eval_row *add_row(struct eval *e,
				       const struct lk_variant_binary *v,
				       const struct lk_cfg *cfg, uint64_t loop,
				       const char *level, const char *isa)
{
	struct lk_mdl_eval_row *r;

	LK_GROW(e->rows, e->n + 1, e->alloc);
	LK_GROW(e->block, e->n + 1, e->balloc);
	LK_GROW(e->trips, e->n + 1, e->talloc);
	r = &e->rows[e->n];
	memset(r, 0, sizeof(*r));
	r->variant_id = v->variant_id;
	r->variant = lk_variant_name(v->source, v->compiler, v->flagset,
				     v->params, v->nparams);
	r->function = lk_strdup(cfg->fn.name);
	r->loop = loop;
	r->level = lk_strdup(level);
	r->isa = lk_strdup(isa);
	r->status = lk_strdup("ok");
	r->reason = lk_strdup("");
	r->unroll = 1;
	r->predicted = r->replayed = r->mca = NAN;
	r->mca_tool = lk_strdup("");
	r->db_hash = lk_strdup("");
	e->block[e->n] = SIZE_MAX;
	e->trips[e->n] = 0;
	e->n++;
	return r;
}

/* The row's first problem names it; later ones are not recorded. */
static void row_fail(struct lk_mdl_eval_row *r, const char *status,
		     const char *reason)
{
	if (strcmp(r->status, "ok"))
		return;
	free(r->status);
	free(r->reason);
	r->status = lk_strdup(status);
	r->reason = lk_strdup(reason);
}

/* The latest database of the class; NULL when none. */
static const struct lk_mdl_db_row *get_db(struct eval *e, const char *isa)
{
	int k = (int)lk_mdl_machine_find(isa)->isa;

	return e->dbs.has[k] ? &e->dbs.db[k] : NULL;
}

/* The levels to evaluate: the mdl: section's, else the database's,
 * else L1. */
static unsigned wanted_levels(const struct eval *e,
			      const struct lk_mdl_db_row *db)
{
	unsigned w = 0;
	int l;

	if (e->cfg->levels)
		return e->cfg->levels;
	for (l = 0; db && l < NLEVELS; l++)
		if (strstr(db->levels, lk_mdl_level_name(l)))
			w |= 1u << l;
	return w ? w : 1u;
}

static void predict_level(struct eval *e, struct lk_mdl_eval_row *r,
			  const struct lk_mdl_db_row *db,
			  const struct lk_mdl *m, enum lk_mdl_level level)
{
	struct lk_mdl_prediction p;
	char *why;

	if (!db) {
		why = lk_mdl_dbs_missing(&e->dbs, r->isa);
		row_fail(r, "no-database", why);
		free(why);
		return;
	}
	free(r->db_hash);
	r->db_hash = lk_strdup(db->hash);
	if (lk_mdl_predict(e->ctx, db, r->function, m, level, &e->popts,
			   &p)) {
		row_fail(r, "no-prediction", e->ctx->msg);
		lk_ctx_clear(e->ctx);
		return;
	}
	r->predicted = p.value;
	lk_mdl_prediction_release(&p);
}

static int replay_level(struct eval *e, struct lk_mdl_eval_row *r,
			const struct lk_cfg *cfg, size_t head,
			enum lk_mdl_level level, const char *binary)
{
	struct lk_mdl_replay_opts o;
	struct lk_mdl_replay rp = {0};
	struct lk_buf c = LK_BUF_INIT;
	int ret;

	lk_mdl_replay_opts_init(&o);
	o.level = level;
	o.max_streams = e->cfg->max_streams ? (int)e->cfg->max_streams : 7;
	o.source = binary;
	ret = lk_mdl_replay(e->ctx, cfg, head, &o, &rp, &c);
	if (ret == LK_EINPUT) {         /* the level's size is unknown */
		row_fail(r, "replay-failed", e->ctx->msg);
		lk_ctx_clear(e->ctx);
		ret = 0;
	} else if (!ret && rp.refused) {
		row_fail(r, "replay-refused", rp.reason);
	} else if (!ret) {
		ret = lk_mdl_replay_record(e->ctx, e->s, e->replay_campaign,
					   &rp, &c, &r->replay_variant_id);
		e->trips[r - e->rows] = rp.trips * rp.unroll;
	}
	lk_mdl_replay_release(&rp);
	lk_buf_release(&c);
	return ret;
}

static int eval_loop(struct eval *e, const struct lk_variant_binary *v,
		     const struct lk_cfg *cfg, size_t head)
{
	struct lk_mdl_extraction x;
	const struct lk_mdl_db_row *db;
	const char *isa;
	uint64_t loop = cfg->blocks[head].start;
	unsigned levels;
	size_t block;
	int l, ret = lk_mdl_extract(e->ctx, cfg, head, &x);

	if (ret)
		return ret;
	e->loops++;
	if (x.refused) {
		e->refused++;
		row_fail(add_row(e, v, cfg, loop, "", ""), "refused", x.reason);
		lk_mdl_extraction_release(&x);
		return 0;
	}
	isa = lk_mdl_block_class(cfg->fn.code + (cfg->blocks[head].start -
						 cfg->fn.addr),
				 (size_t)(cfg->blocks[head].end -
					  cfg->blocks[head].start))->name;
	db = get_db(e, isa);
	levels = wanted_levels(e, db);
	block = lk_block_set_add_block(&e->bs, cfg, head);
	for (l = 0; !ret && l < NLEVELS; l++) {
		struct lk_mdl_eval_row *r;

		if (!(levels & (1u << l)))
			continue;
		r = add_row(e, v, cfg, loop, lk_mdl_level_name(l), isa);
		r->unroll = x.unroll > 0 ? x.unroll : 1;
		e->block[e->n - 1] = block;
		predict_level(e, r, db, &x.mdl, l);
		ret = replay_level(e, r, cfg, head, l, v->binary);
	}
	lk_mdl_extraction_release(&x);
	return ret;
}

/* A variant's kernel: each innermost loop. A kernel that does not
 * decode fails the variant, not the stage. */
static int eval_variant(struct eval *e, const struct lk_variant_binary *v,
			struct lk_stage_summary *sum, struct lk_stage_item *it)
{
	struct lk_cfg cfg;
	size_t *heads = NULL, nheads = 0, i;
	int ret;

	if (!v->binary || !*v->binary) {
		lk_stage_item_set(it, "skipped", "no binary");
		sum->skipped++;
		return 0;
	}
	if (lk_cfg_kernel(e->ctx, e->s, v->binary, &cfg, NULL)) {
		lk_stage_item_set(it, "failed", e->ctx->msg);
		lk_ctx_clear(e->ctx);
		sum->failed++;
		return 0;
	}
	lk_mdl_loops(&cfg, &heads, NULL, &nheads);
	for (i = 0, ret = 0; !ret && i < nheads; i++)
		ret = eval_loop(e, v, &cfg, heads[i]);
	if (!ret && !nheads) {
		lk_stage_item_set(it, "skipped", "the kernel has no loop");
		sum->skipped++;
	} else if (!ret) {
		lk_stage_item_set(it, "ok", "");
		sum->done++;
	}
	free(heads);
	lk_cfg_release(&cfg);
	return ret;
}

/* The replays' figures, per canonical iteration. */
static int read_replays(struct eval *e)
{
	size_t i;
	struct lk_mdl_clock clock;
	int ret = lk_mdl_clock_read(e->ctx, e->s, e->replay_campaign, &clock);

	for (i = 0; !ret && i < e->n; i++) {
		struct lk_mdl_eval_row *r = &e->rows[i];
		struct lk_run_figure f = {0};
		enum lk_mdl_level level;
		char *why;

		if (!r->replay_variant_id)
			continue;
		if (lk_mdl_level_parse(r->level, &level))
			LK_BUG("bad level in an eval row");
		ret = lk_mdl_figure(e->ctx, e->s, r->replay_variant_id, level,
				    &clock, &f);
		if (!ret && lk_run_figure_usable(&f) && e->trips[i] > 0) {
			r->replayed = f.value / (double)e->trips[i];
		} else if (!ret) {
			why = lk_asprintf("the replay's run is %s (campaign "
					  "%s)", f.status ? f.status : "missing",
					  e->replay_name);
			row_fail(r, "replay-failed", why);
			free(why);
		}
		lk_run_figure_release(&f);
	}
	return ret;
}

/* llvm-mca on the extracted loops' blocks, when one is installed. */
static int run_mca(struct eval *e)
{
	struct lk_strv tools = {0};
	struct lk_predict_setup st = {.tools = &tools};
	struct lk_predictor **p = NULL;
	struct lk_pred *preds;
	size_t np = 0, i;
	int ret;

	if (e->cfg->no_mca || !e->bs.n)
		return 0;
	lk_strv_push(&tools, "llvm-mca");
	ret = lk_predictors_make(e->ctx, &st, &p, &np);
	lk_strv_release(&tools);
	if (ret == LK_ENOTFOUND || ret == LK_EINPUT) {
		lk_buf_addf(&e->notes, "\n         llvm-mca: %s", e->ctx->msg);
		lk_ctx_clear(e->ctx);
		return 0;
	}
	if (ret)
		return ret;
	preds = lk_calloc(e->bs.n, sizeof(*preds));
	ret = p[0]->predict(e->ctx, p[0], e->bs.blocks, e->bs.n, preds);
	for (i = 0; !ret && i < e->n; i++) {
		struct lk_mdl_eval_row *r = &e->rows[i];
		const struct lk_pred *q;

		if (e->block[i] == SIZE_MAX)
			continue;
		q = &preds[e->block[i]];
		free(r->mca_tool);
		r->mca_tool = lk_strdup(p[0]->name);
		if (q->status && !strcmp(q->status, "ok"))
			r->mca = q->value / (double)r->unroll;
	}
	for (i = 0; i < e->bs.n; i++)
		lk_pred_release(&preds[i]);
	free(preds);
	lk_predictors_free(p, np);
	return ret;
}

/* Per level: MDL's error against the replays, and llvm-mca's on the
 * same loops (those it predicted too). */
static void level_figures(struct eval *e, int level, struct lk_buf *out)
{
	const char *name = lk_mdl_level_name(level);
	struct lk_report_mdl_level l;

	lk_report_mdl_level(e->rows, e->n, name, &l);
	if (l.rows && !l.mdl.n)
		lk_buf_addf(out, "\n         %-4s 0 of %zu loops compared", name,
			    l.rows);
	if (l.mdl.n)
		lk_buf_addf(out, "\n         %-4s %zu of %zu loops: MDL MAPE "
			    "%.1f %%, median |error| %.1f %% [%.1f, %.1f], "
			    "tau-b %.3f", name, l.mdl.n, l.rows, l.mdl.mape,
			    100 * l.mdl.abs_median, 100 * l.mdl.abs_q1,
			    100 * l.mdl.abs_q3, l.mdl.tau_b);
	if (l.mca.n)
		lk_buf_addf(out, "; %s on %zu of them: MAPE %.1f %%, tau-b "
			    "%.3f", l.mca_tool, l.mca.n, l.mca.mape,
			    l.mca.tau_b);
}

/* Each reason a loop or a level was not compared, with its count. */
static void reasons(const struct eval *e, struct lk_buf *out)
{
	struct lk_report_mdl_reason *g;
	size_t ng = lk_report_mdl_reasons(e->rows, e->n, &g), i;

	for (i = 0; i < ng; i++)
		lk_buf_addf(out, "\n         %s %zu: %s", g[i].status,
			    g[i].count, g[i].reason);
	free(g);
}

static void summary_line(struct eval *e, struct lk_stage_summary *sum)
{
	struct lk_buf b = LK_BUF_INIT;
	int l;

	lk_buf_addf(&b, "%ld loop%s in %zu variants: %ld extracted, %ld "
		    "refused; replays: %ld measured now, %ld stored earlier",
		    e->loops, e->loops == 1 ? "" : "s", sum->n,
		    e->loops - e->refused, e->refused, e->replays_now,
		    e->replays_earlier);
	for (l = 0; l < NLEVELS; l++)
		level_figures(e, l, &b);
	reasons(e, &b);
	lk_buf_adds(&b, lk_buf_str(&e->notes));
	sum->line = lk_buf_detach(&b);
}

static int measure_replays(struct eval *e)
{
	struct lk_run_summary rs;
	size_t i;
	int ret;

	/* every replay refused (or no loop): nothing to measure */
	for (i = 0; i < e->n && !e->rows[i].replay_variant_id; i++)
		;
	if (i == e->n)
		return 0;
	ret = cmd_mdl_replay_measure(e->ctx, e->s, e->replay_campaign,
				     e->replay_name, e->opts->quiet, &rs);
	if (!ret) {
		e->replays_now = rs.measured;
		e->replays_earlier = rs.skipped;
	}
	lk_run_summary_release(&rs);
	return ret;
}

static void eval_release(struct eval *e)
{
	lk_mdl_dbs_release(&e->dbs);
	lk_mdl_eval_rows_free(e->rows, e->n);
	free(e->block);
	free(e->trips);
	free(e->replay_name);
	lk_block_set_release(&e->bs);
	lk_buf_release(&e->notes);
}

static int eval_all(struct eval *e, const struct lk_sweep *cfg,
		    int64_t campaign, struct lk_stage_summary *sum)
{
	struct lk_variant_binary *v = NULL;
	size_t nv = 0, i;
	int ret;

	e->replay_name = lk_asprintf("%s:mdl-replay", cfg->name);
	ret = lk_mdl_dbs_load(e->ctx, e->s, &e->dbs);
	if (!ret)
		ret = lk_store_variant_binaries(e->ctx, e->s, campaign, &v,
						&nv);
	if (ret)
		return ret;
	lk_stage_items_init(sum, v, nv);
	ret = lk_store_campaign(e->ctx, e->s, e->replay_name, NULL, NULL,
				&e->replay_campaign);
	for (i = 0; !ret && i < nv; i++)
		ret = eval_variant(e, &v[i], sum, &sum->items[i]);
	if (!ret)
		ret = measure_replays(e);
	if (!ret)
		ret = read_replays(e);
	if (!ret)
		ret = run_mca(e);
	if (!ret)
		ret = lk_store_mdl_eval_put(e->ctx, e->s, campaign, e->rows,
					    e->n);
	lk_variant_binaries_free(v, nv);
	return ret;
}

int lk_cli_mdl_eval_stage(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const struct lk_sweep *cfg,
			  const struct lk_stage_opts *opts,
			  struct lk_stage_summary *sum)
{
	struct eval e = {0};
	int ret;

	if (!cfg->mdl.given) {
		sum->line = lk_strdup("nothing to do: the file has no mdl: "
				      "section");
		return 0;
	}
	e.ctx = ctx;
	e.s = s;
	e.cfg = &cfg->mdl;
	e.opts = opts;
	e.popts.combine = cfg->mdl.combine_sum ? LK_MDL_COMBINE_SUM
					       : LK_MDL_COMBINE_JOINT;
	lk_mdl_knn_opts_init(&e.popts.knn);
	if (cfg->mdl.orders)
		e.popts.knn.orders = (int)cfg->mdl.orders;
	if (cfg->mdl.kmax)
		e.popts.knn.kmax = (int)cfg->mdl.kmax;
	ret = eval_all(&e, cfg, campaign, sum);
	if (!ret)
		summary_line(&e, sum);
	eval_release(&e);
	return ret;
}

static const char usage[] =
	"-c CAMPAIGN.yaml [options]\n\n"
	"Extract every variant's innermost loops to MDL, predict each at the\n"
	"memory levels of the mdl: section (default: the database's) from\n"
	"the seed database of the loop's ISA class, replay the loop at the\n"
	"same levels as ground truth, run llvm-mca on the same block, and\n"
	"print each level's error (MAPE, median and quartiles of |error|,\n"
	"Kendall's tau-b) beside llvm-mca's. The rows are stored (the report\n"
	"shows them); --csv prints them.";

static void csv_row(const struct lk_mdl_eval_row *r)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_addf(&b, "%s,%s,0x%llx,%s,%s,%s,", r->variant, r->function,
		    (unsigned long long)r->loop, r->level, r->isa, r->status);
	lk_buf_add_csv_field(&b, r->reason);
	lk_buf_addf(&b, ",%ld,%.6g,%.6g,%.6g,%s,%.12s\n", r->unroll,
		    r->predicted, r->replayed, r->mca, r->mca_tool, r->db_hash);
	fputs(lk_buf_str(&b), stdout);
	lk_buf_release(&b);
}

static int print_csv(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign)
{
	struct lk_mdl_eval_row *rows = NULL;
	size_t n = 0, i;
	int ret = lk_store_mdl_eval_get(ctx, s, campaign, &rows, &n);

	if (ret)
		return ret;
	printf("variant,function,loop,level,isa,status,reason,unroll,"
	       "predicted,replayed,mca,mca_tool,database\n");
	for (i = 0; i < n; i++)
		csv_row(&rows[i]);
	lk_mdl_eval_rows_free(rows, n);
	return 0;
}

int cmd_mdl_eval(int argc, char **argv)
{
	const char *config = NULL, *dir = LK_STORE_DEFAULT_DIR;
	int csv = 0, quiet = 0;
	const struct lk_opt opts[] = {
		{'c', "config", LK_OPT_STRING, &config, "FILE",
		 "the campaign file (required)"},
		{'o', "output", LK_OPT_STRING, &dir, "DIR",
		 "the campaign store (default loopkit.d)"},
		{0, "csv", LK_OPT_BOOL, &csv, NULL,
		 "print every row as CSV instead of the summary"},
		{'q', "quiet", LK_OPT_BOOL, &quiet, NULL, "no progress"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl eval", usage, opts, argc, argv);
	struct lk_stage_opts so = {0};
	struct lk_stage_summary sum = {0};
	struct lk_sweep *sw = NULL;
	struct lk_store *s = NULL;
	struct lk_ctx ctx;
	int64_t campaign;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first < argc)
		return lk_cli_usage_error("mdl eval", "unexpected argument "
					  "'%s'", argv[first]);
	if (!config)
		return lk_cli_usage_error("mdl eval", "-c CAMPAIGN.yaml is "
					  "required");
	so.quiet = quiet || csv;
	lk_ctx_init(&ctx);
	ret = lk_cli_campaign_open(&ctx, config, dir, &sw, &s, &campaign);
	if (!ret) {
		sw->mdl.given = 1;      /* the command asks for it */
		ret = lk_cli_mdl_eval_stage(&ctx, s, campaign, sw, &so, &sum);
	}
	if (!ret && csv)
		ret = print_csv(&ctx, s, campaign);
	else if (!ret)
		printf("mdl eval: %s\n", sum.line);
	lk_stage_summary_release(&sum);
	lk_store_close(s);
	lk_sweep_free(sw);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(&ctx, "writing the output");
	return ret ? lk_cli_fail(&ctx) : 0;
}
