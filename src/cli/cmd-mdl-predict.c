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
#include "loopkit/binary.h"
#include "loopkit/mdl.h"
#include "loopkit/toolchain.h"

static const char usage[] =
	"FILE.mdl|BINARY|FILE.s [options]\n\n"
	"Predict the description's tsc-calibrated cycles per canonical\n"
	"iteration at each memory level from the seeds measured by\n"
	"'loopkit mdl db build' (seed:NAME: a seed of share/mdl/seeds).\n"
	"A binary's loop (default: of the measured kernel's innermost loops,\n"
	"the deepest that extraction accepts) is extracted first, and the\n"
	"prediction also given per iteration of the compiled loop\n"
	"(x meta.unroll); a refused loop says why ('refused: REASON').";

struct predict_args {
	const char *dir, *isa, *level, *combine, *function, *loop;
	long orders, kmax;
	int trace, json;
	long unroll;             /* a binary's loop: meta.unroll; else 0 */
	uint64_t addr;           /* --loop's */
	const char *loop_class;  /* a binary's loop: its ISA class */
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
		       const struct lk_mdl_prediction *p, int trace,
		       long unroll)
{
	size_t i;

	printf("%-4s %.6g cycles/iter (tsc-calibrated; residual %.3g; %s "
	       "database %.12s)", lk_mdl_level_name(p->level), p->value,
	       p->residual, db->isa, db->hash);
	if (unroll)
		printf(", %.6g per loop iteration (unroll %ld)",
		       p->value * (double)unroll, unroll);
	if (p->instructions > 0)
		printf("; k-NN of its bytes %.6g, of its instructions at L1 "
		       "%.6g", p->knn, p->instructions);
	if (p->bound > 0 && p->instructions > 0)
		printf("; carried chain %.6g", p->bound);
	else if (p->bound > 0)
		printf("; k-NN %.6g, carried chain %.6g", p->knn, p->bound);
	printf("\n");
	if (trace && p->trailing.n) {
		char *names = lk_strv_join(&p->trailing, " ");

		printf("  trailing: %s (re-reading a leader's lines, in the "
		       "nearer cache: left out)\n", names);
		free(names);
	}
	for (i = 0; trace && i < p->nsteps; i++)
		printf("  step %zu: µkernel %zu order %d seed %s scale %.6g "
		       "residual %.6g\n", i + 1, p->step_ukernel[i],
		       p->steps[i].order, db->seeds[p->steps[i].seed].name,
		       p->steps[i].scale, p->steps[i].residual);
	(void)file;
}

static void print_json(const struct lk_mdl_db_row *db,
		       const struct lk_mdl_prediction *p, int first,
		       long unroll)
{
	size_t i;

	printf("%s{", first ? "" : ", ");
	if (unroll)
		printf("\"cycles_per_iteration\": %.17g, "
		       "\"cycles_per_canonical_iteration\": %.17g, ",
		       p->value * (double)unroll, p->value);
	printf("\"level\": \"%s\", \"value\": %.17g, \"unit\": "
	       "\"cycles/iter\", \"source\": \"tsc-calibrated\", "
	       "\"residual\": %.17g, \"seeds\": %zu, \"knn\": %.17g, "
	       "\"instruction_bound\": %.17g, \"chain_bound\": %.17g, "
	       "\"trailing\": [",
	       lk_mdl_level_name(p->level), p->value,
	       p->residual, p->seeds, p->knn, p->instructions, p->bound);
	for (i = 0; i < p->trailing.n; i++)
		printf("%s\"%s\"", i ? ", " : "", p->trailing.v[i]);
	printf("], \"trace\": [");
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
		printf("{\"status\": \"ok\", \"file\": \"%s\", \"isa\": \"%s\", "
		       "\"database\": \"%s\", \"combine\": \"%s\", "
		       "\"unroll\": %ld, \"predictions\": [", file, db->isa,
		       db->hash, a->combine, a->unroll ? a->unroll : 1);
	for (l = LK_MDL_L1; !ret && l <= LK_MDL_RAM; l++) {
		struct lk_mdl_prediction p;

		if (all ? !strstr(db->levels, lk_mdl_level_name(l))
			: l != only)
			continue;
		ret = lk_mdl_predict(ctx, db, file, m, l, o, &p);
		if (!ret && a->json)
			print_json(db, &p, !shown, a->unroll);
		else if (!ret)
			print_text(file, db, &p, a->trace, a->unroll);
		shown++;
		lk_mdl_prediction_release(&p);
	}
	if (a->json && !ret)
		printf("]}\n");
	return ret;
}

/*
 * The database: --isa's class. With auto, a binary's loop's own class
 * (its widest vector instructions, as mdl eval and the predict tool
 * take it: a scalar loop against vectorised seeds was predicted below
 * its cost) when the store holds one, else, with a note, the widest
 * class this CPU runs.
 */
static int pick_db(struct lk_ctx *ctx, const struct predict_args *a,
		   struct lk_mdl_db_row *db)
{
	const struct lk_mdl_machine *machine;
	int tried = 0, ret;

	if (!strcmp(a->isa, "auto") && a->loop_class) {
		struct lk_ctx quiet;

		lk_ctx_init(&quiet);
		if (!load_db(&quiet, a->dir, lk_mdl_machine_find(a->loop_class),
			     db))
			return 0;
		tried = 1;
	}
	ret = lk_mdl_machine_host(ctx, a->isa, 0, &machine);
	if (!ret)
		ret = load_db(ctx, a->dir, machine, db);
	/* neither: the error names the loop's class, the one to build */
	if (ret && tried)
		return load_db(ctx, a->dir, lk_mdl_machine_find(a->loop_class),
			       db);
	if (!ret && tried)
		fprintf(stderr, "loopkit: note: the loop is %s code, and %s "
			"has no %s database: predicting against the %s one "
			"('loopkit mdl db build --isa %s -o %s' builds it)\n",
			a->loop_class, a->dir, a->loop_class, machine->name,
			a->loop_class, a->dir);
	return ret;
}

static int predict_mdl(struct lk_ctx *ctx, const char *path,
		       const struct lk_mdl *mp, const struct predict_args *a)
{
	struct lk_mdl_predict_opts o;
	struct lk_mdl_db_row db;
	const struct lk_mdl m = *mp;
	double f[LK_MDL_NFEATURES];
	int ret;

	o.combine = strcmp(a->combine, "sum") ? LK_MDL_COMBINE_JOINT
					      : LK_MDL_COMBINE_SUM;
	lk_mdl_knn_opts_init(&o.knn);
	o.knn.orders = (int)a->orders;
	o.knn.kmax = (int)a->kmax;
	ret = lk_mdl_features(ctx, path, &m, -1, f);
	if (!ret && !(ret = pick_db(ctx, a, &db))) {
		ret = predict_levels(ctx, path, &m, &db, a, &o);
		lk_mdl_db_row_release(&db);
	}
	return ret;
}

static int predict_file(struct lk_ctx *ctx, const char *path,
			const struct predict_args *a)
{
	struct lk_mdl m;
	int ret = lk_mdl_load(ctx, path, &m);

	if (ret)
		return ret;
	ret = predict_mdl(ctx, path, &m, a);
	lk_mdl_release(&m);
	return ret;
}

static int predict_binary(struct lk_ctx *ctx, const char *path,
			  struct predict_args *a)
{
	struct lk_mdl_pick pick = {0};
	struct lk_mdl_extraction *x = &pick.x;
	struct mdl_input in;
	struct lk_function fn;
	struct lk_cfg cfg;
	int inlined = 0, ret = cmd_mdl_input(ctx, path, a->function, &in);

	if (!ret)
		ret = in.name ? lk_elf_function(ctx, in.binary, in.name, &fn) :
			lk_elf_roi_function(ctx, in.binary, &fn, &inlined);
	if (!ret && !(ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn,
					 &cfg))) {
		ret = lk_mdl_pick_loop(ctx, &cfg, a->addr, path, &pick);
		if (!ret && !a->addr)
			cmd_mdl_pick_note(&pick, cfg.fn.name);
		if (!ret && !x->refused) {
			long b = lk_cfg_find(&cfg, x->loop);

			if (b >= 0)
				a->loop_class = lk_mdl_block_class(
					cfg.fn.code + (cfg.blocks[b].start -
						       cfg.fn.addr),
					(size_t)(cfg.blocks[b].end -
						 cfg.blocks[b].start))->name;
		}
		lk_cfg_release(&cfg);
	}
	if (!ret && x->refused && a->json) {
		struct lk_buf b = LK_BUF_INIT;

		lk_buf_addf(&b, "{\"status\": \"refused\", \"file\": ");
		lk_buf_add_json_str(&b, path);
		lk_buf_adds(&b, ", \"reason\": ");
		lk_buf_add_json_str(&b, x->reason);
		lk_buf_addf(&b, ", \"loop\": \"0x%llx\"}\n",
			    (unsigned long long)x->loop);
		fputs(lk_buf_str(&b), stdout);
		lk_buf_release(&b);
	} else if (!ret && x->refused) {
		printf("refused: %s\n", x->reason);
	} else if (!ret) {
		a->unroll = x->unroll > 0 ? x->unroll : 1;
		ret = predict_mdl(ctx, path, &x->mdl, a);
	}
	if (ret)
		cmd_mdl_input_error(ctx, &in);
	lk_mdl_pick_release(&pick);
	cmd_mdl_input_release(&in);
	return ret;
}

/* An MDL operand: seed:NAME or a name ending in .mdl. */
static int is_mdl(const char *operand)
{
	size_t n = strlen(operand);

	return !strncmp(operand, "seed:", 5) || (n > 4 &&
		!strcmp(operand + n - 4, ".mdl"));
}

int cmd_mdl_predict(int argc, char **argv)
{
	struct predict_args a = {"loopkit.d", "auto", "all", "joint", NULL, NULL,
				 0, 0, 0, 0, 0, 0, NULL};
	struct lk_mdl_knn_opts knn;
	const struct lk_opt opts[] = {
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "the campaign store holding the database (loopkit.d)"},
		{0, "isa", LK_OPT_STRING, &a.isa, "CLASS",
		 "the database's class: auto (a binary's loop: its own; "
		 "else the widest here), scalar, sse, avx2, avx512"},
		{0, "level", LK_OPT_STRING, &a.level, "L",
		 "L1, L2, L3, RAM or all (default: the database's levels)"},
		{0, "combine", LK_OPT_STRING, &a.combine, "HOW",
		 "joint (one target, default) or sum (per µkernel)"},
		{0, "orders", LK_OPT_LONG, &a.orders, "K",
		 "weighted k-NN orders (default 2; 1: greedy)"},
		{0, "kmax", LK_OPT_LONG, &a.kmax, "N", "steps at most (3)"},
		{0, "trace", LK_OPT_BOOL, &a.trace, NULL,
		 "print each step: seed, scale, residual"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		{'f', "function", LK_OPT_STRING, &a.function, "NAME",
		 "a binary's function (default: the measured kernel)"},
		{0, "loop", LK_OPT_STRING, &a.loop, "ADDR",
		 "a binary's loop whose first instruction is at ADDR"},
		LK_OPT_END};
	struct lk_ctx ctx;
	char *path;
	int first, ret;

	lk_mdl_knn_opts_init(&knn);
	a.orders = knn.orders;
	a.kmax = knn.kmax;
	first = lk_opts_parse("mdl predict", usage, opts, argc, argv);
	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first != argc - 1)
		return lk_cli_usage_error("mdl predict", "expected one "
					  "FILE.mdl or BINARY");
	if ((ret = check_args(&a)))
		return ret;
	if ((ret = cmd_mdl_loop_addr("mdl predict", a.loop, &a.addr)))
		return ret;
	lk_ctx_init(&ctx);
	if (is_mdl(argv[first])) {
		if (!(ret = lk_mdl_path(&ctx, argv[first], &path)))
			ret = predict_file(&ctx, path, &a);
		free(path);
	} else {
		ret = predict_binary(&ctx, argv[first], &a);
	}
	if (!ret && fflush(stdout))
		ret = lk_error_errno(&ctx, "writing the output");
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
