/*
 * The asm: section's model (doc/loopkit-asm.md): how {r} templates
 * become chains, the checks every line passes, and the implicit axes
 * (asm, asm.n, asm.order, asm.chains) a selection adds to the sweep.
 * Registers and operands are asm-regs.c's, the YAML side asm-load.c's;
 * the C a variant becomes is src/gen/asm.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

/* ---- Templates: {r} and its chains. ---- */

/* Is the {r} at t[i] a register number (after xmm, ymm or zmm)? Its
 * width then. */
static int numeric_at(const char *t, size_t i)
{
	if (i < 3 || strncmp(t + i - 2, "mm", 2) || !strchr("xyz", t[i - 3]))
		return 0;
	return t[i - 3] == 'x' ? 128 : t[i - 3] == 'y' ? 256 : 512;
}

/* The widest vector register template t names or makes, 0 if none. */
static int template_width(const char *t, int intel)
{
	const char *p;
	int width = 0;

	for (p = strstr(t, "{r}"); p; p = strstr(p + 1, "{r}"))
		if (numeric_at(t, (size_t)(p - t)) > width)
			width = numeric_at(t, (size_t)(p - t));
	{
		struct lk_strv regs = LK_STRV_INIT;

		lk_asm_scan_regs(t, intel, &regs, &width);
		lk_strv_release(&regs);
	}
	return width;
}

/* t with every {r} replaced by register 'canon' (xmm3, rax). */
static char *instantiate(const char *t, int intel, const char *canon)
{
	struct lk_buf b = LK_BUF_INIT;
	int width = template_width(t, intel);
	size_t i;
	char *out;

	for (i = 0; t[i]; i++) {
		if (strncmp(t + i, "{r}", 3)) {
			lk_buf_addch(&b, t[i]);
			continue;
		}
		if (numeric_at(t, i))
			lk_buf_adds(&b, canon + strcspn(canon, "0123456789"));
		else if (canon[0] == 'x' && width > 128)
			lk_buf_addf(&b, "%s%c%s", intel ? "" : "%",
				    width == 256 ? 'y' : 'z', canon + 1);
		else
			lk_buf_addf(&b, "%s%s", intel ? "" : "%", canon);
		i += 2;
	}
	out = lk_strdup(lk_buf_str(&b));
	lk_buf_release(&b);
	return out;
}

/* Mnemonics whose destination is also read in any operand count. */
static int accumulates(const char *m)
{
	static const char *const pre[] = {"vfmadd", "vfmsub", "vfnmadd",
					  "vfnmsub", "vpdp", "vpmadd52",
					  "vfmaddsub", "vfmsubadd"};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(pre); i++)
		if (!strncmp(m, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* Mnemonics that only write their destination. */
static int writes_only(const char *m)
{
	static const char *const pre[] = {"mov", "vmov", "lea", "pop",
					  "cvt", "vcvt", "vbroadcast",
					  "vpbroadcast", "set", "kmov", "rdtsc",
					  "rdrand", "lzcnt", "tzcnt", "popcnt"};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(pre); i++)
		if (!strncmp(m, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* Why template t makes no dependent chain, or NULL. */
static const char *template_problem(const char *t, int intel)
{
	struct lk_strv ops = LK_STRV_INIT;
	const char *dest, *problem = NULL;
	char mnemonic[32];
	size_t i;
	int read = 0;

	if (!strstr(t, "{r}"))
		return "has no {r}: with chains every template rotates {r}";
	lk_asm_split_operands(t, &ops, mnemonic, sizeof(mnemonic));
	dest = lk_asm_dest_operand(&ops, intel);
	if (!dest || !strstr(dest, "{r}") || strchr(dest, '(') ||
	    strchr(dest, '['))
		problem = "does not write {r}: its destination must be {r} "
			  "for a dependent chain";
	for (i = 0; i < ops.n; i++)
		if (ops.v[i] != dest && strstr(ops.v[i], "{r}"))
			read = 1;
	if (!read && (accumulates(mnemonic) ||
		      (ops.n <= 2 && !writes_only(mnemonic))))
		read = 1;
	if (!problem && !read)
		problem = "does not read {r}: without {r} as a source the "
			  "copies are independent, not a chain";
	lk_strv_release(&ops);
	return problem;
}

/*
 * The GPRs in the order {r} takes them: the caller-saved ones first,
 * which keep a chain's value from one kernel call to the next (the
 * caller's loop does not touch them; a callee-saved one is restored by
 * the kernel's epilogue), rdi (the kernel's argument) last.
 */
static const char *const gpr_order[16] = {
	"rax", "rcx", "rdx", "rsi", "r8",  "r9",  "r10", "r11",
	"rbx", "r12", "r13", "r15", "rdi", "rsp", "rbp", "r14"};

/* The registers {r} rotates over for version v: the section's, else
 * the vector registers 0-15 (a vector template) or the GPRs but rsp,
 * rbp and r14, less those the templates name themselves. */
static void version_regs(const struct lk_asm_cfg *a,
			 const struct lk_asm_version *v, struct lk_strv *out)
{
	struct lk_strv named = LK_STRV_INIT;
	char name[16];
	size_t i;
	int width = 0;

	if (a->regs.n) {
		for (i = 0; i < a->regs.n; i++)
			lk_strv_push(out, a->regs.v[i]);
		return;
	}
	for (i = 0; i < v->body.n; i++) {
		if (template_width(v->body.v[i], a->intel) > width)
			width = template_width(v->body.v[i], a->intel);
		lk_asm_scan_regs(v->body.v[i], a->intel, &named, NULL);
	}
	for (i = 0; i < 16; i++) {
		if (width)
			snprintf(name, sizeof(name), "xmm%zu", i);
		else
			snprintf(name, sizeof(name), "%s", gpr_order[i]);
		if (!lk_asm_strv_has(&named, name) && strcmp(name, "rsp") &&
		    strcmp(name, "rbp") && strcmp(name, "r14"))
			lk_strv_push(out, name);
	}
	lk_strv_release(&named);
}

/* ---- Checks and implicit axes. ---- */

static int asm_error(struct lk_ctx *ctx, const struct lk_sweep *s, long line,
		     const char *text, const char *problem)
{
	if (s->path && line)
		return lk_error_at(ctx, LK_EINPUT, s->path, line,
				   "asm: '%s' %s", text, problem);
	return lk_error(ctx, LK_EINPUT, "'%s' %s", text, problem);
}

static long line_of(const struct lk_asm_version *v, size_t i)
{
	return v->body_lines ? v->body_lines[i] : v->line;
}

/* Every body line a variant of version v can hold is benchmarkable. */
static int check_version(struct lk_ctx *ctx, const struct lk_sweep *s,
			 const struct lk_asm_version *v)
{
	const struct lk_asm_cfg *a = &s->asm_body;
	size_t i;

	for (i = 0; i < v->body.n; i++) {
		const char *t = v->body.v[i], *problem;
		char *line = instantiate(t, a->intel, "xmm0");

		problem = lk_asm_line_problem(line, a->intel);
		free(line);
		if (!problem && a->chains)
			problem = template_problem(t, a->intel);
		else if (!problem && strstr(t, "{r}"))
			problem = "uses {r}, which needs chains";
		if (problem)
			return asm_error(ctx, s, line_of(v, i), t, problem);
	}
	for (i = 0; i < v->init.n; i++) {
		const char *problem = lk_asm_line_problem(v->init.v[i],
							  a->intel);

		if (problem)
			return asm_error(ctx, s, v->line, v->init.v[i],
					 problem);
	}
	return 0;
}

static long max_len(const struct lk_asm_cfg *a)
{
	size_t i;
	long n = 0;

	for (i = 0; i < a->nversions; i++)
		if ((long)a->versions[i].body.n > n)
			n = (long)a->versions[i].body.n;
	return n;
}

/* Orders of k of n indices (each once), appended as "2-0-1" text. */
static void orders(long n, long k, long depth, int *pick, unsigned long used,
		   struct lk_strv *out)
{
	long i;

	if (depth == k) {
		struct lk_buf b = LK_BUF_INIT;

		for (i = 0; i < k; i++)
			lk_buf_addf(&b, "%s%d", i ? "-" : "", pick[i]);
		lk_strv_push(out, lk_buf_str(&b));
		lk_buf_release(&b);
		return;
	}
	for (i = 0; i < n; i++) {
		if (used & (1ul << i))
			continue;
		pick[depth] = (int)i;
		orders(n, k, depth + 1, pick, used | (1ul << i), out);
	}
}

/* n!/(n-k)!, or past the cap LK_VARIANTS_MAX + 1. */
static long count_orders(long n, long k)
{
	long c = 1, i;

	for (i = 0; i < k; i++) {
		c *= n - i;
		if (c > LK_VARIANTS_MAX)
			return LK_VARIANTS_MAX + 1;
	}
	return c;
}

/* The values of asm.order: every length the selection takes. */
static int order_values(struct lk_ctx *ctx, const struct lk_sweep *s,
			struct lk_strv *out)
{
	const struct lk_asm_cfg *a = &s->asm_body;
	long n = max_len(a), k, total = 0;
	int pick[64];
	size_t i;

	for (k = 1; k <= n; k++) {
		int wanted = a->select == LK_ASM_SUBSETS;

		for (i = 0; !wanted && i < a->nversions; i++)
			wanted = (long)a->versions[i].body.n == k;
		total += wanted ? count_orders(a->select == LK_ASM_SUBSETS ?
					       n : k, k) : 0;
		if (total > LK_VARIANTS_MAX)
			return asm_error(ctx, s, a->line, a->select ==
					 LK_ASM_SUBSETS ? "subsets" :
					 "permutations", "selects more than "
					 "1,000,000 orders: list fewer "
					 "instructions");
		if (wanted)
			orders(a->select == LK_ASM_SUBSETS ? n : k, k, 0, pick,
			       0, out);
	}
	return 0;
}

static struct lk_axis *add_axis(struct lk_sweep *s, const char *name)
{
	struct lk_axis *ax;

	s->axes = lk_reallocarray(s->axes, s->naxes + 1, sizeof(*s->axes));
	ax = &s->axes[s->naxes++];
	memset(ax, 0, sizeof(*ax));
	ax->name = lk_strdup(name);
	ax->line = s->asm_body.line;
	ax->implicit = 1;
	return ax;
}

/*
 * A register of the given list that a template of v names itself would
 * be both a fixed operand and a chain's accumulator: the chains through
 * it would depend on each other. Refused, naming the template.
 */
static int check_shared(struct lk_ctx *ctx, const struct lk_sweep *s,
			const struct lk_asm_version *v, long used)
{
	const struct lk_asm_cfg *a = &s->asm_body;
	size_t i, k;
	int ret = 0;

	for (i = 0; !ret && i < v->body.n; i++) {
		struct lk_strv named = LK_STRV_INIT;

		lk_asm_scan_regs(v->body.v[i], a->intel, &named, NULL);
		for (k = 0; !ret && k < a->regs.n && (long)k < used; k++) {
			char *what;

			if (!lk_asm_strv_has(&named, a->regs.v[k]))
				continue;
			what = lk_asprintf("names %s (in some width), which "
					   "the register list also makes {r} "
					   "of chain %zu: the chains would "
					   "depend on each other (leave it "
					   "out of the list)", a->regs.v[k],
					   k + 1);
			ret = asm_error(ctx, s, line_of(v, i), v->body.v[i],
					what);
			free(what);
		}
		lk_strv_release(&named);
	}
	return ret;
}

static int check_chains(struct lk_ctx *ctx, const struct lk_sweep *s)
{
	const struct lk_asm_cfg *a = &s->asm_body;
	size_t i, j;
	long most = 0;
	int ret;

	for (j = 0; j < a->nchains; j++)
		most = a->chains[j] > most ? a->chains[j] : most;
	for (i = 0; i < a->nversions; i++) {
		struct lk_strv regs = LK_STRV_INIT;
		size_t n;

		if ((ret = check_shared(ctx, s, &a->versions[i], most)))
			return ret;
		version_regs(a, &a->versions[i], &regs);
		n = regs.n;
		lk_strv_release(&regs);
		if ((long)n < most) {
			char *what = lk_asprintf("needs %ld registers for %ld "
						 "chains, has %zu", most, most,
						 n);

			ret = asm_error(ctx, s, a->versions[i].line,
					a->versions[i].name, what);
			free(what);
			return ret;
		}
	}
	return 0;
}

int lk_sweep_asm_finish(struct lk_ctx *ctx, struct lk_sweep *s)
{
	const struct lk_asm_cfg *a = &s->asm_body;
	struct lk_axis *ax;
	size_t i;
	long n;
	int ret = 0;

	for (i = 0; !ret && i < a->nversions; i++)
		ret = check_version(ctx, s, &a->versions[i]);
	if (!ret && a->chains)
		ret = check_chains(ctx, s);
	if (ret)
		return ret;
	ax = add_axis(s, "asm");
	for (i = 0; i < a->nversions; i++)
		lk_strv_push(&ax->values, a->versions[i].name);
	if (a->chains) {
		ax = add_axis(s, "asm.chains");
		for (i = 0; i < a->nchains; i++)
			lk_strv_pushf(&ax->values, "%ld", a->chains[i]);
	} else if (a->select == LK_ASM_PREFIX) {
		ax = add_axis(s, "asm.n");
		for (n = 1; n <= max_len(a); n++)
			lk_strv_pushf(&ax->values, "%ld", n);
	} else if (a->select != LK_ASM_ALL) {
		ax = add_axis(s, "asm.order");
		ret = order_values(ctx, s, &ax->values);
	}
	return ret;
}

/* ---- A variant's point. ---- */

static const char *axis_value(const struct lk_sweep *s,
			      const struct lk_variant *v, const char *name)
{
	size_t i;

	for (i = 0; i < s->naxes; i++)
		if (s->axes[i].implicit && !strcmp(s->axes[i].name, name))
			return v->values[i];
	return NULL;
}

static const struct lk_asm_version *find_version(const struct lk_sweep *s,
						 const char *name)
{
	size_t i;

	for (i = 0; name && i < s->asm_body.nversions; i++)
		if (!strcmp(s->asm_body.versions[i].name, name))
			return &s->asm_body.versions[i];
	return NULL;
}

/* The indices of an order "2-0-1" into idx (at most max); how many. */
static size_t parse_order(const char *text, long *idx, size_t max)
{
	size_t n = 0;
	char *end;

	while (text && *text && n < max) {
		idx[n++] = strtol(text, &end, 10);
		text = *end == '-' ? end + 1 : end;
		if (end == text && *end)
			break;
	}
	return n;
}

int lk_asm_variant_valid(const struct lk_sweep *s, const struct lk_variant *v)
{
	const struct lk_asm_version *ver;
	const char *n, *order;
	long idx[64];
	size_t k, i;

	if (!s->asm_body.given)
		return 1;
	ver = find_version(s, axis_value(s, v, "asm"));
	n = axis_value(s, v, "asm.n");
	order = axis_value(s, v, "asm.order");
	if (!ver)
		return 0;
	if (n)
		return atol(n) <= (long)ver->body.n;
	if (!order)
		return 1;
	k = parse_order(order, idx, LK_ARRAY_SIZE(idx));
	if (s->asm_body.select == LK_ASM_PERMUTATIONS &&
	    k != ver->body.n)
		return 0;
	for (i = 0; i < k; i++)
		if (idx[i] >= (long)ver->body.n)
			return 0;
	return 1;
}

static void chain_body(const struct lk_asm_cfg *a,
		       const struct lk_asm_version *ver, long chains,
		       struct lk_strv *body)
{
	struct lk_strv regs = LK_STRV_INIT;
	size_t t;
	long c;

	version_regs(a, ver, &regs);
	for (t = 0; t < ver->body.n; t++)
		for (c = 0; c < chains && c < (long)regs.n; c++)
			lk_strv_push_take(body, instantiate(ver->body.v[t],
							    a->intel,
							    regs.v[c]));
	lk_strv_release(&regs);
}

int lk_asm_variant_body(struct lk_ctx *ctx, const struct lk_sweep *s,
			const struct lk_variant *v,
			const struct lk_asm_version **ver,
			struct lk_strv *body)
{
	const struct lk_asm_version *vr = find_version(s, axis_value(s, v,
								     "asm"));
	const char *n = axis_value(s, v, "asm.n");
	const char *order = axis_value(s, v, "asm.order");
	const char *chains = axis_value(s, v, "asm.chains");
	long idx[64];
	size_t k, i;

	if (!vr || !lk_asm_variant_valid(s, v))
		return lk_error(ctx, LK_EINPUT, "the variant names no asm "
				"body of the sweep");
	if (ver)
		*ver = vr;
	if (chains) {
		chain_body(&s->asm_body, vr, atol(chains), body);
		return 0;
	}
	k = order ? parse_order(order, idx, LK_ARRAY_SIZE(idx))
		  : n ? (size_t)atol(n) : vr->body.n;
	for (i = 0; i < k; i++)
		lk_strv_push(body, vr->body.v[order ? idx[i] : (long)i]);
	return 0;
}

void lk_asm_cfg_release(struct lk_asm_cfg *a)
{
	size_t i;

	for (i = 0; i < a->nversions; i++) {
		free(a->versions[i].name);
		lk_strv_release(&a->versions[i].body);
		lk_strv_release(&a->versions[i].init);
		free(a->versions[i].body_lines);
	}
	free(a->versions);
	free(a->chains);
	lk_strv_release(&a->regs);
	memset(a, 0, sizeof(*a));
}
