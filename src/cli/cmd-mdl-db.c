/*
 * loopkit mdl db build|show|export and loopkit mdl predict
 * (doc/loopkit-mdl.md, "db" and "predict"). The build joins two stages
 * through the store: mdl records the seeds' benchmarks as variants of
 * the campaign mdl-db:<isa>, measure runs them, mdl reads their figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "loopkit/config.h"
#include "loopkit/env.h"
#include "loopkit/mdl.h"
#include "loopkit/measure.h"
#include "loopkit/toolchain.h"

static const char db_usage[] =
	"<build|show|export> [options]\n\n"
	"  build    measure the seeds of share/mdl/seeds per ISA class and\n"
	"           memory level into the store (resumable)\n"
	"  show     print the latest database of each class: seed, features,\n"
	"           value per level (cycles per canonical iteration from\n"
	"           TSC ticks: at L1 and L2 the least sample at the build's\n"
	"           clock, or at each run's own where the clock moves from\n"
	"           run to run, tsc-least; beyond, tsc-calibrated)\n"
	"  export   the same as CSV";
static const char build_usage[] =
	"[options]\n\n"
	"Measure the seeds of share/mdl/seeds per ISA class and memory level\n"
	"into the store (resumable: a rerun measures only what is missing).";
static const char show_usage[] =
	"[options]\n\n"
	"Print the latest database of each class: seed, features, value per\n"
	"level (cycles per canonical iteration from TSC ticks: at L1 and L2\n"
	"the least sample at the build's clock, or, where the clock moves\n"
	"from run to run, the median of the rounds' least samples each at\n"
	"its run's clock, tsc-least; beyond, tsc-calibrated).";
static const char export_usage[] =
	"[options]\n\n"
	"The latest database of each class as CSV.";

static const char *const isa_names[] = {"scalar", "sse", "avx2", "avx512"};

/* ---- Options shared by build, show, export and predict. ---- */

/* "L1,RAM" or "all" into a level mask; 0 after a usage error. */
static unsigned parse_levels(const char *cmd, const char *text)
{
	struct lk_ctx ctx;
	struct lk_strv v = LK_STRV_INIT;
	enum lk_mdl_level l;
	unsigned mask = 0;
	size_t i;
	char *t = lk_strdup(text), *p, *save = NULL;

	if (!strcmp(text, "all")) {
		free(t);
		return 0xf;
	}
	for (p = strtok_r(t, ",", &save); p; p = strtok_r(NULL, ",", &save))
		lk_strv_push(&v, p);
	free(t);
	lk_ctx_init(&ctx);
	for (i = 0; i < v.n; i++) {
		if (lk_mdl_level_parse(v.v[i], &l)) {
			lk_cli_usage_error(cmd, "--level(s): '%s' is not L1, "
					   "L2, L3, RAM or all", v.v[i]);
			mask = 0;
			break;
		}
		mask |= 1u << l;
	}
	if (!v.n)
		lk_cli_usage_error(cmd, "--level(s): empty");
	lk_strv_release(&v);
	return mask;
}

/* --isa: auto (the widest here) or a comma list; exit code or 0. */
static int parse_isas(struct lk_ctx *ctx, const char *text,
		      const struct lk_mdl_machine **out, size_t *n)
{
	char *t = lk_strdup(text), *p, *save = NULL;
	int ret = 0;

	*n = 0;
	for (p = strtok_r(t, ",", &save); p && !ret && *n < 4;
	     p = strtok_r(NULL, ",", &save))
		ret = lk_mdl_machine_host(ctx, p, 0, &out[(*n)++]);
	free(t);
	if (!ret && !*n)
		ret = lk_error(ctx, LK_EINPUT, "--isa: empty");
	return ret;
}

/* ---- build ---- */

struct build_args {
	const char *dir, *isa, *levels, *explore, *seeds;
	long jobs, rounds;
	int quiet;
};

static void build_method(struct lk_sweep *sw, int round)
{
	/* Short on purpose (doc/loopkit-mdl.md, "db"): one warm-up call,
	 * five samples of at least 20,000 ticks, one process, p25; each
	 * round a run of its own. */
	sw->method.warmup = 1;
	sw->method.repetitions = 5;
	sw->method.processes = 1;
	sw->method.round = round;
}

/* What one build did: runs measured now (in all); from the last
 * phase's rounds, which see every unit: its variants, runs and
 * variants not ok (in round 0). */
struct build_counts {
	long measured, variants, runs, not_ok;
};

/* Round r over the plan's units that it covers: measure what is
 * missing. */
static int run_round(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, const char *name,
		     const struct build_args *a,
		     const struct lk_mdl_db_plan *p, int round,
		     struct build_counts *c)
{
	struct lk_sweep *sw = lk_sweep_new();
	int64_t *only = lk_calloc(p->nunits + 1, sizeof(*only));
	struct lk_run_opts o = {.jobs = (int)a->jobs, .quiet = a->quiet,
				.only = only};
	struct lk_run_summary sum;
	size_t i;
	int ret;

	for (i = 0; i < p->nunits; i++)
		if (lk_mdl_db_round_covers(p->units[i].level, round))
			only[o.nonly++] = p->units[i].variant_id;
	if (!o.nonly) {
		free(only);
		lk_sweep_free(sw);
		return 0;
	}
	free(sw->name);
	sw->name = lk_strdup(name);
	sw->gen.present = 1;      /* measure the variants the store holds */
	build_method(sw, round);
	ret = lk_run_sweep(ctx, s, campaign, sw, &o, &sum);
	if (!ret) {
		c->measured += sum.measured;
		if (round == 0) {
			c->variants = (long)sum.n;
			c->runs = c->not_ok = 0;
		}
		c->runs += (long)sum.n;
		for (i = 0; round == 0 && i < sum.n; i++)
			c->not_ok += strcmp(sum.reports[i].status, "ok") &&
				     strcmp(sum.reports[i].status, "unstable");
	}
	lk_run_summary_release(&sum);
	lk_sweep_free(sw);
	free(only);
	return ret;
}

/* Every round over the plan's units as they are now. */
static int run_rounds(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t campaign, const char *name,
		      const struct build_args *a,
		      const struct lk_mdl_db_plan *p, struct build_counts *c)
{
	int r, ret = 0;

	for (r = 0; !ret && r < p->nrounds; r++)
		ret = run_round(ctx, s, campaign, name, a, p, r, c);
	return ret;
}

/* The rounds' canonical method texts into the plan. */
static void plan_methods(struct lk_mdl_db_plan *p, int rounds)
{
	char *text[LK_MDL_DB_ROUNDS];
	int r;

	for (r = 0; r < rounds; r++) {
		struct lk_sweep *sw = lk_sweep_new();

		build_method(sw, r);
		text[r] = lk_method_canonical(&sw->method);
		lk_sweep_free(sw);
	}
	lk_mdl_db_plan_methods(p, (const char *const *)text, rounds);
	for (r = 0; r < rounds; r++)
		free(text[r]);
}

static char *machine_name(void)
{
	struct lk_ctx quiet;
	struct lk_env env = {0};
	const char *model;
	char *name;

	lk_ctx_init(&quiet);
	if (lk_env_collect(&quiet, &env, 0))
		return lk_strdup("unknown");
	model = lk_env_get(&env, "cpu.model");
	name = lk_strdup(model ? model : "unknown");
	lk_env_release(&env);
	return name;
}

static int store_db(struct lk_ctx *ctx, struct lk_store *s,
		    const struct lk_mdl_db_plan *p, int64_t campaign,
		    char *hash_out)
{
	struct lk_mdl_db_row db;
	int ret;

	/* The database is named by round 0's method (plan_methods). */
	ret = lk_mdl_db_collect(ctx, s, p, p->methods[0], campaign, &db);
	if (!ret) {
		free(db.machine);
		db.machine = machine_name();
		ret = lk_store_mdl_db_put(ctx, s, &db, NULL);
		snprintf(hash_out, 13, "%s", db.hash);
	}
	lk_mdl_db_row_release(&db);
	return ret;
}

/* One ISA class's database, its plan made (and its seeds checked)
 * before the store was opened. */
static int build_one(struct lk_ctx *ctx, struct lk_store *s,
		     const struct lk_mdl_machine *m, unsigned levels,
		     enum lk_mdl_explore explore, struct lk_mdl_db_plan *p,
		     const struct build_args *a, long *failed)
{
	char *name = lk_asprintf("mdl-db:%s", m->name);
	struct build_counts c = {0};
	char hash[13] = "";
	size_t added;
	time_t t0 = time(NULL);
	int64_t campaign;
	int phase, ret = lk_store_campaign(ctx, s, name, NULL, NULL,
					   &campaign);

	plan_methods(p, a->rounds);
	if (!ret)
		ret = lk_mdl_db_record(ctx, s, campaign, p, 0, &added);
	if (!ret)
		ret = run_rounds(ctx, s, campaign, name, a, p, &c);
	/* The default exploration's later phases plan from what the
	 * rounds before them measured (lk_mdl_db_record). */
	for (phase = 1; !ret && explore == LK_MDL_EXPLORE_DEFAULT &&
			phase <= 2; phase++)
		if (!(ret = lk_mdl_db_record(ctx, s, campaign, p, phase,
					     &added)) && added)
			ret = run_rounds(ctx, s, campaign, name, a, p, &c);
	if (!ret)
		ret = store_db(ctx, s, p, campaign, hash);
	if (!ret) {
		*failed += c.not_ok;
		printf("%s: %zu seeds, %zu units (%ld variants), %d round%s: "
		       "%ld runs measured now, %ld stored earlier, %ld not ok; "
		       "database %s (%lds)\n", name, p->nseeds, p->nunits,
		       c.variants, p->nrounds, p->nrounds == 1 ? "" : "s",
		       c.measured, c.runs - c.measured, c.not_ok, hash,
		       (long)(time(NULL) - t0));
	}
	free(name);
	return ret;
}

static enum lk_mdl_explore explore_of(const char *s)
{
	return !strcmp(s, "full") ? LK_MDL_EXPLORE_FULL :
	       !strcmp(s, "minimal") ? LK_MDL_EXPLORE_MINIMAL :
				       LK_MDL_EXPLORE_DEFAULT;
}

/* --seeds A,B,C into names (none: every seed). */
static int split_seeds(struct lk_ctx *ctx, const char *text,
		       struct lk_strv *out)
{
	char *t, *c;
	int ret;

	if (!text)
		return 0;
	t = lk_strdup(text);
	for (c = t; *c; c++)
		if (*c == ',')
			*c = ' ';
	ret = lk_strv_split(ctx, out, t);
	free(t);
	if (!ret && !out->n)
		ret = lk_error(ctx, LK_EINPUT, "--seeds: empty");
	return ret;
}

static int cmd_db_build(int argc, char **argv)
{
	struct build_args a = {LK_STORE_DEFAULT_DIR, "auto", "L1,L2,L3,RAM",
			       "default", NULL, 0, LK_MDL_DB_ROUNDS, 0};
	const struct lk_opt opts[] = {
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "the campaign store (default loopkit.d)"},
		{0, "isa", LK_OPT_STRING, &a.isa, "LIST",
		 "auto (the widest here) or scalar,sse,avx2,avx512"},
		{0, "levels", LK_OPT_STRING, &a.levels, "LIST",
		 "memory levels (default L1,L2,L3,RAM)"},
		{0, "explore", LK_OPT_STRING, &a.explore, "HOW",
		 "default (12 at L1 and L2, the best 3 beyond), full, minimal"},
		{0, "seeds", LK_OPT_STRING, &a.seeds, "LIST",
		 "only these seeds (names, comma-separated)"},
		{0, "rounds", LK_OPT_LONG, &a.rounds, "N",
		 "runs of each unit at L1-L3 (1-3, "
		 "default 3)"},
		{'j', "jobs", LK_OPT_LONG, &a.jobs, "N", "parallel compiles"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl db build", build_usage, opts, argc, argv);
	const struct lk_mdl_machine *ms[4];
	struct lk_mdl_db_plan plans[4];
	struct lk_strv seeds = LK_STRV_INIT;
	struct lk_store *s = NULL;
	struct lk_ctx ctx;
	unsigned levels;
	long failed = 0;
	size_t n = 0, i, planned = 0;
	char *dir;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first != argc)
		return lk_cli_usage_error("mdl db build", "unexpected '%s'",
					  argv[first]);
	if (strcmp(a.explore, "default") && strcmp(a.explore, "full") &&
	    strcmp(a.explore, "minimal"))
		return lk_cli_usage_error("mdl db build", "--explore: '%s' is "
					  "not default, full or minimal",
					  a.explore);
	if (a.rounds < 1 || a.rounds > LK_MDL_DB_ROUNDS)
		return lk_cli_usage_error("mdl db build", "--rounds: %ld is not "
					  "between 1 and %d", a.rounds,
					  LK_MDL_DB_ROUNDS);
	if (a.jobs < 0 || a.jobs > 256)
		return lk_cli_usage_error("mdl db build", "--jobs: %ld is not "
					  "between 0 and 256", a.jobs);
	if (!(levels = parse_levels("mdl db build", a.levels)))
		return 2;
	lk_ctx_init(&ctx);
	ret = split_seeds(&ctx, a.seeds, &seeds);
	if (!ret)
		ret = parse_isas(&ctx, a.isa, ms, &n);
	/* Every class's plan first: a seed refused for one opens no
	 * store and measures nothing. */
	dir = lk_mdl_seeds_dir();
	for (; !ret && planned < n; planned++)
		ret = lk_mdl_db_plan_init(&ctx, &plans[planned], dir, &seeds,
					  ms[planned], levels,
					  explore_of(a.explore));
	free(dir);
	if (!ret)
		ret = lk_store_open(&ctx, a.dir, LK_STORE_CREATE, &s);
	for (i = 0; !ret && i < n; i++)
		ret = build_one(&ctx, s, ms[i], levels, explore_of(a.explore),
				&plans[i], &a, &failed);
	for (i = 0; i < planned; i++)
		lk_mdl_db_plan_release(&plans[i]);
	lk_store_close(s);
	lk_strv_release(&seeds);
	if (ret)
		return lk_cli_fail(&ctx);
	return failed ? 1 : 0;
}

/* ---- show, export ---- */

struct show_args {
	const char *dir, *isa;
	int json;
};

static void show_table(const struct lk_mdl_db_row *db)
{
	static const char *const lv[] = {"L1", "L2", "L3", "RAM"};
	size_t i, j, k;

	printf("# %s database %.12s (%s), %s: cycles per canonical "
	       "iteration (each value's source: mdl db export)\n", db->isa,
	       db->hash, db->machine, db->params);
	printf("%-18s %6s %6s %4s %4s %4s %4s %10s %10s %10s %10s\n",
	       "seed", "load/S", "store/S", "S", "add", "mul", "far", "L1",
	       "L2", "L3", "RAM");
	for (i = 0; i < db->nseeds; i++) {
		const struct lk_mdl_seed_row *r = &db->seeds[i];

		printf("%-18s %6.3g %7.3g %4g %4g %4g %4g", r->name,
		       r->features[0], r->features[1], r->features[2],
		       r->features[3], r->features[4], r->features[5]);
		for (k = 0; k < 4; k++) {
			const char *cell = "-";
			char num[32];

			for (j = 0; j < db->nperf; j++)
				if (!strcmp(db->perf[j].seed, r->name) &&
				    !strcmp(db->perf[j].level, lv[k]) &&
				    db->perf[j].has_value) {
					snprintf(num, sizeof(num), "%.4g",
						 db->perf[j].value);
					cell = num;
				}
			printf(" %10s", cell);
		}
		printf("\n");
	}
	for (j = 0, k = 0; j < db->nperf; j++)
		if (!strncmp(db->perf[j].seed, "latency:", 8) &&
		    db->perf[j].has_value)
			printf("%s%s %.4g", k++ ? ", " : "# cycles per dependent "
			       "operation: ", db->perf[j].seed + 8,
			       db->perf[j].value);
	if (k)
		printf("\n");
}

static void csv_rows(const struct lk_mdl_db_row *db, int *header)
{
	size_t i, j;

	if (!*header)
		printf("isa,database,seed,kind,f_load,f_store,f_streams,f_add,"
		       "f_mul,f_far,level,value,unit,source,best_unroll,"
		       "best_bundles,spread,variants,flags\n");
	*header = 1;
	for (j = 0; j < db->nperf; j++) {
		const struct lk_mdl_perf_row *p = &db->perf[j];
		const struct lk_mdl_seed_row *r = NULL;

		for (i = 0; i < db->nseeds && !r; i++)
			if (!strcmp(db->seeds[i].name, p->seed))
				r = &db->seeds[i];
		if (!r)
			continue;
		printf("%s,%.12s,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,",
		       db->isa, db->hash, r->name, r->kind, r->features[0],
		       r->features[1], r->features[2], r->features[3],
		       r->features[4], r->features[5], p->level);
		if (p->has_value)
			printf("%.17g", p->value);
		printf(",%s,%s,%ld,%ld,%.6g,%ld,%s\n", p->unit, p->source,
		       p->best_unroll, p->best_bundles, p->spread,
		       p->variants, p->flags);
	}
}

static void json_db(const struct lk_mdl_db_row *db, int first)
{
	size_t i;

	printf("%s{\"isa\": \"%s\", \"database\": \"%s\", \"machine\": "
	       "\"%s\", \"levels\": \"%s\", \"unit\": \"cycles/iter\", "
	       "\"values\": [", first ? "" : ", ", db->isa, db->hash,
	       db->machine, db->levels);
	for (i = 0; i < db->nperf; i++) {
		const struct lk_mdl_perf_row *p = &db->perf[i];

		printf("%s{\"seed\": \"%s\", \"level\": \"%s\", \"value\": ",
		       i ? ", " : "", p->seed, p->level);
		if (p->has_value)
			printf("%.17g", p->value);
		else
			printf("null");
		printf(", \"source\": \"%s\", \"unroll\": %ld, \"bundles\": "
		       "%ld, \"spread\": %.6g, \"flags\": \"%s\"}", p->source,
		       p->best_unroll, p->best_bundles, p->spread, p->flags);
	}
	printf("]}");
}

/* mode: 0 table, 1 JSON, 2 CSV. */
static int show_all(struct lk_ctx *ctx, struct lk_store *s, const char *isa,
		    int mode)
{
	size_t i, shown = 0;
	int header = 0, ret = 0;

	if (mode == 1)
		printf("[");
	for (i = 0; !ret && i < LK_ARRAY_SIZE(isa_names); i++) {
		struct lk_mdl_db_row db;

		if (strcmp(isa, "all") && strcmp(isa, isa_names[i]))
			continue;
		ret = lk_store_mdl_db_get(ctx, s, isa_names[i], &db);
		if (ret == 1) {
			if (mode == 0)
				show_table(&db);
			else if (mode == 1)
				json_db(&db, !shown);
			else
				csv_rows(&db, &header);
			shown++;
			ret = 0;
		}
		lk_mdl_db_row_release(&db);
	}
	if (mode == 1)
		printf("]\n");
	if (!ret && !shown)
		ret = lk_error(ctx, LK_EINPUT, "%s: no MDL database%s%s: build "
			       "one with 'loopkit mdl db build'",
			       lk_store_dir(s), strcmp(isa, "all") ? " for " :
			       "", strcmp(isa, "all") ? isa : "");
	return ret;
}

static int open_reader(struct lk_ctx *ctx, const char *dir,
		       struct lk_store **s)
{
	int ret = lk_store_open(ctx, dir, LK_STORE_READER, s);

	if (ret == LK_ENOTFOUND) {
		lk_ctx_clear(ctx);
		ret = lk_error(ctx, LK_EINPUT, "%s: no campaign store, so no "
			       "MDL database: build one with 'loopkit mdl db "
			       "build -o %s'", dir, dir);
	}
	return ret;
}

static int cmd_db_show(int argc, char **argv, int csv)
{
	struct show_args a = {LK_STORE_DEFAULT_DIR, "all", 0};
	const struct lk_opt opts[] = {
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "the campaign store (default loopkit.d)"},
		{0, "isa", LK_OPT_STRING, &a.isa, "CLASS",
		 "scalar, sse, avx2, avx512 or all (default)"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		LK_OPT_END};
	const char *cmd = csv ? "mdl db export" : "mdl db show";
	int first = lk_opts_parse(cmd, csv ? export_usage : show_usage, opts,
				  argc, argv);
	struct lk_store *s = NULL;
	struct lk_ctx ctx;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first != argc)
		return lk_cli_usage_error(cmd, "unexpected '%s'", argv[first]);
	lk_ctx_init(&ctx);
	ret = open_reader(&ctx, a.dir, &s);
	if (!ret)
		ret = show_all(&ctx, s, a.isa, csv ? 2 : a.json);
	lk_store_close(s);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(&ctx, "writing the output");
	return ret ? lk_cli_fail(&ctx) : 0;
}

int cmd_mdl_db(int argc, char **argv)
{
	static const struct lk_opt none[] = {LK_OPT_END};

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		if (argc < 2)
			return lk_cli_usage_error("mdl db", "expected build, "
						  "show or export");
		lk_opts_usage(stdout, "mdl db", db_usage, none);
		return 0;
	}
	if (!strcmp(argv[1], "build"))
		return cmd_db_build(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_db_show(argc - 1, argv + 1, 0);
	if (!strcmp(argv[1], "export"))
		return cmd_db_show(argc - 1, argv + 1, 1);
	return lk_cli_usage_error("mdl db", "unknown subcommand '%s' (build, "
				  "show, export)", argv[1]);
}
