/*
 * gen: the micro-benchmark generator. A C file's '#pragma scop' region is
 * read with libclang into a polyhedral model (isl sets and maps), its
 * dependences computed with isl's flow analysis, transformed by a chain
 * of steps each checked legal against them, and printed back as C by
 * isl's AST generator with the original statements' text. Every
 * generated file can be verified by compiling it at a small size and
 * comparing its --checksum with the original's (doc/loopkit-gen.md).
 */
#ifndef LOOPKIT_GEN_H
#define LOOPKIT_GEN_H

#include "config.h"
#include "core.h"
#include "store.h"

/*
 * The polyhedral model of a scop and a transformed scop. Their layout
 * (isl sets, maps and schedules) is the generator's own, in
 * src/gen/poly.h; callers hold them through these functions.
 */
struct lk_gen_scop;
struct lk_gen_result;

/*
 * Parse 'path' with libclang (cflags: the user's -D/-I/-std words) and
 * model its scop. Unsupported constructs are LK_EINPUT "file:line:
 * unsupported <construct>"; a file that does not compile is LK_EINPUT
 * with clang's first error. *out is NULL on failure.
 */
int lk_gen_scop_parse(struct lk_ctx *ctx, const char *path,
		      const struct lk_strv *cflags,
		      LK_GIVE struct lk_gen_scop **out);
void lk_gen_scop_free(struct lk_gen_scop *scop);
/* A size the user gave ("NAME=VALUE", gen --param): kernelify's sizes
 * before what a call passes. */
void lk_gen_scop_add_size(struct lk_gen_scop *scop, const char *name_value);

/*
 * Apply chain to scop (computing the dependences first), check the new
 * schedule against every dependence and generate code. An illegal step
 * is LK_EINPUT naming the step and the violated dependence ("RAW S0[i]
 * -> S0[1 + i]"); a step that does not apply (no band to tile) is
 * LK_EINPUT too. *out NULL on failure.
 */
int lk_gen_transform(struct lk_ctx *ctx, struct lk_gen_scop *scop,
		     const struct lk_gen_chain *chain,
		     LK_GIVE struct lk_gen_result **out);
void lk_gen_result_free(struct lk_gen_result *r);
/* The whole file with the new region in place; after a kernelify step
 * the standalone micro-kernel file instead. Owned by r. */
const char *lk_gen_result_source(const struct lk_gen_result *r);

/*
 * Compile the original program 'source' (gcc -O2 -ffp-contract=off,
 * -D<define>, the extra cflags, the runtime) in 'workdir' and read its
 * result into *sum: for a program that includes polybench.h, linked
 * with the polybench.c beside a polybench.h of cflags' -I directories
 * and built with -DPOLYBENCH_DUMP_ARRAYS, a hash of its array dump;
 * otherwise what it prints with --checksum, trimmed. A compile error or
 * a crash is LK_ECHILD with the reason; a program that can be verified
 * neither way (no harness found, no dump, nothing printed) LK_EINPUT
 * naming --no-verify.
 */
int lk_gen_checksum(struct lk_ctx *ctx, const char *source,
		    const char *workdir, const char *define,
		    const struct lk_strv *cflags, LK_GIVE char **sum);

/* Does C text 'text' include polybench.h? */
int lk_gen_uses_polybench(const char *text);

/*
 * Verify what chain 'chain' made: the transformed file (for a chain
 * ending in kernelify, the one the micro-kernel was cut from) must print
 * the original's checksum 'ref'; a micro-kernel must compile and run.
 * The files are written in 'workdir' as 'name' (the kernel's base name,
 * its headers found through cflags' -I). A mismatch is LK_ECHILD naming
 * the chain and both checksums.
 */
int lk_gen_verify(struct lk_ctx *ctx, const struct lk_gen_result *r,
		  const char *chain, const char *ref, const char *workdir,
		  const char *name, const char *define,
		  const struct lk_strv *cflags);

/*
 * The facts a kernelified file records about itself (the lines
 * " * param NAME=VALUE" of its header comment), appended to names and
 * values. Returns how many; 0 for any other file.
 */
size_t lk_gen_kernel_params(const char *source, struct lk_strv *names,
			    struct lk_strv *values);

/* The kernel's name: from its 'kernel_<name>' function, else the file's
 * base name without extension. */
LK_GIVE char *lk_gen_kernel_name(const struct lk_gen_scop *scop);

/*
 * The working-set budget in bytes of a kernelify step without l1=: half
 * the L1D `loopkit env` reports (lk_env_l1d_bytes), 16 KiB when it
 * cannot say. A stored micro-kernel depends on it besides its chain.
 */
long lk_gen_kernelify_default_l1(void);

/*
 * The generator over a campaign: for every source x chain of the sweep's
 * gen section, generate, verify against the original's checksum, store
 * the file content-addressed in the open store 's' and record one
 * variant of 'campaign' per compiler x flag set x -D combination
 * (params: the -D axes, then kernel, family, transformation and the
 * steps' parameters as "<step>.<key>"); the campaign's config hash is
 * recorded too. Units already in the store (or failed before,
 * remembered beside the store, unless opts->retry_failed) are skipped;
 * a unit's key is its source's content, its chain and every flag its
 * parse and verification get. With opts->list_only nothing is
 * generated: *summary lists the units. Illegal or failing units are
 * reported, not fatal. Units run in threads, which share no store
 * handle (they write files only).
 */
struct lk_gen_unit_report {
	char *kernel, *family, *chain;
	char *status;     /* generated, stored-earlier, illegal, failed,
			     unsupported, planned */
	char *reason;     /* "" when fine */
	char *object;     /* the generated file in the store, "" if none */
	long variants;    /* variants recorded */
};

struct lk_gen_summary {
	struct lk_gen_unit_report *units;
	size_t n;
	long generated, skipped, failed, variants;
};

int lk_gen_campaign(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *sweep,
		    const struct lk_stage_opts *opts,
		    struct lk_gen_summary *summary);
void lk_gen_summary_release(struct lk_gen_summary *s);

/*
 * The gen stage (lk_stage_fn): lk_gen_campaign, one item per unit
 * (label "KERNEL CHAIN"), done = generated, earlier = stored earlier,
 * failed = not generated, and the campaign's line. A sweep with an asm:
 * section writes its variants instead (lk_asm_stage); one with neither
 * has nothing to do (0, the line says so). Each unit with a reason is
 * said on stderr.
 */
lk_stage_fn lk_gen_stage;

/* ---- Instruction benchmarks: the asm: section (src/gen/asm.c). ---- */

/* The region of an asm variant's kernel of 2 x unroll copies
 * (asm.difference); the unroll copies are measured in region "kernel". */
#define LK_ASM_REGION_2U "kernel-2u"

/*
 * The C file of one asm variant into c: a noinline kernel whose one
 * inline-asm statement zeroes the registers body and init name (unless
 * the version has its own init; an AND with zeroes in memory, in the
 * register's integer or FP domain), runs init, then body 'a->unroll'
 * times (.rept), every '%' escaped, with %r14 holding 'a->memory' bytes
 * of zeroed scratch memory and every other register named in the
 * clobber list. main declares the kernel's instructions per call,
 * unroll x *insns (lk_work "instructions": the runner stores
 * instructions/cycle), and measures it in region "kernel"; with
 * a->difference a second kernel of 2 x unroll copies in region
 * LK_ASM_REGION_2U. *insns gets the static instructions of one copy of
 * body. LK_EINPUT naming label for an empty body.
 */
int lk_asm_source(struct lk_ctx *ctx, const struct lk_asm_cfg *a,
		  const struct lk_asm_version *ver, const struct lk_strv *body,
		  const char *label, struct lk_buf *c, long *insns);

/* One recorded asm variant. */
struct lk_asm_unit {
	int64_t variant_id;
	char *label;      /* "asm=fma asm.chains=4" ... */
	char *copy;       /* one copy of the body, a line per instruction
			     (".intel_syntax noprefix" first for intel) */
	long insns;       /* static instructions per copy */
	long unroll;      /* copies per kernel call */
	int difference;   /* 2 x unroll copies too, region LK_ASM_REGION_2U */
};

struct lk_asm_plan {
	struct lk_asm_unit *units;
	size_t n;
};

/*
 * For every variant of sw's asm: section (lk_sweep_expand, filters
 * applied), write its C file into the open store s content-addressed and
 * record it as a variant of 'campaign' (parameters: every axis, then
 * asm.insns and asm.unroll), in expansion order, and make them the
 * campaign's current variants (lk_store_variants_current: run -c then
 * measures these, not every variant the campaign had). A variant
 * recorded earlier keeps its id. Nothing to do without an asm: section.
 * Release *plan (filled as far as it got) with lk_asm_plan_release.
 */
int lk_asm_campaign(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *sw, struct lk_asm_plan *plan);
void lk_asm_plan_release(struct lk_asm_plan *plan);
/*
 * The gen stage of a sweep with an asm: section (lk_gen_stage calls it):
 * lk_asm_campaign, one item per variant ("ok"), done = variants, and the
 * campaign's line. < 0 when a file or the store cannot be written.
 */
int lk_asm_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		 const struct lk_sweep *sw, struct lk_stage_summary *sum);
/* sum's items from plan: one per variant, "ok", in plan order; done =
 * their number. sum's line is left to the caller. */
void lk_asm_plan_items(const struct lk_asm_plan *plan,
		       struct lk_stage_summary *sum);

#endif
