/*
 * mdl: the Micro-kernel Description Language (MDL text v1, doc/mdl.md).
 * A loop nest's abstract data flow: meta-data (unroll, spill/fill, ...),
 * data (memory streams, scalars) and a body of loops whose innermost
 * level holds µkernels (memory accesses and their add/mul counts). All
 * strides, offsets and sizes are in bytes.
 */
#ifndef LOOPKIT_MDL_H
#define LOOPKIT_MDL_H

#include <stdint.h>

#include "core.h"

/* An integer or a scalar's name (name != NULL). */
struct lk_mdl_value {
	long long num;
	char *name;
};

enum lk_mdl_op {
	LK_MDL_VALUE = 0,      /* a leaf: v */
	LK_MDL_ADD, LK_MDL_SUB, LK_MDL_MUL, LK_MDL_MOD, LK_MDL_DIV,
};

/* Trip counts, footprints and strides of outer loops. */
struct lk_mdl_expr {
	enum lk_mdl_op op;
	struct lk_mdl_value v;            /* LK_MDL_VALUE */
	struct lk_mdl_expr *l, *r;        /* the others */
};

enum lk_mdl_lit_kind { LK_MDL_INT, LK_MDL_DEC, LK_MDL_STR, LK_MDL_IDENT };

/* key = literal, in Meta: and on flow declarations. */
struct lk_mdl_attr {
	char *key;
	enum lk_mdl_lit_kind kind;
	char *text;            /* canonical text; a string without quotes */
};

struct lk_mdl_flow {
	char *name;
	struct lk_mdl_attr *attrs;
	size_t nattrs;
};

struct lk_mdl_scalar {
	char *name;
	long long value;
};

/* One access of a µkernel; flow indexes struct lk_mdl.flows. */
struct lk_mdl_access {
	size_t flow;
	struct lk_mdl_value stride, offset, size;
};

struct lk_mdl_ukernel {
	struct lk_mdl_access *in, *out;
	size_t nin, nout;
	struct lk_mdl_value add, mul;
};

/* A flow's footprint at one loop level (I/O:). */
struct lk_mdl_io {
	size_t flow;
	struct lk_mdl_expr *bytes;
};

enum lk_mdl_binding_kind { LK_MDL_FIXED, LK_MDL_STRIDED, LK_MDL_SWITCH };

/* How an outer loop moves a flow: fixed, strided by step bytes per
 * iteration, or switching between the flows in[0..nin) in turn. */
struct lk_mdl_binding {
	enum lk_mdl_binding_kind kind;
	size_t flow;
	struct lk_mdl_expr *step;          /* strided */
	size_t *in;                        /* switch */
	size_t nin;
};

/* A loop: outer (bindings and loops) or innermost (µkernels). */
struct lk_mdl_loop {
	struct lk_mdl_expr *trip;
	struct lk_mdl_io *in, *out;
	size_t nin, nout;
	struct lk_mdl_binding *bindings;
	size_t nbindings;
	struct lk_mdl_loop *loops;
	size_t nloops;
	struct lk_mdl_ukernel *ukernels;
	size_t nukernels;
};

struct lk_mdl {
	long version;                      /* 1 */
	struct lk_mdl_attr *meta;
	size_t nmeta;
	struct lk_mdl_flow *flows;
	size_t nflows;
	struct lk_mdl_scalar *scalars;
	size_t nscalars;
	struct lk_mdl_loop body;
};

/*
 * Parse MDL text 'text' (len bytes; 'file' names it in messages). A
 * malformed text is LK_EINPUT "file:line:col: what was expected, what was
 * found"; flows and scalars must be declared before use and once. *out
 * is zeroed on failure. Release with lk_mdl_release.
 */
int lk_mdl_parse(struct lk_ctx *ctx, const char *file, const char *text,
		 size_t len, struct lk_mdl *out);
/* lk_mdl_parse of a file's content. */
int lk_mdl_load(struct lk_ctx *ctx, const char *path, struct lk_mdl *out);
void lk_mdl_release(struct lk_mdl *m);

/*
 * The canonical text: fixed order, two-space indentation, one access
 * per line, decimal integers, no comments; print(parse(print(m))) is
 * print(m) byte for byte.
 */
void lk_mdl_print(const struct lk_mdl *m, struct lk_buf *out);
/*
 * The canonical body: the Body: text alone, flows renamed s0, s1, ... in
 * the order they first appear in it. Two loops with the same abstract
 * data flow have the same canonical body whatever their registers,
 * symbols and unrolling (which live in Meta: and Data:).
 */
void lk_mdl_canonical_body(const struct lk_mdl *m, struct lk_buf *out);
/* The same content as JSON: {"version", "meta": {...}, "flows": [...],
 * "scalars": {...}, "body": {loop}}, a loop being {"trip", "in", "out",
 * "bindings", "loops", "ukernels"}, expressions as their text. */
void lk_mdl_json(const struct lk_mdl *m, struct lk_buf *out);

/* ---- Concretisation: a µkernel as an x86-64 micro-benchmark. ---- */

struct lk_env_caches;

enum lk_mdl_isa {
	LK_MDL_ISA_SCALAR, LK_MDL_ISA_SSE, LK_MDL_ISA_AVX2, LK_MDL_ISA_AVX512,
};

/* One instruction per (operation, form) for one element size. */
struct lk_mdl_insns {
	const char *load_scalar, *load_packed;   /* store: the same mnemonic */
	const char *add_scalar, *add_packed;
	const char *mul_scalar, *mul_packed;
};

/*
 * A machine description: one ISA class's vector registers and its
 * instruction templates (compiled-in tables, src/mdl/machine.c).
 * Arithmetic keeps the destructive semantics dst = dst op src in both
 * encodings: "op src, dst" (SSE) or "op src, dst, dst" (VEX/EVEX).
 */
struct lk_mdl_machine {
	const char *name;           /* "scalar", "sse", "avx2", "avx512" */
	enum lk_mdl_isa isa;
	int registers;              /* vector registers: 16, 32 with AVX-512 */
	int packed_bytes;           /* widest packed access; 0: scalar only */
	int three_operand;          /* VEX/EVEX forms (and vzeroupper) */
	const char *target;         /* function attribute target(...), or NULL */
	const char *cpu_flags;      /* cpu.isa flags it needs ("" for none) */
	struct lk_mdl_insns insns[2];   /* [0]: 4-byte, [1]: 8-byte elements */
};

/* The description named name ("scalar", "sse", "avx2", "avx512"), or
 * NULL. */
const struct lk_mdl_machine *lk_mdl_machine_find(const char *name);
/* Does a CPU with cpu_isa (lk_env's "cpu.isa": space-separated flags)
 * run m's code? SSE2 is part of x86-64 and always there. */
int lk_mdl_machine_runs(const struct lk_mdl_machine *m, const char *cpu_isa);
/*
 * The description name names ("auto": the widest this machine runs) for
 * this machine, read through lk_env_collect(). An unknown name, or a
 * class the CPU lacks, is LK_EINPUT with the reason.
 */
int lk_mdl_machine_host(struct lk_ctx *ctx, const char *name,
			const struct lk_mdl_machine **out);

enum lk_mdl_level { LK_MDL_L1, LK_MDL_L2, LK_MDL_L3, LK_MDL_RAM };

/* "L1", "L2", "L3", "RAM" <-> the level; parse: 0 or LK_EINPUT. */
int lk_mdl_level_parse(const char *s, enum lk_mdl_level *out);
const char *lk_mdl_level_name(enum lk_mdl_level level);
/* The working set of a level: L1 half the L1D, L2 half the L2, L3 a
 * quarter of the L3, RAM four times the L3; 0 when the size is unknown. */
long lk_mdl_level_bytes(enum lk_mdl_level level,
			const struct lk_env_caches *caches);

enum lk_mdl_first { LK_MDL_FIRST_MUL = 0, LK_MDL_FIRST_ADD };

struct lk_mdl_concrete_opts {
	enum lk_mdl_level level;
	long bytes;            /* working set; 0: the level's from the caches */
	int unroll;            /* canonical iterations per asm iteration */
	int bundles;           /* Algorithm 2's bundle count, >= 1 */
	enum lk_mdl_first first;   /* Algorithm 1's first operation */
	const char *source;    /* named in the header comment; may be NULL */
};

/* Defaults: L1, bytes 0, unroll 8, bundles 1, first mul. */
void lk_mdl_concrete_opts_init(struct lk_mdl_concrete_opts *o);

/*
 * Append to c_source one self-contained C benchmark of m's innermost
 * µkernels (outer loops are ignored) on machine: an unrolled inline-asm
 * loop built by Algorithms 1-3 (doc/loopkit-mdl.md), arrays from
 * lk_alloc() sized for the level, measured with LK_MEASURE_NAMED("mdl").
 * Its first line is a comment "loopkit-mdl: key=value ..." that says,
 * among others, iterations-per-step (canonical iterations per measured
 * step). LK_EINPUT with the reason for what cannot be concretised (no
 * µkernel, sizes that are not whole elements, more streams than
 * registers, a level whose cache size is unknown without opts->bytes).
 */
int lk_mdl_concretize(struct lk_ctx *ctx, const struct lk_mdl *m,
		      const struct lk_mdl_machine *machine,
		      const struct lk_mdl_concrete_opts *opts,
		      struct lk_buf *c_source);

/* ---- Extraction: an innermost loop of a binary as MDL
 * (src/mdl/extract.c, normalize.c; the rules: doc/loopkit-mdl.md). ---- */

struct lk_cfg;

/*
 * The innermost loops of cfg: the headers (block indices, ascending) of
 * the loops closed by the back edges of a depth-first search from the
 * entry that contain no other loop. *heads is the caller's (free it).
 */
void lk_mdl_loops(const struct lk_cfg *cfg, LK_GIVE size_t **heads,
		  size_t *n);

struct lk_mdl_extraction {
	uint64_t loop;            /* the header block's first address */
	int refused;              /* then reason says why; mdl is empty */
	char *reason;
	struct lk_mdl mdl;
	/* Static metrics (also in mdl.meta). */
	long unroll, lanes, spill_fill, carried, other_ops, split;
};

/*
 * Extract the loop headed by block 'head' of cfg (an lk_mdl_loops
 * entry): a refusal (control flow inside the loop body, an indirect
 * access, an address not affine in the induction registers) is not an
 * error: out->refused and out->reason. < 0 only for a head that is no
 * block of cfg (LK_EINPUT). Release with lk_mdl_extraction_release.
 */
int lk_mdl_extract(struct lk_ctx *ctx, const struct lk_cfg *cfg, size_t head,
		   struct lk_mdl_extraction *out);
void lk_mdl_extraction_release(struct lk_mdl_extraction *x);
/*
 * {"status": "ok"|"refused", "reason", "loop", "meta": {...}, "streams":
 * [{"name", "base", "index", "scale", "stride"}], "ukernels": [{"in":
 * [{"flow", "stride", "offset", "size"}], "out": [...], "add", "mul"}],
 * "canonical": "<the canonical body>"}, bytes everywhere.
 */
void lk_mdl_extraction_json(const struct lk_mdl_extraction *x,
			    struct lk_buf *out);

#endif
