/*
 * loopkit asm: instruction micro-benchmarks from the command line
 * (doc/loopkit-asm.md). The templates become an asm: section of a sweep
 * with one variant per chain count; gen writes each variant's C file and
 * records it in the campaign 'asm', the runner builds and measures it,
 * asm-post.c adds the n/2n row and every llvm-mca's prediction of the
 * body, and the figures are read back from the store and printed.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/config.h"
#include "loopkit/gen.h"
#include "loopkit/measure.h"
#include "loopkit/predict.h"

static const char usage[] =
	"[options] 'INSN with {r}' ...\n\n"
	"Measure the instructions given, {r} rotating over registers to make\n"
	"K independent dependent chains for each K of --chains: one copy of\n"
	"the body is every template once per chain. Each chain count is a\n"
	"variant of the campaign 'asm', built and measured by the runner;\n"
	"prints cycles per body copy (tsc-calibrated where there is no PMU)\n"
	"and instructions per cycle (the kernel's declared instructions over\n"
	"its cycles), each with its source, the n/2n difference per copy\n"
	"with --difference, and llvm-mca's cycles per copy (every installed\n"
	"llvm-mca's is stored for 'loopkit report'). The\n"
	"template's destination must be {r} and {r} must be read (as a source,\n"
	"or by a two-operand or FMA form): 'add $1, {r}', 'vfmadd231pd\n"
	"%ymm11, %ymm10, %ymm{r}'. {r} after xmm/ymm/zmm is a number.";

struct asm_args {
	const char *chains, *regs, *syntax, *dir, *cflags;
	struct lk_strv methods;
	long unroll;
	int json, quiet, no_mca, difference;
};

/* "A..B", "A,B,C" or "A" into a->chains. */
static int parse_chains(const char *text, struct lk_asm_cfg *a)
{
	char *copy = lk_strdup(text), *save = NULL, *item;
	int ok = 1;

	for (item = strtok_r(copy, ",", &save); ok && item;
	     item = strtok_r(NULL, ",", &save)) {
		char *dots = strstr(item, "..");
		long lo, hi, k;

		if (dots)
			*dots = '\0';
		ok = !lk_parse_long(item, &lo) &&
		     !lk_parse_long(dots ? dots + 2 : item, &hi) && lo >= 1 &&
		     hi >= lo && hi <= 32;
		for (k = lo; ok && k <= hi; k++) {
			a->chains = lk_reallocarray(a->chains, a->nchains + 1,
						    sizeof(*a->chains));
			a->chains[a->nchains++] = k;
		}
	}
	free(copy);
	return ok && a->nchains ? 0 : -1;
}

/* The version's name: the mnemonics, joined by '+'. */
static char *version_name(char **templates, int n)
{
	struct lk_buf b = LK_BUF_INIT;
	char *out;
	int i;

	for (i = 0; i < n; i++) {
		const char *t = templates[i] + strspn(templates[i], " \t");

		lk_buf_addf(&b, "%s%.*s", i ? "+" : "",
			    (int)strcspn(t, " \t;"), t);
	}
	out = lk_strdup(lk_buf_str(&b));
	lk_buf_release(&b);
	return out;
}

/* AVX-512 registers (xmm16-31, k) need -mavx512f to be clobbered. */
static int needs_avx512(const struct lk_asm_cfg *a)
{
	struct lk_strv regs = LK_STRV_INIT;
	size_t i;
	int need = 0;

	for (i = 0; i < a->versions[0].body.n; i++)
		lk_asm_scan_regs(a->versions[0].body.v[i], a->intel, &regs,
				 NULL);
	for (i = 0; i < a->regs.n; i++)
		lk_strv_push(&regs, a->regs.v[i]);
	for (i = 0; i < regs.n; i++)
		need |= regs.v[i][0] == 'k' ||
			(!strncmp(regs.v[i], "xmm", 3) &&
			 atoi(regs.v[i] + 3) >= 16);
	lk_strv_release(&regs);
	return need;
}

static int make_section(struct lk_ctx *ctx, const struct asm_args *a,
			char **templates, int n, struct lk_sweep *sw)
{
	struct lk_asm_cfg *c = &sw->asm_body;
	struct lk_asm_version *v;
	int i;

	c->given = 1;
	c->unroll = a->unroll;
	c->memory = 4096;
	c->intel = !strcmp(a->syntax, "intel");
	c->difference = a->difference;
	if (parse_chains(a->chains, c))
		return lk_cli_usage_error("asm", "--chains: '%s' is not A..B, "
					  "A,B,... or A within 1..32",
					  a->chains);
	if (a->regs && lk_asm_regs_parse(ctx, a->regs, "--regs", &c->regs))
		return lk_cli_usage_error("asm", "%s", ctx->msg);
	c->versions = lk_calloc(1, sizeof(*c->versions));
	c->nversions = 1;
	v = &c->versions[0];
	v->name = version_name(templates, n);
	for (i = 0; i < n; i++)
		lk_strv_push(&v->body, templates[i]);
	if (lk_sweep_asm_finish(ctx, sw))
		return lk_cli_usage_error("asm", "%s", ctx->msg);
	free(sw->flagsets[0].flags);
	sw->flagsets[0].flags = lk_asprintf("%s%s", a->cflags ? a->cflags
							      : "-O2",
					    needs_avx512(c) ? " -mavx512f"
							    : "");
	return 0;
}

/* ---- Printing, from the store. ---- */

static const struct lk_run_report *find_report(const struct lk_run_summary *s,
					       int64_t variant)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->reports[i].variant_id == variant)
			return &s->reports[i];
	return NULL;
}

struct row {
	const struct lk_asm_unit *u;
	long chains;
	const char *status, *reason, *source, *ipc_source, *diff_source;
	const char *flags;              /* the cycles figure's */
	double cpi, ipc, diff, mca;     /* NAN when missing */
};

static void json_num(struct lk_buf *b, const char *key, double v)
{
	if (isfinite(v))
		lk_buf_addf(b, ", \"%s\": %.6g", key, v);
	else
		lk_buf_addf(b, ", \"%s\": null", key);
}

static void json_str(struct lk_buf *b, const char *key, const char *v)
{
	lk_buf_addf(b, ", \"%s\": ", key);
	if (v)
		lk_buf_add_json_str(b, v);
	else
		lk_buf_adds(b, "null");
}

static void print_json_row(struct lk_buf *b, const struct row *r,
			   const char *tool)
{
	lk_buf_addf(b, "{\"chains\": %ld", r->chains);
	json_num(b, "cycles_per_iteration", r->cpi);
	json_num(b, "instructions_per_cycle", r->ipc);
	json_str(b, "source", r->source);
	json_str(b, "flags", r->flags);
	json_str(b, "instructions_per_cycle_source", r->ipc_source);
	lk_buf_addf(b, ", \"instructions_source\": \"static\", "
		    "\"instructions_per_iteration\": %ld, \"unroll\": %ld",
		    r->u->insns, r->u->unroll);
	json_num(b, "difference_cycles_per_iteration", r->diff);
	json_str(b, "difference_source", r->diff_source);
	json_str(b, "status", r->status);
	json_str(b, "reason", r->reason);
	json_str(b, "variant", r->u->label);
	json_num(b, "mca_cycles_per_iteration", r->mca);
	json_num(b, "mca_instructions_per_cycle",
		 (double)r->u->insns / r->mca);
	json_str(b, "mca_tool", tool);
	lk_buf_adds(b, "}");
}

static void print_text_row(const struct row *r, const char *tool, int diff,
			   int first)
{
	if (first)
		printf("%-6s %12s %8s  %-16s%s %s\n", "chains", "cycles/iter",
		       "IPC", "source", diff ? "   n/2n cycles/iter" : "",
		       tool ? "llvm-mca cycles/iter" : "");
	if (!isfinite(r->cpi)) {
		printf("%-6ld %s: %s\n", r->chains, r->status, r->reason);
		return;
	}
	printf("%-6ld %12.4f %8.4f  %-16s", r->chains, r->cpi, r->ipc,
	       r->source);
	if (diff && isfinite(r->diff))
		printf(" %19.4f", r->diff);
	else if (diff)
		printf(" %19s", "-");
	if (tool && isfinite(r->mca))
		printf(" %.4f (%s)", r->mca, tool);
	/* Worth a word: the cycles may not be the core's. */
	if (strstr(r->flags, "unreliable") || strstr(r->flags, "unstable"))
		printf("  [%s]", r->flags);
	printf("\n");
}

/* A figure of the variant's latest run: its value, NAN when the run is
 * not ok or unstable or has none; *source (may be NULL) gets its
 * source, owned by f. */
static int figure(struct lk_ctx *ctx, struct lk_store *s, int64_t variant,
		  const char *metric, struct lk_run_figure *f, double *v)
{
	int ret = lk_store_run_figure(ctx, s, variant, metric, f);

	*v = NAN;
	if (!ret && lk_run_figure_usable(f))
		*v = f->value;
	return ret;
}

/* The newest llvm-mca's stored figure of the unit's body, NAN if none. */
static double mca_figure(struct lk_ctx *ctx, struct lk_store *s,
			 const struct lk_cli_asm_mca *m,
			 const struct lk_asm_unit *u)
{
	struct lk_prediction_key key = {m->tool, m->version, m->params};
	struct lk_prediction_row p = {0};
	char h[LK_HASH_HEX];
	double v = NAN;

	if (!m->tool)
		return NAN;
	lk_hash_buf(u->copy, strlen(u->copy), h);
	if (!lk_store_prediction_get(ctx, s, &key, h, &p) && p.has_value &&
	    !strcmp(p.status, "ok"))
		v = p.value;
	lk_ctx_clear(ctx);
	lk_prediction_row_release(&p);
	return v;
}

struct figures {
	struct lk_run_figure cyc, ipc, diff;
};

static void figures_release(struct figures *f)
{
	lk_run_figure_release(&f->cyc);
	lk_run_figure_release(&f->ipc);
	lk_run_figure_release(&f->diff);
}

static int fill_row(struct lk_ctx *ctx, struct lk_store *s,
		    const struct lk_run_summary *sum,
		    const struct lk_asm_unit *u, struct figures *f,
		    struct row *r)
{
	const struct lk_run_report *rep = find_report(sum, u->variant_id);
	int ret = figure(ctx, s, u->variant_id, "cycles", &f->cyc, &r->cpi);

	if (!ret)
		ret = figure(ctx, s, u->variant_id, "instructions/cycle",
			     &f->ipc, &r->ipc);
	if (!ret)
		ret = figure(ctx, s, u->variant_id, "cycles/copy", &f->diff,
			     &r->diff);
	r->u = u;
	r->status = rep ? rep->status : f->cyc.status ? f->cyc.status
						       : "not run";
	r->reason = rep ? rep->reason : "";
	r->source = f->cyc.source ? f->cyc.source : "";
	r->flags = f->cyc.flags ? f->cyc.flags : "";
	r->ipc_source = f->ipc.has_value ? f->ipc.source : NULL;
	r->diff_source = f->diff.has_value ? f->diff.source : NULL;
	/* The runner's figure is per kernel call: unroll copies. */
	r->cpi /= (double)u->unroll;
	if (!isfinite(r->cpi))
		r->ipc = NAN;
	return ret;
}

static int print_results(struct lk_ctx *ctx, struct lk_store *s,
			 const struct asm_args *a, const struct lk_sweep *sw,
			 const struct lk_asm_plan *plan,
			 const struct lk_run_summary *sum,
			 const struct lk_cli_asm_mca *m, int *failed)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;
	int ret = 0;

	lk_buf_adds(&b, "[");
	for (i = 0; !ret && i < plan->n; i++) {
		struct figures f = {0};
		struct row r;

		ret = fill_row(ctx, s, sum, &plan->units[i], &f, &r);
		r.mca = mca_figure(ctx, s, m, &plan->units[i]);
		/* One version, compiler and flag set: chain order. */
		r.chains = i < sw->asm_body.nchains ? sw->asm_body.chains[i] : 0;
		*failed += !isfinite(r.cpi);
		if (!ret && a->json) {
			lk_buf_adds(&b, i ? ",\n " : "");
			print_json_row(&b, &r, m->tool);
		} else if (!ret) {
			print_text_row(&r, m->tool, a->difference, !i);
		}
		figures_release(&f);
	}
	lk_buf_adds(&b, "]\n");
	if (!ret && a->json)
		fputs(lk_buf_str(&b), stdout);
	lk_buf_release(&b);
	return ret;
}

static int measure(struct lk_ctx *ctx, const struct asm_args *a,
		   struct lk_sweep *sw, int *failed)
{
	struct lk_run_opts ro = {.jobs = 2, .quiet = a->quiet || a->json};
	struct lk_run_summary sum = {0};
	struct lk_cli_asm_mca m = {0};
	struct lk_asm_plan plan = {0};
	struct lk_store *s = NULL;
	int64_t id;
	int ret = lk_store_open(ctx, a->dir, LK_STORE_CREATE, &s);

	if (!ret)
		ret = lk_store_campaign(ctx, s, sw->name, NULL, NULL, &id);
	if (!ret)
		ret = lk_asm_campaign(ctx, s, id, sw, &plan);
	if (!ret)
		ret = lk_run_sweep(ctx, s, id, sw, &ro, &sum);
	if (!ret)
		ret = lk_cli_asm_post(ctx, s, id, sw, &plan, &sum, !a->no_mca,
				      &m);
	if (!ret)
		ret = print_results(ctx, s, a, sw, &plan, &sum, &m, failed);
	lk_cli_asm_mca_release(&m);
	lk_asm_plan_release(&plan);
	lk_run_summary_release(&sum);
	lk_store_close(s);
	return ret;
}

int cmd_asm(int argc, char **argv)
{
	struct asm_args a = {"1", NULL, "att", LK_STORE_DEFAULT_DIR, NULL,
			     LK_STRV_INIT, 100, 0, 0, 0, 0};
	const struct lk_opt opts[] = {
		{0, "chains", LK_OPT_STRING, &a.chains, "A..B",
		 "independent chains: a count, a range or a list (default 1)"},
		{0, "unroll", LK_OPT_LONG, &a.unroll, "U",
		 "body copies per kernel call (default 100)"},
		{0, "regs", LK_OPT_STRING, &a.regs, "LIST",
		 "{r}'s registers, e.g. xmm0-xmm9 (default: by the width)"},
		{0, "syntax", LK_OPT_STRING, &a.syntax, "att|intel",
		 "the templates' syntax (default att)"},
		{0, "cflags", LK_OPT_STRING, &a.cflags, "FLAGS",
		 "compiler flags (default -O2; -mavx512f added for xmm16+ "
		 "and k registers)"},
		{0, "difference", LK_OPT_BOOL, &a.difference, NULL,
		 "also 2 x unroll copies: cycles per copy by n/2n "
		 "difference"},
		{'m', "method", LK_OPT_LIST, &a.methods, "KEY=VALUE",
		 "a measurement setting, as 'loopkit run --method'"},
		{0, "no-mca", LK_OPT_BOOL, &a.no_mca, NULL,
		 "no llvm-mca prediction beside"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "the campaign store (default loopkit.d)"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	int first = lk_opts_parse("asm", usage, opts, argc, argv), failed = 0;
	struct lk_sweep *sw;
	struct lk_ctx ctx;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first >= argc)
		return lk_cli_usage_error("asm", "give at least one "
					  "instruction template");
	if (strcmp(a.syntax, "att") && strcmp(a.syntax, "intel"))
		return lk_cli_usage_error("asm", "--syntax: '%s' is not att "
					  "or intel", a.syntax);
	if (a.unroll < 1 || a.unroll > 100000)
		return lk_cli_usage_error("asm", "--unroll: %ld is not "
					  "between 1 and 100000", a.unroll);
	lk_ctx_init(&ctx);
	ctx.verbose = lk_cli_verbose;
	sw = lk_sweep_new();
	free(sw->name);
	sw->name = lk_strdup("asm");
	ret = make_section(&ctx, &a, argv + first, argc - first, sw);
	if (!ret && lk_cli_apply_methods(&ctx, sw, &a.methods, "--method"))
		ret = lk_cli_usage_error("asm", "%s", ctx.msg);
	if (!ret && (ret = measure(&ctx, &a, sw, &failed)))
		ret = lk_cli_fail(&ctx);
	lk_sweep_free(sw);
	lk_strv_release(&a.methods);
	return ret ? ret : failed ? 1 : 0;
}
