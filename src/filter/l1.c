/*
 * The L1-residency verdict of one binary: decode the kernel; AVX-512
 * code (valgrind 3.19 dies on it) is judged by cachegrind on a proxy,
 * a build of the same source valgrind can run, else by a working set
 * or not at all; any other code by cachegrind with two numbers of
 * kernel calls, differenced.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/binary.h"
#include "loopkit/filter.h"
#include "loopkit/subprocess.h"

extern char **environ;

#define DEFAULT_TIMEOUT 300.0

void lk_l1_settings_resolve(const struct lk_l1_filter_cfg *cfg,
			    struct lk_l1_settings *out)
{
	static const struct lk_l1_filter_cfg none;
	long size = sysconf(_SC_LEVEL1_DCACHE_SIZE);
	long assoc = sysconf(_SC_LEVEL1_DCACHE_ASSOC);
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	int host = size > 0 && assoc > 0 && line > 0;

	if (!cfg)
		cfg = &none;
	/* The host's ways and line only go with the host's size. */
	if (cfg->l1d_size && cfg->l1d_size != size)
		host = 0;
	out->threshold = cfg->has_threshold ? cfg->threshold
					    : LK_L1_DEFAULT_THRESHOLD;
	out->l1d_size = cfg->l1d_size ? cfg->l1d_size : host ? size : 32768;
	out->l1d_assoc = cfg->l1d_assoc ? cfg->l1d_assoc : host ? assoc : 8;
	out->line_size = cfg->line_size ? cfg->line_size : host ? line : 64;
	out->l1d_from = cfg->l1d_size ? "configured" : host ? "host"
							       : "default";
	out->calls[0] = cfg->calls[0] ? cfg->calls[0] : 1;
	out->calls[1] = cfg->calls[1] ? cfg->calls[1] : 3;
	out->timeout = cfg->timeout > 0 ? cfg->timeout : DEFAULT_TIMEOUT;
	out->working_set_param = *cfg->working_set_param
					 ? cfg->working_set_param
					 : "working_set_bytes";
}

void lk_l1_verdict_release(struct lk_l1_verdict *v)
{
	if (!v)
		return;
	free(v->reason);
	v->reason = NULL;
}

static void set_verdict(struct lk_l1_verdict *v, const char *verdict,
			const char *source, char *reason)
{
	v->verdict = verdict;
	v->source = source;
	free(v->reason);
	v->reason = reason;
}

/* The first EVEX and the first FMA instruction of the kernel, or -1. */
static void scan_isa(const struct lk_cfg *cfg, long *evex, long *fma)
{
	*evex = *fma = -1;
	for (size_t i = 0; i < cfg->ninsns; i++) {
		if (*evex < 0 && lk_insn_evex(&cfg->insns[i]))
			*evex = (long)i;
		if (*fma < 0 && lk_insn_fma(&cfg->insns[i]))
			*fma = (long)i;
	}
}

static const char *param_value(const struct lk_param *params, size_t n,
			       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(params[i].name, name))
			return params[i].value;
	return NULL;
}

/*
 * AVX-512 without a proxy cachegrind can run (why says why): the
 * generator's proven working set, or unknown with what to do.
 */
static void judge_by_working_set(const struct lk_insn *evex,
				 const struct lk_l1_settings *set,
				 const struct lk_param *params, size_t n,
				 const char *why, struct lk_l1_verdict *v)
{
	const char *ws = param_value(params, n, set->working_set_param);
	long bytes = 0;

	if (!ws || lk_parse_long(ws, &bytes) || bytes < 0) {
		set_verdict(v, "unknown", "decoder", lk_asprintf(
			"AVX-512 code (%s at 0x%llx), which valgrind cannot "
			"run; %s, and %s working set to judge by (parameter "
			"%s)", evex->att, (unsigned long long)evex->addr, why,
			ws ? "no valid" : "no", set->working_set_param));
		return;
	}
	set_verdict(v, bytes <= set->l1d_size ? "pass" : "exclude",
		    "working-set", lk_asprintf(
			"AVX-512 code (%s at 0x%llx), not simulated (%s): the "
			"proven working set of %ld B %s the %ld B L1D",
			evex->att, (unsigned long long)evex->addr, why, bytes,
			bytes <= set->l1d_size ? "fits" : "exceeds",
			set->l1d_size));
}

static void build_env(long calls, struct lk_strv *env)
{
	static const char *const drop[] = {
		"LK_WARMUP=", "LK_STEPS=", "LK_REPETITIONS=", "LK_RESULT_FD=",
		"LK_CACHE=", "LK_CALIBRATE=", "LK_EVENTS="};

	for (char **e = environ; *e; e++) {
		size_t i;

		for (i = 0; i < LK_ARRAY_SIZE(drop); i++)
			if (!strncmp(*e, drop[i], strlen(drop[i])))
				break;
		if (i == LK_ARRAY_SIZE(drop))
			lk_strv_push(env, *e);
	}
	lk_strv_push(env, "LK_WARMUP=0");
	lk_strv_push(env, "LK_STEPS=1");
	lk_strv_pushf(env, "LK_REPETITIONS=%ld", calls);
	lk_strv_push(env, "LK_CACHE=hot");
	lk_strv_push(env, "LK_CALIBRATE=0");
}

/* The line of valgrind's stderr that says what went wrong: the
 * instruction it could not run, else how the process ended, else the
 * last non-empty line. */
static char *telling_line(const char *text)
{
	static const char *const keys[] = {
		"unhandled instruction bytes", "Unrecognised instruction",
		"Process terminating",
	};
	const char *end = text + strlen(text), *start;
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(keys); i++) {
		const char *hit = strstr(text, keys[i]);

		if (!hit)
			continue;
		start = hit;
		while (start > text && start[-1] != '\n')
			start--;
		end = strchr(hit, '\n');
		return lk_strndup(start, end ? (size_t)(end - start)
					     : strlen(start));
	}
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	return lk_strndup(start, (size_t)(end - start));
}

/* One cachegrind run: 0 and *c, 1 and *why (the run failed or its
 * output is unreadable, valgrind cannot start). */
static int cachegrind(struct lk_ctx *ctx, const char *binary,
		      const char *fn, const struct lk_l1_settings *set,
		      long calls, const char *out_path,
		      struct lk_cg_counts *c, char **why, int *sigill)
{
	struct lk_strv argv = LK_STRV_INIT, env = LK_STRV_INIT;
	struct lk_proc_opts o = {0};
	struct lk_proc_result r;
	char *text = NULL;
	size_t len = 0;
	int ret;

	lk_strv_push(&argv, "valgrind");
	lk_strv_push(&argv, "--tool=cachegrind");
	lk_strv_push(&argv, "--cache-sim=yes");
	lk_strv_pushf(&argv, "--D1=%ld,%ld,%ld", set->l1d_size,
		      set->l1d_assoc, set->line_size);
	lk_strv_pushf(&argv, "--cachegrind-out-file=%s", out_path);
	/* valgrind looks a bare name up in PATH: give it a path. */
	lk_strv_push_take(&argv, strchr(binary, '/')
					 ? lk_strdup(binary)
					 : lk_asprintf("./%s", binary));
	build_env(calls, &env);
	o.argv = (const char *const *)argv.v;
	o.envp = (const char *const *)env.v;
	o.timeout = set->timeout;
	o.result_fd = -1;
	ret = lk_proc_run(ctx, &o, &r);
	if (ret) {
		/* Not installed, cannot start: a reason, not a pass. */
		*why = lk_strdup(ctx->msg);
		lk_ctx_clear(ctx);
		ret = 1;
	} else if (!lk_proc_ok(&r)) {
		char *how = lk_proc_describe(&r, set->timeout);
		char *line = telling_line(r.err ? r.err : "");

		*why = lk_asprintf("valgrind %s%s%s", how, *line ? ": " : "",
				   line);
		*sigill = (r.signaled && r.signal == SIGILL) ||
			  (r.err && (strstr(r.err, "unhandled instruction") ||
				     strstr(r.err, "SIGILL")));
		free(how);
		free(line);
		ret = 1;
	} else {
		ret = lk_file_read(ctx, out_path, &text, &len);
		if (!ret)
			ret = lk_cachegrind_function(ctx, out_path, text, len,
						     fn, c);
		/* An output we cannot read is an unknown, like a crash. */
		if (ret) {
			*why = lk_strdup(ctx->msg);
			lk_ctx_clear(ctx);
			ret = 1;
		}
	}
	free(text);
	lk_proc_result_release(&r);
	lk_strv_release(&argv);
	lk_strv_release(&env);
	return ret;
}

static void judge_ratio(const struct lk_l1_settings *set, double ratio,
			double reads, long extra, struct lk_l1_verdict *v)
{
	int over = ratio > set->threshold;

	v->has_value = 1;
	v->value = ratio;
	v->read_ratio = reads;
	set_verdict(v, over ? "exclude" : "pass", "cachegrind", lk_asprintf(
		"warm D1 miss ratio %.4f%% (reads %.4f%%) over %ld extra "
		"call%s %s the threshold %.4g%%; D1 %ld B %ld-way %ld B "
		"lines (%s)", ratio * 100, reads < 0 ? 0 : reads * 100, extra,
		extra == 1 ? "" : "s", over ? "above" : "within",
		set->threshold * 100, set->l1d_size, set->l1d_assoc,
		set->line_size, set->l1d_from));
}

static int no_data(const struct lk_cg_counts *a, const struct lk_cg_counts *b)
{
	return b->ev[LK_CG_DR] <= a->ev[LK_CG_DR] &&
	       b->ev[LK_CG_DW] <= a->ev[LK_CG_DW];
}

/* Both runs; failures of valgrind become an unknown verdict. */
static int judge_by_cachegrind(struct lk_ctx *ctx, const char *binary,
			       const struct lk_cfg *cfg, long fma,
			       const struct lk_l1_settings *set,
			       struct lk_l1_verdict *v)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = lk_asprintf("%s/loopkit-cg.XXXXXX",
				 base && *base ? base : "/tmp");
	char *why = NULL, *paths[2];
	const char *tmp = mkdtemp(tmpl);
	struct lk_cg_counts c[2];
	double ratio, reads;
	int ret = 0, i;

	if (!tmp) {
		ret = lk_error_errno(ctx, "creating a directory for "
				     "cachegrind in %s", tmpl);
		free(tmpl);
		return ret;
	}
	v->ran_valgrind = 1;
	for (i = 0; i < 2; i++)
		paths[i] = lk_asprintf("%s/cg.%d.out", tmp, i);
	for (i = 0; !ret && i < 2; i++)
		ret = cachegrind(ctx, binary, cfg->fn.name, set, set->calls[i],
				 paths[i], &c[i], &why, &v->valgrind_sigill);
	if (ret > 0) {
		set_verdict(v, "unknown", "cachegrind", lk_asprintf(
			"%s%s", why, fma >= 0 ? " (the kernel has FMA code, "
			"~300x slower under valgrind)" : ""));
		ret = 0;
	} else if (!ret && !c[1].lines) {
		set_verdict(v, "unknown", "cachegrind", lk_asprintf(
			"cachegrind reports no cost for %s", cfg->fn.name));
	} else if (!ret && c[1].ev[LK_CG_IR] <= c[0].ev[LK_CG_IR]) {
		set_verdict(v, "unknown", "cachegrind", lk_asprintf(
			"%s ran no more instructions with %ld calls than with "
			"%ld: does the benchmark honour LK_REPETITIONS?",
			cfg->fn.name, set->calls[1], set->calls[0]));
	} else if (!ret && no_data(&c[0], &c[1])) {
		v->has_value = 1;
		v->value = 0;
		set_verdict(v, "pass", "cachegrind", lk_asprintf(
			"%s makes no data accesses in its warm calls",
			cfg->fn.name));
	} else if (!ret && lk_l1_warm_ratio(ctx, &c[0], &c[1], &ratio,
					    &reads)) {
		set_verdict(v, "unknown", "cachegrind", lk_strdup(ctx->msg));
		lk_ctx_clear(ctx);
	} else if (!ret) {
		judge_ratio(set, ratio, reads, set->calls[1] - set->calls[0],
			    v);
	}
	for (i = 0; i < 2; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	rmdir(tmp);
	free(tmpl);
	free(why);
	return ret;
}

/* One word as lk_strv_split reads it back. */
static void add_word(struct lk_buf *b, const char *w)
{
	if (b->len)
		lk_buf_adds(b, " ");
	for (; *w; w++) {
		if (strchr(" \t\n'\"\\", *w))
			lk_buf_adds(b, "\\");
		lk_buf_add(b, w, 1);
	}
}

static int isa_flag(const char *w)
{
	return !strncmp(w, "-march=", 7) || !strncmp(w, "-mavx512", 8) ||
	       !strncmp(w, "-mno-avx512", 11) || !strncmp(w, "-mavx10", 7);
}

char *lk_l1_proxy_flags(struct lk_ctx *ctx, const char *cflags)
{
	struct lk_strv words = LK_STRV_INIT;
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	if (lk_strv_split(ctx, &words, cflags ? cflags : "")) {
		lk_strv_release(&words); /* the words before the bad quote */
		return NULL;
	}
	for (i = 0; i < words.n; i++)
		if (!isa_flag(words.v[i]))
			add_word(&b, words.v[i]);
	add_word(&b, "-march=" LK_L1_PROXY_ISA);
	lk_strv_release(&words);
	return lk_buf_detach(&b);
}

/* The kernel of a binary, decoded, and its first EVEX and FMA
 * instructions. */
static int decode(struct lk_ctx *ctx, const char *binary, struct lk_cfg *cfg,
		  long *evex, long *fma)
{
	int ret = lk_cfg_kernel(ctx, NULL, binary, cfg, NULL);

	if (!ret)
		scan_isa(cfg, evex, fma);
	return ret;
}

int lk_l1_avx512(const struct lk_cfg *kernel)
{
	long evex, fma;

	scan_isa(kernel, &evex, &fma);
	return evex >= 0;
}

/*
 * AVX-512 code judged on its proxy: cachegrind's verdict on the proxy,
 * its reason prefixed with what was judged. The proxy must be free of
 * AVX-512 itself, else *why says so and nothing is judged (1).
 */
static int judge_by_proxy(struct lk_ctx *ctx, const struct lk_insn *evex,
			  const struct lk_l1_proxy *proxy,
			  const struct lk_l1_settings *set,
			  struct lk_l1_verdict *v, char **why)
{
	struct lk_cfg cfg;
	long pevex, pfma;
	char *reason, *what;
	int ret = decode(ctx, proxy->binary, &cfg, &pevex, &pfma);

	if (ret) {
		*why = lk_asprintf("its %s build: %s", proxy->name, ctx->msg);
		lk_ctx_clear(ctx);
		return 1;
	}
	if (pevex >= 0) {
		*why = lk_asprintf("its %s build has AVX-512 code too (%s at "
				   "0x%llx)", proxy->name,
				   cfg.insns[pevex].att,
				   (unsigned long long)cfg.insns[pevex].addr);
		lk_cfg_release(&cfg);
		return 1;
	}
	ret = judge_by_cachegrind(ctx, proxy->binary, &cfg, pfma, set, v);
	lk_cfg_release(&cfg);
	if (ret)
		return ret;
	/* evex NULL: the kernel has none, valgrind died elsewhere. */
	what = evex ? lk_asprintf("AVX-512 code (%s at 0x%llx)", evex->att,
				  (unsigned long long)evex->addr)
		    : lk_strdup("a binary valgrind cannot run (SIGILL outside "
				"the kernel)");
	reason = lk_asprintf("%s judged by its %s build%s%s%s: %s", what,
			     proxy->name, proxy->flags ? " ('" : "",
			     proxy->flags ? proxy->flags : "",
			     proxy->flags ? "')" : "", v->reason);
	set_verdict(v, v->verdict, proxy->source, reason);
	free(what);
	return 0;
}

int lk_l1_check(struct lk_ctx *ctx, const char *binary,
		const struct lk_l1_settings *set,
		const struct lk_param *params, size_t nparams,
		const struct lk_l1_proxy *proxy, struct lk_l1_verdict *out)
{
	struct lk_cfg cfg;
	int ret;

	memset(out, 0, sizeof(*out));
	out->read_ratio = -1;
	ret = lk_cfg_kernel(ctx, NULL, binary, &cfg, NULL);
	if (ret)
		return ret;
	ret = lk_l1_check_kernel(ctx, binary, &cfg, set, params, nparams,
				 proxy, out);
	lk_cfg_release(&cfg);
	return ret;
}

int lk_l1_check_kernel(struct lk_ctx *ctx, const char *binary,
		       const struct lk_cfg *kernel,
		       const struct lk_l1_settings *set,
		       const struct lk_param *params, size_t nparams,
		       const struct lk_l1_proxy *proxy,
		       struct lk_l1_verdict *out)
{
	const struct lk_cfg *cfg = kernel;
	long evex, fma;
	char *why = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	out->read_ratio = -1;
	scan_isa(cfg, &evex, &fma);
	if (evex < 0) {
		ret = judge_by_cachegrind(ctx, binary, cfg, fma, set, out);
		if (!ret && out->valgrind_sigill && proxy && proxy->binary) {
			lk_l1_verdict_release(out);
			memset(out, 0, sizeof(*out));
			out->read_ratio = -1;
			ret = judge_by_proxy(ctx, NULL, proxy, set, out, &why);
			if (ret == 1) { /* the proxy cannot judge either */
				set_verdict(out, "unknown", "cachegrind",
					    lk_asprintf("valgrind cannot run "
							"this binary (SIGILL "
							"outside the kernel), "
							"and %s", why));
				out->valgrind_sigill = 1;
				ret = 0;
			}
		} else if (!ret && out->valgrind_sigill) {
			char *hint = lk_asprintf(
				"%s; valgrind cannot run this build: filter "
				"the campaign (-c), which judges an %s build "
				"of the same source, or give --proxy",
				out->reason, LK_L1_PROXY_ISA);

			set_verdict(out, out->verdict, out->source, hint);
		}
	} else if (proxy && proxy->binary) {
		ret = judge_by_proxy(ctx, &cfg->insns[evex], proxy, set, out,
				     &why);
	} else {
		why = lk_strdup(proxy && proxy->why ? proxy->why
			: "no build of the same source that valgrind can run "
			  "(filter the campaign, -c, which builds one with "
			  "-march=x86-64-v3, or give --proxy)");
		ret = 1;
	}
	if (ret == 1)
		judge_by_working_set(&cfg->insns[evex], set, params, nparams,
				     why, out);
	free(why);
	return ret == 1 ? 0 : ret;
}
