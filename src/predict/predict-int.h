/*
 * Private to src/predict (and its unit tests): turning blocks into
 * assembly a tool accepts, the llvm-mca batch file and the parser of
 * llvm-mca's report.
 */
#ifndef LOOPKIT_PREDICT_INT_H
#define LOOPKIT_PREDICT_INT_H

#include "loopkit/predict.h"

/* ---- The campaign's blocks (blocks.c). ---- */

/*
 * lk_block_set_add_binary's work for the region's kernel of binary, read
 * from s (lk_cfg_kernel: the blocks stage's stored kernel with its code)
 * when it is there, else decoded from the binary. LK_ESTORE for the
 * store; other codes, the message naming the binary, for the binary.
 */
int lk_block_set_add_kernel(struct lk_ctx *ctx, struct lk_block_set *bs,
			    struct lk_store *s, const char *binary,
			    size_t *added);

/* ---- Block text (asm.c). ---- */

/* One block as assembly: lines ending in '\n', or why there is none. */
struct lk_asm {
	char *text;    /* NULL when the block could not be turned into text */
	char *reason;  /* set when text is NULL */
	int unsupported; /* the reason is a limit of the tool, not an error */
};

/*
 * The blocks as assembly the LLVM assembler (and GNU as) accepts. With
 * llvm_mc, their bytes (blocks without bytes, loopkit asm's text: none)
 * are disassembled by it, all in one process (LLVM's
 * own text of the very bytes: Zydis's AT&T spelling, vmovupdz, movsdq,
 * absolute RIP targets, is not something an assembler takes back);
 * without, Zydis's AT&T text is used as it is. Then a direct branch or
 * call target (a number) becomes the local label "1f", defined by a "1:"
 * line ending every block, and a call ending a block is dropped (llvm-mca
 * gives every call a latency of 100 cycles; the callee is not part of
 * the block anyway), leaving a comment. out[0..n) is zeroed by the
 * caller; free each with lk_asm_release. < 0 only when llvm_mc cannot
 * run at all.
 */
int lk_asm_blocks(struct lk_ctx *ctx, const char *llvm_mc,
		  const struct lk_pblock *blocks, size_t n, double timeout,
		  struct lk_asm *out);
void lk_asm_release(struct lk_asm *a);

/* Rewrite one disassembled line in place for reassembly (see
 * lk_asm_blocks): 1 when it was a direct branch or call whose target was
 * replaced, 2 when it is a call (to drop), 0 otherwise. */
int lk_asm_fix_line(struct lk_buf *line);

/* A fresh private directory under $TMPDIR (or /tmp), NULL (ctx says
 * why) on failure. The caller removes it. */
LK_GIVE char *lk_predict_tmpdir(struct lk_ctx *ctx);

/* ---- llvm-mca's input and report (mca-report.c). ---- */

/* The region name of batch entry i: "b<i>". */
#define LK_MCA_REGION_FMT "b%zu"

/*
 * Write the batch file: every text[idx[k]] between
 * "# LLVM-MCA-BEGIN b<k>" and "# LLVM-MCA-END b<k>". first_line[k] and
 * last_line[k] get the 1-based lines its text spans (for errors).
 */
void lk_mca_batch_text(const char *const *texts, size_t n, struct lk_buf *out,
		       long *first_line, long *last_line);

/* One region of a report. */
struct lk_mca_region {
	char *name;
	long iterations;
	double total_cycles;
	char *section;    /* from its "[k] Code Region - name" line on */
};

/*
 * Parse llvm-mca's default text report into its regions, in order. A
 * report without region headers is one region called "". A region whose
 * Iterations or Total Cycles is missing gets -1 there. Never fails on
 * bad text: what cannot be read is left out. Free with
 * lk_mca_regions_free.
 */
void lk_mca_parse(const char *report, struct lk_mca_region **out, size_t *n);
void lk_mca_regions_free(struct lk_mca_region *r, size_t n);

/*
 * Cycles per block iteration from the totals at two iteration counts,
 * (c2 - c1) / (i2 - i1): the pipeline's fill and drain, the same in both
 * runs, cancel. Returns -1 when i2 <= i1 or a total is missing.
 */
double lk_mca_difference(long i1, double c1, long i2, double c2);

/*
 * What went wrong in llvm-mca's stderr: the 1-based input line of every
 * "FILE:LINE:COL: error:" (lines[], *nlines) and the instruction text of
 * every "note: instruction:" (insns, whitespace collapsed). The
 * message to record for a line is returned by lk_mca_error_at.
 */
void lk_mca_errors(const char *err, long **lines, size_t *nlines,
		   struct lk_strv *insns);
/* The error message (and the source line after it) for input line
 * 'line' in err, or NULL. */
LK_GIVE char *lk_mca_error_at(const char *err, long line);
/* s with runs of blanks collapsed to one space, trimmed. */
LK_GIVE char *lk_squeeze(const char *s);

#endif
