/*
 * bprof as a predictor: options, the per-block measurement (check, run
 * in the sandbox), and the reading of what the child left: a value from
 * the two unroll factors' minima, or the reason it failed.
 */
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "bprof-int.h"

#define BPROF_VERSION "2"
#define USER_TOP 0x7ffffffff000ull

struct bprof {
	struct lk_bprof_opts opts;
	int use_pmu;
	int cpu_vec; /* the best VEC_* this CPU has */
};

void lk_bprof_opts_init(struct lk_bprof_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->unroll1 = 100;
	opts->unroll2 = 200;
	opts->repetitions = 50;
	opts->timeout = 10;
	opts->cpu = -1;
	opts->max_pages = 256;
	opts->value = 0x12345600; /* BHive's */
	opts->clock = LK_BPROF_CLOCK_AUTO;
}

static int opts_check(struct lk_ctx *ctx, const struct lk_bprof_opts *o)
{
	if (o->unroll1 < 1 || o->unroll2 <= o->unroll1 || o->unroll2 > 10000)
		return lk_error(ctx, LK_EINPUT,
				"bprof: unroll factors must satisfy 1 <= U1 < "
				"U2 <= 10000 (got %u, %u)",
				o->unroll1, o->unroll2);
	if (o->repetitions < 1 || o->repetitions > BPROF_MAX_REPS)
		return lk_error(ctx, LK_EINPUT,
				"bprof: repetitions must be 1..%zu (got %u)",
				(size_t)BPROF_MAX_REPS, o->repetitions);
	if (!(o->timeout > 0) || o->timeout > 3600)
		return lk_error(ctx, LK_EINPUT,
				"bprof: timeout must be in (0, 3600] s");
	if (o->max_pages < 1 || o->max_pages > 65536)
		return lk_error(ctx, LK_EINPUT,
				"bprof: max pages must be 1..65536");
	if (o->value < 0x10000 || o->value >= USER_TOP)
		return lk_error(ctx, LK_EINPUT,
				"bprof: the register value 0x%llx is not a "
				"mappable user address",
				(unsigned long long)o->value);
	if (o->cpu < -1 || o->cpu >= CPU_SETSIZE)
		return lk_error(ctx, LK_EINPUT, "bprof: no CPU %d", o->cpu);
	return 0;
}

static int cpu_vec(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return __builtin_cpu_supports("avx512bw") ? VEC_ZMM_BW
							  : VEC_ZMM;
	if (__builtin_cpu_supports("avx"))
		return VEC_YMM;
	return VEC_SSE;
}

/* The vector set-up for a block: the state it needs, as far as the CPU
 * has it; SSE code gets clean upper halves, as after a vzeroupper. */
static int block_vec(const struct bprof *bp, int need)
{
	if (need == VEC_SSE)
		return bp->cpu_vec >= VEC_YMM ? VEC_SSE_CLEAN : VEC_SSE;
	if (need == VEC_YMM || bp->cpu_vec < VEC_ZMM)
		return bp->cpu_vec >= VEC_YMM ? VEC_YMM : VEC_SSE;
	return bp->cpu_vec;
}

static const char *vec_name(int vec)
{
	static const char *const names[] = {"sse", "sse", "ymm", "zmm", "zmm"};

	return names[vec];
}

static const char *unit_of(const struct bprof *bp)
{
	return bp->use_pmu ? "cycles/iter" : "tsc-calibrated-cycles/iter";
}

/* Status, unit and reason; raw is "" unless already set. */
static void set(struct lk_pred *out, const char *status, const char *unit,
		LK_TAKE char *reason)
{
	out->status = lk_strdup(status);
	out->unit = lk_strdup(unit);
	out->reason = reason ? reason : lk_strdup("");
	if (!out->raw)
		out->raw = lk_strdup("");
}

/* "+0x5 (divl %ecx)": where in the block rip is, if it is in it. */
static char *where(const struct lk_pblock *b, const struct bprof_block *blk,
		   const struct bprof_image *img, uint64_t rip)
{
	uint64_t end = img->blk_base + (uint64_t)img->unroll2 * blk->len;
	const char *line = b->att;
	size_t off, k;

	if (rip < img->code_addr || rip >= end)
		return lk_asprintf("outside the block (rip 0x%llx)",
				   (unsigned long long)rip);
	if (rip < img->blk_base)
		return lk_strdup("in the calibration chain");
	off = (rip - img->blk_base) % blk->len;
	for (k = 0; k < blk->ninsns && blk->insns[k].off != off; k++)
		if (line && (line = strchr(line, '\n')))
			line++;
	if (k == blk->ninsns || !line || !*line)
		return lk_asprintf("at +0x%zx", off);
	return lk_asprintf("at +0x%zx (%.*s)", off, (int)strcspn(line, "\n"),
			   line);
}

static char *fault_reason(const struct bprof_ctl *c,
			  const struct bprof_image *img, const char *at,
			  unsigned max_pages)
{
	unsigned long long addr = c->fail_addr;

	if (c->fail_signo == SIGSEGV) {
		if (c->fail_why == WHY_CAP)
			return lk_asprintf("touches more than %u distinct "
					   "pages (the next at 0x%llx, %s)",
					   max_pages, addr, at);
		if (c->fail_why == WHY_MMAP)
			return lk_asprintf("cannot map the page at 0x%llx "
					   "(%s): %s",
					   addr, at,
					   strerror((int)c->fail_errno));
		if (c->fail_code == 0x80) /* SI_KERNEL */
			return lk_asprintf(
			    "SIGSEGV: general-protection fault %s (a "
			    "non-canonical address, a misaligned aligned "
			    "access or a privileged operation)",
			    at);
		if (addr >= img->code_addr && addr < img->code_addr + img->size)
			return lk_asprintf("SIGSEGV: writes into its own "
					   "code at 0x%llx %s",
					   addr, at);
		return lk_asprintf("SIGSEGV: touches the sandbox's own pages "
				   "at 0x%llx %s",
				   addr, at);
	}
	if (c->fail_signo == SIGFPE)
		return lk_asprintf("SIGFPE: %s %s",
				   c->fail_code == FPE_INTDIV ||
					   c->fail_code == FPE_INTOVF
				       ? "integer division by zero or "
					 "quotient overflow"
				       : "floating-point exception",
				   at);
	if (c->fail_signo == SIGILL)
		return lk_asprintf("SIGILL: the CPU lacks an instruction %s",
				   at);
	if (c->fail_signo == SIGBUS)
		return lk_asprintf("SIGBUS at 0x%llx %s", addr, at);
	return lk_asprintf("%s %s", sigabbrev_np((int)c->fail_signo), at);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Minimum and median of run k's samples (the TSC half or the PMU one). */
static void reduce(const struct bprof_ctl *c, int pmu, int k, uint64_t *min,
		   uint64_t *median)
{
	size_t n = c->reps, i;
	uint64_t *v = lk_malloc(n * sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = c->samples[(pmu ? n * NRUNS : 0) + i * NRUNS + k];
	qsort(v, n, sizeof(*v), cmp_u64);
	*min = v[0];
	*median = v[n / 2];
	free(v);
}

struct figures {
	uint64_t min[NRUNS], med[NRUNS], cmin[NRUNS], cmed[NRUNS];
	double ticks_per_iter, core_per_tsc, value, median_value;
	double paired; /* median over repetitions of each one's own
			  calibrated difference */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Each repetition's four runs are microseconds apart: the core clock is
 * the same for all four, so each converts its own difference. */
static double paired_median(const struct bprof_ctl *c, int pmu, double span,
			    double cal)
{
	const uint64_t *s = c->samples + (pmu ? c->reps * NRUNS : 0);
	double med;
	double *v = lk_malloc(c->reps * sizeof(*v));
	size_t r;

	for (r = 0; r < c->reps; r++) {
		const uint64_t *x = s + r * NRUNS;
		double d = ((double)x[RUN_BLK2] - (double)x[RUN_BLK1]) / span;

		v[r] =
		    pmu ? d
			: d * cal / ((double)x[RUN_CAL2] - (double)x[RUN_CAL1]);
	}
	qsort(v, c->reps, sizeof(*v), cmp_double);
	med = v[c->reps / 2];
	free(v);
	return med;
}

static void compute(const struct bprof *bp, const struct bprof_ctl *c,
		    const struct bprof_image *img, struct figures *f)
{
	/* iterations and reference cycles between the short and long runs */
	double span =
	    (double)(img->unroll2 - img->unroll1) * (double)c->passes[RUN_BLK2];
	double cal = (double)(CAL_LONG - CAL_SHORT) * CAL_LATENCY *
		     (double)c->passes[RUN_CAL2];
	double med_ticks, med_core;
	int k;

	for (k = 0; k < NRUNS; k++) {
		reduce(c, 0, k, &f->min[k], &f->med[k]);
		reduce(c, 1, k, &f->cmin[k], &f->cmed[k]);
	}
	f->ticks_per_iter =
	    ((double)f->min[RUN_BLK2] - (double)f->min[RUN_BLK1]) / span;
	f->core_per_tsc =
	    cal / ((double)f->min[RUN_CAL2] - (double)f->min[RUN_CAL1]);
	med_ticks =
	    ((double)f->med[RUN_BLK2] - (double)f->med[RUN_BLK1]) / span;
	med_core = cal / ((double)f->med[RUN_CAL2] - (double)f->med[RUN_CAL1]);
	f->paired = paired_median(c, bp->use_pmu, span, cal);
	if (bp->use_pmu) {
		f->value =
		    ((double)f->cmin[RUN_BLK2] - (double)f->cmin[RUN_BLK1]) /
		    span;
		f->median_value =
		    ((double)f->cmed[RUN_BLK2] - (double)f->cmed[RUN_BLK1]) /
		    span;
	} else {
		f->value = f->ticks_per_iter * f->core_per_tsc;
		f->median_value = med_ticks * med_core;
	}
}

static char *raw_text(const struct bprof *bp, const struct bprof_block *blk,
		      const struct bprof_image *img, const struct bprof_ctl *c,
		      const struct figures *f, int vec)
{
	struct lk_buf b = LK_BUF_INIT;

	lk_buf_addf(&b,
		    "clock=%s u1=%u u2=%u passes=%llu cal_passes=%llu "
		    "reps=%llu",
		    bp->use_pmu ? "pmu" : "tsc-calibrated", img->unroll1,
		    img->unroll2, (unsigned long long)c->passes[RUN_BLK2],
		    (unsigned long long)c->passes[RUN_CAL2],
		    (unsigned long long)c->reps);
	lk_buf_addf(&b, " ticks_u1=%llu ticks_u2=%llu ticks_per_iter=%.4f",
		    (unsigned long long)f->min[RUN_BLK1],
		    (unsigned long long)f->min[RUN_BLK2], f->ticks_per_iter);
	lk_buf_addf(&b,
		    " cal_ticks_%d=%llu cal_ticks_%d=%llu "
		    "core_per_tsc=%.4f",
		    CAL_SHORT, (unsigned long long)f->min[RUN_CAL1], CAL_LONG,
		    (unsigned long long)f->min[RUN_CAL2], f->core_per_tsc);
	if (bp->use_pmu)
		lk_buf_addf(&b, " cycles_u1=%llu cycles_u2=%llu",
			    (unsigned long long)f->cmin[RUN_BLK1],
			    (unsigned long long)f->cmin[RUN_BLK2]);
	/* How far the per-round calibration moves the answer: large when
	 * the core clock changed between the rounds the minima came from. */
	lk_buf_addf(&b, " paired_median=%.4f paired_vs_min=%+.2f%%", f->paired,
		    (f->paired / f->value - 1) * 100);
	lk_buf_addf(&b,
		    " median_value=%.4f pages=%llu vec=%s dropped=%s "
		    "code=0x%llx",
		    f->median_value, (unsigned long long)c->pages,
		    vec_name(vec), blk->dropped ? blk->dropped : "-",
		    (unsigned long long)img->code_addr);
	return lk_buf_detach(&b);
}

/* A child that finished its runs: the value, or why there is none. */
static void finish(const struct bprof *bp, const struct bprof_block *blk,
		   const struct bprof_image *img, const struct bprof_ctl *c,
		   int vec, struct lk_pred *out)
{
	const char *unit = unit_of(bp);
	struct figures f;

	compute(bp, c, img, &f);
	out->raw = raw_text(bp, blk, img, c, &f, vec);
	if (c->timed_faults)
		set(out, "failed", unit,
		    lk_asprintf("%llu page faults in the timed runs (the "
				"addresses the block touches change from run "
				"to run)",
				(unsigned long long)c->timed_faults));
	else if (!(f.core_per_tsc > 0) || !isfinite(f.core_per_tsc))
		set(out, "failed", unit,
		    lk_strdup("the calibration chain's two lengths took the "
			      "same time (noise)"));
	else if (!(f.value > 0))
		set(out, "failed", unit,
		    lk_asprintf("%u copies were not slower than %u (min %llu "
				"vs %llu ticks): noise larger than the block",
				img->unroll2, img->unroll1,
				(unsigned long long)f.min[RUN_BLK2],
				(unsigned long long)f.min[RUN_BLK1]));
	else {
		set(out, "ok", unit, NULL);
		out->value = f.value;
	}
}

static const char *const setup_steps[] = {
    "parent-death signal",   "core limit",
    "CPU affinity",	     "sandbox mappings",
    "signal handlers, rseq", "PMU cycles counter",
    "seccomp filter",
};

/* Read how the child ended. < 0: the sandbox itself cannot work. */
static int interpret(struct lk_ctx *ctx, const struct bprof *bp,
		     const struct lk_pblock *b, const struct bprof_block *blk,
		     const struct bprof_image *img,
		     const struct bprof_outcome *r, int vec,
		     struct lk_pred *out)
{
	const struct bprof_ctl *c = r->ctl;
	const char *unit = unit_of(bp);
	char *at;

	if (r->timed_out) {
		set(out, "timed-out", unit,
		    lk_asprintf("killed after %g s", bp->opts.timeout));
	} else if (r->exited && r->exit_code == 0 && c->state == 3) {
		finish(bp, blk, img, c, vec, out);
	} else if (r->exited && r->exit_code == 3) {
		at = where(b, blk, img, c->fail_rip);
		out->raw = lk_asprintf("signal=%s code=%lld addr=0x%llx "
				       "rip=0x%llx pages=%llu code=0x%llx",
				       sigabbrev_np((int)c->fail_signo),
				       (long long)c->fail_code,
				       (unsigned long long)c->fail_addr,
				       (unsigned long long)c->fail_rip,
				       (unsigned long long)c->pages,
				       (unsigned long long)img->code_addr);
		set(out, "failed", unit,
		    fault_reason(c, img, at, bp->opts.max_pages));
		free(at);
	} else if (r->exited && r->exit_code == 4) {
		set(out, "failed", unit,
		    lk_asprintf("the sandbox could not map the code at "
				"0x%llx: %s",
				(unsigned long long)img->code_addr,
				strerror((int)c->fail_errno)));
	} else if (r->exited && r->exit_code >= 10 &&
		   r->exit_code < 10 + (int)LK_ARRAY_SIZE(setup_steps)) {
		return lk_error(ctx, LK_ECHILD,
				"bprof: sandbox set-up failed (%s): %s",
				setup_steps[r->exit_code - 10],
				strerror((int)c->fail_errno));
	} else if (r->signaled && r->signal == SIGSYS) {
		set(out, "failed", unit,
		    lk_strdup("a system call was blocked by the sandbox's "
			      "seccomp filter"));
	} else {
		set(out, "failed", unit,
		    r->signaled ? lk_asprintf("the child was killed by SIG%s",
					      sigabbrev_np(r->signal))
				: lk_asprintf("the child exited with %d",
					      r->exit_code));
	}
	return 0;
}

static int measure(struct lk_ctx *ctx, const struct bprof *bp,
		   const struct lk_pblock *b, struct lk_pred *out)
{
	struct bprof_block blk;
	struct bprof_outcome res;
	struct bprof_image img;
	char *reason;
	int vec, ret;

	ret = bprof_block_check(b, &blk, &reason);
	if (ret == 2) {
		/* Like every block's terminator, a lone one is not timed. */
		out->raw = reason;
		set(out, "ok", unit_of(bp), NULL);
		out->value = 0;
		return 0;
	}
	if (ret) {
		set(out, "unsupported", unit_of(bp), reason);
		return 0;
	}
	vec = block_vec(bp, blk.vec);
	ret = bprof_sandbox_run(ctx, &bp->opts, &blk, vec, bp->use_pmu, &img,
				&res, &reason);
	if (ret == 1)
		set(out, "unsupported", unit_of(bp), reason);
	else if (ret == 0)
		ret = interpret(ctx, bp, b, &blk, &img, &res, vec, out);
	free(res.ctl);
	bprof_block_release(&blk);
	return ret < 0 ? ret : 0;
}

static int bprof_predict(struct lk_ctx *ctx, struct lk_predictor *p,
			 const struct lk_pblock *blocks, size_t n,
			 struct lk_pred *out)
{
	const struct bprof *bp = p->priv;
	size_t i;

	for (i = 0; i < n; i++) {
		double t0 = lk_now();
		int ret = measure(ctx, bp, &blocks[i], &out[i]);

		if (ret < 0)
			return ret;
		out[i].seconds = lk_now() - t0;
	}
	return 0;
}

static void bprof_destroy(struct lk_predictor *p)
{
	free(p->priv);
	p->priv = NULL;
}

static char *params_text(const struct bprof *bp)
{
	const struct lk_bprof_opts *o = &bp->opts;

	return lk_asprintf(
	    "u1=%u u2=%u reps=%u reduce=min timeout=%g cpu=%d "
	    "max_pages=%u value=0x%llx clock=%s method=unroll-difference "
	    "(t(u2)-t(u1))/((u2-u1)*passes), passes to %d ticks with lfence "
	    "and registers reset between, one shared page for every "
	    "faulting address, terminator dropped, rip-relative targets "
	    "kept, mxcsr=0x9fc0",
	    o->unroll1, o->unroll2, o->repetitions, o->timeout, o->cpu,
	    o->max_pages, (unsigned long long)o->value,
	    bp->use_pmu ? "pmu-cycles"
			: "tsc-calibrated(imul-r64-chain,3-cycles)",
	    PASS_TARGET_TICKS);
}

int lk_bprof_predictor(struct lk_ctx *ctx, const struct lk_bprof_opts *opts,
		       struct lk_predictor **out)
{
	struct lk_predictor *p;
	struct bprof *bp;
	int ret;

	*out = NULL;
#if !defined(__x86_64__)
	return lk_error(ctx, LK_EUNSUP, "bprof: runs x86-64 code only");
#endif
	bp = lk_calloc(1, sizeof(*bp));
	if (opts)
		bp->opts = *opts;
	else
		lk_bprof_opts_init(&bp->opts);
	if ((ret = opts_check(ctx, &bp->opts))) {
		free(bp);
		return ret;
	}
	bp->use_pmu =
	    bp->opts.clock != LK_BPROF_CLOCK_TSC && bprof_pmu_available();
	if (bp->opts.clock == LK_BPROF_CLOCK_PMU && !bp->use_pmu) {
		free(bp);
		return lk_error(ctx, LK_EUNSUP,
				"bprof: no PMU cycles counter on this machine");
	}
	bp->cpu_vec = cpu_vec();
	p = lk_calloc(1, sizeof(*p));
	p->name = lk_strdup("bprof");
	p->version = lk_strdup(BPROF_VERSION);
	p->params = params_text(bp);
	p->predict = bprof_predict;
	p->destroy = bprof_destroy;
	p->priv = bp;
	*out = p;
	return 0;
}
