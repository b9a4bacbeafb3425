/*
 * A sweep, end to end: expand, record the variants, build in parallel
 * through the cache, measure one variant at a time. Each unit of work is
 * committed on its own, keyed by the hash of its inputs, so a killed
 * sweep resumes where it stopped.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/env.h"
#include "loopkit/toolchain.h"
#include "measure-int.h"

struct unit {
	const struct lk_variant *v;
	struct lk_param *params;   /* every axis: the variant's key */
	size_t nparams;
	struct lk_param *defines;  /* the -D axes (not asm's, not threads) */
	size_t ndefines;
	long threads;              /* the threads axis' value; 0: none */
	char *label;
	char variant_hash[LK_HASH_HEX];
	int64_t variant_id;
	struct lk_build_spec spec;
	char build_key[LK_HASH_HEX];
	char *key_error;        /* why no build key (missing compiler...) */
	char method_hash[LK_HASH_HEX];
	int done;               /* a finished run exists */
	int build_done;
	struct lk_build_rec build;
	char *build_error;      /* loopkit could not even run the build */
};

struct plan {
	struct lk_ctx *ctx;
	struct lk_store *store;    /* borrowed */
	const struct lk_sweep *sweep;
	const struct lk_run_opts *opts;
	struct lk_variant *variants;
	struct unit *units;
	size_t n;
	char *method;
	int64_t campaign, env_id;
	struct lk_progress progress;
	/* With a 'gen:' section the variants come from the store. */
	struct lk_variant_binary *stored;
	struct lk_flagset *stored_flags;
	size_t nstored;
};

/* An asm: section's variants come from the store (plan_from_store), so
 * the implicit axes of a plain sweep are threads: alone. */
static void make_params(const struct lk_sweep *sw, struct unit *u)
{
	size_t i;

	u->nparams = u->ndefines = 0;
	u->params = lk_calloc(sw->naxes + 1, sizeof(*u->params));
	u->defines = lk_calloc(sw->naxes + 1, sizeof(*u->defines));
	for (i = 0; i < sw->naxes; i++) {
		struct lk_param p = {sw->axes[i].name, u->v->values[i]};

		u->params[u->nparams++] = p;
		if (!sw->axes[i].implicit)    /* asm, threads: no -D */
			u->defines[u->ndefines++] = p;
	}
	u->threads = lk_variant_threads(sw, u->v);
	u->label = lk_variant_name(u->v->source, u->v->compiler,
				   u->v->flagset->name, u->params,
				   u->nparams);
	u->spec = (struct lk_build_spec){
		.source = u->v->source, .compiler = u->v->compiler,
		.cflags = u->v->flagset->flags, .defines = u->defines,
		.ndefines = u->ndefines,
		.align_functions = sw->method.align_functions,
		.memory_limit = sw->method.memory_limit,
		.opt_report = sw->method.opt_report};
}

static int variant_hash(struct lk_ctx *ctx, struct unit *u, char *src_hash)
{
	struct lk_hash h;
	char *data;
	size_t len, i;

	if (lk_file_read(ctx, u->v->source, &data, &len))
		return ctx->code = LK_EINPUT; /* the message says which file */
	lk_hash_buf(data, len, src_hash);
	free(data);
	lk_hash_init(&h);
	lk_hash_add_str(&h, u->v->source);
	lk_hash_add_str(&h, src_hash);
	lk_hash_add_str(&h, u->v->compiler);
	lk_hash_add_str(&h, u->v->flagset->name);
	lk_hash_add_str(&h, u->v->flagset->flags);
	for (i = 0; i < u->nparams; i++) {
		lk_hash_add_str(&h, u->params[i].name);
		lk_hash_add_str(&h, u->params[i].value);
	}
	lk_hash_final(&h, u->variant_hash);
	return 0;
}

/* The run key: what is measured (method, metrics) on which binary. */
static void method_hash(const struct plan *p, struct unit *u)
{
	struct lk_hash h;
	size_t i;

	lk_hash_init(&h);
	lk_hash_add_str(&h, p->method);
	for (i = 0; i < p->sweep->metrics.n; i++)
		lk_hash_add_str(&h, p->sweep->metrics.v[i]);
	lk_hash_add_str(&h, u->key_error ? u->key_error : u->build_key);
	lk_hash_final(&h, u->method_hash);
}

static int plan_unit(struct plan *p, struct unit *u)
{
	struct lk_ctx *ctx = p->ctx;
	char src_hash[LK_HASH_HEX];
	struct lk_variant_rec rec;
	int ret;

	make_params(p->sweep, u);
	if (!u->variant_id) {
		if ((ret = variant_hash(ctx, u, src_hash)))
			return ret;
		rec = (struct lk_variant_rec){
			u->variant_hash, u->v->source, src_hash,
			u->v->compiler, u->v->flagset->name,
			u->v->flagset->flags, u->params, u->nparams};
		if ((ret = lk_store_variant_put(ctx, p->store, p->campaign,
						&rec, &u->variant_id)))
			return ret;
	}
	ret = lk_build_key(ctx, &u->spec, u->build_key);
	if (ret == LK_EINPUT || ret == LK_ENOTFOUND || ret == LK_ECHILD)
		u->key_error = lk_strdup(ctx->msg);
	else if (ret)
		return ret;
	lk_ctx_clear(ctx);
	method_hash(p, u);
	ret = lk_store_run_done(ctx, p->store, u->variant_id, u->method_hash,
				NULL);
	if (ret < 0)
		return ret;
	u->done = ret;
	return 0;
}

/* The variant's value of a -D axis, from its stored parameters. */
static const char *stored_value(const struct lk_variant_binary *row,
				const char *axis)
{
	size_t i;

	for (i = 0; i < row->nparams; i++)
		if (!strcmp(row->params[i].name, axis))
			return row->params[i].value;
	return "";
}

static int listed(const struct lk_run_opts *o, int64_t id)
{
	size_t i;

	for (i = 0; i < o->nonly; i++)
		if (o->only[i] == id)
			return 1;
	return 0;
}

/* The stored variants opts->only lists first, in their order; the
 * others after them (still p->nstored in all, for freeing). Returns
 * how many are listed. */
static size_t keep_only(struct plan *p)
{
	size_t i, k = 0;

	for (i = 0; i < p->nstored; i++)
		if (listed(p->opts, p->stored[i].variant_id)) {
			struct lk_variant_binary t = p->stored[k];

			p->stored[k++] = p->stored[i];
			p->stored[i] = t;
		}
	return k;
}

/*
 * A campaign with a 'gen:' section measures the variants 'loopkit gen'
 * recorded (generated sources in the store), not the sweep's sources:
 * they already carry their compiler, flags and -D values, and their ids.
 */
static int plan_from_store(struct plan *p)
{
	const struct lk_sweep *sw = p->sweep;
	size_t i, j;
	int ret;

	ret = lk_store_variant_binaries(p->ctx, p->store, p->campaign,
					&p->stored, &p->nstored);
	if (ret)
		return ret;
	if (!p->nstored)
		return lk_error(p->ctx, LK_EINPUT, "campaign '%s' has a "
				"'gen:' section but no generated variants: "
				"run 'loopkit gen -c' first", sw->name);
	p->n = p->nstored;
	if (p->opts->only)
		p->n = keep_only(p);
	p->variants = lk_calloc(p->n, sizeof(*p->variants));
	p->stored_flags = lk_calloc(p->n, sizeof(*p->stored_flags));
	for (i = 0; i < p->n; i++) {
		struct lk_variant_binary *row = &p->stored[i];

		p->stored_flags[i] = (struct lk_flagset){row->flagset,
							 row->cflags};
		p->variants[i].source = row->source;
		p->variants[i].compiler = row->compiler;
		p->variants[i].flagset = &p->stored_flags[i];
		p->variants[i].values = lk_calloc(sw->naxes + 1,
						  sizeof(char *));
		for (j = 0; j < sw->naxes; j++)
			p->variants[i].values[j] =
				stored_value(row, sw->axes[j].name);
	}
	return 0;
}

/* A generated variant is named by its kernel and transformation, not
 * by its content-addressed file: the name needs all its parameters. */
static void stored_label(struct unit *u, const struct lk_variant_binary *row)
{
	free(u->label);
	u->label = lk_variant_name(row->source, row->compiler, row->flagset,
				   row->params, row->nparams);
}

static int plan_all(struct plan *p)
{
	size_t i;
	int ret;

	if (p->sweep->gen.present || p->sweep->asm_body.given)
		ret = plan_from_store(p);
	else
		ret = lk_sweep_expand(p->ctx, p->sweep, &p->variants, &p->n);
	if (ret)
		return ret;
	p->units = lk_calloc(p->n + 1, sizeof(*p->units));
	for (i = 0; i < p->n; i++) {
		p->units[i].v = &p->variants[i];
		if (p->stored) {
			p->units[i].variant_id = p->stored[i].variant_id;
			snprintf(p->units[i].variant_hash, LK_HASH_HEX, "%s",
				 p->stored[i].variant_hash);
		}
		if ((ret = plan_unit(p, &p->units[i])))
			return ret;
		if (p->stored)
			stored_label(&p->units[i], &p->stored[i]);
	}
	return 0;
}

/* ---- Building, in parallel. ---- */

struct build_job {
	struct plan *plan;
	size_t *leaders;   /* one unit per distinct build key */
	pthread_mutex_t lock;
	struct lk_progress progress;
	long built, cached, failed;
};

static void build_one(void *arg, size_t i)
{
	struct build_job *job = arg;
	struct plan *p = job->plan;
	struct unit *u = &p->units[job->leaders[i]];
	struct lk_ctx ctx;
	int cached;

	lk_ctx_init(&ctx);
	cached = !lk_store_build_get(&ctx, p->store, u->build_key, &u->build);
	lk_build_rec_release(&u->build);
	lk_ctx_clear(&ctx);
	if (lk_build(&ctx, p->store, &u->spec, &u->build))
		u->build_error = lk_strdup(ctx.msg);
	u->build_done = 1;
	pthread_mutex_lock(&job->lock);
	if (u->build_error || !u->build.ok)
		job->failed++;
	else if (cached)
		job->cached++;
	else
		job->built++;
	lk_progress_step(&job->progress, u->label,
			 u->build_error || !u->build.ok ? "failed"
			 : cached ? "stored" : "built");
	pthread_mutex_unlock(&job->lock);
}

static int needs_build(const struct unit *u)
{
	return !u->done && !u->key_error;
}

/* The first earlier unit needing the same build, or SIZE_MAX. */
static size_t leader_of(const struct plan *p, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (needs_build(&p->units[j]) &&
		    !strcmp(p->units[j].build_key, p->units[i].build_key))
			return j;
	return SIZE_MAX;
}

static void build_all(struct plan *p, struct lk_run_summary *sum)
{
	struct build_job job = {.plan = p,
				.leaders = lk_calloc(p->n + 1, sizeof(size_t))};
	size_t i, nleaders = 0;

	for (i = 0; i < p->n; i++)
		if (needs_build(&p->units[i]) && leader_of(p, i) == SIZE_MAX)
			job.leaders[nleaders++] = i;
	pthread_mutex_init(&job.lock, NULL);
	lk_progress_init(&job.progress, "build", nleaders, p->opts->quiet);
	lk_pool_run(p->opts->jobs, nleaders, build_one, &job);
	lk_progress_end(&job.progress);
	pthread_mutex_destroy(&job.lock);
	sum->built = job.built;
	sum->cached = job.cached;
	if (p->opts->build_only)
		sum->failed = job.failed;
	for (i = 0; i < p->n; i++) {
		struct unit *u = &p->units[i];
		size_t l;

		if (!needs_build(u) || u->build_done)
			continue;
		l = leader_of(p, i);
		if (p->units[l].build_error) {
			u->build_error = lk_strdup(p->units[l].build_error);
		} else if (lk_store_build_get(p->ctx, p->store, u->build_key,
					      &u->build)) {
			u->build_error = lk_strdup(p->ctx->msg);
			lk_ctx_clear(p->ctx);
		}
		u->build_done = 1;
	}
	free(job.leaders);
}

/* Each variant's build as its latest, before any run uses it. */
static int record_builds(struct plan *p)
{
	int64_t *variants = lk_calloc(p->n + 1, sizeof(*variants));
	int64_t *builds = lk_calloc(p->n + 1, sizeof(*builds));
	size_t i, n = 0;
	int ret;

	for (i = 0; i < p->n; i++)
		if (p->units[i].build_done && p->units[i].build.id > 0) {
			variants[n] = p->units[i].variant_id;
			builds[n++] = p->units[i].build.id;
		}
	ret = lk_store_variant_builds_set(p->ctx, p->store, variants, builds,
					  n);
	free(variants);
	free(builds);
	return ret;
}

/* ---- Measuring, one variant at a time. ---- */

static int measure_one(struct plan *p, struct unit *u, const char **status)
{
	struct lk_unit_result res = {NULL, NULL};
	const char *why = u->key_error ? u->key_error : u->build_error;
	char *binary;
	int ret;

	if (why || !u->build.ok) {
		*status = "build-failed";
		return lk_measure_record_failure(
			p->ctx, p->store, u->variant_id,
			why ? 0 : u->build.id, p->env_id, u->method_hash,
			p->method, *status, why ? why : u->build.reason);
	}
	binary = lk_path_join(lk_store_dir(p->store), u->build.binary);
	ret = lk_measure_unit(p->ctx, p->store, p->sweep, binary, u->threads,
			      u->variant_id, u->build.id, p->env_id,
			      u->method_hash, &res);
	*status = "failed";
	if (!ret && res.status)
		*status = strcmp(res.status, "ok") ?
				  (strcmp(res.status, "unstable") ? "failed" :
								    "unstable") :
				  "ok";
	free(res.status);
	free(res.reason);
	free(binary);
	return ret;
}

static int measure_all(struct plan *p, struct lk_run_summary *sum)
{
	size_t i, todo = 0;
	int ret = 0;

	for (i = 0; i < p->n; i++)
		todo += !p->units[i].done;
	lk_progress_init(&p->progress, "measure", todo, p->opts->quiet);
	for (i = 0; !ret && i < p->n; i++) {
		struct unit *u = &p->units[i];
		const char *status = NULL;

		if (u->done)
			continue;
		ret = measure_one(p, u, &status);
		if (ret)
			break;
		sum->measured++;
		if (strcmp(status, "ok") && strcmp(status, "unstable"))
			sum->failed++;
		lk_progress_step(&p->progress, u->label, status);
	}
	lk_progress_end(&p->progress);
	return ret;
}

/* ---- The summary the CLI prints. ---- */

static void report_unit(struct plan *p, struct unit *u,
			struct lk_run_report *r)
{
	const struct lk_param *params = u->params;
	size_t i, np = u->nparams;
	char *status = NULL;

	/* An asm variant's parameters (asm, asm.n...) are no -D: the
	 * stored ones. */
	if (p->stored && p->sweep->asm_body.given) {
		params = p->stored[u - p->units].params;
		np = p->stored[u - p->units].nparams;
	}
	r->variant_id = u->variant_id;
	r->label = lk_strdup(u->label);
	r->skipped = u->done;
	r->source = lk_strdup(u->v->source);
	r->compiler = lk_strdup(u->v->compiler);
	r->flagset = lk_strdup(u->v->flagset->name);
	r->nparams = np;
	r->param_names = lk_calloc(np + 1, sizeof(char *));
	r->param_values = lk_calloc(np + 1, sizeof(char *));
	for (i = 0; i < np; i++) {
		r->param_names[i] = lk_strdup(params[i].name);
		r->param_values[i] = lk_strdup(params[i].value);
	}
	if (p->opts->list_only) {
		r->status = lk_strdup(u->done ? "done" : "planned");
		r->reason = lk_strdup(u->key_error ? u->key_error : "");
		return;
	}
	if (lk_store_run_outcome(p->ctx, p->store, u->variant_id,
				 u->method_hash, &status, &r->reason) == 1) {
		r->status = status;
	} else {
		r->status = lk_strdup("missing");
		r->reason = lk_strdup("");
	}
	if (!r->reason)
		r->reason = lk_strdup("");
	lk_store_results_get(p->ctx, p->store, u->variant_id, u->method_hash,
			     &r->results, &r->nresults);
	lk_ctx_clear(p->ctx);
}

static void fill_reasons(struct plan *p, struct lk_run_summary *sum)
{
	size_t i;

	for (i = 0; i < sum->n; i++) {
		struct unit *u = &p->units[i];
		struct lk_run_report *r = &sum->reports[i];
		const char *why = u->key_error ? u->key_error :
				  u->build_error ? u->build_error :
				  u->build_done && !u->build.ok ?
						   u->build.reason : NULL;

		if (why && !*r->reason) {
			free(r->reason);
			r->reason = lk_strdup(why);
		}
	}
}

static void summarise(struct plan *p, struct lk_run_summary *sum)
{
	size_t i;

	sum->n = p->n;
	sum->reports = lk_calloc(p->n + 1, sizeof(*sum->reports));
	for (i = 0; i < p->n; i++) {
		report_unit(p, &p->units[i], &sum->reports[i]);
		sum->skipped += p->units[i].done;
	}
	fill_reasons(p, sum);
}

void lk_run_summary_release(struct lk_run_summary *sum)
{
	size_t i, j;

	for (i = 0; i < sum->n; i++) {
		struct lk_run_report *r = &sum->reports[i];

		free(r->label);
		free(r->status);
		free(r->reason);
		free(r->source);
		free(r->compiler);
		free(r->flagset);
		lk_result_rows_free(r->results, r->nresults);
		for (j = 0; j < r->nparams; j++) {
			free(r->param_names[j]);
			free(r->param_values[j]);
		}
		free(r->param_names);
		free(r->param_values);
	}
	free(sum->reports);
	memset(sum, 0, sizeof(*sum));
}

/* ---- The whole sweep. ---- */

/* The campaign's config hash as this run read it; failed runs
 * forgotten first when asked. */
static int open_campaign(struct plan *p)
{
	const struct lk_sweep *sw = p->sweep;
	char hash[LK_HASH_HEX] = "";
	char *text = NULL;
	size_t len;
	int64_t id = 0;
	int ret;

	if (sw->path && !lk_file_read(p->ctx, sw->path, &text, &len))
		lk_hash_buf(text, len, hash);
	free(text);
	lk_ctx_clear(p->ctx);
	ret = lk_store_campaign(p->ctx, p->store, sw->name, sw->path,
				*hash ? hash : NULL, &id);
	if (!ret && id != p->campaign)
		ret = lk_error(p->ctx, LK_EINTERNAL, "campaign %s: id %lld, "
			       "not %lld", sw->name, (long long)id,
			       (long long)p->campaign);
	if (!ret && p->opts->retry_failed) {
		long n;

		ret = lk_store_runs_forget_failed(p->ctx, p->store,
						  p->campaign, &n);
	}
	return ret;
}

/* A snapshot of the machine with every campaign's runs, and the CPUs
 * its launches are pinned to. */
static int snapshot_env(struct plan *p)
{
	struct lk_env env = {NULL, 0, 0};
	char *json, *cpus;
	int ret = lk_env_collect(p->ctx, &env, LK_ENV_CALIBRATE);

	if (ret)
		return ret;
	cpus = lk_cpuset_format(&p->sweep->method.cpus);
	lk_env_set(&env, "measure.cpu", *cpus ? cpus : "none");
	free(cpus);
	json = lk_env_json(&env);
	ret = lk_store_env_put(p->ctx, p->store, p->campaign, json,
			       &p->env_id);
	free(json);
	lk_env_release(&env);
	return ret;
}

static void plan_release(struct plan *p)
{
	size_t i;

	for (i = 0; i < p->n && p->units; i++) {
		struct unit *u = &p->units[i];

		free(u->params);
		free(u->defines);
		free(u->label);
		free(u->key_error);
		free(u->build_error);
		lk_build_rec_release(&u->build);
	}
	free(p->units);
	lk_variants_free(p->variants, p->n);
	lk_variant_binaries_free(p->stored, p->nstored);
	free(p->stored_flags);
	free(p->method);
}

int lk_run_sweep(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		 const struct lk_sweep *sweep, const struct lk_run_opts *opts,
		 struct lk_run_summary *sum)
{
	struct plan p = {.ctx = ctx, .store = s, .sweep = sweep, .opts = opts,
			 .campaign = campaign};
	int ret;

	memset(sum, 0, sizeof(*sum));
	/* Before anything is stored: a launch could not pin anyway. */
	if (!opts->list_only && !opts->build_only &&
	    (ret = lk_measure_check_cpus(ctx, &sweep->method)))
		return ret;
	p.method = lk_method_canonical(&sweep->method);
	if ((ret = open_campaign(&p)) || (ret = plan_all(&p)))
		goto out;
	if (opts->build_only) {
		build_all(&p, sum);
		ret = record_builds(&p);
		goto out;
	}
	if (!opts->list_only) {
		if ((ret = snapshot_env(&p)))
			goto out;
		build_all(&p, sum);
		if ((ret = record_builds(&p)) || (ret = measure_all(&p, sum)))
			goto out;
	}
	summarise(&p, sum);
out:
	plan_release(&p);
	return ret;
}

/* ---- The measure stage of 'loopkit campaign'. ---- */

int lk_measure_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum)
{
	struct lk_run_opts o = {.jobs = opts->jobs, .quiet = opts->quiet,
				.retry_failed = opts->retry_failed,
				.list_only = opts->list_only,
				.verbose = opts->verbose};
	struct lk_run_summary r = {0};
	size_t i;
	int ret = lk_run_sweep(ctx, s, campaign, cfg, &o, &r);

	memset(sum, 0, sizeof(*sum));
	if (!ret) {
		sum->items = lk_calloc(r.n + 1, sizeof(*sum->items));
		sum->n = r.n;
		for (i = 0; i < r.n; i++) {
			sum->items[i].variant_id = r.reports[i].variant_id;
			sum->items[i].label = lk_strdup(r.reports[i].label);
			lk_stage_item_set(&sum->items[i], r.reports[i].status,
					  r.reports[i].reason);
			sum->failed += strcmp(r.reports[i].status, "ok") &&
				       strcmp(r.reports[i].status, "unstable");
		}
		sum->done = r.measured;
		sum->earlier = r.skipped;
		sum->line = lk_asprintf("%zu variants: %ld measured now, %ld "
					"stored earlier, %ld not ok", r.n,
					r.measured, r.skipped, sum->failed);
	}
	lk_run_summary_release(&r);
	return ret;
}
