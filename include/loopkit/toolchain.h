/*
 * toolchain: where the compiler finds the benchmark runtime (lkrt.h,
 * liblkrt.a) and the GCC plugin, the compile command lines built against
 * them, compiler errors read from a log, and the content-hash build cache
 * in the campaign store that gen, measure and filter compile through.
 */
#ifndef LOOPKIT_TOOLCHAIN_H
#define LOOPKIT_TOOLCHAIN_H

#include "config.h"
#include "core.h"
#include "store.h"

/* ---- Paths. ---- */

/* Where lkrt.h and liblkrt.a are (LOOPKIT_RT_DIR overrides both). */
const char *lk_rt_include_dir(void);
const char *lk_rt_lib_dir(void);
/* The GCC plugin lkmemprof.so (LOOPKIT_PLUGIN overrides it). */
const char *lk_plugin_path(void);
/* loopkit's data files, share/ (LOOPKIT_SHARE_DIR overrides it): the
 * MDL seeds in mdl/seeds/. */
const char *lk_share_dir(void);

/* ---- Compile command lines. ---- */

struct lk_cc_line {
	const char *compiler;          /* argv[0]: gcc, clang, a path */
	const struct lk_strv *flags;   /* after the compiler, as given;
					* NULL: none */
	const char *const *sources;    /* nsources paths, in order */
	size_t nsources;
	const char *output;            /* the -o argument */
	int compile_only;              /* -c, no runtime library, no -lm */
	int output_first;              /* -o OUTPUT before the sources */
};

/*
 * Append a compile line to argv: compiler, flags, -I<lk_rt_include_dir>,
 * the sources, -o OUTPUT (before the sources with output_first; after
 * "-c" with compile_only), then <lk_rt_lib_dir>/liblkrt.a and -lm
 * unless compile_only. line->compiler, ->output and every source must
 * be set.
 */
void lk_cc_argv(const struct lk_cc_line *line, struct lk_strv *argv);

/* The first line of a compiler's output that says what went wrong (gcc's
 * "error:", the assembler's "Error:", the linker's undefined symbol), with
 * its file:line ("x.c:3:7: error: ..."), or NULL. */
LK_GIVE char *lk_compiler_error(const char *log);

/* ---- The build cache. ---- */

struct lk_build_spec {
	const char *source;       /* path */
	const char *compiler;     /* gcc, clang, a path */
	const char *cflags;       /* user flags, split like a shell */
	const struct lk_param *defines;
	size_t ndefines;
	long align_functions;     /* 0: none */
	int opt_report;           /* ask for the vectoriser's report (gcc
				   * -fopt-info, clang -Rpass) on stderr:
				   * it lands in the build's log */
	size_t memory_limit;      /* the compiler's address space; 0: the
				     default, LK_PROC_UNLIMITED: none (not
				     part of the build's key) */
};

/*
 * The build's cache key: source content, compiler identity (its
 * --version), the argv, the runtime's header and library. LK_EINPUT for
 * unsplittable flags, LK_ENOTFOUND for a missing source or compiler.
 */
int lk_build_key(struct lk_ctx *ctx, const struct lk_build_spec *spec,
		 char key[LK_HASH_HEX]);

/*
 * Compile spec into the store's object area unless a build with the same
 * key is already stored (then reuse it, success or failure). b is filled
 * (release with lk_build_rec_release). A compile error is not a function
 * failure: b->ok is 0 and b->reason says why. Thread-safe when every
 * thread has its own ctx; store writes are serialised inside.
 */
int lk_build(struct lk_ctx *ctx, struct lk_store *s,
	     const struct lk_build_spec *spec, struct lk_build_rec *b);

#endif
