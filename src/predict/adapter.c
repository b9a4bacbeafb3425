/*
 * Adapters for external predictors (uiCA, OSACA, IACA, ...): a command
 * template run once per block on a file holding the block's assembly,
 * and a POSIX extended regex whose first group is the prediction.
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/config.h"
#include "loopkit/subprocess.h"
#include "predict-int.h"

struct adapter {
	struct lk_strv command;
	char *parse, *arch, *mcpu, *llvm_mc, *iterations;
	int iaca;
	double timeout;
	regex_t re;
};

static const char *const arch_codes[][2] = {
	{"sandybridge", "SNB"}, {"ivybridge", "IVB"}, {"haswell", "HSW"},
	{"broadwell", "BDW"}, {"skylake", "SKL"}, {"skylake-avx512", "SKX"},
	{"cascadelake", "CLX"}, {"cooperlake", "CPX"},
	{"cannonlake", "CNL"}, {"icelake-client", "ICL"},
	{"icelake-server", "ICX"}, {"tigerlake", "TGL"},
	{"rocketlake", "RKL"}, {"alderlake", "ADL-P"},
	{"raptorlake", "RPL"}, {"sapphirerapids", "SPR"},
	{"emeraldrapids", "EMR"}, {"graniterapids", "GNR"},
	{"znver1", "ZEN1"}, {"znver2", "ZEN2"}, {"znver3", "ZEN3"},
	{"znver4", "ZEN4"}, {"znver5", "ZEN5"},
};

char *lk_adapter_arch(const char *mcpu)
{
	char *up;
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(arch_codes); i++)
		if (!strcmp(arch_codes[i][0], mcpu))
			return lk_strdup(arch_codes[i][1]);
	up = lk_strdup(mcpu);
	for (i = 0; up[i]; i++)
		up[i] = (char)toupper((unsigned char)up[i]);
	return up;
}

/* arg with every placeholder replaced. */
static char *expand(const char *arg, const struct adapter *a,
		    const char *asm_path)
{
	const char *const keys[][2] = {
		{"{asm}", asm_path}, {"{arch}", a->arch},
		{"{mcpu}", a->mcpu}, {"{iterations}", a->iterations}};
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	while (*arg) {
		for (i = 0; i < LK_ARRAY_SIZE(keys); i++)
			if (!strncmp(arg, keys[i][0], strlen(keys[i][0])))
				break;
		if (i < LK_ARRAY_SIZE(keys)) {
			lk_buf_adds(&b, keys[i][1]);
			arg += strlen(keys[i][0]);
		} else {
			lk_buf_addch(&b, *arg++);
		}
	}
	return b.buf ? lk_buf_detach(&b) : lk_strdup("");
}

static void block_file_text(const struct adapter *a, const char *text,
			    struct lk_buf *out)
{
	/* IACA's markers: mov $111/$222 to ebx, then fs addr32 nop. */
	if (a->iaca)
		lk_buf_adds(out, "movl $111, %ebx\n.byte 0x64, 0x67, 0x90\n");
	lk_buf_adds(out, text);
	if (a->iaca)
		lk_buf_adds(out, "movl $222, %ebx\n.byte 0x64, 0x67, 0x90\n");
}

/* The number the parse rule captures in out, or why not. */
static void parse_output(const struct adapter *a, const char *out,
			 struct lk_pred *p)
{
	regmatch_t m[2];
	char *num, *end;
	double v;

	if (regexec(&a->re, out, 2, m, 0) || m[1].rm_so < 0) {
		char *why = lk_asprintf("the parse rule '%s' matches "
					"nothing in the output", a->parse);

		lk_pred_set(p, "failed", 0, why);
		free(why);
		return;
	}
	num = lk_strndup(out + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
	v = strtod(num, &end);
	if (end == num || *end || v != v || v < 0) {
		char *why = lk_asprintf("the parse rule captured '%s', not a "
					"number", num);

		lk_pred_set(p, "failed", 0, why);
		free(why);
	} else {
		lk_pred_set(p, "ok", v, NULL);
	}
	free(num);
}

static void judge(const struct adapter *a, const struct lk_proc_result *r,
		  struct lk_pred *p)
{
	const char *out = r->out ? r->out : "";

	if (lk_proc_ok(r)) {
		parse_output(a, out, p);
	} else {
		char *how = lk_proc_describe(r, a->timeout);
		char *why = lk_asprintf("%s: %.*s", how,
					(int)strcspn(out, "\n"), out);

		lk_pred_set(p, r->timed_out ? "timed-out" : "failed", 0,
			    *out ? why : how);
		free(why);
		free(how);
	}
	p->raw = lk_strdup(out);
	p->seconds = r->seconds;
}

static int run_block(struct lk_ctx *ctx, const struct adapter *a,
		     const char *dir, const char *text, struct lk_pred *p)
{
	char *path = lk_path_join(dir, "block.s");
	struct lk_strv argv = LK_STRV_INIT;
	struct lk_buf file = LK_BUF_INIT;
	struct lk_proc_result r = {0};
	struct lk_proc_opts o = {.timeout = a->timeout, .result_fd = -1,
				 .flags = LK_PROC_MERGE_STDERR};
	size_t i;
	int ret;

	block_file_text(a, text, &file);
	ret = lk_file_write_atomic(ctx, path, file.buf, file.len);
	for (i = 0; i < a->command.n; i++)
		lk_strv_push_take(&argv, expand(a->command.v[i], a, path));
	o.argv = (const char *const *)argv.v;
	if (!ret)
		ret = lk_proc_run(ctx, &o, &r);
	if (!ret) {
		judge(a, &r, p);
		p->input = lk_buf_detach(&file);
	}
	lk_proc_result_release(&r);
	lk_strv_release(&argv);
	lk_buf_release(&file);
	unlink(path);
	free(path);
	return ret;
}

/* One process per block: these tools read one block per file. */
static int adapter_predict(struct lk_ctx *ctx, struct lk_predictor *p,
			   const struct lk_pblock *blocks, size_t n,
			   struct lk_pred *out)
{
	const struct adapter *a = p->priv;
	struct lk_asm *text = lk_calloc(n ? n : 1, sizeof(*text));
	char *dir = lk_predict_tmpdir(ctx);
	size_t i;
	int ret = dir ? 0 : LK_ESYS;

	if (!ret)
		ret = lk_asm_blocks(ctx, a->llvm_mc, blocks, n, a->timeout,
				    text);
	for (i = 0; !ret && i < n; i++) {
		if (text[i].text)
			ret = run_block(ctx, a, dir, text[i].text, &out[i]);
		else
			lk_pred_set(&out[i], text[i].unsupported
						     ? "unsupported"
						     : "failed",
				    0, text[i].reason);
	}
	if (ret) {
		char *msg = lk_strdup(ctx->msg);

		lk_error(ctx, ret, "adapter '%s': %s", p->name, msg);
		free(msg);
	}
	for (i = 0; i < n; i++)
		lk_asm_release(&text[i]);
	free(text);
	if (dir)
		rmdir(dir);
	free(dir);
	return ret;
}

static void adapter_destroy(struct lk_predictor *p)
{
	struct adapter *a = p->priv;

	if (!a)
		return;
	lk_strv_release(&a->command);
	regfree(&a->re);
	free(a->parse);
	free(a->arch);
	free(a->mcpu);
	free(a->llvm_mc);
	free(a->iterations);
	free(a);
}

/* The version command's first line, or "unknown" without one. */
static int adapter_version(struct lk_ctx *ctx,
			   const struct lk_adapter_config *c, double timeout,
			   char **out)
{
	char *line = NULL;
	int ret;

	if (!c->version.n) {
		*out = lk_strdup("unknown");
		return 0;
	}
	ret = lk_proc_first_line(ctx, (const char *const *)c->version.v,
				 timeout, &line);
	*out = line ? line : lk_strdup("");
	if (!ret && !**out) {
		free(*out);
		*out = lk_strdup("unknown");
	}
	return ret;
}

static int check_program(struct lk_ctx *ctx,
			 const struct lk_adapter_config *c, const char *where)
{
	const char *prog = c->command.v[0];
	char *found = strchr(prog, '/') ? (access(prog, X_OK) ? NULL
							       : lk_strdup(prog))
					: lk_which(prog);

	if (found) {
		free(found);
		return 0;
	}
	return lk_error(ctx, LK_ENOTFOUND, "%sadapter '%s': cannot run '%s': "
			"%s", where, c->name, prog,
			strchr(prog, '/') ? "no such executable"
					  : "not found in PATH");
}

int lk_adapter_predictor(struct lk_ctx *ctx, const struct lk_adapter_config *c,
			 const char *mcpu, const char *llvm_mc,
			 long iterations, double timeout,
			 const char *config_path, struct lk_predictor **out)
{
	char *where = config_path ? lk_asprintf("%s:%ld: ", config_path,
						c->line)
				  : lk_strdup("");
	struct lk_predictor *p;
	struct adapter *a;
	char *version = NULL, *cmd;
	int ret = check_program(ctx, c, where);

	*out = NULL;
	if (!ret && adapter_version(ctx, c, timeout, &version)) {
		char *msg = lk_strdup(ctx->msg);

		ret = lk_error(ctx, LK_ENOTFOUND, "%sadapter '%s': its "
			       "version command failed: %s", where, c->name,
			       msg);
		free(msg);
	}
	free(where);
	if (ret) {
		free(version);
		return ret;
	}
	a = lk_calloc(1, sizeof(*a));
	for (size_t i = 0; i < c->command.n; i++)
		lk_strv_push(&a->command, c->command.v[i]);
	a->parse = lk_strdup(c->parse);
	if (regcomp(&a->re, a->parse, REG_EXTENDED))
		LK_BUG("the config checked this regex");
	a->mcpu = lk_strdup(mcpu && *mcpu ? mcpu : "generic");
	a->arch = c->arch ? lk_strdup(c->arch) : lk_adapter_arch(a->mcpu);
	a->llvm_mc = llvm_mc ? lk_strdup(llvm_mc) : NULL;
	a->iterations = lk_asprintf("%ld", iterations);
	a->iaca = c->iaca_markers;
	a->timeout = timeout > 0 ? timeout : 60;
	p = lk_calloc(1, sizeof(*p));
	p->name = lk_strdup(c->name);
	p->version = version;
	cmd = lk_strv_join(&a->command, " ");
	p->params = lk_asprintf("command=%s parse=%s arch=%s mcpu=%s "
				"iterations=%s markers=%s text=%s",
				cmd, a->parse, a->arch, a->mcpu, a->iterations,
				a->iaca ? "iaca" : "none",
				a->llvm_mc ? "llvm-mc" : "zydis");
	free(cmd);
	p->predict = adapter_predict;
	p->destroy = adapter_destroy;
	p->priv = a;
	*out = p;
	return 0;
}
