/*
 * The seed database build (doc/loopkit-mdl.md, "db"): seeds concretised
 * per level and (unroll, bundles), recorded as ordinary variants of the
 * campaign mdl-db:<isa> for the measure stage, and their figures read
 * back as each seed's value per level. What measures them is not here:
 * the CLI runs the measure stage between lk_mdl_db_record and
 * lk_mdl_db_collect, and the two talk through the store.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/stats.h"
#include "loopkit/toolchain.h"
#include "mdl-int.h"

/* In vectors of the class: times lanes() canonical iterations. */
static const int unrolls[] = {1, 2, 4, 8};
static const int bundle_counts[] = {1, 2, 3};
#define BEST_KEPT 3

/* ---- The seeds. ---- */

/* The text of m's Meta key, "" when absent. */
static const char *meta_text(const struct lk_mdl *m, const char *key)
{
	const struct lk_mdl_attr *a = lk_mdl_attr_find(m->meta, m->nmeta,
						       key);

	return a ? a->text : "";
}

static int load_seed(struct lk_ctx *ctx, const char *dir, const char *name,
		     struct lk_mdl_db_seed *out)
{
	size_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	out->name = lk_strdup(name);
	out->path = lk_asprintf("%s/%s.mdl", dir, name);
	if (!lk_path_exists(out->path))
		return lk_error(ctx, LK_EINPUT, "%s: no such seed (in %s)",
				name, dir);
	if ((ret = lk_file_read(ctx, out->path, &out->text, &len)) ||
	    (ret = lk_mdl_parse(ctx, out->path, out->text, len, &out->mdl)) ||
	    (ret = lk_mdl_features(ctx, out->path, &out->mdl, -1, out->f)))
		return ret;
	out->kind = lk_strdup(meta_text(&out->mdl, "kind"));
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every NAME of dir/NAME.mdl, sorted. */
static int list_seeds(struct lk_ctx *ctx, const char *dir,
		      struct lk_strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len;

	if (!d)
		return lk_error_errno(ctx, "cannot open the seed directory %s",
				      dir);
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".mdl"))
			lk_strv_push_take(out, lk_asprintf("%.*s",
							   (int)(len - 4),
							   e->d_name));
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	if (!out->n)
		return lk_error(ctx, LK_ENOTFOUND, "%s: no seed (*.mdl)", dir);
	return 0;
}

char *lk_mdl_seeds_dir(void)
{
	return lk_asprintf("%s/mdl/seeds", lk_share_dir());
}

int lk_mdl_path(struct lk_ctx *ctx, const char *operand, char **path)
{
	struct lk_strv names = LK_STRV_INIT;
	char *dir, *list;
	int ret = 0;

	*path = NULL;
	if (strncmp(operand, "seed:", 5)) {
		*path = lk_strdup(operand);
		return 0;
	}
	dir = lk_mdl_seeds_dir();
	if (!(ret = list_seeds(ctx, dir, &names))) {
		size_t i;

		for (i = 0; i < names.n; i++)
			if (!strcmp(names.v[i], operand + 5))
				break;
		if (i < names.n) {
			*path = lk_asprintf("%s/%s.mdl", dir, operand + 5);
		} else {
			list = lk_strv_join(&names, " ");
			ret = lk_error(ctx, LK_ENOTFOUND, "%s: no such seed; "
				       "the %zu in %s: %s", operand, names.n,
				       dir, list);
			free(list);
		}
	}
	lk_strv_release(&names);
	free(dir);
	return ret;
}

static void release_seed(struct lk_mdl_db_seed *seed)
{
	free(seed->name);
	free(seed->kind);
	free(seed->text);
	free(seed->path);
	lk_mdl_release(&seed->mdl);
	memset(seed, 0, sizeof(*seed));
}

/*
 * Whether the seed is measured for ISA class isa: every class, unless
 * its Meta says `classes = "scalar"` (the classes, comma-separated). A
 * seed whose accesses only scalar code makes (a table read at stride 0
 * for every element) does not stand for what a vectorised loop does.
 */
static int seed_for_class(const struct lk_mdl_db_seed *seed, const char *isa)
{
	const char *p = meta_text(&seed->mdl, "classes");
	size_t len;

	if (!*p)
		return 1;
	for (; *p; p += len) {
		p += strspn(p, ", ");
		len = strcspn(p, ", ");
		if (len && len == strlen(isa) && !strncmp(p, isa, len))
			return 1;
	}
	return 0;
}

int lk_mdl_db_plan_init(struct lk_ctx *ctx, struct lk_mdl_db_plan *p,
			const char *dir, const struct lk_strv *names,
			const struct lk_mdl_machine *machine,
			unsigned levels, enum lk_mdl_explore explore)
{
	struct lk_strv all = LK_STRV_INIT;
	const struct lk_strv *use = names;
	size_t i;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->machine = machine;
	p->levels = levels;
	p->explore = explore;
	if (!names || !names->n) {
		ret = list_seeds(ctx, dir, &all);
		use = &all;
	}
	if (!ret)
		p->seeds = lk_calloc(use->n + 1, sizeof(*p->seeds));
	for (i = 0; !ret && i < use->n; i++) {
		struct lk_mdl_db_seed *seed = &p->seeds[p->nseeds++];

		ret = load_seed(ctx, dir, use->v[i], seed);
		if (ret || seed_for_class(seed, machine->name))
			continue;
		if (use == names)
			ret = lk_error(ctx, LK_EINPUT, "%s: seed %s is not "
				       "measured for %s (Meta: classes = "
				       "\"%s\")", seed->path, seed->name,
				       machine->name,
				       meta_text(&seed->mdl, "classes"));
		release_seed(seed);
		p->nseeds--;
	}
	lk_strv_release(&all);
	return ret;
}

void lk_mdl_db_plan_release(struct lk_mdl_db_plan *p)
{
	size_t i;

	for (i = 0; i < p->nseeds; i++)
		release_seed(&p->seeds[i]);
	free(p->seeds);
	free(p->units);
	for (i = 0; i < LK_MDL_DB_ROUNDS; i++)
		free(p->methods[i]);
	memset(p, 0, sizeof(*p));
}

void lk_mdl_db_plan_methods(struct lk_mdl_db_plan *p,
			    const char *const *methods, int n)
{
	int r;

	for (r = 0; r < LK_MDL_DB_ROUNDS; r++) {
		free(p->methods[r]);
		p->methods[r] = r < n ? lk_strdup(methods[r]) : NULL;
	}
	p->nrounds = n < LK_MDL_DB_ROUNDS ? n : LK_MDL_DB_ROUNDS;
}

int lk_mdl_db_round_covers(enum lk_mdl_level level, int round)
{
	return round == 0 || level != LK_MDL_RAM;
}

/* ---- Recording the units as variants. ---- */

/* iterations-per-step=N from the generated file's first line. */
static long header_iterations(const struct lk_buf *c)
{
	const char *key = "iterations-per-step=";
	const char *end = memchr(c->buf, '\n', c->len);
	const char *at = strstr(c->buf, key);

	if (!at || (end && at > end))
		return 0;
	return strtol(at + strlen(key), NULL, 10);
}

int mdl_record_variant(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const char *path, const char *src_hash,
		       const struct lk_param *params, size_t nparams,
		       int64_t *variant_id)
{
	char hash[LK_HASH_HEX];
	struct lk_hash h;
	struct lk_variant_rec rec;

	lk_hash_init(&h);
	lk_hash_add_str(&h, src_hash);
	lk_hash_add_str(&h, "gcc -O2");
	lk_hash_final(&h, hash);
	rec = (struct lk_variant_rec){hash, path, src_hash, "gcc", "default",
				      "-O2", params, nparams};
	return lk_store_variant_put(ctx, s, campaign, &rec, variant_id);
}

/* The variant of unit u: its C file, keyed by the file's content. */
static int record_unit(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const struct lk_mdl_db_plan *p,
		       struct lk_mdl_db_unit *u)
{
	const struct lk_mdl_db_seed *seed = u->latency ? NULL
						       : &p->seeds[u->seed];
	const char *name = u->latency ? lk_mdl_latency_name(u->latency)
				      : seed->name;
	struct lk_mdl_concrete_opts o;
	struct lk_buf c = LK_BUF_INIT;
	char src_hash[LK_HASH_HEX], num[3][24];
	char *path = NULL;
	int ret;

	lk_mdl_concrete_opts_init(&o);
	o.level = u->level;
	o.unroll = u->unroll;
	o.bundles = u->bundles;
	o.source = name;
	ret = u->latency ? mdl_latency_source(p->machine, u->latency, &c)
			 : lk_mdl_concretize(ctx, &seed->mdl, p->machine, &o,
					     &c);
	if (ret || (ret = lk_store_object_put(ctx, s, c.buf, c.len, ".c",
						 src_hash, &path)))
		goto out;
	u->iterations = header_iterations(&c);
	if (u->iterations <= 0) {
		ret = lk_error(ctx, LK_EINTERNAL, "%s: no iterations-per-step "
			       "in the generated header", name);
		goto out;
	}
	snprintf(num[0], sizeof(num[0]), "%d", u->unroll);
	snprintf(num[1], sizeof(num[1]), "%d", u->bundles);
	snprintf(num[2], sizeof(num[2]), "%ld", u->iterations);
	{
		const struct lk_param params[] = {
			{"seed", name}, {"isa", p->machine->name},
			{"level", lk_mdl_level_name(u->level)},
			{"unroll", num[0]}, {"bundles", num[1]},
			{"iterations-per-step", num[2]}};

		ret = mdl_record_variant(ctx, s, campaign, path, src_hash,
					 params, LK_ARRAY_SIZE(params),
					 &u->variant_id);
	}
out:
	free(path);
	lk_buf_release(&c);
	return ret;
}

static void add_unit(struct lk_mdl_db_plan *p, size_t *alloc, size_t seed,
		     enum lk_mdl_level level, int unroll, int bundles)
{
	LK_GROW(p->units, p->nunits + 1, *alloc);
	p->units[p->nunits++] = (struct lk_mdl_db_unit){seed, level, unroll,
							 bundles, 0, 0,
							 LK_MDL_LAT_NONE};
}

/* The latency units: add, mul, div, store-load, and fma where the CPU
 * has it. */
static void plan_latency(struct lk_mdl_db_plan *p, size_t *alloc)
{
	int op;

	for (op = LK_MDL_LAT_ADD; op < LK_MDL_NLAT; op++) {
		if (op == LK_MDL_LAT_FMA && !__builtin_cpu_supports("fma"))
			continue;
		add_unit(p, alloc, SIZE_MAX, LK_MDL_L1, 1, 1);
		p->units[p->nunits - 1].latency = op;
	}
}

/*
 * The 8-byte lanes of the class's widest vector (1 for scalar code). The
 * explored unrolls are 1, 2, 4 and 8 of its vectors: the neutral
 * allocation makes each arithmetic instruction a chain carried around
 * the asm loop, so an asm iteration of too few of them runs at the
 * operations' latency rather than at their throughput (a loop's
 * operations on different iterations are independent; a recurrence is
 * the carried-chain bound's, doc/loopkit-mdl.md).
 */
static int lanes(const struct lk_mdl_db_plan *p)
{
	return lk_mdl_machine_lanes(p->machine);
}

/* Phase 0: every (unroll, bundles) at L1 (default) or at every level
 * (full); (8 vectors, 1) at every level (minimal); the latency units. */
static void plan_phase0(struct lk_mdl_db_plan *p, size_t *alloc)
{
	size_t s, i, j;
	int l;

	plan_latency(p, alloc);

	for (s = 0; s < p->nseeds; s++)
		for (l = LK_MDL_L1; l <= LK_MDL_RAM; l++) {
			int wanted = (p->levels >> l) & 1;

			if (p->explore == LK_MDL_EXPLORE_MINIMAL) {
				if (wanted)
					add_unit(p, alloc, s, l,
						 8 * lanes(p), 1);
				continue;
			}
			if (!(l == LK_MDL_L1 ||
			      (wanted && p->explore == LK_MDL_EXPLORE_FULL)))
				continue;
			for (i = 0; i < LK_ARRAY_SIZE(unrolls); i++)
				for (j = 0; j < LK_ARRAY_SIZE(bundle_counts);
				     j++)
					add_unit(p, alloc, s, l,
						 lanes(p) * unrolls[i],
						 bundle_counts[j]);
		}
}

/* One run's cycles per canonical iteration; 0 when none. */
static double run_value(const struct lk_mdl_db_unit *u,
			const struct lk_run_figure *fig)
{
	if (lk_run_figure_usable(fig) && fig->value > 0)
		return fig->value / (double)u->iterations;
	return 0;
}

/*
 * A unit's measured cycles per canonical iteration (*fig that run's
 * figure); 0 when none. With rounds: the median of its rounds' runs
 * (of two, the lower). One round can draw a slow state, or read a clock
 * the kernel did not run at and come out low (a run 31 % under its
 * unit's other two, with a spread of 119 %, on the Emerald Rapids
 * guest): the median drops either.
 *
 * At L1 and L2 the value is instead the least sample of its rounds'
 * runs, in TSC ticks, at the build's clock (lk_store_campaign_clock;
 * source "tsc-least"). There the data stay in the core's own caches,
 * and what moves a sample is a neighbour on the core's other hardware
 * thread (doc/method.md, "Contended samples"), which takes issue ports
 * and cache ways and only adds time; it also slows the reference chain
 * beside the sample, so that a sample's own calibration reads a slow
 * clock exactly when its ticks are many. On the Emerald Rapids guest a
 * third to three fifths of the samples of a build were taken beside
 * it, and two builds' medians of p25 figures differed by up to 30 %
 * where their least samples agree within 3 % (doc/loopkit-mdl.md,
 * "Least samples at L1 and L2"). From L3 on, the data pass through memory that
 * other cores share too: a least sample there is a lucky one, and the
 * median of p25 figures agrees better.
 *
 * That holds while the core keeps one clock. Where the build's runs show
 * two clock states or more (struct lk_mdl_clock: a core that changes turbo
 * state from process to process), one clock for the build counts a run
 * in a slower state as slower: each round's least sample is taken at its
 * own run's clock instead, and the value is the median of the rounds
 * (moving_figure; doc/loopkit-mdl.md, "A clock that moves").
 */
struct round_run {
	double value;
	struct lk_run_figure fig;
};

static int by_value(const void *a, const void *b)
{
	double x = ((const struct round_run *)a)->value;
	double y = ((const struct round_run *)b)->value;

	return (x > y) - (x < y);
}

/* The clock states (mdl.h, struct lk_mdl_clock). */
#define STATE_GAP 0.002
#define STATE_SHARE 0.05
#define STATE_SPAN 0.01
#define STATE_RANGE 0.75

void mdl_clock_states(const double *v, size_t n, struct lk_mdl_clock *c)
{
	size_t i, j;
	int k, m = 0;

	c->nstates = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j] <= v[j - 1] * (1 + STATE_GAP);
		     j++)
			;
		if ((double)(j - i) >= STATE_SHARE * (double)n &&
		    v[j - 1] <= v[i] * (1 + STATE_SPAN) &&
		    c->nstates < LK_MDL_CLOCK_STATES)
			c->state[c->nstates++] =
				v[i + (size_t)(0.9 * (double)(j - 1 - i))];
	}
	for (k = 0; k < c->nstates; k++)
		if (c->state[k] >= STATE_RANGE * c->state[c->nstates - 1])
			c->state[m++] = c->state[k];
	c->nstates = m;
}

int lk_mdl_clock_read(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t campaign, struct lk_mdl_clock *c)
{
	double *v = NULL;
	size_t n = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = lk_store_campaign_clock(ctx, s, campaign, &c->build);
	if (!ret)
		ret = lk_store_campaign_run_clocks(ctx, s, campaign, &v, &n);
	if (!ret)
		mdl_clock_states(v, n, c);
	free(v);
	return ret;
}

static int uses_least(enum lk_mdl_level level, double clock)
{
	return clock > 0 && level <= LK_MDL_L2;
}

/* The least sample of the n runs' (methods[r]: NULL, the latest run),
 * per step at clock, into fig (its source says so); fig unchanged when
 * they have no samples. */
static int least_figure(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const char *const *methods,
			int n, double clock, struct lk_run_figure *fig)
{
	double least = 0, ticks;
	int r, ret = 0;

	for (r = 0; !ret && r < n; r++) {
		ret = lk_store_run_least_ticks(ctx, s, variant_id, methods[r],
					       &ticks);
		if (!ret && ticks > 0 && (!least || ticks < least))
			least = ticks;
	}
	if (ret || !least)
		return ret;
	fig->value = least * clock;
	free(fig->source);
	fig->source = lk_strdup("tsc-least");
	return 0;
}

/*
 * With the clock moving (two states or more): each of the n runs' least
 * sample at its own clock (its fastest reference), and the median of
 * them (of two, the lower). A run may change state between its
 * samples, so that its least sample is faster than its references say:
 * the least of the runs would keep it, the median drops it.
 */
static int moving_figure(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t variant_id, const char *const *methods,
			 int n, struct lk_run_figure *fig)
{
	double v[LK_MDL_DB_ROUNDS], ticks, own;
	int r, m = 0, ret = 0;

	for (r = 0; !ret && r < n && r < LK_MDL_DB_ROUNDS; r++) {
		ret = lk_store_run_least_ticks(ctx, s, variant_id, methods[r],
					       &ticks);
		if (!ret)
			ret = lk_store_run_clock(ctx, s, variant_id,
						 methods[r], &own);
		if (!ret && ticks > 0 && own > 0)
			v[m++] = ticks * own;
	}
	if (ret || !m)
		return ret;
	lk_sort_doubles(v, (size_t)m);
	fig->value = v[(m - 1) / 2];
	free(fig->source);
	fig->source = lk_strdup("tsc-least");
	return 0;
}

/* Does c's clock move (two states or more: each run at its own)? */
static int clock_moves(const struct lk_mdl_clock *c)
{
	return c->nstates > 1;
}

/* The n runs' least samples as c says: at each run's own clock where it
 * moves, else at the build's. */
static int clock_figure(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const char *const *methods, int n,
			const struct lk_mdl_clock *c, struct lk_run_figure *fig)
{
	return clock_moves(c)
		       ? moving_figure(ctx, s, variant_id, methods, n, fig)
		       : least_figure(ctx, s, variant_id, methods, n, c->build,
				      fig);
}

int lk_mdl_figure(struct lk_ctx *ctx, struct lk_store *s, int64_t variant_id,
		  enum lk_mdl_level level, const struct lk_mdl_clock *clock,
		  struct lk_run_figure *fig)
{
	static const char *const latest[] = {NULL};
	int ret = lk_store_run_figure(ctx, s, variant_id, "cycles", fig);

	if (!ret && lk_run_figure_usable(fig) &&
	    uses_least(level, clock->build))
		ret = clock_figure(ctx, s, variant_id, latest, 1, clock, fig);
	return ret;
}

int lk_mdl_figure_clock(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const struct lk_mdl_clock *clock,
			double *at)
{
	*at = clock->build;
	return clock_moves(clock)
		       ? lk_store_run_clock(ctx, s, variant_id, NULL, at)
		       : 0;
}

static int unit_value(struct lk_ctx *ctx, struct lk_store *s,
		      const struct lk_mdl_db_plan *p,
		      const struct lk_mdl_db_unit *u, const struct lk_mdl_clock *c,
		      double *value, struct lk_run_figure *fig)
{
	struct round_run run[LK_MDL_DB_ROUNDS] = {{0}};
	const char *methods[LK_MDL_DB_ROUNDS];
	int r, n = 0, ret = 0;

	*value = 0;
	if (!p->nrounds) {
		ret = lk_mdl_figure(ctx, s, u->variant_id, u->level, c, fig);
		*value = ret ? 0 : run_value(u, fig);
		return ret;
	}
	for (r = 0; !ret && r < p->nrounds; r++) {
		if (!lk_mdl_db_round_covers(u->level, r))
			continue;
		ret = lk_store_run_figure_of(ctx, s, u->variant_id,
					     p->methods[r], "cycles",
					     &run[n].fig);
		run[n].value = ret ? 0 : run_value(u, &run[n].fig);
		if (run[n].value > 0)
			methods[n++] = p->methods[r];
		else
			lk_run_figure_release(&run[n].fig);
	}
	qsort(run, (size_t)n, sizeof(*run), by_value);
	for (r = 0; r < n; r++) {
		if (r == (n - 1) / 2) {
			lk_run_figure_release(fig);
			*fig = run[r].fig;
			*value = run[r].value;
		} else {
			lk_run_figure_release(&run[r].fig);
		}
	}
	if (!ret && n && uses_least(u->level, c->build)) {
		ret = clock_figure(ctx, s, u->variant_id, methods, n, c, fig);
		*value = ret ? 0 : run_value(u, fig);
	}
	return ret;
}

/* A unit measured at the level a later phase plans from. */
struct ranked {
	double value;
	size_t unit;
};

static int by_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->value != y->value)
		return (x->value > y->value) - (x->value < y->value);
	return (x->unit > y->unit) - (x->unit < y->unit);
}

/*
 * Phases 1 and 2: the seed's distinct variants measured at level from
 * (among the plan's first nfrom units), best first, the first keep of
 * them (every one with 0) at each level of the mask to. Units whose
 * files are identical (bundles beyond what a seed can split into) share
 * a variant: one of them is kept.
 */
static int plan_from(struct lk_ctx *ctx, struct lk_store *s,
		     struct lk_mdl_db_plan *p, size_t *alloc, size_t seed,
		     size_t nfrom, enum lk_mdl_level from, size_t keep,
		     unsigned to, const struct lk_mdl_clock *clock)
{
	struct ranked *r = lk_calloc(nfrom + 1, sizeof(*r));
	size_t i, k, n = 0;
	int l, ret = 0;

	for (i = 0; !ret && i < nfrom; i++) {
		const struct lk_mdl_db_unit *u = &p->units[i];
		struct lk_run_figure fig = {0};
		double v;

		if (u->seed != seed || u->latency || u->level != from)
			continue;
		ret = unit_value(ctx, s, p, u, clock, &v, &fig);
		lk_run_figure_release(&fig);
		for (k = 0; k < n; k++)
			if (p->units[r[k].unit].variant_id == u->variant_id)
				v = 0;
		if (!ret && v > 0)
			r[n++] = (struct ranked){v, i};
	}
	qsort(r, n, sizeof(*r), by_rank);
	if (keep && keep < n)
		n = keep;
	for (l = LK_MDL_L1; !ret && l <= LK_MDL_RAM; l++)
		for (k = 0; (to >> l) & 1 && k < n; k++)
			add_unit(p, alloc, seed, l, p->units[r[k].unit].unroll,
				 p->units[r[k].unit].bundles);
	free(r);
	return ret;
}

/*
 * What phase (1 or 2) of the default exploration plans: from which
 * level, how many of its variants (0: all), at which levels. Beyond the
 * L1 the unrolls that tie there part: a deeper one keeps more lines in
 * flight (sse LLL at L2, 1.32 TSC ticks an iteration at 16 vectors,
 * 1.60 at 4, all within 4 % at L1, doc/loopkit-mdl.md, "db"). So L2
 * measures every L1 variant, and L3 and RAM the best 3 of the nearest
 * level below them.
 */
static unsigned plan_phase(const struct lk_mdl_db_plan *p, int phase,
			   enum lk_mdl_level *from, size_t *keep)
{
	unsigned beyond = p->levels & (1u << LK_MDL_L3 | 1u << LK_MDL_RAM);
	int l2 = (p->levels >> LK_MDL_L2) & 1;

	*from = phase == 2 ? LK_MDL_L2 : LK_MDL_L1;
	*keep = phase == 1 && l2 ? 0 : BEST_KEPT;
	if (phase == 1)
		return l2 ? 1u << LK_MDL_L2 : beyond;
	return phase == 2 && l2 ? beyond : 0;
}

int lk_mdl_db_record(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, struct lk_mdl_db_plan *p, int phase,
		     size_t *added)
{
	size_t alloc = p->nunits, first = p->nunits, i, keep;
	enum lk_mdl_level from;
	struct lk_mdl_clock clock;
	unsigned to;
	int ret = 0;

	if (phase == 0)
		plan_phase0(p, &alloc);
	else if (p->explore == LK_MDL_EXPLORE_DEFAULT &&
		 (to = plan_phase(p, phase, &from, &keep)) &&
		 !(ret = lk_mdl_clock_read(ctx, s, campaign, &clock)))
		for (i = 0; !ret && i < p->nseeds; i++)
			ret = plan_from(ctx, s, p, &alloc, i, first, from,
					keep, to, &clock);
	for (i = first; !ret && i < p->nunits; i++)
		ret = record_unit(ctx, s, campaign, p, &p->units[i]);
	*added = p->nunits - first;
	return ret;
}

/* ---- Collecting the values. ---- */

static void keep_best(struct lk_ctx *ctx, struct lk_store *s,
		      const struct lk_mdl_db_plan *p, size_t seed,
		      enum lk_mdl_latency latency, enum lk_mdl_level level,
		      const struct lk_mdl_clock *clock, struct lk_mdl_perf_row *r)
{
	size_t i;

	for (i = 0; i < p->nunits; i++) {
		const struct lk_mdl_db_unit *u = &p->units[i];
		struct lk_run_figure fig = {0};
		double v;

		if (u->seed != seed || u->latency != latency ||
		    u->level != level ||
		    unit_value(ctx, s, p, u, clock, &v, &fig) ||
		    v <= 0) {
			lk_run_figure_release(&fig);
			continue;
		}
		r->variants++;
		if (!r->has_value || v < r->value) {
			r->has_value = 1;
			r->value = v;
			r->best_unroll = u->unroll;
			r->best_bundles = u->bundles;
			r->variant_id = u->variant_id;
			r->spread = fig.spread;
			free(r->source);
			r->source = lk_strdup(fig.source);
		}
		lk_run_figure_release(&fig);
	}
}

/* A seed's value at a level, or (seed SIZE_MAX) a latency's at L1. */
static void collect_level(struct lk_ctx *ctx, struct lk_store *s,
			  const struct lk_mdl_db_plan *p, size_t seed,
			  enum lk_mdl_latency latency, enum lk_mdl_level level,
			  const struct lk_mdl_clock *clock,
			  struct lk_mdl_perf_row *r)
{
	memset(r, 0, sizeof(*r));
	r->seed = lk_strdup(latency ? lk_mdl_latency_name(latency)
				    : p->seeds[seed].name);
	r->level = lk_strdup(lk_mdl_level_name(level));
	r->unit = lk_strdup(latency ? "cycles/op" : "cycles/iter");
	keep_best(ctx, s, p, seed, latency, level, clock, r);
	if (!r->source)
		r->source = lk_strdup("");
	r->flags = lk_strdup(!r->has_value ? "not-measured" :
			     strcmp(r->source, "tsc-calibrated") &&
					     strcmp(r->source, "tsc-least") ?
			     "not-tsc-calibrated" : "");
}

static char *levels_text(unsigned levels)
{
	struct lk_strv v = LK_STRV_INIT;
	char *text;
	int l;

	for (l = LK_MDL_L1; l <= LK_MDL_RAM; l++)
		if ((levels >> l) & 1)
			lk_strv_push(&v, lk_mdl_level_name(l));
	text = lk_strv_join(&v, ",");
	lk_strv_release(&v);
	return text;
}

static const char *const explore_names[] = {"default", "full", "minimal"};

static void db_identity(const struct lk_mdl_db_plan *p, const char *method,
			struct lk_mdl_db_row *out)
{
	struct lk_hash h;
	size_t i;

	out->isa = lk_strdup(p->machine->name);
	out->levels = levels_text(p->levels);
	out->params = lk_asprintf("explore=%s seeds=%zu features=%d "
				  "latency=%d lanes=%d method=%s rounds=%d",
				  explore_names[p->explore], p->nseeds,
				  LK_MDL_NFEATURES,
				  __builtin_cpu_supports("fma") ? 5 : 4,
				  lanes(p), method, p->nrounds ? p->nrounds : 1);
	lk_hash_init(&h);
	lk_hash_add_str(&h, out->isa);
	lk_hash_add_str(&h, out->levels);
	lk_hash_add_str(&h, out->params);
	for (i = 0; i < p->nseeds; i++) {
		lk_hash_add_str(&h, p->seeds[i].name);
		lk_hash_add_str(&h, p->seeds[i].text);
	}
	out->hash = lk_calloc(LK_HASH_HEX, 1);
	lk_hash_final(&h, out->hash);
}

int lk_mdl_db_collect(struct lk_ctx *ctx, struct lk_store *s,
		      const struct lk_mdl_db_plan *p, const char *method,
		      int64_t campaign, struct lk_mdl_db_row *out)
{
	size_t i, n = 0;
	struct lk_mdl_clock clock;
	int l;

	memset(out, 0, sizeof(*out));
	if (lk_mdl_clock_read(ctx, s, campaign, &clock))
		memset(&clock, 0, sizeof(clock));
	db_identity(p, method, out);
	out->machine = lk_strdup("");
	out->campaign_id = campaign;
	out->seeds = lk_calloc(p->nseeds + 1, sizeof(*out->seeds));
	out->perf = lk_calloc(p->nseeds * 4 + LK_MDL_NLAT,
			      sizeof(*out->perf));
	for (i = 0; i < p->nseeds; i++) {
		struct lk_mdl_seed_row *r = &out->seeds[i];

		r->name = lk_strdup(p->seeds[i].name);
		r->kind = lk_strdup(p->seeds[i].kind);
		r->mdl = lk_strdup(p->seeds[i].text);
		memcpy(r->features, p->seeds[i].f, sizeof(r->features));
		for (l = LK_MDL_L1; l <= LK_MDL_RAM; l++)
			if ((p->levels >> l) & 1)
				collect_level(ctx, s, p, i, LK_MDL_LAT_NONE, l,
					      &clock, &out->perf[n++]);
	}
	for (i = 0; i < p->nunits; i++)
		if (p->units[i].latency)
			collect_level(ctx, s, p, SIZE_MAX, p->units[i].latency,
				      LK_MDL_L1, &clock, &out->perf[n++]);
	out->nseeds = p->nseeds;
	out->nperf = n;
	lk_ctx_clear(ctx);
	return 0;
}
