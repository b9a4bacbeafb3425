/*
 * Blocks as assembly a tool can read back: LLVM's disassembly of their
 * bytes (one llvm-mc process for a whole batch), branch targets turned
 * into a local label, calls dropped.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/subprocess.h"
#include "predict-int.h"

/* movabsq $(SENTINEL | i), %r11 separates block i from the one before. */
#define SENTINEL 0x4c4b000000000000ULL
#define SENTINEL_MASK 0xffff000000000000ULL

void lk_asm_release(struct lk_asm *a)
{
	if (!a)
		return;
	free(a->text);
	free(a->reason);
	memset(a, 0, sizeof(*a));
}

char *lk_squeeze(const char *s)
{
	struct lk_buf b = LK_BUF_INIT;
	int space = 0;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
			space = b.len > 0;
			continue;
		}
		if (space)
			lk_buf_addch(&b, ' ');
		space = 0;
		lk_buf_addch(&b, *s);
	}
	return b.buf ? lk_buf_detach(&b) : lk_strdup("");
}

static int is_prefix(const char *w, size_t n)
{
	static const char *const prefixes[] = {
		"rep", "repe", "repz", "repne", "repnz", "lock", "notrack",
		"bnd", "data16", "data32", "cs", "ds", "es", "ss", "fs", "gs",
		"addr32", "rex64", NULL};
	size_t i;

	for (i = 0; prefixes[i]; i++)
		if (strlen(prefixes[i]) == n && !strncmp(prefixes[i], w, n))
			return 1;
	return 0;
}

/* A plain number as a branch target: 123, -33, 0x2590. */
static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return s[2] && strspn(s + 2, "0123456789abcdefABCDEF") ==
				       strlen(s + 2);
	return *s && strspn(s, "0123456789") == strlen(s);
}

static int is_branch(const char *m, size_t n)
{
	static const char *const others[] = {"loop", "loope", "loopne",
					     "loopz", "loopnz", "xbegin",
					     NULL};
	size_t i;

	if (m[0] == 'j')
		return 1;
	for (i = 0; others[i]; i++)
		if (strlen(others[i]) == n && !strncmp(others[i], m, n))
			return 1;
	return 0;
}

int lk_asm_fix_line(struct lk_buf *line)
{
	char *text = lk_squeeze(lk_buf_str(line));
	char *m = text, *ops;
	size_t n;
	int ret = 0;

	for (;;) {
		n = strcspn(m, " ");
		if (!m[n] || !is_prefix(m, n))
			break;
		m += n + 1;
	}
	ops = m[n] ? m + n + 1 : m + n;
	if ((n == 4 && !strncmp(m, "call", 4)) ||
	    (n == 5 && (!strncmp(m, "callq", 5) || !strncmp(m, "calll", 5))))
		ret = 2;
	else if (n && is_branch(m, n) && is_number(ops)) {
		lk_buf_reset(line);
		lk_buf_add(line, text, (size_t)(ops - text));
		lk_buf_adds(line, "1f");
		ret = 1;
	}
	if (!ret || ret == 2) {
		lk_buf_reset(line);
		lk_buf_adds(line, text);
	}
	free(text);
	return ret;
}

/* Strip an end-of-line comment ("# imm = 0x..." from llvm-mc). */
static void strip_comment(struct lk_buf *line)
{
	char *hash = line->buf ? strchr(line->buf, '#') : NULL;

	if (hash) {
		*hash = '\0';
		line->len = (size_t)(hash - line->buf);
	}
}

/* Turn a block's disassembled lines (one per '\n') into its text. */
static void finish_block(const char *lines, struct lk_asm *out)
{
	struct lk_buf text = LK_BUF_INIT, line = LK_BUF_INIT;
	int label = 0, insns = 0, calls = 0;
	const char *p = lines;

	while (*p) {
		size_t n = strcspn(p, "\n");
		int kind;

		lk_buf_reset(&line);
		lk_buf_add(&line, p, n);
		p += n + (p[n] == '\n');
		strip_comment(&line);
		kind = lk_asm_fix_line(&line);
		if (!line.len)
			continue;
		if (kind == 2) {
			lk_buf_addf(&text, "# dropped: %s (llvm-mca gives "
				    "calls a latency of 100 cycles)\n",
				    lk_buf_str(&line));
			calls++;
			continue;
		}
		label |= kind == 1;
		insns++;
		lk_buf_addf(&text, "%s\n", lk_buf_str(&line));
	}
	if (label)
		lk_buf_adds(&text, "1:\n");
	if (insns) {
		out->text = lk_buf_detach(&text);
	} else if (!calls) {
		out->reason = lk_strdup("no instruction was decoded");
	} else {
		out->reason = lk_strdup("the block is only a call (llvm-mca "
					"gives calls a latency of 100 cycles; "
					"the callee is not in the block)");
		out->unsupported = 1;
	}
	lk_buf_release(&text);
	lk_buf_release(&line);
}

static void add_bytes(struct lk_buf *in, const uint8_t *b, size_t n)
{
	size_t i;

	lk_buf_addch(in, '[');
	for (i = 0; i < n; i++)
		lk_buf_addf(in, "%s0x%02x", i ? " " : "", b[i]);
	lk_buf_adds(in, "]\n");
}

/* Block i is on input line 2i + 2, after its sentinel on 2i + 1. */
static void mc_input(const struct lk_pblock *blocks, size_t n,
		     struct lk_buf *in)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		uint64_t v = SENTINEL | (uint64_t)i;
		uint8_t s[10] = {0x49, 0xbb};

		for (k = 0; k < 8; k++)
			s[2 + k] = (uint8_t)(v >> (8 * k));
		add_bytes(in, s, sizeof(s));
		add_bytes(in, blocks[i].bytes, blocks[i].len);
	}
}

/* The block index of a sentinel line, or -1. */
static long sentinel(const char *line)
{
	const char *d = strstr(line, "movabsq");
	unsigned long long v;
	char *end;

	if (!d || !strstr(line, "%r11"))
		return -1;
	d = strchr(d, '$');
	if (!d)
		return -1;
	v = strtoull(d + 1, &end, 0);
	if ((v & SENTINEL_MASK) != SENTINEL)
		return -1;
	return (long)(v & ~SENTINEL_MASK);
}

/* Split llvm-mc's output by sentinel into per-block line lists. */
static void mc_split(const char *out, struct lk_buf *lines, size_t n)
{
	long cur = -1;

	while (*out) {
		size_t len = strcspn(out, "\n");
		char *line = lk_strndup(out, len);
		long s = sentinel(line);

		out += len + (out[len] == '\n');
		if (s >= 0)
			cur = (size_t)s < n ? s : -1;
		else if (cur >= 0 && !strstr(line, ".text"))
			lk_buf_addf(&lines[cur], "%s\n", line);
		free(line);
	}
}

/*
 * Blocks llvm-mc could not decode: "FILE:LINE:COL: warning: invalid
 * instruction encoding" (other warnings leave the text as it is).
 */
static void mc_failures(const char *err, size_t n, struct lk_asm *out)
{
	static const char invalid[] = "invalid instruction encoding";
	const char *p = err;

	while (p && *p) {
		size_t len = strcspn(p, "\n");
		const char *colon = memchr(p, ':', len);
		char *end;
		long line = colon ? strtol(colon + 1, &end, 10) : 0;

		/* Block i is on line 2i + 2, its sentinel on 2i + 1. */
		if (line > 0 && line % 2 == 0 && (size_t)(line / 2) <= n &&
		    *end == ':' &&
		    memmem(p, len, invalid, sizeof(invalid) - 1) &&
		    !out[line / 2 - 1].reason)
			out[line / 2 - 1].reason = lk_strdup(
				"llvm-mc cannot decode it (invalid "
				"instruction encoding)");
		p += len + (p[len] == '\n');
	}
}

static int run_mc(struct lk_ctx *ctx, const char *llvm_mc, const char *file,
		  double timeout, struct lk_proc_result *res)
{
	const char *argv[] = {llvm_mc, "--disassemble",
			      "-triple=x86_64-unknown-linux-gnu", file, NULL};
	struct lk_proc_opts o = {.argv = argv, .timeout = timeout,
				 .result_fd = -1};
	int ret = lk_proc_run(ctx, &o, res);

	if (!ret && (res->timed_out || res->signaled || !res->out_len)) {
		char *why = lk_proc_describe(res, timeout);

		ret = lk_error(ctx, LK_ECHILD, "%s --disassemble: %s%s%.200s",
			       llvm_mc, why, res->err_len ? ": " : "",
			       res->err ? res->err : "");
		free(why);
	}
	return ret;
}

static int disassemble(struct lk_ctx *ctx, const char *llvm_mc,
		       const struct lk_pblock *blocks, size_t n,
		       double timeout, struct lk_asm *out)
{
	char *dir = lk_predict_tmpdir(ctx);
	struct lk_buf in = LK_BUF_INIT;
	struct lk_proc_result res = {0};
	struct lk_buf *lines = lk_calloc(n, sizeof(*lines));
	char *file = NULL;
	size_t i;
	int ret;

	if (!dir) {
		free(lines);
		return LK_ESYS;
	}
	file = lk_path_join(dir, "blocks.txt");
	mc_input(blocks, n, &in);
	ret = lk_file_write_atomic(ctx, file, in.buf, in.len);
	if (!ret)
		ret = run_mc(ctx, llvm_mc, file, timeout, &res);
	if (!ret) {
		mc_failures(res.err, n, out);
		mc_split(res.out, lines, n);
		for (i = 0; i < n; i++)
			if (!out[i].reason)
				finish_block(lk_buf_str(&lines[i]), &out[i]);
	}
	for (i = 0; i < n; i++)
		lk_buf_release(&lines[i]);
	free(lines);
	lk_proc_result_release(&res);
	lk_buf_release(&in);
	unlink(file);
	rmdir(dir);
	free(dir);
	free(file);
	return ret;
}

int lk_asm_blocks(struct lk_ctx *ctx, const char *llvm_mc,
		  const struct lk_pblock *blocks, size_t n, double timeout,
		  struct lk_asm *out)
{
	size_t i;

	if (!n)
		return 0;
	/* Blocks given as text only (loopkit asm's bodies) stay text. */
	if (llvm_mc && blocks[0].bytes)
		return disassemble(ctx, llvm_mc, blocks, n, timeout, out);
	for (i = 0; i < n; i++)
		finish_block(blocks[i].att ? blocks[i].att : "", &out[i]);
	return 0;
}
