/*
 * bprof's private parts: the control block shared by the parent, the
 * child's C set-up and the assembly stub (bprof-stub.c), the sandbox
 * layout, the checked and unrolled code image.
 */
#ifndef LOOPKIT_BPROF_INT_H
#define LOOPKIT_BPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "loopkit/bprof.h"

/*
 * The sandbox: one MAP_SHARED anonymous mapping made by the parent, the
 * only mapping the child keeps. Offsets from its start.
 */
#define SBX_STUB 0x0   /* the stub, copied, r-x in the child */
#define SBX_CTL 0x1000 /* struct bprof_ctl and the samples */
#define SBX_CTL_SIZE 0x10000
#define SBX_STACK 0x11000 /* the stub's stack */
#define SBX_STACK_SIZE 0x10000
#define SBX_ALTSTACK 0x21000 /* the signal handler's stack */
#define SBX_ALTSTACK_SIZE 0x10000
#define SBX_ALIAS 0x31000   /* the shared page, seen by the stub */
#define SBX_STAGING 0x32000 /* the code image, copied to its place */

/* Offsets into the control block, used by the stub (bprof-stub.c). */
#define CTL_VALUE 0
#define CTL_ENTRY 8
#define CTL_SAVED_RSP 16
#define CTL_T0 24
#define CTL_T1 32
#define CTL_C0 40
#define CTL_C1 48
#define CTL_PMU_FD 56
#define CTL_STACK_TOP 64
#define CTL_LO_LEN 72
#define CTL_HI_START 80
#define CTL_HI_LEN 88
#define CTL_SANDBOX_LO 96
#define CTL_SANDBOX_HI 104
#define CTL_CODE_ADDR 112
#define CTL_CODE_SIZE 120
#define CTL_STAGING 128
#define CTL_PAGE_ALIAS 136
#define CTL_MEMFD 144
#define CTL_PAGES 152
#define CTL_MAX_PAGES 160
#define CTL_TIMING 168
#define CTL_TIMED_FAULTS 176
#define CTL_VEC 184
#define CTL_MXCSR 192
#define CTL_FAIL_SIGNO 200
#define CTL_FAIL_CODE 208
#define CTL_FAIL_ADDR 216
#define CTL_FAIL_RIP 224
#define CTL_FAIL_WHY 232
#define CTL_FAIL_ERRNO 240
#define CTL_STATE 248
#define CTL_REPS 256
#define CTL_ENTRIES 264
#define CTL_PASSES_LEFT 296
#define CTL_TARGET 304
#define CTL_VECVAL 320
#define CTL_PASSES 384
#define CTL_WARM 416
#define CTL_SAMPLES 448

/* The four runs of a repetition, in this order. Macros, not enums: the
 * stub's assembly text uses them. */
#define RUN_CAL1 0
#define RUN_CAL2 1
#define RUN_BLK1 2
#define RUN_BLK2 3
#define NRUNS 4

/* Why the signal handler gave up (ctl.fail_why). */
#define WHY_SIGNAL 0 /* a signal other than a mappable SIGSEGV */
#define WHY_OWN                                                                \
	1	    /* SIGSEGV that is not an unmapped page, or one            \
		       inside the sandbox */
#define WHY_CAP 2   /* more than max_pages pages */
#define WHY_MMAP 3  /* mmap refused the page (errno) */
#define WHY_SETUP 4 /* the stub's own set-up failed (errno) */

/* Vector register set-up (ctl.vec). */
#define VEC_SSE 0	/* xmm0-15 (no AVX on this CPU) */
#define VEC_SSE_CLEAN 1 /* vzeroupper, then xmm0-15 */
#define VEC_YMM 2	/* ymm0-15 */
#define VEC_ZMM 3	/* zmm0-31, k1-k7 all ones (16 bits) */
#define VEC_ZMM_BW 4	/* zmm0-31, k1-k7 all ones (64 bits) */

struct bprof_ctl {
	uint64_t value, entry, saved_rsp, t0, t1, c0, c1;
	int64_t pmu_fd;
	uint64_t stack_top, lo_len, hi_start, hi_len, sandbox_lo, sandbox_hi;
	uint64_t code_addr, code_size, staging, page_alias;
	int64_t memfd;
	uint64_t pages, max_pages, timing, timed_faults, vec, mxcsr;
	uint64_t fail_signo, fail_code, fail_addr, fail_rip, fail_why;
	uint64_t fail_errno, state, reps;
	uint64_t entries[NRUNS];
	uint64_t passes_left; /* of the run under way */
	uint64_t target;      /* ticks a long run should last at least */
	uint64_t pad;
	uint64_t vecval[8] __attribute__((aligned(64)));
	uint64_t passes[NRUNS]; /* passes over the code per timed run */
	uint64_t warm[NRUNS];	/* ticks of one pass, after the warm-up */
	/* then reps * NRUNS TSC samples, then reps * NRUNS PMU samples */
	uint64_t samples[];
};

#define BPROF_MAX_REPS                                                         \
	((SBX_CTL_SIZE - CTL_SAMPLES) / (2 * NRUNS * sizeof(uint64_t)))

/*
 * The TSC of this machine advances in steps of 26 ticks (13 ns): a single
 * pass over 100 copies of a short block lasts a few steps. So a timed run
 * makes K passes over the copies, the general registers reset to the
 * value between passes (each pass is one BHive run, the same pages), with
 * K chosen after the warm-up so that the long run lasts this long. The
 * per-pass cost is the same for both unroll factors and cancels.
 */
#define PASS_TARGET_TICKS 20000

/* The reference chain timed beside the block: dependent imul r64, r64. */
#define CAL_LATENCY 3
#define CAL_SHORT 256
#define CAL_LONG 512

/* One instruction of the block, as the checks saw it. */
struct bprof_insn {
	size_t off;
	uint8_t len;
	int rip_disp;	  /* has a RIP-relative disp32 */
	uint8_t disp_off; /* where it sits in the instruction */
	uint64_t target;  /* the address it designates, at the block's
			     link address */
};

/* A block checked and ready to unroll. */
struct bprof_block {
	const uint8_t *bytes; /* borrowed from the lk_pblock */
	size_t len;	      /* without the dropped terminator */
	struct bprof_insn *insns;
	size_t ninsns;
	char *dropped; /* the terminator's mnemonic, or NULL */
	int vec;       /* VEC_* the block needs, before the CPU's */
	int has_rip;
	uint64_t rip_lo, rip_hi; /* range of RIP-relative targets */
};

/*
 * Decode and check b. 0: *out is ready (bprof_block_release it); 1: the
 * block cannot run in the sandbox, *reason says why (owned); 2: the
 * block is only a terminator, which the method drops, so it costs 0
 * (*reason says so).
 */
int bprof_block_check(const struct lk_pblock *b, struct bprof_block *out,
		      char **reason);
void bprof_block_release(struct bprof_block *blk);

/* The code image: the calibration chain, then the unrolled block. */
struct bprof_image {
	uint64_t code_addr;	   /* where the child maps it */
	size_t size;		   /* page multiple */
	uint64_t blk_base;	   /* first copy of the block */
	unsigned unroll1, unroll2; /* as used (large blocks are scaled) */
	uint64_t entries[NRUNS];
};

/*
 * Choose where the image goes (near the block's RIP-relative targets,
 * so they keep their link-time addresses) and its size. 1 with *reason
 * when no place fits.
 */
int bprof_image_plan(const struct bprof_block *blk,
		     const struct lk_bprof_opts *opts, uint64_t sandbox,
		     size_t sandbox_size, struct bprof_image *img,
		     char **reason);
/* Write the image into dst (img->size bytes); back: the stub's return. */
void bprof_image_write(const struct bprof_block *blk,
		       const struct bprof_image *img, uint64_t back,
		       uint8_t *dst);

/* How one child ended. */
struct bprof_outcome {
	int exited, exit_code, signaled, signal, timed_out;
	struct bprof_ctl *ctl; /* a copy, with the samples */
};

/*
 * Run blk in a fresh sandboxed child. < 0 with ctx set only when the
 * sandbox cannot be made at all; otherwise 0 with *res filled (free
 * res->ctl) or 1 with *reason (no place for the image).
 */
int bprof_sandbox_run(struct lk_ctx *ctx, const struct lk_bprof_opts *opts,
		      const struct bprof_block *blk, int vec, int use_pmu,
		      struct bprof_image *img, struct bprof_outcome *res,
		      char **reason);

/* Can this process count its own user-space cycles (perf_event)? */
int bprof_pmu_available(void);

/* The stub (bprof-stub.c): symbols inside the copied bytes. */
extern const char bprof_stub_start[], bprof_stub_handler[],
    bprof_stub_restorer[], bprof_stub_back[], bprof_stub_end[];

#endif
