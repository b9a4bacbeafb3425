/*
 * The L1 filter over a campaign: every variant's binary judged (the
 * cachegrind runs in parallel), its verdict stored in one statement.
 * An AVX-512 variant is judged on its proxy, the same source, compiler
 * and flags with the ISA replaced by -march=x86-64-v3, built through
 * the store's build cache before any verdict is written.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
#include "loopkit/filter.h"
#include "loopkit/toolchain.h"

/* Variant i's proxy, when its kernel has AVX-512 code. */
struct proxy {
	int needed;
	struct lk_l1_proxy p;
	char *binary, *flags, *why;
};

/* Variant i's kernel, read before the judging starts. */
struct kernel {
	int ret;               /* 0: cfg holds it; else why not in ctx */
	struct lk_cfg cfg;
	struct lk_ctx ctx;
};

struct judging {
	struct lk_store *s;
	const struct lk_sweep *cfg;
	const struct lk_l1_settings *set;
	const struct lk_variant_binary *v;
	struct proxy *proxies;
	struct kernel *kernels;
	struct lk_stage_summary *sum;
	size_t *todo;
	struct lk_progress progress;
	pthread_mutex_t lock;
	int store_failed;
	struct lk_ctx store_ctx;
};

static void store_verdict(struct judging *j, size_t i,
			  const struct lk_l1_verdict *v)
{
	struct lk_verdict_rec rec = {"l1",	v->verdict, v->has_value,
				     v->value,	v->source,  v->reason};

	lk_stage_item_set(&j->sum->items[i], v->verdict, v->reason);
	if (lk_store_verdict_put(&j->store_ctx, j->s, j->v[i].variant_id,
				 &rec))
		j->store_failed = 1;
}

static void need_proxy(struct lk_ctx *ctx, struct judging *j, size_t i);

static int check_one(struct lk_ctx *ctx, struct judging *j, size_t i,
		     struct lk_l1_verdict *v)
{
	const struct kernel *k = &j->kernels[i];

	if (k->ret) {
		memset(v, 0, sizeof(*v));
		return lk_error(ctx, k->ret, "%s", k->ctx.msg);
	}
	return lk_l1_check_kernel(ctx, j->v[i].binary, &k->cfg, j->set,
				  j->v[i].params, j->v[i].nparams,
				  j->proxies[i].needed ? &j->proxies[i].p
						       : NULL, v);
}

static void judge_one(void *arg, size_t k)
{
	struct judging *j = arg;
	size_t i = j->todo[k];
	struct proxy *pr = &j->proxies[i];
	struct lk_l1_verdict v;
	struct lk_ctx ctx;
	int ret;

	lk_ctx_init(&ctx);
	ret = check_one(&ctx, j, i, &v);
	/* valgrind died on AVX-512 code outside the kernel (main's loops
	 * at -march=native): judge the x86-64-v3 build instead. */
	if (!ret && v.valgrind_sigill && !pr->needed) {
		lk_l1_verdict_release(&v);
		need_proxy(&ctx, j, i);
		ret = check_one(&ctx, j, i, &v);
	}
	if (ret) {
		/* No kernel to look at is no pass either. */
		v.verdict = "unknown";
		v.source = "decoder";
		v.has_value = 0;
		free(v.reason);
		v.reason = lk_strdup(ctx.msg);
	}
	pthread_mutex_lock(&j->lock);
	store_verdict(j, i, &v);
	j->sum->done++;
	lk_progress_step(&j->progress, j->sum->items[i].label, v.verdict);
	pthread_mutex_unlock(&j->lock);
	lk_l1_verdict_release(&v);
}

/* The -D values of variant v: its parameters named by the sweep's
 * axes, as loopkit run built it. */
static struct lk_param *defines(const struct lk_sweep *cfg,
				const struct lk_variant_binary *v, size_t *n)
{
	struct lk_param *d = lk_calloc(cfg->naxes + 1, sizeof(*d));
	size_t i, k;

	*n = 0;
	for (i = 0; i < cfg->naxes; i++)
		for (k = 0; k < v->nparams; k++)
			if (!strcmp(v->params[k].name, cfg->axes[i].name)) {
				d[(*n)++] = v->params[k];
				break;
			}
	return d;
}

/* Build variant i's proxy into pr (binary, or why not). */
static void build_proxy(struct lk_ctx *ctx, struct judging *j, size_t i,
			struct proxy *pr)
{
	const struct lk_variant_binary *v = &j->v[i];
	struct lk_build_spec spec = {0};
	struct lk_build_rec b;

	pr->flags = lk_l1_proxy_flags(ctx, v->cflags);
	if (!pr->flags) {
		pr->why = lk_asprintf("no %s build: %s", LK_L1_PROXY_ISA,
				      ctx->msg);
		return;
	}
	spec.source = v->source;
	spec.compiler = v->compiler;
	spec.cflags = pr->flags;
	spec.defines = defines(j->cfg, v, &spec.ndefines);
	spec.align_functions = j->cfg->method.align_functions;
	if (lk_build(ctx, j->s, &spec, &b))
		pr->why = lk_asprintf("no %s build of %s: %s",
				      LK_L1_PROXY_ISA, v->source, ctx->msg);
	else if (!b.ok)
		pr->why = lk_asprintf("its %s build failed: %s",
				      LK_L1_PROXY_ISA, b.reason);
	else
		pr->binary = lk_path_join(lk_store_dir(j->s), b.binary);
	lk_build_rec_release(&b);
	free((void *)spec.defines);
}

/* Variant i is judged on its proxy: built now (or why not). */
static void need_proxy(struct lk_ctx *ctx, struct judging *j, size_t i)
{
	struct proxy *pr = &j->proxies[i];

	pr->needed = 1;
	build_proxy(ctx, j, i, pr);
	lk_ctx_clear(ctx);
	pr->p = (struct lk_l1_proxy){pr->binary, LK_L1_PROXY_ISA, pr->flags,
				     "cachegrind-" LK_L1_PROXY_ISA, pr->why};
}

/* AVX-512 in todo[k]'s kernel gets its proxy built. */
static void prepare_one(void *arg, size_t k)
{
	struct judging *j = arg;
	size_t i = j->todo[k];
	struct lk_ctx ctx;

	if (j->kernels[i].ret || !lk_l1_avx512(&j->kernels[i].cfg))
		return; /* judge_one says why a kernel cannot be decoded */
	lk_ctx_init(&ctx);
	need_proxy(&ctx, j, i);
}

/*
 * The kernels to judge, from the store where the blocks stage put them
 * with their code, else from the binaries. A kernel that cannot be had
 * is a verdict (judge_one); a store error ends the stage.
 */
static int read_kernels(struct lk_ctx *ctx, struct judging *j, size_t ntodo)
{
	for (size_t k = 0; k < ntodo; k++) {
		struct kernel *kn = &j->kernels[j->todo[k]];

		lk_ctx_init(&kn->ctx);
		kn->ret = lk_cfg_kernel(&kn->ctx, j->s, j->v[j->todo[k]].binary,
					&kn->cfg, NULL);
		if (kn->ret == LK_ESTORE)
			return lk_error(ctx, kn->ret, "%s", kn->ctx.msg);
	}
	return 0;
}

static void kernels_free(struct kernel *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++)
		if (!k[i].ret)
			lk_cfg_release(&k[i].cfg);
	free(k);
}

static void proxies_free(struct proxy *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].binary);
		free(p[i].flags);
		free(p[i].why);
	}
	free(p);
}

/* Cachegrind verdicts, on the variant or its proxy, can be re-judged. */
static int by_cachegrind(const char *source)
{
	return !strncmp(source, "cachegrind", 10);
}

/* A stored cachegrind ratio against today's threshold. */
static int rejudge_stored(struct judging *j, size_t i,
			  const struct lk_verdict_row *old)
{
	struct lk_verdict_rec rec = {"l1", NULL, 1, old->value, old->source,
				     NULL};
	const char *now;
	char *reason;
	int ret = 0;

	now = old->value > j->set->threshold ? "exclude" : "pass";
	if (!strcmp(now, old->verdict)) {
		lk_stage_item_set(&j->sum->items[i], old->verdict, old->reason);
		return 0;
	}
	reason = lk_asprintf("warm D1 miss ratio %.4f%% (stored) %s the "
			     "threshold %.4g%%", old->value * 100,
			     strcmp(now, "pass") ? "above" : "within",
			     j->set->threshold * 100);
	rec.verdict = now;
	rec.reason = reason;
	ret = lk_store_verdict_put(&j->store_ctx, j->s, j->v[i].variant_id,
				   &rec);
	lk_stage_item_set(&j->sum->items[i], now, reason);
	free(reason);
	return ret;
}

/* 1 when variant i needs judging, 0 when settled, < 0 on error. */
static int plan_one(struct lk_ctx *ctx, struct judging *j, size_t i)
{
	struct lk_verdict_row old;
	int ret;

	if (!*j->v[i].binary) {
		char *why = lk_asprintf("no binary (run status %s)",
					j->v[i].run_status);

		lk_stage_item_set(&j->sum->items[i], "skipped", why);
		free(why);
		j->sum->skipped++;
		return 0;
	}
	if (j->cfg->filter.redo)
		return 1;
	ret = lk_store_verdict_get(ctx, j->s, j->v[i].variant_id, "l1", &old);
	/* A working-set verdict of a loopkit without proxies ("generator")
	 * passed AVX-512 kernels cachegrind can judge: judge again. */
	if (ret == 1 && !strcmp(old.source, "generator")) {
		lk_verdict_row_release(&old);
		return 1;
	}
	if (ret == 1) {
		j->sum->earlier++;
		if (old.has_value && by_cachegrind(old.source))
			ret = rejudge_stored(j, i, &old);
		else
			lk_stage_item_set(&j->sum->items[i], old.verdict,
				       old.reason);
		ret = ret < 0 ? ret : 0;
		if (j->store_failed || ret < 0)
			*ctx = j->store_ctx;
	} else if (!ret) {
		ret = 1;
	}
	lk_verdict_row_release(&old);
	return ret;
}

/* "N variants: P L1-resident, E excluded, U unknown, S skipped" */
static char *filter_line(const struct lk_stage_summary *sum)
{
	long pass = 0, exclude = 0, unknown = 0;

	for (size_t i = 0; i < sum->n; i++) {
		pass += !strcmp(sum->items[i].status, "pass");
		exclude += !strcmp(sum->items[i].status, "exclude");
		unknown += !strcmp(sum->items[i].status, "unknown");
	}
	return lk_asprintf("%zu variants: %ld L1-resident, %ld excluded, %ld "
			   "unknown, %ld skipped",
			   sum->n, pass, exclude, unknown, sum->skipped);
}

int lk_filter_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *cfg,
		    const struct lk_stage_opts *opts,
		    struct lk_stage_summary *sum)
{
	struct lk_variant_binary *v = NULL;
	struct lk_l1_settings set;
	struct lk_sweep *defaults = cfg ? NULL : lk_sweep_new();
	struct judging j = {.s = s, .cfg = cfg ? cfg : defaults, .set = &set,
			    .sum = sum};
	size_t n = 0, ntodo = 0, i;
	int ret = lk_store_variant_binaries(ctx, s, campaign, &v, &n);

	memset(sum, 0, sizeof(*sum));
	if (ret) {
		lk_sweep_free(defaults);
		return ret;
	}
	lk_l1_settings_resolve(cfg ? &cfg->filter : NULL, &set);
	lk_stage_items_init(sum, v, n);
	if (cfg && cfg->filter.disabled) {
		for (i = 0; i < n; i++)
			lk_stage_item_set(&sum->items[i], "skipped",
					  "filter.enabled is false");
		sum->skipped = (long)n;
		sum->line = filter_line(sum);
		lk_variant_binaries_free(v, n);
		lk_sweep_free(defaults);
		return 0;
	}
	j.v = v;
	j.todo = lk_calloc(n + 1, sizeof(*j.todo));
	lk_ctx_init(&j.store_ctx);
	for (i = 0; !ret && i < n; i++) {
		ret = plan_one(ctx, &j, i);
		if (ret == 1)
			j.todo[ntodo++] = i;
		ret = ret < 0 ? ret : 0;
	}
	j.proxies = lk_calloc(n + 1, sizeof(*j.proxies));
	/* Not yet read is no kernel: kernels_free leaves them alone. */
	j.kernels = lk_calloc(n + 1, sizeof(*j.kernels));
	for (i = 0; i < n; i++)
		j.kernels[i].ret = LK_ENOTFOUND;
	if (!ret)
		ret = read_kernels(ctx, &j, ntodo);
	if (!ret)
		lk_pool_run(opts->jobs, ntodo, prepare_one, &j);
	if (!ret) {
		pthread_mutex_init(&j.lock, NULL);
		lk_progress_init(&j.progress, "filter", ntodo, opts->quiet);
		lk_pool_run(opts->jobs, ntodo, judge_one, &j);
		lk_progress_end(&j.progress);
		pthread_mutex_destroy(&j.lock);
		if (j.store_failed) {
			*ctx = j.store_ctx;
			ret = ctx->code ? ctx->code : LK_ESTORE;
		}
	}
	if (!ret)
		sum->line = filter_line(sum);
	free(j.todo);
	proxies_free(j.proxies, n);
	kernels_free(j.kernels, n);
	lk_variant_binaries_free(v, n);
	lk_sweep_free(defaults);
	return ret;
}
