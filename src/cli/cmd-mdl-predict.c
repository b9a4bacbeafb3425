/*
 * loopkit mdl predict FILE.mdl: the iterative k-NN against the latest
 * stored seed database of an ISA class (doc/loopkit-mdl.md, "predict").
 * A binary's loop takes the same path once extracted to MDL:
 * lk_mdl_predict() takes a struct lk_mdl.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/mdl.h"
#include "loopkit/toolchain.h"

static const char usage[] =
	"FILE.mdl [options]\n\n"
	"Predict the description's tsc-calibrated cycles per canonical\n"
	"iteration at each memory level from the seeds measured by\n"
	"'loopkit mdl db build' (seed:NAME: a seed of share/mdl/seeds).";

struct predict_args {
	const char *dir, *isa, *level, *combine;
	long orders, kmax;
	int trace, json;
};

static int check_args(const struct predict_args *a)
{
	const char *cmd = "mdl predict";
	enum lk_mdl_level l;

	if (strcmp(a->level, "all") && lk_mdl_level_parse(a->level, &l))
		return lk_cli_usage_error(cmd, "--level: '%s' is not L1, L2, "
					  "L3, RAM or all", a->level);
	if (strcmp(a->combine, "joint") && strcmp(a->combine, "sum"))
		return lk_cli_usage_error(cmd, "--combine: '%s' is not joint "
					  "or sum", a->combine);
	if (a->orders < 1 || a->orders > 16)
		return lk_cli_usage_error(cmd, "--orders: %ld is not between 1 "
					  "and 16", a->orders);
	if (a->kmax < 1 || a->kmax > 64)
		return lk_cli_usage_error(cmd, "--kmax: %ld is not between 1 "
					  "and 64", a->kmax);
	return 0;
}

static char *mdl_path(const char *operand)
{
	if (strncmp(operand, "seed:", 5))
		return lk_strdup(operand);
	return lk_asprintf("%s/mdl/seeds/%s.mdl", lk_share_dir(), operand + 5);
}

/* The latest database of the class, or a one-line "how to build it". */
static int load_db(struct lk_ctx *ctx, const char *dir,
		   const struct lk_mdl_machine *m, struct lk_mdl_db_row *db)
{
	struct lk_store *s = NULL;
	int ret = lk_store_open(ctx, dir, LK_STORE_READER, &s);

	memset(db, 0, sizeof(*db));
	if (!ret)
		ret = lk_store_mdl_db_get(ctx, s, m->name, db);
	lk_store_close(s);
	if (ret == 1)
		return 0;
	if (ret == 0 || ret == LK_ENOTFOUND) {
		lk_ctx_clear(ctx);
		ret = lk_error(ctx, LK_EINPUT, "%s: no MDL database for %s: "
			       "build it with 'loopkit mdl db build --isa %s "
			       "-o %s'", dir, m->name, m->name, dir);
	}
	return ret;
}

static void print_text(const char *file, const struct lk_mdl_db_row *db,
		       const struct lk_mdl_prediction *p, int trace)
{
	size_t i;

	printf("%-4s %.6g cycles/iter (tsc-calibrated; residual %.3g; %s "
	       "database %.12s)\n", lk_mdl_level_name(p->level), p->value,
	       p->residual, db->isa, db->hash);
	for (i = 0; trace && i < p->nsteps; i++)
		printf("  step %zu: µkernel %zu order %d seed %s scale %.6g "
		       "residual %.6g\n", i + 1, p->step_ukernel[i],
		       p->steps[i].order, db->seeds[p->steps[i].seed].name,
		       p->steps[i].scale, p->steps[i].residual);
	(void)file;
}

static void print_json(const struct lk_mdl_db_row *db,
		       const struct lk_mdl_prediction *p, int first)
{
	size_t i;

	printf("%s{\"level\": \"%s\", \"value\": %.17g, \"unit\": "
	       "\"cycles/iter\", \"source\": \"tsc-calibrated\", "
	       "\"residual\": %.17g, \"seeds\": %zu, \"trace\": [",
	       first ? "" : ", ", lk_mdl_level_name(p->level), p->value,
	       p->residual, p->seeds);
	for (i = 0; i < p->nsteps; i++)
		printf("%s{\"ukernel\": %zu, \"order\": %d, \"seed\": \"%s\", "
		       "\"scale\": %.17g, \"residual\": %.17g}", i ? ", " : "",
		       p->step_ukernel[i], p->steps[i].order,
		       db->seeds[p->steps[i].seed].name, p->steps[i].scale,
		       p->steps[i].residual);
	printf("]}");
}

static int predict_levels(struct lk_ctx *ctx, const char *file,
			  const struct lk_mdl *m,
			  const struct lk_mdl_db_row *db,
			  const struct predict_args *a,
			  const struct lk_mdl_predict_opts *o)
{
	enum lk_mdl_level l, only = LK_MDL_L1;
	int all = !strcmp(a->level, "all"), ret = 0, shown = 0;

	if (!all)
		lk_mdl_level_parse(a->level, &only);
	if (a->json)
		printf("{\"file\": \"%s\", \"isa\": \"%s\", \"database\": "
		       "\"%s\", \"combine\": \"%s\", \"predictions\": [",
		       file, db->isa, db->hash, a->combine);
	for (l = LK_MDL_L1; !ret && l <= LK_MDL_RAM; l++) {
		struct lk_mdl_prediction p;

		if (all ? !strstr(db->levels, lk_mdl_level_name(l))
			: l != only)
			continue;
		ret = lk_mdl_predict(ctx, db, file, m, l, o, &p);
		if (!ret && a->json)
			print_json(db, &p, !shown);
		else if (!ret)
			print_text(file, db, &p, a->trace);
		shown++;
		lk_mdl_prediction_release(&p);
	}
	if (a->json && !ret)
		printf("]}\n");
	return ret;
}

static int predict_file(struct lk_ctx *ctx, const char *path,
			const struct predict_args *a)
{
	const struct lk_mdl_machine *machine;
	struct lk_mdl_predict_opts o;
	struct lk_mdl_db_row db;
	struct lk_mdl m;
	double f[LK_MDL_NFEATURES];
	int ret = lk_mdl_load(ctx, path, &m);

	if (ret)
		return ret;
	o.combine = strcmp(a->combine, "sum") ? LK_MDL_COMBINE_JOINT
					      : LK_MDL_COMBINE_SUM;
	lk_mdl_knn_opts_init(&o.knn);
	o.knn.orders = (int)a->orders;
	o.knn.kmax = (int)a->kmax;
	ret = lk_mdl_features(ctx, path, &m, -1, f);
	if (!ret)
		ret = lk_mdl_machine_host(ctx, a->isa, &machine);
	if (!ret && !(ret = load_db(ctx, a->dir, machine, &db))) {
		ret = predict_levels(ctx, path, &m, &db, a, &o);
		lk_mdl_db_row_release(&db);
	}
	lk_mdl_release(&m);
	return ret;
}

int cmd_mdl_predict(int argc, char **argv)
{
	struct predict_args a = {"loopkit.d", "auto", "all", "joint", 1, 8, 0,
				 0};
	const struct lk_opt opts[] = {
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "the campaign store holding the database (loopkit.d)"},
		{0, "isa", LK_OPT_STRING, &a.isa, "CLASS",
		 "the database's class: auto (widest here), scalar, sse, "
		 "avx2, avx512"},
		{0, "level", LK_OPT_STRING, &a.level, "L",
		 "L1, L2, L3, RAM or all (default: the database's levels)"},
		{0, "combine", LK_OPT_STRING, &a.combine, "HOW",
		 "joint (one target, default) or sum (per µkernel)"},
		{0, "orders", LK_OPT_LONG, &a.orders, "K",
		 "weighted k-NN orders (default 1: greedy)"},
		{0, "kmax", LK_OPT_LONG, &a.kmax, "N", "steps at most (8)"},
		{0, "trace", LK_OPT_BOOL, &a.trace, NULL,
		 "print each step: seed, scale, residual"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl predict", usage, opts, argc, argv);
	struct lk_ctx ctx;
	char *path;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first != argc - 1)
		return lk_cli_usage_error("mdl predict", "expected one "
					  "FILE.mdl");
	if ((ret = check_args(&a)))
		return ret;
	lk_ctx_init(&ctx);
	path = mdl_path(argv[first]);
	ret = predict_file(&ctx, path, &a);
	free(path);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(&ctx, "writing the output");
	return ret ? lk_cli_fail(&ctx) : 0;
}
