/*
 * The registers of asm: instructions (doc/loopkit-asm.md): the names of
 * every width, which registers a line names, its operands and
 * destination, what a benchmark may not touch (%rsp, %rbp, a write to
 * %r14), and register lists ("xmm0-xmm9,rax"). The templates, checks
 * and axes that use them are asm.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

static const char *const gpr64[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const gpr32[8] = {"eax", "ecx", "edx", "ebx",
				     "esp", "ebp", "esi", "edi"};
static const char *const gpr16[8] = {"ax", "cx", "dx", "bx",
				     "sp", "bp", "si", "di"};
static const char *const gpr8[8] = {"al", "cl", "dl", "bl",
				    "spl", "bpl", "sil", "dil"};
static const char *const gpr8h[4] = {"ah", "ch", "dh", "bh"};

/* The GPR number of a name of any width, -1 if it is none. */
static int gpr_number(const char *w)
{
	int i;
	char tail[4];

	for (i = 0; i < 16; i++)
		if (!strcmp(w, gpr64[i]))
			return i;
	for (i = 0; i < 8; i++)
		if (!strcmp(w, gpr32[i]) || !strcmp(w, gpr16[i]) ||
		    !strcmp(w, gpr8[i]))
			return i;
	for (i = 0; i < 4; i++)
		if (!strcmp(w, gpr8h[i]))
			return i;
	if (w[0] == 'r' && sscanf(w + 1, "%d%3s", &i, tail) >= 1 && i >= 8 &&
	    i <= 15) {
		const char *end = w + 1 + (i >= 10 ? 2 : 1);

		if (!*end || !strcmp(end, "d") || !strcmp(end, "w") ||
		    !strcmp(end, "b") || !strcmp(end, "l"))
			return i;
	}
	return -1;
}

/* xmmN/ymmN/zmmN: N and *width, else -1. */
static int vec_number(const char *w, int *width)
{
	char *end;
	long n;

	if (strlen(w) < 4 || strncmp(w + 1, "mm", 2) ||
	    !strchr("xyz", w[0]) || !isdigit((unsigned char)w[3]))
		return -1;
	n = strtol(w + 3, &end, 10);
	if (*end || n > 31 || (w[3] == '0' && w[4]))
		return -1;
	*width = w[0] == 'x' ? 128 : w[0] == 'y' ? 256 : 512;
	return (int)n;
}

/* Canonical name of register word w into out, or 0 if w is none. */
static int canonical(const char *w, char *out, size_t size, int *width)
{
	int n, wd = 0;

	if ((n = gpr_number(w)) >= 0) {
		snprintf(out, size, "%s", gpr64[n]);
	} else if ((n = vec_number(w, &wd)) >= 0) {
		snprintf(out, size, "xmm%d", n);
	} else if (w[0] == 'k' && w[1] >= '0' && w[1] <= '7' && !w[2]) {
		snprintf(out, size, "%s", w);
	} else {
		return 0;
	}
	if (width && wd > *width)
		*width = wd;
	return 1;
}

int lk_asm_strv_has(const struct lk_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

/* Calls fn on every word that may be a register: after % (AT&T) or, in
 * Intel text, every word but the first (the mnemonic). */
static void each_word(const char *text, int intel,
		      void (*fn)(const char *w, void *arg), void *arg)
{
	const char *p = text;
	int first = 1;
	char w[16];

	while (*p) {
		size_t n = 0;
		int reg = intel ? !first : *p == '%';

		if (*p == '%')
			p++;
		if (!isalnum((unsigned char)*p) && *p != '_') {
			if (*p == ';' || *p == '\n')
				first = 1;
			p++;
			continue;
		}
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') {
			if (n + 1 < sizeof(w))
				w[n++] = (char)tolower((unsigned char)*p);
			p++;
		}
		w[n] = '\0';
		if (reg)
			fn(w, arg);
		first = 0;
	}
}

struct scan {
	struct lk_strv *names;
	int width;
};

static void scan_word(const char *w, void *arg)
{
	struct scan *sc = arg;
	char name[16];

	if (canonical(w, name, sizeof(name), &sc->width) &&
	    !lk_asm_strv_has(sc->names, name))
		lk_strv_push(sc->names, name);
}

void lk_asm_scan_regs(const char *text, int intel, struct lk_strv *names,
		      int *width)
{
	struct scan sc = {names, 0};

	each_word(text, intel, scan_word, &sc);
	if (width && sc.width > *width)
		*width = sc.width;
}

void lk_asm_split_operands(const char *text, struct lk_strv *ops,
			   char *mnemonic, size_t msize)
{
	const char *p = text, *start;
	int depth = 0;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (*p && !isspace((unsigned char)*p) && n + 1 < msize)
		mnemonic[n++] = (char)tolower((unsigned char)*p++);
	mnemonic[n] = '\0';
	while (*p && !isspace((unsigned char)*p))
		p++;
	for (start = p; *p; p++) {
		if (*p == '(' || *p == '[')
			depth++;
		else if ((*p == ')' || *p == ']') && depth)
			depth--;
		if (*p == ',' && !depth) {
			lk_strv_push_take(ops, lk_strndup(start,
							  (size_t)(p - start)));
			start = p + 1;
		}
	}
	if (strspn(start, " \t") < strlen(start) || ops->n)
		lk_strv_push(ops, start);
}

const char *lk_asm_dest_operand(const struct lk_strv *ops, int intel)
{
	if (!ops->n)
		return NULL;
	return intel ? ops->v[0] : ops->v[ops->n - 1];
}

/* Does operand text name register 'canon' as a whole register (not as
 * an address's base)? */
static int names_reg(const char *op, int intel, const char *canon)
{
	struct lk_strv regs = LK_STRV_INIT;
	int found;

	if (strchr(op, '(') || strchr(op, '['))
		return 0;
	lk_asm_scan_regs(op, intel, &regs, NULL);
	found = lk_asm_strv_has(&regs, canon);
	lk_strv_release(&regs);
	return found;
}

const char *lk_asm_line_problem(const char *text, int intel)
{
	struct lk_strv regs = LK_STRV_INIT, ops = LK_STRV_INIT;
	const char *problem = NULL, *dest;
	char mnemonic[32];

	lk_asm_scan_regs(text, intel, &regs, NULL);
	if (lk_asm_strv_has(&regs, "rsp"))
		problem = "names %rsp: the benchmark's stack pointer cannot "
			  "be used";
	else if (lk_asm_strv_has(&regs, "rbp"))
		problem = "names %rbp: the benchmark's frame pointer cannot "
			  "be used";
	lk_asm_split_operands(text, &ops, mnemonic, sizeof(mnemonic));
	dest = lk_asm_dest_operand(&ops, intel);
	if (!problem && dest && ops.n > 1 && names_reg(dest, intel, "r14"))
		problem = "writes %r14, which holds the scratch memory's "
			  "address";
	lk_strv_release(&regs);
	lk_strv_release(&ops);
	return problem;
}

/* ---- Register lists. ---- */

/* "xmm12" -> prefix "xmm", 12; a name without a number: -1. */
static int split_reg(const char *w, char *prefix, size_t size)
{
	size_t n = strlen(w);

	while (n && isdigit((unsigned char)w[n - 1]))
		n--;
	snprintf(prefix, size, "%.*s", (int)n, w);
	return w[n] ? atoi(w + n) : -1;
}

static int push_reg(struct lk_ctx *ctx, const char *w, const char *where,
		    struct lk_strv *out)
{
	char name[16];

	if (!canonical(w, name, sizeof(name), NULL))
		return lk_error(ctx, LK_EINPUT, "%s: '%s' is not a register",
				where, w);
	if (!strcmp(name, "rsp") || !strcmp(name, "rbp"))
		return lk_error(ctx, LK_EINPUT, "%s: %%%s cannot be used "
				"(the benchmark's stack and frame)", where, w);
	if (!lk_asm_strv_has(out, name))
		lk_strv_push(out, name);
	return 0;
}

static int push_range(struct lk_ctx *ctx, const char *item, const char *where,
		      struct lk_strv *out)
{
	char *lo = lk_strdup(item), *hi = strchr(lo, '-');
	char p1[8], p2[8], w[16];
	int a, b, i, ret = 0;

	*hi++ = '\0';
	a = split_reg(lo, p1, sizeof(p1));
	b = split_reg(hi, p2, sizeof(p2));
	if (a < 0 || b < a || strcmp(p1, p2))
		ret = lk_error(ctx, LK_EINPUT, "%s: '%s' is not a range like "
			       "xmm0-xmm9", where, item);
	for (i = a; !ret && i <= b; i++) {
		snprintf(w, sizeof(w), "%s%d", p1, i);
		ret = push_reg(ctx, w, where, out);
	}
	free(lo);
	return ret;
}

int lk_asm_regs_parse(struct lk_ctx *ctx, const char *list, const char *where,
		      struct lk_strv *out)
{
	char *copy = lk_strdup(list), *save = NULL, *item;
	int ret = 0;

	where = where ? where : list;
	for (item = strtok_r(copy, ", \t", &save); !ret && item;
	     item = strtok_r(NULL, ", \t", &save)) {
		char *w = item + (*item == '%');
		char *c;

		for (c = w; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		ret = strchr(w, '-') ? push_range(ctx, w, where, out)
				     : push_reg(ctx, w, where, out);
	}
	if (!ret && !out->n)
		ret = lk_error(ctx, LK_EINPUT, "%s: no registers", where);
	free(copy);
	return ret;
}
