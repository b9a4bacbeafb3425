/*
 * The generator over a campaign: sources x transformation chains, each
 * unit generated and verified in parallel, its file stored content-
 * addressed and its variants recorded for 'loopkit run'. A unit's
 * outcome is remembered under the hash of its inputs, so a rerun with
 * nothing changed does no work.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "poly.h"

#define GEN_VERSION "loopkit-gen 2"

struct unit {
	size_t source;             /* index into the sweep's sources */
	const struct lk_gen_chain *chain;
	char key[LK_HASH_HEX];     /* of the inputs */
	char object_hash[LK_HASH_HEX];
	char *object;              /* generated file, absolute */
	char *status, *reason;
	char *kernel, *family;
	int done_before;
};

struct source_ref {
	char *sum;                 /* the original's checksum */
	char *error;               /* why there is none */
	char content_hash[LK_HASH_HEX];
};

struct job {
	const struct lk_sweep *sw;
	const struct lk_stage_opts *opts;
	struct lk_store *store;    /* borrowed */
	struct unit *units;
	size_t n;
	struct source_ref *refs;
	struct lk_progress progress;
	pthread_mutex_t lock;
	size_t *pending;           /* sources with units to generate */
};

static char *family_of(const char *path)
{
	char *dir = lk_path_dirname(path);
	const char *base = strrchr(dir, '/');
	char *f = lk_strdup(base ? base + 1 : dir);

	free(dir);
	return f;
}

static char *kernel_of(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot && dot != base ? lk_strndup(base, (size_t)(dot - base))
				  : lk_strdup(base);
}

/* -D flags of the sweep's first combination are not used: the generator
 * parses and verifies at the verify size; -I dirs of every flag set
 * help the parser find headers. */
static void parse_flags(const struct lk_sweep *sw, const char *source,
			struct lk_strv *out)
{
	struct lk_ctx quiet;
	size_t i, j;
	char *dir = lk_path_dirname(source);

	lk_ctx_init(&quiet);
	lk_strv_pushf(out, "-I%s", dir);
	free(dir);
	for (i = 0; i < sw->nflagsets; i++) {
		struct lk_strv words = LK_STRV_INIT;

		if (!lk_strv_split(&quiet, &words, sw->flagsets[i].flags))
			for (j = 0; j < words.n; j++)
				if (!strncmp(words.v[j], "-I", 2))
					lk_strv_push(out, words.v[j]);
		lk_strv_release(&words);
	}
}

/* What reaches the front end and the verification besides the source
 * and the chain: every flag parse and verify are given (-I, -D, -U,
 * -std, in order), the size define, whether to verify. */
static void key_inputs(struct lk_hash *h, const struct lk_sweep *sw,
		       const char *source)
{
	struct lk_strv cflags = LK_STRV_INIT;
	size_t i;

	parse_flags(sw, source, &cflags);
	lk_hash_add_str(h, "flags");
	for (i = 0; i < cflags.n; i++)
		lk_hash_add_str(h, cflags.v[i]);
	lk_hash_add_str(h, sw->gen.verify ? sw->gen.verify_define : "-");
	lk_strv_release(&cflags);
}

static int unit_key(struct lk_ctx *ctx, const struct lk_sweep *sw,
		    struct unit *u, struct source_ref *ref)
{
	struct lk_hash h;
	char *data;
	size_t len;

	if (!*ref->content_hash) {
		if (lk_file_read(ctx, sw->sources.v[u->source], &data, &len))
			return LK_EINPUT;
		lk_hash_buf(data, len, ref->content_hash);
		free(data);
	}
	lk_hash_init(&h);
	lk_hash_add_str(&h, GEN_VERSION);
	lk_hash_add_str(&h, ref->content_hash);
	lk_hash_add_str(&h, u->chain->text);
	key_inputs(&h, sw, sw->sources.v[u->source]);
	/* kernelify without l1= sizes by this host's L1D. */
	if (strstr(u->chain->text, "kernelify")) {
		long l1 = lk_gen_kernelify_default_l1();

		lk_hash_add(&h, &l1, sizeof(l1));
	}
	lk_hash_final(&h, u->key);
	return 0;
}

/* The remembered outcome: "status\tobject-hash\treason". */
static char *marker_path(struct lk_store *s, const struct unit *u)
{
	return lk_store_object_path(s, u->key, ".gen");
}

/* A remembered outcome, unless it is a failure to try again. */
static int read_marker(struct lk_store *s, struct unit *u, int retry_failed)
{
	struct lk_ctx quiet;
	char *path = marker_path(s, u), *text, *t1, *t2;
	size_t len;

	lk_ctx_init(&quiet);
	if (lk_file_read(&quiet, path, &text, &len)) {
		free(path);
		return 0;
	}
	free(path);
	t1 = strchr(text, '\t');
	t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
	if (!t2) {
		free(text);
		return 0;
	}
	u->status = lk_strndup(text, (size_t)(t1 - text));
	snprintf(u->object_hash, LK_HASH_HEX, "%.*s", (int)(t2 - t1 - 1),
		 t1 + 1);
	u->reason = lk_strdup(t2 + 1);
	u->done_before = !retry_failed || !strcmp(u->status, "generated");
	if (*u->object_hash)
		u->object = lk_store_object_path(s, u->object_hash, ".c");
	free(text);
	return u->done_before;
}

static void write_marker(struct lk_store *s, const struct unit *u)
{
	struct lk_ctx quiet;
	char *path = marker_path(s, u), *dir = lk_path_dirname(path);
	char *text = lk_asprintf("%s\t%s\t%s", u->status, u->object_hash,
				 u->reason ? u->reason : "");

	lk_ctx_init(&quiet);
	if (!lk_mkdir_p(&quiet, dir, 0777))
		lk_file_write_atomic(&quiet, path, text, strlen(text));
	free(text);
	free(dir);
	free(path);
}

static void set_outcome(struct unit *u, const char *status,
			const char *reason)
{
	free(u->status);
	free(u->reason);
	u->status = lk_strdup(status);
	u->reason = lk_strdup(reason ? reason : "");
}

static int verify(struct lk_ctx *ctx, struct job *job, struct unit *u,
		  const struct lk_gen_result *r, const struct lk_strv *cflags,
		  const char *tmp)
{
	struct source_ref *ref = &job->refs[u->source];
	const char *src = job->sw->sources.v[u->source];
	const char *base = strrchr(src, '/');

	if (ref->error)
		return lk_error(ctx, LK_ECHILD, "the original: %s",
				ref->error);
	return lk_gen_verify(ctx, r, u->chain->text, ref->sum, tmp,
			     base ? base + 1 : src, job->sw->gen.verify_define,
			     cflags);
}

static int source_pending(const struct job *job, size_t source)
{
	size_t k;

	for (k = 0; k < job->n; k++)
		if (job->units[k].source == source &&
		    !job->units[k].done_before)
			return 1;
	return 0;
}

/* The originals' checksums, once per source. */
static void reference_one(struct job *job, size_t i)
{
	struct source_ref *ref = &job->refs[i];
	const char *src = job->sw->sources.v[i];
	struct lk_strv cflags = LK_STRV_INIT;
	char tmpl[] = "/tmp/loopkit-gen-XXXXXX";
	char *tmp = mkdtemp(tmpl);
	struct lk_ctx ctx;

	if (!source_pending(job, i) || !job->sw->gen.verify || !tmp) {
		if (tmp)
			rmdir(tmp);
		return;
	}
	lk_ctx_init(&ctx);
	parse_flags(job->sw, src, &cflags);
	if (lk_gen_checksum(&ctx, src, tmp, job->sw->gen.verify_define,
			    &cflags, &ref->sum))
		ref->error = lk_strdup(ctx.msg);
	rmdir(tmp);
	lk_strv_release(&cflags);
}

/* One unit on its source's scop (NULL when the source is unsupported:
 * why is in 'why'). */
static void generate(struct job *job, struct unit *u,
		     struct lk_gen_scop *scop, const char *why,
		     const struct lk_strv *cflags, const char *tmp)
{
	struct lk_gen_result *r = NULL;
	struct lk_ctx ctx;
	int ret;

	if (!scop) {
		set_outcome(u, "unsupported", why);
		return;
	}
	lk_ctx_init(&ctx);
	ret = lk_gen_transform(&ctx, scop, u->chain, &r);
	if (ret) {
		set_outcome(u, ret == LK_EINPUT ? "illegal" : "failed",
			    ctx.msg);
		return;
	}
	ret = lk_store_object_put(&ctx, job->store, r->source,
				  strlen(r->source), ".c", u->object_hash,
				  &u->object);
	if (!ret && job->sw->gen.verify)
		ret = verify(&ctx, job, u, r, cflags, tmp);
	set_outcome(u, ret ? "failed" : "generated", ret ? ctx.msg : "");
	if (ret)
		*u->object_hash = '\0';
	lk_gen_result_free(r);
}

static void unit_done(struct job *job, struct unit *u)
{
	char *what = lk_asprintf("%s %s", u->kernel, u->chain->text);

	pthread_mutex_lock(&job->lock);
	write_marker(job->store, u);
	lk_progress_step(&job->progress, what, u->status);
	pthread_mutex_unlock(&job->lock);
	free(what);
}

/*
 * Every pending unit of one source: the original's checksum and the
 * parse, the model and its dependences are made once, then each chain
 * transforms that model (isl's scheduler results are shared too, see
 * transform.c).
 * Transformations copy the schedule and restore isl's options, so the
 * units do not see each other.
 */
static void run_source(void *arg, size_t i)
{
	struct job *job = arg;
	size_t source = job->pending[i], k;
	const char *src = job->sw->sources.v[source];
	struct lk_strv cflags = LK_STRV_INIT;
	struct lk_gen_scop *scop = NULL;
	char tmpl[] = "/tmp/loopkit-gen-XXXXXX";
	char *tmp = mkdtemp(tmpl);
	struct lk_ctx ctx;

	reference_one(job, source);
	lk_ctx_init(&ctx);
	parse_flags(job->sw, src, &cflags);
	if (!tmp)
		lk_error(&ctx, LK_ESYS, "cannot make a temporary directory");
	else if (!lk_gen_scop_parse(&ctx, src, &cflags, &scop))
		lk_gen_scop_deps(&ctx, scop);
	for (k = 0; k < job->n; k++) {
		struct unit *u = &job->units[k];

		if (u->source != source || u->done_before)
			continue;
		if (tmp)
			generate(job, u, scop, ctx.msg, &cflags, tmp);
		else
			set_outcome(u, "failed", ctx.msg);
		unit_done(job, u);
	}
	if (tmp)
		rmdir(tmp);
	lk_gen_scop_free(scop);
	lk_strv_release(&cflags);
}

/* ---- Recording variants. ---- */

/* The chain makes a micro-kernel, which records facts about itself. */
static int kernelified(const struct unit *u)
{
	const struct lk_gen_chain *c = u->chain;

	return c->nsteps && !strcmp(c->steps[c->nsteps - 1].name, "kernelify");
}

/* What the micro-kernel file says about itself (working_set_bytes...). */
static size_t kernel_facts(const struct unit *u, struct lk_strv *names,
			   struct lk_strv *values)
{
	struct lk_ctx quiet;
	char *text;
	size_t len, n = 0;

	lk_ctx_init(&quiet);
	if (u->object && !lk_file_read(&quiet, u->object, &text, &len)) {
		n = lk_gen_kernel_params(text, names, values);
		free(text);
	}
	return n;
}

static void unit_params(const struct lk_sweep *sw, const struct unit *u,
			const struct lk_variant *v, struct lk_param **out,
			size_t *n, struct lk_strv *owned)
{
	const struct lk_gen_chain *c = u->chain;
	size_t i, j, k = 0, max = sw->naxes + 3, nfacts = 0;
	struct lk_strv facts = LK_STRV_INIT, values = LK_STRV_INIT;
	struct lk_param *p;

	if (kernelified(u))
		nfacts = kernel_facts(u, &facts, &values);
	max += nfacts;
	for (i = 0; i < c->nsteps; i++)
		max += c->steps[i].keys.n;
	p = lk_calloc(max, sizeof(*p));
	for (i = 0; i < sw->naxes; i++)
		p[k++] = (struct lk_param){sw->axes[i].name, v->values[i]};
	p[k++] = (struct lk_param){"kernel", u->kernel};
	p[k++] = (struct lk_param){"family", u->family};
	p[k++] = (struct lk_param){"transformation", c->text};
	for (i = 0; i < c->nsteps; i++)
		for (j = 0; j < c->steps[i].keys.n; j++) {
			lk_strv_pushf(owned, "%s.%s", c->steps[i].name,
				      c->steps[i].keys.v[j]);
			p[k++] = (struct lk_param){NULL,
						   c->steps[i].values.v[j]};
		}
	for (i = 0; i < nfacts; i++) {
		lk_strv_push(owned, facts.v[i]);
		lk_strv_push(owned, values.v[i]);
		p[k++] = (struct lk_param){NULL, NULL};
	}
	/* Names pushed above, in the same order (the vector may move). */
	for (i = 0, j = 0; i < k; i++) {
		if (!p[i].name && p[i].value) {
			p[i].name = owned->v[j++];
		} else if (!p[i].name) {
			p[i].name = owned->v[j++];
			p[i].value = owned->v[j++];
		}
	}
	lk_strv_release(&facts);
	lk_strv_release(&values);
	*out = p;
	*n = k;
}

static int record_variant(struct lk_ctx *ctx, struct job *job,
			  int64_t campaign, const struct unit *u,
			  const struct lk_variant *v, int64_t *id)
{
	const char *src = job->sw->sources.v[u->source];
	char *dir = lk_path_dirname(src);
	char *cflags = lk_asprintf("%s -I%s", v->flagset->flags, dir);
	struct lk_strv owned = LK_STRV_INIT;
	struct lk_param *params;
	char hash[LK_HASH_HEX];
	struct lk_variant_rec rec;
	struct lk_hash h;
	size_t n, i;
	int ret;

	unit_params(job->sw, u, v, &params, &n, &owned);
	lk_hash_init(&h);
	lk_hash_add_str(&h, u->object);
	lk_hash_add_str(&h, u->object_hash);
	lk_hash_add_str(&h, v->compiler);
	lk_hash_add_str(&h, v->flagset->name);
	lk_hash_add_str(&h, cflags);
	for (i = 0; i < job->sw->naxes; i++) {
		lk_hash_add_str(&h, params[i].name);
		lk_hash_add_str(&h, params[i].value);
	}
	lk_hash_final(&h, hash);
	rec = (struct lk_variant_rec){hash, u->object, u->object_hash,
				      v->compiler, v->flagset->name, cflags,
				      params, n};
	ret = lk_store_variant_put(ctx, job->store, campaign, &rec, id);
	free(params);
	lk_strv_release(&owned);
	free(cflags);
	free(dir);
	return ret;
}

/* Every generated unit's variants, then those as the campaign's
 * current ones: run -c measures the sweep as it is now, not every
 * variant an earlier gen: section made. */
static int record_all(struct lk_ctx *ctx, struct job *job, int64_t campaign,
		      struct lk_gen_summary *sum)
{
	struct lk_variant *vs = NULL;
	size_t nv = 0, i, j, nids = 0;
	int ret = lk_sweep_expand(ctx, job->sw, &vs, &nv);
	int64_t *ids = lk_calloc(job->n * nv + 1, sizeof(*ids));

	for (i = 0; !ret && i < job->n; i++) {
		struct unit *u = &job->units[i];

		if (strcmp(u->status, "generated"))
			continue;
		for (j = 0; !ret && j < nv; j++) {
			if (strcmp(vs[j].source, job->sw->sources.v[u->source]))
				continue;
			ret = record_variant(ctx, job, campaign, u, &vs[j],
					     &ids[nids]);
			nids += !ret;
			sum->units[i].variants += !ret;
			sum->variants += !ret;
		}
	}
	if (!ret)
		ret = lk_store_variants_current(ctx, job->store, campaign, ids,
						nids);
	free(ids);
	lk_variants_free(vs, nv);
	return ret;
}

/* ---- The whole campaign. ---- */

static void plan(struct job *job)
{
	const struct lk_sweep *sw = job->sw;
	size_t i, j, k = 0;

	job->n = sw->sources.n * sw->gen.nchains;
	job->units = lk_calloc(job->n + 1, sizeof(*job->units));
	job->refs = lk_calloc(sw->sources.n + 1, sizeof(*job->refs));
	for (i = 0; i < sw->sources.n; i++)
		for (j = 0; j < sw->gen.nchains; j++, k++) {
			job->units[k].source = i;
			job->units[k].chain = &sw->gen.chains[j];
			job->units[k].kernel = kernel_of(sw->sources.v[i]);
			job->units[k].family = family_of(sw->sources.v[i]);
		}
}

/* The campaign's config as this run read it: its hash is remembered. */
static int record_config(struct lk_ctx *ctx, struct job *job,
			 int64_t campaign)
{
	const struct lk_sweep *sw = job->sw;
	char hash[LK_HASH_HEX] = "";
	char *text = NULL;
	size_t len;
	int64_t id = 0;
	int ret;

	if (sw->path && !lk_file_read(ctx, sw->path, &text, &len))
		lk_hash_buf(text, len, hash);
	free(text);
	lk_ctx_clear(ctx);
	ret = lk_store_campaign(ctx, job->store, sw->name, sw->path,
				*hash ? hash : NULL, &id);
	if (!ret && id != campaign)
		ret = lk_error(ctx, LK_EINTERNAL, "campaign %s: id %lld, not "
			       "%lld", sw->name, (long long)id,
			       (long long)campaign);
	return ret;
}

static void summarise(struct job *job, struct lk_gen_summary *sum)
{
	size_t i;

	sum->n = job->n;
	sum->units = lk_calloc(job->n + 1, sizeof(*sum->units));
	for (i = 0; i < job->n; i++) {
		struct unit *u = &job->units[i];
		struct lk_gen_unit_report *r = &sum->units[i];

		r->kernel = lk_strdup(u->kernel);
		r->family = lk_strdup(u->family);
		r->chain = lk_strdup(u->chain->text);
		r->object = lk_strdup(u->object ? u->object : "");
		r->reason = lk_strdup(u->reason ? u->reason : "");
		if (job->opts->list_only)
			r->status = lk_strdup(u->done_before ? "stored-earlier"
							     : "planned");
		else if (u->done_before && !strcmp(u->status, "generated"))
			r->status = lk_strdup("stored-earlier");
		else
			r->status = lk_strdup(u->status);
		if (!strcmp(r->status, "generated"))
			sum->generated++;
		else if (!strcmp(r->status, "stored-earlier"))
			sum->skipped++;
		else if (strcmp(r->status, "planned"))
			sum->failed++;
	}
}

static void job_release(struct job *job)
{
	size_t i;

	for (i = 0; i < job->n; i++) {
		free(job->units[i].object);
		free(job->units[i].status);
		free(job->units[i].reason);
		free(job->units[i].kernel);
		free(job->units[i].family);
	}
	for (i = 0; job->refs && i < job->sw->sources.n; i++) {
		free(job->refs[i].sum);
		free(job->refs[i].error);
	}
	free(job->units);
	free(job->refs);
}

static int keys_and_markers(struct lk_ctx *ctx, struct job *job,
			    size_t *todo)
{
	size_t i;
	int ret = 0;

	*todo = 0;
	for (i = 0; !ret && i < job->n; i++) {
		struct unit *u = &job->units[i];

		ret = unit_key(ctx, job->sw, u, &job->refs[u->source]);
		if (!ret && !read_marker(job->store, u,
					 job->opts->retry_failed))
			(*todo)++;
	}
	return ret;
}

int lk_gen_campaign(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *sw, const struct lk_stage_opts *opts,
		    struct lk_gen_summary *sum)
{
	struct job job = {.sw = sw, .opts = opts, .store = s};
	size_t todo, i, k = 0, *pending;
	int ret;

	memset(sum, 0, sizeof(*sum));
	pthread_mutex_init(&job.lock, NULL);
	plan(&job);
	ret = record_config(ctx, &job, campaign);
	if (!ret)
		ret = keys_and_markers(ctx, &job, &todo);
	if (ret || opts->list_only)
		goto out;
	pending = lk_calloc(sw->sources.n + 1, sizeof(*pending));
	for (i = 0; i < sw->sources.n; i++)
		if (source_pending(&job, i))
			pending[k++] = i;
	lk_progress_init(&job.progress, "gen", todo, opts->quiet);
	job.pending = pending;
	lk_pool_run(opts->jobs, k, run_source, &job);
	lk_progress_end(&job.progress);
	free(pending);
	summarise(&job, sum);
	ret = record_all(ctx, &job, campaign, sum);
out:
	if (!ret && opts->list_only)
		summarise(&job, sum);
	job_release(&job);
	pthread_mutex_destroy(&job.lock);
	return ret;
}

void lk_gen_summary_release(struct lk_gen_summary *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->units[i].kernel);
		free(s->units[i].family);
		free(s->units[i].chain);
		free(s->units[i].status);
		free(s->units[i].reason);
		free(s->units[i].object);
	}
	free(s->units);
	memset(s, 0, sizeof(*s));
}

/* ---- The gen stage of 'loopkit campaign'. ---- */

static void stage_items(const struct lk_gen_summary *g,
			struct lk_stage_summary *sum)
{
	size_t i;

	sum->items = lk_calloc(g->n + 1, sizeof(*sum->items));
	sum->n = g->n;
	for (i = 0; i < g->n; i++) {
		const struct lk_gen_unit_report *u = &g->units[i];

		sum->items[i].label = lk_asprintf("%s %s", u->kernel,
						  u->chain);
		lk_stage_item_set(&sum->items[i], u->status, u->reason);
		if (*u->reason)
			fprintf(stderr, "gen: %s: %s: %s\n",
				sum->items[i].label, u->status, u->reason);
	}
	sum->done = g->generated;
	sum->earlier = g->skipped;
	sum->failed = g->failed;
}

int lk_gen_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		 const struct lk_sweep *cfg, const struct lk_stage_opts *opts,
		 struct lk_stage_summary *sum)
{
	struct lk_gen_summary g = {0};
	int ret;

	memset(sum, 0, sizeof(*sum));
	if (cfg->asm_body.given)
		return lk_asm_stage(ctx, s, campaign, cfg, sum);
	if (!cfg->gen.present) {
		sum->line = lk_strdup("nothing to do: the file has no gen: "
				      "section, the sources are measured as "
				      "they are");
		return 0;
	}
	ret = lk_gen_campaign(ctx, s, campaign, cfg, opts, &g);
	if (!ret) {
		stage_items(&g, sum);
		sum->line = lk_asprintf("%zu units: %ld generated, %ld "
					"stored earlier, %ld failed; %ld "
					"variants", g.n, g.generated,
					g.skipped, g.failed, g.variants);
	}
	lk_gen_summary_release(&g);
	return ret;
}
