/*
 * filter: the L1-residency filter of the code-analyzer harness. A
 * throughput predictor models a kernel whose data sit in L1; a variant
 * that streams from farther away is kept out of the evaluation, with its
 * reason stored (doc/loopkit-filter.md).
 *
 * The figure is the warm D1 miss ratio of the kernel FUNCTION (not the
 * whole program, whose start-up misses dominate small kernels), from
 * valgrind's cachegrind run twice with different numbers of kernel
 * calls: (misses(b) - misses(a)) / (accesses(b) - accesses(a)), so the
 * cold misses of the first call cancel. Valgrind 3.19 dies on AVX-512
 * code and crawls on FMA: an EVEX-encoded kernel is judged by cachegrind
 * on a proxy, the same source built with -march=x86-64-v3 (campaign
 * mode builds it), and only when there is none by the working set the
 * generator proved, else "unknown"; a cachegrind run that fails or times
 * out is "unknown" with its reason. Never a silent pass.
 */
#ifndef LOOPKIT_FILTER_H
#define LOOPKIT_FILTER_H

#include <stdint.h>

#include "binary.h"
#include "config.h"
#include "core.h"
#include "store.h"

/* Chosen from measurements, see doc/loopkit-filter.md. */
#define LK_L1_DEFAULT_THRESHOLD 0.01

/* The event columns of cachegrind --cache-sim=yes, in its order. */
enum lk_cg_event {
	LK_CG_IR, LK_CG_I1MR, LK_CG_ILMR,
	LK_CG_DR, LK_CG_D1MR, LK_CG_DLMR,
	LK_CG_DW, LK_CG_D1MW, LK_CG_DLMW,
	LK_CG_NEVENTS
};

struct lk_cg_counts {
	uint64_t ev[LK_CG_NEVENTS];  /* summed over the function's lines */
	long lines;                  /* cost lines seen for the function */
};

/*
 * Sum the events of function 'fn' over every fl=/fn= block of a
 * cachegrind.out file's text (name is used in messages). Columns follow
 * the file's "events:" line, whatever its order; events it lacks, and
 * trailing counts a line omits, read 0. LK_EINPUT as "name:line:
 * problem" for a malformed file (no events line, a count that is not a
 * number, more counts than events). A function absent from the file
 * gives 0 lines, not an error.
 */
int lk_cachegrind_function(struct lk_ctx *ctx, const char *name,
			   const char *text, size_t len, const char *fn,
			   struct lk_cg_counts *out);

/*
 * The warm D1 miss ratio from runs a (fewer calls) and b: (D1mr + D1mw)
 * differences over (Dr + Dw) differences; *reads gets the same for
 * reads alone (-1 when there are no extra reads). LK_EINPUT when b made
 * no more data accesses than a.
 */
int lk_l1_warm_ratio(struct lk_ctx *ctx, const struct lk_cg_counts *a,
		     const struct lk_cg_counts *b, double *ratio,
		     double *reads);

/* Settings with every default resolved. */
struct lk_l1_settings {
	double threshold;
	long l1d_size, l1d_assoc, line_size;
	long calls[2];
	double timeout;
	const char *working_set_param;   /* borrowed */
	const char *l1d_from;            /* "host", "config", "default" */
};

/* Resolve cfg (NULL: all defaults) against this host's L1D (sysconf),
 * falling back to 32 KiB, 8-way, 64-byte lines. */
void lk_l1_settings_resolve(const struct lk_l1_filter_cfg *cfg,
			    struct lk_l1_settings *out);

struct lk_l1_verdict {
	const char *verdict;   /* pass, exclude, unknown (static) */
	const char *source;    /* cachegrind, cachegrind-x86-64-v3,
				* cachegrind-proxy, working-set, decoder
				* (static) */
	int has_value;
	double value;          /* the warm D1 miss ratio (cachegrind) */
	double read_ratio;     /* the same for reads, -1 if unknown */
	char *reason;          /* always set, owned */
	int ran_valgrind;
	int valgrind_sigill;   /* unknown because valgrind could not run an
				  instruction of the binary (AVX-512 code
				  outside the kernel): a proxy can judge */
};

/* The ISA of the proxy build of an AVX-512 variant. */
#define LK_L1_PROXY_ISA "x86-64-v3"

/* A build of the same source that valgrind can run, judged in place of
 * an AVX-512 binary. */
struct lk_l1_proxy {
	const char *binary;    /* NULL: none, why says why */
	const char *name;      /* "x86-64-v3": "judged by its NAME build" */
	const char *flags;     /* its flags, for the reason, or NULL */
	const char *source;    /* the verdict's source, static */
	const char *why;       /* no binary: why, for the reason */
};

/*
 * The flags of the proxy build: cflags without -march=, -mavx512*,
 * -mno-avx512* and -mavx10* words, then -march=x86-64-v3, written so
 * that lk_strv_split reads the same words. NULL (LK_EINPUT in ctx) when
 * cflags do not split.
 */
LK_GIVE char *lk_l1_proxy_flags(struct lk_ctx *ctx, const char *cflags);

/* 1 when the kernel (lk_cfg_kernel's) has EVEX (AVX-512) code, 0 when
 * not. */
int lk_l1_avx512(const struct lk_cfg *kernel);

/*
 * Judge one binary: its kernel (the function called between the region
 * markers) is decoded first. EVEX code is judged by cachegrind on the
 * proxy (source proxy->source) when there is one free of EVEX code,
 * else by the working set (params[] holding set->working_set_param,
 * source "working-set") or "unknown", the reason saying why there was no
 * proxy; anything else runs cachegrind twice. Every outcome, including
 * valgrind failing, is a verdict with its reason (return 0); < 0 only
 * when the kernel cannot be found or decoded (the message in ctx).
 * Release out in both cases. proxy may be NULL.
 */
int lk_l1_check(struct lk_ctx *ctx, const char *binary,
		const struct lk_l1_settings *set,
		const struct lk_param *params, size_t nparams,
		const struct lk_l1_proxy *proxy, struct lk_l1_verdict *out);
/*
 * lk_l1_check on a kernel already decoded (lk_cfg_kernel: read from the
 * store, or from binary), which it borrows; binary is what cachegrind
 * runs. The same verdicts and returns.
 */
int lk_l1_check_kernel(struct lk_ctx *ctx, const char *binary,
		       const struct lk_cfg *kernel,
		       const struct lk_l1_settings *set,
		       const struct lk_param *params, size_t nparams,
		       const struct lk_l1_proxy *proxy,
		       struct lk_l1_verdict *out);
void lk_l1_verdict_release(struct lk_l1_verdict *v);

/*
 * The filter stage (lk_stage_fn): judge every variant of the campaign
 * with cfg->filter (cfg NULL: the defaults) and store its "l1" verdict,
 * opts->jobs cachegrind runs at a time. A variant with a verdict is not
 * judged again unless cfg->filter.redo; a stored cachegrind ratio is
 * re-compared with the current threshold (no valgrind) and its verdict
 * rewritten when that changes it. A variant without a binary is
 * skipped. Items: status = the verdict, reason = why; the campaign's
 * line tallies the verdicts.
 */
lk_stage_fn lk_filter_stage;

#endif
