/*
 * The llvm-mca predictor: many blocks per process, one region each, two
 * iteration counts differenced. A block llvm-mca rejects is failed with
 * its message and the others run again without it; a failure nothing
 * names splits the batch in halves until it does.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/subprocess.h"
#include "predict-int.h"

#define DEFAULT_BATCH 500
#define DEFAULT_TIMEOUT 60.0

struct mca {
	char *path, *llvm_mc, *mcpu, *note;
	long iters[2];
	double timeout;
	size_t max_batch;
	int jobs;
};

/* One batch in flight: entries k of it are blocks idx[k]. */
struct batch {
	struct lk_ctx *ctx;
	const struct mca *m;
	const struct lk_pblock *blocks;
	struct lk_asm *text;
	struct lk_pred *out;
	char *dir;
	size_t *idx, n;
	long *first, *last;
	char *file;
	struct lk_proc_result res[2];
	int started[2];
	struct lk_ctx rctx[2];
};

static void run_one(void *arg, size_t i)
{
	struct batch *b = arg;
	char *iters = lk_asprintf("-iterations=%ld", b->m->iters[i]);
	char *cpu = lk_asprintf("-mcpu=%s", b->m->mcpu);
	const char *argv[] = {b->m->path, "-mtriple=x86_64-unknown-linux-gnu",
			      cpu, iters, b->file, NULL};
	struct lk_proc_opts o = {.argv = argv, .timeout = b->m->timeout,
				 .result_fd = -1};

	lk_ctx_init(&b->rctx[i]);
	b->started[i] = !lk_proc_run(&b->rctx[i], &o, &b->res[i]);
	free(iters);
	free(cpu);
}

static int run_pair(struct batch *b)
{
	const char **texts = lk_calloc(b->n, sizeof(*texts));
	struct lk_buf in = LK_BUF_INIT;
	size_t k;
	int ret;

	for (k = 0; k < b->n; k++)
		texts[k] = b->text[b->idx[k]].text;
	lk_mca_batch_text(texts, b->n, &in, b->first, b->last);
	free(texts);
	ret = lk_file_write_atomic(b->ctx, b->file, in.buf, in.len);
	lk_buf_release(&in);
	if (ret)
		return ret;
	memset(b->res, 0, sizeof(b->res));
	lk_pool_run(b->m->jobs, 2, run_one, b);
	for (k = 0; k < 2; k++)
		if (!b->started[k]) {
			lk_error(b->ctx, b->rctx[k].code, "%s", b->rctx[k].msg);
			return b->rctx[k].code ? b->rctx[k].code : LK_ECHILD;
		}
	return 0;
}

static void pair_release(struct batch *b)
{
	lk_proc_result_release(&b->res[0]);
	lk_proc_result_release(&b->res[1]);
}

static int pair_failed(const struct batch *b, size_t i)
{
	const struct lk_proc_result *r = &b->res[i];

	return !lk_proc_ok(r) || (r->err && strstr(r->err, "error:"));
}

static void fail(struct lk_pred *p, const char *status, const char *why)
{
	lk_pred_set(p, status, 0, why);
}

static char *raw_text(const struct batch *b, const struct lk_mca_region *r1,
		      const struct lk_mca_region *r2)
{
	const char *note = b->m->note && *b->m->note ? b->m->note : NULL;
	struct lk_buf o = LK_BUF_INIT;
	const struct lk_mca_region *r[2] = {r1, r2};
	size_t i;

	if (note)
		lk_buf_addf(&o, "# %s\n", note);
	for (i = 0; i < 2; i++)
		lk_buf_addf(&o, "$ %s -mtriple=x86_64-unknown-linux-gnu "
			    "-mcpu=%s -iterations=%ld blocks.s\n%s%s",
			    b->m->path, b->m->mcpu, b->m->iters[i],
			    r[i]->section, i ? "" : "\n");
	return lk_buf_detach(&o);
}

static const struct lk_mca_region *region(const struct lk_mca_region *r,
					  size_t n, size_t k)
{
	char name[32];
	size_t i;

	snprintf(name, sizeof(name), LK_MCA_REGION_FMT, k);
	for (i = 0; i < n; i++)
		if (!strcmp(r[i].name, name))
			return &r[i];
	return NULL;
}

static size_t insns_of(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n ? n : 1;
}

/* Both runs succeeded: every block gets its difference. */
static void harvest(struct batch *b)
{
	struct lk_mca_region *r[2];
	size_t nr[2], k, total = 0;
	double secs = b->res[0].seconds + b->res[1].seconds;

	lk_mca_parse(b->res[0].out, &r[0], &nr[0]);
	lk_mca_parse(b->res[1].out, &r[1], &nr[1]);
	for (k = 0; k < b->n; k++)
		total += insns_of(b->text[b->idx[k]].text);
	for (k = 0; k < b->n; k++) {
		const struct lk_mca_region *a = region(r[0], nr[0], k);
		const struct lk_mca_region *c = region(r[1], nr[1], k);
		struct lk_pred *p = &b->out[b->idx[k]];
		double v;

		if (!a || !c) {
			fail(p, "failed", "llvm-mca's report has no region "
					  "for the block");
			continue;
		}
		v = lk_mca_difference(a->iterations, a->total_cycles,
				      c->iterations, c->total_cycles);
		if (v < 0)
			fail(p, "failed", "llvm-mca's report lacks "
					  "Iterations or Total Cycles");
		else
			lk_pred_set(p, "ok", v, NULL);
		free(p->raw);
		p->raw = raw_text(b, a, c);
		p->seconds = secs *
			     (double)insns_of(b->text[b->idx[k]].text) /
			     (double)total;
	}
	lk_mca_regions_free(r[0], nr[0]);
	lk_mca_regions_free(r[1], nr[1]);
}

/* Does block text hold the instruction llvm-mca's note names? */
static int holds(const char *text, const char *insn)
{
	struct lk_buf line = LK_BUF_INIT;
	int found = 0;

	while (*text && !found) {
		size_t n = strcspn(text, "\n");
		char *sq;

		lk_buf_reset(&line);
		lk_buf_add(&line, text, n);
		sq = lk_squeeze(lk_buf_str(&line));
		found = !strcmp(sq, insn);
		free(sq);
		text += n + (text[n] == '\n');
	}
	lk_buf_release(&line);
	return found;
}

/*
 * Mark the entries llvm-mca's errors name in run i (line numbers, or
 * the instruction of an "unsupported instruction" note); bad[k] set.
 * Returns how many.
 */
static size_t blame(struct batch *b, size_t i, char *bad)
{
	const char *err = b->res[i].err ? b->res[i].err : "";
	struct lk_strv insns = LK_STRV_INIT;
	long *lines;
	size_t nlines, j, k, n = 0;

	lk_mca_errors(err, &lines, &nlines, &insns);
	for (j = 0; j < nlines; j++)
		for (k = 0; k < b->n; k++) {
			char *msg;

			if (bad[k] || lines[j] < b->first[k] ||
			    lines[j] > b->last[k])
				continue;
			msg = lk_mca_error_at(err, lines[j]);
			fail(&b->out[b->idx[k]], "failed", msg);
			free(msg);
			bad[k] = 1;
			n++;
		}
	for (j = 0; j < insns.n; j++)
		for (k = 0; k < b->n; k++) {
			char *msg;

			if (bad[k] || !holds(b->text[b->idx[k]].text,
					     insns.v[j]))
				continue;
			msg = lk_asprintf("unsupported instruction: %s",
					  insns.v[j]);
			fail(&b->out[b->idx[k]], "unsupported", msg);
			free(msg);
			bad[k] = 1;
			n++;
		}
	free(lines);
	lk_strv_release(&insns);
	return n;
}

static int predict_batch(struct batch *b);

/* Run blocks idx[0..n) as a batch of their own. */
static int sub_batch(struct batch *b, const size_t *idx, size_t n)
{
	struct batch s = *b;
	int ret;

	if (!n)
		return 0;
	s.idx = lk_calloc(n, sizeof(*s.idx));
	memcpy(s.idx, idx, n * sizeof(*s.idx));
	s.n = n;
	s.first = lk_calloc(n, sizeof(long));
	s.last = lk_calloc(n, sizeof(long));
	ret = predict_batch(&s);
	free(s.idx);
	free(s.first);
	free(s.last);
	return ret;
}

/* Why a single block's run failed, for the record. */
static char *first_error(const struct batch *b, size_t i)
{
	const struct lk_proc_result *r = &b->res[i];
	const char *e = r->err ? strstr(r->err, "error: ") : NULL;

	if (e)
		return lk_strndup(e + 7, strcspn(e + 7, "\n"));
	return lk_proc_describe(r, b->m->timeout);
}

static int after_failure(struct batch *b)
{
	size_t i = pair_failed(b, 0) ? 0 : 1, k, nok = 0;
	char *bad = lk_calloc(b->n, 1);
	size_t *rest = lk_calloc(b->n, sizeof(*rest));
	int timed_out = b->res[0].timed_out || b->res[1].timed_out, ret = 0;

	if (!timed_out && blame(b, i, bad)) {
		for (k = 0; k < b->n; k++)
			if (!bad[k])
				rest[nok++] = b->idx[k];
		pair_release(b);
		ret = sub_batch(b, rest, nok);
	} else if (b->n > 1) {
		size_t half = b->n / 2;

		memcpy(rest, b->idx, b->n * sizeof(*rest));
		pair_release(b);
		ret = sub_batch(b, rest, half);
		if (!ret)
			ret = sub_batch(b, rest + half, b->n - half);
	} else {
		char *why = first_error(b, i);

		fail(&b->out[b->idx[0]], timed_out ? "timed-out" : "failed",
		     why);
		free(why);
		pair_release(b);
	}
	free(bad);
	free(rest);
	return ret;
}

static int predict_batch(struct batch *b)
{
	int ret = run_pair(b);

	if (ret) {
		pair_release(b);
		return ret;
	}
	if (pair_failed(b, 0) || pair_failed(b, 1))
		return after_failure(b);
	harvest(b);
	pair_release(b);
	return 0;
}

/* Blocks without text are settled before any llvm-mca runs. */
static size_t settle_textless(const struct lk_asm *text, size_t n,
			      struct lk_pred *out, size_t *idx)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		if (text[i].text)
			idx[m++] = i;
		else
			fail(&out[i], text[i].unsupported ? "unsupported"
							  : "failed",
			     text[i].reason);
	}
	return m;
}

static int run_batches(struct lk_ctx *ctx, const struct mca *m,
		       const struct lk_pblock *blocks, struct lk_asm *text,
		       struct lk_pred *out, size_t *idx, size_t nidx)
{
	struct batch b = {ctx, m, blocks, text, out, NULL, NULL, 0,
			  NULL, NULL, NULL, {{0}}, {0}, {{0}}};
	size_t at;
	int ret = 0;

	b.dir = lk_predict_tmpdir(ctx);
	if (!b.dir)
		return LK_ESYS;
	b.file = lk_path_join(b.dir, "blocks.s");
	for (at = 0; !ret && at < nidx; at += m->max_batch) {
		size_t n = nidx - at < m->max_batch ? nidx - at : m->max_batch;

		ret = sub_batch(&b, idx + at, n);
	}
	unlink(b.file);
	rmdir(b.dir);
	free(b.file);
	free(b.dir);
	return ret;
}

static int mca_predict(struct lk_ctx *ctx, struct lk_predictor *p,
		       const struct lk_pblock *blocks, size_t n,
		       struct lk_pred *out)
{
	const struct mca *m = p->priv;
	struct lk_asm *text = lk_calloc(n ? n : 1, sizeof(*text));
	size_t *idx = lk_calloc(n ? n : 1, sizeof(*idx));
	size_t i, nidx;
	int ret;

	ret = lk_asm_blocks(ctx, m->llvm_mc, blocks, n, m->timeout, text);
	if (!ret) {
		nidx = settle_textless(text, n, out, idx);
		ret = run_batches(ctx, m, blocks, text, out, idx, nidx);
	}
	for (i = 0; i < n; i++) {
		if (!ret && text[i].text) {
			char *raw = out[i].raw;

			out[i].input = lk_strdup(text[i].text);
			out[i].raw = lk_asprintf("# the block as llvm-mca "
						 "read it\n%s%s", text[i].text,
						 raw ? raw : "");
			free(raw);
		}
		lk_asm_release(&text[i]);
	}
	free(text);
	free(idx);
	return ret;
}

static void mca_destroy(struct lk_predictor *p)
{
	struct mca *m = p->priv;

	if (!m)
		return;
	free(m->path);
	free(m->llvm_mc);
	free(m->mcpu);
	free(m->note);
	free(m);
}

int lk_mca_predictor(struct lk_ctx *ctx, const struct lk_mca_install *mi,
		     const struct lk_mca_opts *opts, struct lk_predictor **out)
{
	struct lk_predictor *p = lk_calloc(1, sizeof(*p));
	struct mca *m = lk_calloc(1, sizeof(*m));

	(void)ctx;
	m->path = lk_strdup(mi->path);
	m->llvm_mc = mi->llvm_mc ? lk_strdup(mi->llvm_mc) : NULL;
	m->mcpu = lk_mca_pick_cpu(mi, opts->mcpu, &m->note);
	m->iters[0] = opts->iterations[0] > 0 ? opts->iterations[0] : 100;
	m->iters[1] = opts->iterations[1] > m->iters[0] ? opts->iterations[1]
							: 2 * m->iters[0];
	m->timeout = opts->timeout > 0 ? opts->timeout : DEFAULT_TIMEOUT;
	m->max_batch = opts->max_batch ? opts->max_batch : DEFAULT_BATCH;
	m->jobs = opts->jobs > 0 ? opts->jobs : 2;
	p->name = lk_strdup(mi->name);
	p->version = lk_strdup(mi->version);
	p->params = lk_asprintf("-mcpu=%s -iterations=%ld,%ld text=%s",
				m->mcpu, m->iters[0], m->iters[1],
				m->llvm_mc ? "llvm-mc" : "zydis");
	p->note = lk_strdup(m->note);
	p->predict = mca_predict;
	p->destroy = mca_destroy;
	p->priv = m;
	*out = p;
	return 0;
}
