/*
 * Compiling benchmarks against the runtime, through a content-hash build
 * cache in the campaign store.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/subprocess.h"
#include "loopkit/toolchain.h"

#define BUILD_TIMEOUT 300.0
#define MAX_LOG (64u << 10)

/* One connection is shared by the compile threads: serialise its use. */
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t version_lock = PTHREAD_MUTEX_INITIALIZER;

/* First line of '<cc> --version', cached per compiler name. */
static int compiler_version(struct lk_ctx *ctx, const char *cc, char **out)
{
	static struct lk_strv names, versions;
	const char *argv[] = {cc, "--version", NULL};
	size_t i;
	char *text;
	int ret = 0;

	pthread_mutex_lock(&version_lock);
	for (i = 0; i < names.n; i++)
		if (!strcmp(names.v[i], cc))
			goto found;
	ret = lk_proc_first_line(ctx, argv, 30, &text);
	if (ret)
		goto out;
	lk_strv_push(&names, cc);
	lk_strv_push_take(&versions, text);
found:
	*out = lk_strdup(versions.v[i]);
out:
	pthread_mutex_unlock(&version_lock);
	return ret;
}

/* The vectoriser's report on stderr, where the build log catches it:
 * what was vectorised, what was not and why. */
static void push_opt_report(const char *compiler, struct lk_strv *argv)
{
	const char *base = strrchr(compiler, '/');

	base = base ? base + 1 : compiler;
	if (strstr(base, "clang")) {
		lk_strv_push(argv, "-Rpass=loop-vectorize");
		lk_strv_push(argv, "-Rpass-missed=loop-vectorize");
		lk_strv_push(argv, "-Rpass-analysis=loop-vectorize");
	} else {
		lk_strv_push(argv, "-fopt-info-vec-optimized-missed");
	}
}

static int build_argv(struct lk_ctx *ctx, const struct lk_build_spec *spec,
		      const char *output, struct lk_strv *argv)
{
	struct lk_strv flags = LK_STRV_INIT;
	struct lk_cc_line line = {.compiler = spec->compiler,
				  .flags = &flags, .sources = &spec->source,
				  .nsources = 1, .output = output};
	size_t i;
	int ret;

	if (spec->align_functions > 0)
		lk_strv_pushf(&flags, "-falign-functions=%ld",
			      spec->align_functions);
	ret = lk_strv_split(ctx, &flags, spec->cflags ? spec->cflags : "");
	if (ret) {
		/* The message is formatted into ctx->msg: copy it first. */
		char *why = lk_strdup(ctx->msg);

		lk_error(ctx, LK_EINPUT, "cflags '%s': %s", spec->cflags, why);
		free(why);
		lk_strv_release(&flags);
		return LK_EINPUT;
	}
	for (i = 0; i < spec->ndefines; i++) {
		const struct lk_param *d = &spec->defines[i];

		if (*d->value)
			lk_strv_pushf(&flags, "-D%s=%s", d->name, d->value);
		else
			lk_strv_pushf(&flags, "-D%s", d->name);
	}
	if (spec->opt_report)
		push_opt_report(spec->compiler, &flags);
	lk_cc_argv(&line, argv);
	lk_strv_release(&flags);
	return 0;
}

static int hash_file(struct lk_ctx *ctx, struct lk_hash *h, const char *path)
{
	char *data;
	size_t len;
	int ret = lk_file_read(ctx, path, &data, &len);

	if (ret == LK_ESYS)
		ctx->code = ret = LK_ENOTFOUND;
	if (ret)
		return ret;
	lk_hash_add_str(h, path);
	lk_hash_add(h, &len, sizeof(len));
	lk_hash_add(h, data, len);
	free(data);
	return 0;
}

int lk_build_key(struct lk_ctx *ctx, const struct lk_build_spec *spec,
		 char key[LK_HASH_HEX])
{
	struct lk_strv argv = LK_STRV_INIT;
	char *version = NULL, *hdr, *lib;
	struct lk_hash h;
	size_t i;
	int ret;

	if ((ret = build_argv(ctx, spec, "OUT", &argv)))
		goto out;
	if ((ret = compiler_version(ctx, spec->compiler, &version)))
		goto out;
	lk_hash_init(&h);
	lk_hash_add_str(&h, version);
	for (i = 0; i < argv.n; i++)
		lk_hash_add_str(&h, argv.v[i]);
	hdr = lk_path_join(lk_rt_include_dir(), "lkrt.h");
	lib = lk_path_join(lk_rt_lib_dir(), "liblkrt.a");
	ret = hash_file(ctx, &h, spec->source);
	if (!ret && (ret = hash_file(ctx, &h, hdr)))
		lk_error(ctx, ret, "runtime header %s missing", hdr);
	if (!ret && (ret = hash_file(ctx, &h, lib)))
		lk_error(ctx, ret, "runtime library %s missing", lib);
	free(hdr);
	free(lib);
	lk_hash_final(&h, key);
out:
	free(version);
	lk_strv_release(&argv);
	return ret;
}

static void describe_failure(struct lk_build_rec *b,
			     const struct lk_proc_result *r)
{
	char *err = lk_compiler_error(r->out ? r->out : "");
	char *how = lk_proc_describe(r, BUILD_TIMEOUT);

	if (err)
		b->reason = lk_asprintf("compile failed (%s): %s", how, err);
	else
		b->reason = lk_asprintf("compile failed (%s)", how);
	free(err);
	free(how);
}

/* Run the compiler into a temporary file, rename on success. */
static int compile(struct lk_ctx *ctx, struct lk_store *s,
		   const struct lk_build_spec *spec, const char *key,
		   struct lk_build_rec *b)
{
	char *final = lk_store_object_path(s, key, "");
	char *tmp = lk_asprintf("%s.tmp.%ld.%lx", final, (long)getpid(),
				(unsigned long)pthread_self());
	char *dir = lk_path_dirname(final);
	struct lk_strv argv = LK_STRV_INIT;
	struct lk_proc_opts o = {.timeout = BUILD_TIMEOUT, .result_fd = -1,
				 .max_capture = MAX_LOG,
				 .flags = LK_PROC_MERGE_STDERR};
	struct lk_proc_result r;
	int ret;

	if ((ret = lk_mkdir_p(ctx, dir, 0755)) ||
	    (ret = build_argv(ctx, spec, tmp, &argv)))
		goto out;
	o.argv = (const char *const *)argv.v;
	o.memory_limit = spec->memory_limit;
	if ((ret = lk_proc_run(ctx, &o, &r)))
		goto out;
	b->seconds = r.seconds;
	b->log = lk_strdup(r.out ? r.out : "");
	b->ok = lk_proc_ok(&r);
	if (b->ok && rename(tmp, final)) {
		ret = lk_error_errno(ctx, "cannot rename %s", tmp);
	} else if (!b->ok) {
		describe_failure(b, &r);
		unlink(tmp);
	}
	lk_proc_result_release(&r);
	/* Record the real output path, not the temporary one. */
	free(argv.v[argv.n - 3]);
	argv.v[argv.n - 3] = lk_strdup(final);
	b->command = lk_strv_join(&argv, " ");
out:
	free(final);
	free(tmp);
	free(dir);
	lk_strv_release(&argv);
	return ret;
}

static int reuse(struct lk_store *s, struct lk_build_rec *b)
{
	char *path;
	int usable;

	if (!b->ok)
		return 1;
	path = lk_path_join(lk_store_dir(s), b->binary);
	usable = access(path, X_OK) == 0;
	free(path);
	return usable;
}

static void fill_identity(struct lk_ctx *ctx, struct lk_store *s,
			  const struct lk_build_spec *spec, const char *key,
			  struct lk_build_rec *b)
{
	char *obj = lk_store_object_path(s, key, "");
	size_t dirlen = strlen(lk_store_dir(s));

	b->hash = lk_strdup(key);
	b->compiler = lk_strdup(spec->compiler);
	if (compiler_version(ctx, spec->compiler, &b->compiler_version))
		b->compiler_version = lk_strdup("unknown");
	b->binary = lk_strdup(b->ok ? obj + dirlen + 1 : "");
	if (!b->reason)
		b->reason = lk_strdup("");
	if (!b->log)
		b->log = lk_strdup("");
	if (!b->command)
		b->command = lk_strdup("");
	free(obj);
}

int lk_build(struct lk_ctx *ctx, struct lk_store *s,
	     const struct lk_build_spec *spec, struct lk_build_rec *b)
{
	char key[LK_HASH_HEX];
	int ret;

	memset(b, 0, sizeof(*b));
	if ((ret = lk_build_key(ctx, spec, key)))
		return ret;
	pthread_mutex_lock(&store_lock);
	ret = lk_store_build_get(ctx, s, key, b);
	pthread_mutex_unlock(&store_lock);
	if (!ret && reuse(s, b))
		return 0;
	if (ret && ret != LK_ENOTFOUND)
		return ret;
	lk_build_rec_release(b);
	memset(b, 0, sizeof(*b));
	lk_ctx_clear(ctx);
	if ((ret = compile(ctx, s, spec, key, b)))
		return ret;
	fill_identity(ctx, s, spec, key, b);
	pthread_mutex_lock(&store_lock);
	ret = lk_store_build_put(ctx, s, b);
	pthread_mutex_unlock(&store_lock);
	return ret;
}
