/*
 * Instruction benchmarks (doc/loopkit-asm.md): every variant of a
 * sweep's asm: section becomes a C file whose kernel is one inline-asm
 * statement, the variant's instructions repeated unroll times by .rept,
 * with the registers they name zeroed first and clobbered, and the
 * instructions of a call declared to the runtime (lk_work). With
 * asm.difference a second kernel of twice the copies is measured in its
 * own region. The file is stored content-addressed and recorded as a
 * variant of the campaign; the runner builds and measures it like any
 * other.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/gen.h"

/* Instructions in one line: statements split at ';' and newlines, not
 * counting labels, directives or comments. */
static long count_insns(const char *line)
{
	char *copy = lk_strdup(line), *save = NULL, *st;
	long n = 0;

	for (st = strtok_r(copy, ";\n", &save); st;
	     st = strtok_r(NULL, ";\n", &save)) {
		size_t len;

		while (isspace((unsigned char)*st))
			st++;
		len = strlen(st);
		while (len && isspace((unsigned char)st[len - 1]))
			len--;
		if (len && *st != '.' && *st != '#' && st[len - 1] != ':')
			n++;
	}
	free(copy);
	return n;
}

/* Append text to b as the inside of a C string for an asm statement
 * with operands ('%' doubled). */
static void add_asm_text(struct lk_buf *b, const char *text)
{
	const char *p;

	lk_buf_adds(b, "\t\t\"\\t");
	for (p = text; *p; p++) {
		if (*p == '%')
			lk_buf_adds(b, "%%");
		else if (*p == '"' || *p == '\\')
			lk_buf_addf(b, "\\%c", *p);
		else if (*p == '\n')
			lk_buf_adds(b, "\\n\\t");
		else if (*p == '\t')
			lk_buf_adds(b, "\\t");
		else
			lk_buf_addch(b, *p);
	}
	lk_buf_adds(b, "\\n\"\n");
}

static int uses_vex(const struct lk_strv *body)
{
	size_t i;

	for (i = 0; i < body->n; i++) {
		const char *p = body->v[i];

		while (isspace((unsigned char)*p))
			p++;
		if (*p == 'v' || *p == 'V' || *p == 'k' || *p == 'K')
			return 1;
	}
	return 0;
}

/* The mnemonic of an instruction line, lower case, into m. */
static void mnemonic_of(const char *line, char *m, size_t size)
{
	size_t n = 0;

	while (isspace((unsigned char)*line))
		line++;
	while (*line && !isspace((unsigned char)*line) && n + 1 < size)
		m[n++] = (char)tolower((unsigned char)*line++);
	m[n] = '\0';
}

/* An integer SIMD instruction (its results bypass to the FP units with a
 * delay on AMD's and Intel's cores)? */
static int integer_simd(const char *m)
{
	static const char *const fp[] = {"vpermil", "vpermpd", "vpermps",
					 "vperm2f128"};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(fp); i++)
		if (!strncmp(m, fp[i], strlen(fp[i])))
			return 0;
	return m[0] == 'p' || !strncmp(m, "vp", 2) ||
	       !strncmp(m, "vmovdq", 6) || !strncmp(m, "movdq", 5) ||
	       !strncmp(m, "vbroadcasti", 11) ||
	       !strncmp(m, "vinserti", 8) || !strncmp(m, "vextracti", 9);
}

/* Does the first body line that names vector register r (canonical) use
 * it as an integer vector? */
static int integer_register(const struct lk_strv *body, int intel,
			    const char *r)
{
	size_t i, k;

	for (i = 0; i < body->n; i++) {
		struct lk_strv regs = LK_STRV_INIT;
		char m[32];
		int named = 0;

		lk_asm_scan_regs(body->v[i], intel, &regs, NULL);
		for (k = 0; k < regs.n; k++)
			named |= !strcmp(regs.v[k], r);
		lk_strv_release(&regs);
		if (!named)
			continue;
		mnemonic_of(body->v[i], m, sizeof(m));
		return integer_simd(m);
	}
	return 0;
}

/*
 * The zeroing of canonical register r (AT&T) at the start of every call,
 * as the C string's text (%% for %). Not a zero idiom (xor r, r), nor a
 * shift out of every bit (Zen 4 breaks the dependence of vpsrlq $64 as
 * well), but an AND with zeroes in memory (lk_zero, operand %[lkz]): its
 * result depends on the register's value, so a chain goes on from one
 * call to the next instead of the next call's chain overlapping this
 * one's tail (out of order, a 100-add call took 45 cycles, not 100; 100
 * vaddpd 145, not 300). The price is one 1-cycle AND per register and
 * call, hidden in the chain's first instruction's wait. The AND is in
 * the register's domain: an integer vector chain zeroed by vandps paid
 * two bypass delays a call on Zen 3 (vpaddd 1.028 cycles a copy at
 * unroll 100, 1.008 with vpand).
 */
static void add_zero(struct lk_buf *b, const char *r, int vex, int integer)
{
	int n = atoi(r + strcspn(r, "0123456789"));

	if (!strcmp(r, "r14"))
		return;             /* the scratch memory's address */
	if (!strncmp(r, "xmm", 3) && n >= 16)
		lk_buf_addf(b, "\t\t\"\\tvpandq %%[lkz], %%%%zmm%d, "
			    "%%%%zmm%d\\n\"\n", n, n);
	else if (!strncmp(r, "xmm", 3) && vex)
		lk_buf_addf(b, "\t\t\"\\t%s %%[lkz], %%%%%s, %%%%%s\\n\"\n",
			    integer ? "vpand" : "vandps", r, r);
	else if (!strncmp(r, "xmm", 3))
		lk_buf_addf(b, "\t\t\"\\t%s %%[lkz], %%%%%s\\n\"\n",
			    integer ? "pand" : "andps", r);
	else if (r[0] == 'k')
		lk_buf_addf(b, "\t\t\"\\tkshiftrw $16, %%%%%s, %%%%%s\\n\"\n",
			    r, r);
	else if (r[1] >= '0' && r[1] <= '9')
		lk_buf_addf(b, "\t\t\"\\tandl $0, %%%%%sd\\n\"\n", r);
	else
		lk_buf_addf(b, "\t\t\"\\tandl $0, %%%%e%s\\n\"\n", r + 1);
}

/* The clobber list: every register named but r14 (an operand). */
static void add_clobbers(struct lk_buf *b, const struct lk_strv *regs)
{
	size_t i;

	lk_buf_adds(b, "\t\t: ");
	for (i = 0; i < regs->n; i++)
		if (strcmp(regs->v[i], "r14"))
			lk_buf_addf(b, "\"%s\", ", regs->v[i]);
	lk_buf_adds(b, "\"memory\", \"cc\");\n");
}

static void add_body(struct lk_buf *b, const struct lk_asm_cfg *a,
		     const struct lk_asm_version *ver,
		     const struct lk_strv *body, const struct lk_strv *regs,
		     long copies)
{
	size_t i;

	if (!ver->init_given)
		for (i = 0; i < regs->n; i++)
			add_zero(b, regs->v[i], uses_vex(body),
				 integer_register(body, a->intel,
						  regs->v[i]));
	if (a->intel)
		add_asm_text(b, ".intel_syntax noprefix");
	for (i = 0; i < ver->init.n; i++)
		add_asm_text(b, ver->init.v[i]);
	lk_buf_addf(b, "\t\t\"\\t.rept %ld\\n\"\n", copies);
	for (i = 0; i < body->n; i++)
		add_asm_text(b, body->v[i]);
	add_asm_text(b, ".endr");
	if (a->intel)
		add_asm_text(b, ".att_syntax prefix");
}

/* One kernel function: the zeroing, init, then copies x body. */
static void add_kernel(struct lk_buf *c, const struct lk_asm_cfg *a,
		       const struct lk_asm_version *ver,
		       const struct lk_strv *body, const struct lk_strv *regs,
		       const char *name, long copies)
{
	lk_buf_addf(c, "static __attribute__((noinline)) void %s(void *mem)\n"
		    "{\n\tregister void *r14 __asm__(\"r14\") = mem;\n\n"
		    "\t__asm__ volatile(\n", name);
	add_body(c, a, ver, body, regs, copies);
	lk_buf_adds(c, "\t\t: \"+r\"(r14)\n\t\t: [lkz] \"m\"(lk_zero)\n");
	add_clobbers(c, regs);
	lk_buf_adds(c, "}\n\n");
}

/* main: each kernel's instructions per call declared, then measured. */
static void add_main(struct lk_buf *c, const struct lk_asm_cfg *a,
		     long insns)
{
	lk_buf_addf(c, "int main(int argc, char **argv)\n{\n"
		    "\tvoid *mem;\n\n\tlk_init(argc, argv);\n"
		    "\tmem = lk_alloc(%ld);\n"
		    "\tlk_work(\"instructions\", %ld.0);\n"
		    "\tLK_MEASURE(asm_kernel(mem));\n",
		    a->memory > 0 ? a->memory : 4096, insns * a->unroll);
	if (a->difference)
		lk_buf_addf(c, "\tlk_work(\"instructions\", %ld.0);\n"
			    "\tLK_MEASURE_NAMED(\"%s\", "
			    "asm_kernel_2u(mem));\n",
			    2 * insns * a->unroll, LK_ASM_REGION_2U);
	lk_buf_adds(c, "\tlk_free(mem);\n\treturn lk_finish();\n}\n");
}

int lk_asm_source(struct lk_ctx *ctx, const struct lk_asm_cfg *a,
		  const struct lk_asm_version *ver, const struct lk_strv *body,
		  const char *label, struct lk_buf *c, long *insns)
{
	struct lk_strv regs = LK_STRV_INIT;
	size_t i;

	if (!body->n)
		return lk_error(ctx, LK_EINPUT, "%s: no instructions", label);
	*insns = 0;
	for (i = 0; i < body->n; i++) {
		lk_asm_scan_regs(body->v[i], a->intel, &regs, NULL);
		*insns += count_insns(body->v[i]);
	}
	for (i = 0; i < ver->init.n; i++)
		lk_asm_scan_regs(ver->init.v[i], a->intel, &regs, NULL);
	lk_buf_addf(c, "/* loopkit asm: %s; %ld instructions per copy, %ld "
		    "copies per call%s */\n#include <lkrt.h>\n\n"
		    "/* Zeroes for the per-call zeroing (64: a zmm) */\n"
		    "static const double lk_zero[8] "
		    "__attribute__((aligned(64)));\n\n", label, *insns,
		    a->unroll, a->difference ? " (and twice that in region "
		    LK_ASM_REGION_2U ")" : "");
	add_kernel(c, a, ver, body, &regs, "asm_kernel", a->unroll);
	if (a->difference)
		add_kernel(c, a, ver, body, &regs, "asm_kernel_2u",
			   2 * a->unroll);
	add_main(c, a, *insns);
	lk_strv_release(&regs);
	return 0;
}

/* The variant's parameters: every axis, then asm.insns and
 * asm.unroll (IPC = asm.insns x asm.unroll / cycles per call). */
static struct lk_param *unit_params(const struct lk_sweep *sw,
				    const struct lk_variant *v,
				    const struct lk_asm_unit *u, char num[2][24],
				    size_t *n)
{
	struct lk_param *p = lk_calloc(sw->naxes + 2, sizeof(*p));
	size_t i;

	for (i = 0; i < sw->naxes; i++)
		p[i] = (struct lk_param){sw->axes[i].name, v->values[i]};
	snprintf(num[0], 24, "%ld", u->insns);
	snprintf(num[1], 24, "%ld", u->unroll);
	p[i++] = (struct lk_param){"asm.insns", num[0]};
	p[i++] = (struct lk_param){"asm.unroll", num[1]};
	*n = i;
	return p;
}

static int record(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		  const struct lk_sweep *sw, const struct lk_variant *v,
		  const struct lk_buf *c, struct lk_asm_unit *u)
{
	char src_hash[LK_HASH_HEX], hash[LK_HASH_HEX], num[2][24];
	struct lk_variant_rec rec;
	struct lk_hash h;
	char *path = NULL;
	size_t np, i;
	struct lk_param *p = unit_params(sw, v, u, num, &np);
	int ret = lk_store_object_put(ctx, s, c->buf, c->len, ".c", src_hash,
				      &path);

	lk_hash_init(&h);
	lk_hash_add_str(&h, src_hash);
	lk_hash_add_str(&h, v->compiler);
	lk_hash_add_str(&h, v->flagset->name);
	lk_hash_add_str(&h, v->flagset->flags);
	for (i = 0; i < np; i++) {
		lk_hash_add_str(&h, p[i].name);
		lk_hash_add_str(&h, p[i].value);
	}
	lk_hash_final(&h, hash);
	rec = (struct lk_variant_rec){hash, path, src_hash, v->compiler,
				      v->flagset->name, v->flagset->flags, p,
				      np};
	if (!ret)
		ret = lk_store_variant_put(ctx, s, campaign, &rec,
					   &u->variant_id);
	u->label = lk_variant_name("asm", v->compiler, v->flagset->name, p,
				   np);
	free(path);
	free(p);
	return ret;
}

/* One copy of the body, one instruction per line, as llvm-mca reads. */
static char *one_copy(const struct lk_strv *body, int intel)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;
	char *out;

	if (intel)
		lk_buf_adds(&b, ".intel_syntax noprefix\n");
	for (i = 0; i < body->n; i++)
		lk_buf_addf(&b, "%s\n", body->v[i]);
	out = lk_strdup(lk_buf_str(&b));
	lk_buf_release(&b);
	return out;
}

static int make_unit(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *sw, const struct lk_variant *v,
		     struct lk_asm_unit *u)
{
	const struct lk_asm_version *ver;
	struct lk_strv body = LK_STRV_INIT;
	struct lk_buf c = LK_BUF_INIT;
	char *label = NULL;
	size_t i;
	int ret = lk_asm_variant_body(ctx, sw, v, &ver, &body);

	if (!ret) {
		struct lk_buf l = LK_BUF_INIT;

		for (i = 0; i < sw->naxes; i++)
			if (sw->axes[i].implicit)
				lk_buf_addf(&l, "%s%s=%s", l.len ? " " : "",
					    sw->axes[i].name, v->values[i]);
		label = lk_strdup(lk_buf_str(&l));
		lk_buf_release(&l);
		u->unroll = sw->asm_body.unroll;
		u->difference = sw->asm_body.difference;
		ret = lk_asm_source(ctx, &sw->asm_body, ver, &body, label, &c,
				    &u->insns);
	}
	if (!ret) {
		u->copy = one_copy(&body, sw->asm_body.intel);
		ret = record(ctx, s, campaign, sw, v, &c, u);
	}
	free(label);
	lk_strv_release(&body);
	lk_buf_release(&c);
	return ret;
}

/* The plan's variants are the campaign's current ones: run -c measures
 * the sweep as it is, not every variant it ever had. */
static int mark_current(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, const struct lk_asm_plan *plan)
{
	int64_t *ids = lk_calloc(plan->n + 1, sizeof(*ids));
	size_t i;
	int ret;

	for (i = 0; i < plan->n; i++)
		ids[i] = plan->units[i].variant_id;
	ret = lk_store_variants_current(ctx, s, campaign, ids, plan->n);
	free(ids);
	return ret;
}

int lk_asm_campaign(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *sw, struct lk_asm_plan *plan)
{
	struct lk_variant *v = NULL;
	size_t n = 0, i;
	int ret;

	memset(plan, 0, sizeof(*plan));
	if (!sw->asm_body.given)
		return 0;
	ret = lk_sweep_expand(ctx, sw, &v, &n);
	if (!ret)
		plan->units = lk_calloc(n + 1, sizeof(*plan->units));
	for (i = 0; !ret && i < n; i++) {
		ret = make_unit(ctx, s, campaign, sw, &v[i],
				&plan->units[i]);
		plan->n = i + 1;
	}
	if (!ret)
		ret = mark_current(ctx, s, campaign, plan);
	lk_variants_free(v, n);
	return ret;
}

int lk_asm_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		 const struct lk_sweep *sw, struct lk_stage_summary *sum)
{
	struct lk_asm_plan plan;
	int ret = lk_asm_campaign(ctx, s, campaign, sw, &plan);

	if (!ret) {
		lk_asm_plan_items(&plan, sum);
		sum->line = lk_asprintf("%zu asm variants written and "
					"recorded", plan.n);
	}
	lk_asm_plan_release(&plan);
	return ret;
}

void lk_asm_plan_items(const struct lk_asm_plan *plan,
		       struct lk_stage_summary *sum)
{
	size_t i;

	sum->items = lk_calloc(plan->n + 1, sizeof(*sum->items));
	sum->n = plan->n;
	for (i = 0; i < plan->n; i++) {
		sum->items[i].variant_id = plan->units[i].variant_id;
		sum->items[i].label = lk_strdup(plan->units[i].label);
		lk_stage_item_set(&sum->items[i], "ok", "");
	}
	sum->done = (long)plan->n;
}

void lk_asm_plan_release(struct lk_asm_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		free(plan->units[i].label);
		free(plan->units[i].copy);
	}
	free(plan->units);
	memset(plan, 0, sizeof(*plan));
}
