/*
 * The tools loopkit predict knows, and turning a 'tools:' list into
 * predictors. A tool family is one entry of the table below: the names
 * it answers to on this machine and how to make one of them.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/bprof.h"
#include "loopkit/config.h"
#include "predict-int.h"

/* What every family's constructor may look at. */
struct predict_env {
	struct lk_ctx *ctx;
	const struct lk_predict_setup *st;
	const struct lk_predict_config *cfg;
	struct lk_mca_install *mca;
	size_t nmca;
	char *cpu;                 /* the -mcpu wanted, "" if none */
};

struct tool_family {
	const char *name;
	/* The names this family offers here; NULL: just 'name'. */
	void (*names)(const struct predict_env *env, struct lk_strv *out);
	int (*make)(const struct predict_env *env, const char *name,
		    struct lk_predictor **out);
};

static void mca_names(const struct predict_env *env, struct lk_strv *out)
{
	size_t i;

	for (i = 0; i < env->nmca; i++)
		lk_strv_push(out, env->mca[i].name);
}

static int mca_make(const struct predict_env *env, const char *name,
		    struct lk_predictor **out)
{
	struct lk_mca_opts o = {env->cpu,
				{env->cfg->iterations[0],
				 env->cfg->iterations[1]},
				env->cfg->timeout, env->st->max_batch, 0};
	size_t i;

	for (i = 0; i < env->nmca; i++)
		if (!strcmp(env->mca[i].name, name)) {
			lk_mca_load_cpus(&env->mca[i]);
			return lk_mca_predictor(env->ctx, &env->mca[i], &o,
						out);
		}
	return lk_error(env->ctx, LK_ENOTFOUND, "no %s installed", name);
}

/* The block profiler, with its measured defaults (doc/loopkit-bprof.md). */
static int bprof_make(const struct predict_env *env, const char *name,
		      struct lk_predictor **out)
{
	(void)name;
	return lk_bprof_predictor(env->ctx, NULL, out);
}

/* Adding a tool is one line here. */
static const struct tool_family families[] = {
	{"llvm-mca", mca_names, mca_make},
	{"bprof", NULL, bprof_make},
};

static void family_names(const struct predict_env *env,
			 const struct tool_family *f, struct lk_strv *out)
{
	if (f->names)
		f->names(env, out);
	else
		lk_strv_push(out, f->name);
}

/* Every name available here: the default list, or (with extras, the
 * caller's families, made only on request) for messages. */
static void available(const struct predict_env *env, int extras,
		      struct lk_strv *out)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(families); i++)
		family_names(env, &families[i], out);
	for (i = 0; extras && i < env->st->nextra; i++)
		env->st->extra[i].names(env->st->extra[i].arg, out);
	for (i = 0; i < env->cfg->nadapters; i++)
		lk_strv_push(out, env->cfg->adapters[i].name);
}

static int make_adapter(const struct predict_env *env,
			const struct lk_adapter_config *a,
			struct lk_predictor **out)
{
	const char *mc = env->nmca ? env->mca[0].llvm_mc : NULL;

	return lk_adapter_predictor(env->ctx, a, env->cpu, mc,
				    env->cfg->iterations[1],
				    env->cfg->timeout, env->st->config_path,
				    out);
}

/* 0, < 0 on error, 1 when no tool has this name. */
static int make_one(const struct predict_env *env, const char *name,
		    struct lk_predictor **out)
{
	struct lk_strv names = LK_STRV_INIT;
	size_t i, k;
	int ret = 1;

	for (i = 0; ret == 1 && i < LK_ARRAY_SIZE(families); i++) {
		family_names(env, &families[i], &names);
		for (k = 0; k < names.n; k++)
			if (!strcmp(names.v[k], name)) {
				ret = families[i].make(env, name, out);
				break;
			}
		lk_strv_release(&names);
	}
	for (i = 0; ret == 1 && i < env->cfg->nadapters; i++)
		if (!strcmp(env->cfg->adapters[i].name, name))
			return make_adapter(env, &env->cfg->adapters[i], out);
	/* The caller's families last: asking them may open a store. */
	for (i = 0; ret == 1 && i < env->st->nextra; i++) {
		const struct lk_predict_family *f = &env->st->extra[i];

		f->names(f->arg, &names);
		for (k = 0; k < names.n; k++)
			if (!strcmp(names.v[k], name)) {
				ret = f->make(env->ctx, f->arg, name, out);
				break;
			}
		lk_strv_release(&names);
	}
	return ret;
}

/* A name no tool offers: an extra family's reason it cannot run here,
 * said at the tools: line (a command line's --tool has line 0), else
 * 1. */
static int missing_tool(const struct predict_env *env, const char *name,
			long line)
{
	const struct lk_predict_setup *st = env->st;
	size_t i;
	char *why;
	int ret = 1;

	for (i = 0; ret == 1 && i < st->nextra; i++)
		if (st->extra[i].missing)
			ret = st->extra[i].missing(env->ctx, st->extra[i].arg,
						   name);
	if (ret == 1 || !st->config_path || line <= 0)
		return ret;
	why = lk_strdup(env->ctx->msg);
	ret = lk_error_at(env->ctx, ret, st->config_path, line, "%s", why);
	free(why);
	return ret;
}

static int unknown_tool(const struct predict_env *env, const char *name,
			long line)
{
	struct lk_strv names = LK_STRV_INIT;
	char *list;
	int ret;

	available(env, 1, &names);
	list = names.n ? lk_strv_join(&names, ", ") : lk_strdup("none");
	ret = lk_error_at(env->ctx, LK_EINPUT, env->st->config_path
			  ? env->st->config_path : "--tool",
			  env->st->config_path ? line : 0,
			  "unknown tool '%s' (available here: %s)", name,
			  list);
	free(list);
	lk_strv_release(&names);
	return ret;
}

/* Expand family names ("llvm-mca": every version) and check each. */
static void requested(const struct predict_env *env, struct lk_strv *out)
{
	const struct lk_strv *want = env->st->tools && env->st->tools->n
					     ? env->st->tools
					     : &env->cfg->tools;
	size_t i, k;

	if (!want->n) {
		available(env, 0, out);
		return;
	}
	for (i = 0; i < want->n; i++) {
		int family = 0;

		for (k = 0; k < LK_ARRAY_SIZE(families); k++)
			if (families[k].names &&
			    !strcmp(families[k].name, want->v[i])) {
				size_t before = out->n;

				families[k].names(env, out);
				/* None installed: let it fail by name. */
				family = out->n > before;
			}
		if (!family)
			lk_strv_push(out, want->v[i]);
	}
}

static long tool_line(const struct predict_env *env, const char *name)
{
	const struct lk_predict_config *c = env->cfg;
	size_t i;

	if (env->st->tools && env->st->tools->n)
		return 0;
	for (i = 0; i < c->tools.n; i++)
		if (!strcmp(c->tools.v[i], name) ||
		    !strncmp(name, c->tools.v[i], strlen(c->tools.v[i])))
			return c->tool_lines ? c->tool_lines[i] : c->line;
	return c->line;
}

/* The -mcpu wanted: the option's, the config's, else the host's. */
static int wanted_cpu(struct predict_env *env)
{
	const char *cpu = env->st->mcpu ? env->st->mcpu : env->cfg->mcpu;
	size_t i;
	int known = 0;

	if (cpu && (!strcmp(cpu, "native") || !strcmp(cpu, "host")))
		cpu = NULL;
	if (!cpu) {
		env->cpu = lk_mca_host_cpu(env->mca, env->nmca);
		return 0;
	}
	env->cpu = lk_strdup(cpu);
	for (i = 0; i < env->nmca; i++) {
		lk_mca_load_cpus(&env->mca[i]);
		for (size_t k = 0; k < env->mca[i].cpus.n; k++)
			known |= !strcmp(env->mca[i].cpus.v[k], cpu);
	}
	if (known || !env->nmca)
		return 0;
	/* Line 0: the command line's --mcpu, written into the config. */
	if (env->st->mcpu || !env->st->config_path || !env->cfg->mcpu_line)
		return lk_error(env->ctx, LK_EINPUT, "--mcpu %s: no installed "
				"llvm-mca knows this CPU (see llvm-mca "
				"-mcpu=help)", cpu);
	return lk_error_at(env->ctx, LK_EINPUT, env->st->config_path,
			   env->cfg->mcpu_line, "predict.mcpu: no installed "
			   "llvm-mca knows '%s' (see llvm-mca -mcpu=help)",
			   cpu);
}

void lk_predictors_free(struct lk_predictor **p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		lk_predictor_free(p[i]);
	free(p);
}

static int make_all(struct predict_env *env, const struct lk_strv *names,
		    struct lk_predictor ***out, size_t *n)
{
	size_t i;
	int ret = 0;

	*out = lk_calloc(names->n ? names->n : 1, sizeof(**out));
	for (i = 0; !ret && i < names->n; i++) {
		ret = make_one(env, names->v[i], &(*out)[*n]);
		if (ret == 1)
			ret = missing_tool(env, names->v[i],
					   tool_line(env, names->v[i]));
		if (ret == 1)
			ret = unknown_tool(env, names->v[i],
					   tool_line(env, names->v[i]));
		if (!ret)
			(*n)++;
	}
	if (!ret && !*n)
		ret = lk_error(env->ctx, LK_ENOTFOUND, "no predictor is "
			       "installed (llvm-mca: none found in PATH "
			       "nor in /usr/lib/llvm-*/bin)");
	if (ret) {
		lk_predictors_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

int lk_predictors_make(struct lk_ctx *ctx, const struct lk_predict_setup *st,
		       struct lk_predictor ***out, size_t *n)
{
	struct lk_predict_config defaults;
	struct predict_env env = {ctx, st, st->cfg, NULL, 0, NULL};
	struct lk_strv names = LK_STRV_INIT;
	int ret;

	*out = NULL;
	*n = 0;
	lk_predict_config_init(&defaults);
	if (!env.cfg)
		env.cfg = &defaults;
	ret = lk_mca_find(ctx, &env.mca, &env.nmca);
	if (!ret)
		ret = wanted_cpu(&env);
	if (!ret) {
		requested(&env, &names);
		ret = make_all(&env, &names, out, n);
	}
	lk_strv_release(&names);
	lk_mca_installs_free(env.mca, env.nmca);
	free(env.cpu);
	return ret;
}
