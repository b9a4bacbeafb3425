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
#include "store.h"

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
/* The attribute named key among a[0 .. n) (Meta or a flow's), or NULL. */
const struct lk_mdl_attr *lk_mdl_attr_find(const struct lk_mdl_attr *a,
					   size_t n, const char *key);

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

/*
 * The 8-byte lanes of m's widest vector (1 for scalar code): a vector is
 * that many canonical iterations of 8-byte elements. The database
 * explores unrolls of 1, 2, 4 and 8 vectors and mdl concretize defaults
 * to 8 (doc/loopkit-mdl.md, "loopkit mdl db").
 */
int lk_mdl_machine_lanes(const struct lk_mdl_machine *m);
/* The description named name ("scalar", "sse", "avx2", "avx512"), or
 * NULL. */
const struct lk_mdl_machine *lk_mdl_machine_find(const char *name);
/* Does a CPU with cpu_isa (lk_env's "cpu.isa": space-separated flags)
 * run m's code? SSE2 is part of x86-64 and always there. */
int lk_mdl_machine_runs(const struct lk_mdl_machine *m, const char *cpu_isa);
/*
 * The description name names ("auto": the widest this machine runs) for
 * this machine, read through lk_env_collect(). An unknown name, or a
 * class the CPU lacks, is LK_EINPUT with the reason; with
 * LK_MDL_MACHINE_EMIT (code only written, maybe for another machine) a
 * class named that the CPU lacks is given, with a warning.
 */
#define LK_MDL_MACHINE_EMIT 1u
int lk_mdl_machine_host(struct lk_ctx *ctx, const char *name,
			unsigned flags, const struct lk_mdl_machine **out);

enum lk_mdl_level { LK_MDL_L1, LK_MDL_L2, LK_MDL_L3, LK_MDL_RAM };

/* "L1", "L2", "L3", "RAM" <-> the level; parse: 0 or LK_EINPUT. */
int lk_mdl_level_parse(const char *s, enum lk_mdl_level *out);
const char *lk_mdl_level_name(enum lk_mdl_level level);
/* The working set of a level: L1 half the L1D, L2 half the L2, L3 four
 * times the L2 or a quarter of the L3 if that is less, RAM four times the
 * L3; 0 when the size is unknown. */
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
 * entry that contain no other loop; with depths, each one's nesting
 * depth (1: inside no other loop). *heads and *depths are the caller's
 * (free them).
 */
void lk_mdl_loops(const struct lk_cfg *cfg, LK_GIVE size_t **heads,
		  LK_GIVE int **depths, size_t *n);

/* The latency classes of a carried recurrence's operations. */
enum lk_mdl_chain_class {
	LK_MDL_CHAIN_ADD, LK_MDL_CHAIN_MUL, LK_MDL_CHAIN_FMA, LK_MDL_CHAIN_DIV,
	LK_MDL_CHAIN_OTHER, LK_MDL_CHAIN_FORWARD, LK_MDL_NCHAIN
};

struct lk_mdl_extraction {
	uint64_t loop;            /* the header block's first address */
	int depth;                /* nesting depth (1: in no other loop), set
				   * by the caller that knows it
				   * (lk_mdl_loops), else 0 */
	int refused;              /* then reason says why; mdl is empty */
	char *reason;
	struct lk_mdl mdl;
	/* Static metrics (also in mdl.meta). */
	long unroll, lanes, spill_fill, carried, other_ops, split;
	/* Loads of stack bytes no one store of the iteration wrote all of
	 * (meta forward_fail when not 0): no store forwards to them. */
	long forward_fail;
	/* The recurrence carried from one iteration of the compiled loop
	 * to a later one, in a register or through memory, that takes the
	 * longest: its operations per latency class (meta chain_add,
	 * chain_mul, chain_fma, chain_div, chain_other, chain_forward:
	 * store-to-load hops; when not 0) over chain_distance iterations
	 * (meta chain_distance when not 1). */
	long chain[LK_MDL_NCHAIN];
	long chain_distance;
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
 * The loop of cfg that predict and replay take: the innermost loop whose
 * header starts at addr when addr is not 0; else the deepest innermost
 * loop that extraction accepts (the hot loop of a nest, not the
 * initialisation before it), the first by address among equals, else
 * the deepest refused one. out->x is its extraction (maybe refused),
 * out->head its header, out->nloops the innermost loops cfg has. LK_ENOTFOUND, naming the function (and
 * binary, when not NULL) and the loops there are, when there is none.
 * Release with lk_mdl_pick_release.
 */
struct lk_mdl_pick {
	struct lk_mdl_extraction x;   /* x.depth: its nesting depth */
	size_t head, nloops;
};

int lk_mdl_pick_loop(struct lk_ctx *ctx, const struct lk_cfg *cfg,
		     uint64_t addr, const char *binary,
		     struct lk_mdl_pick *out);
void lk_mdl_pick_release(struct lk_mdl_pick *p);
/*
 * {"status": "ok"|"refused", "reason", "loop", "meta": {...}, "streams":
 * [{"name", "base", "index", "scale", "stride"}], "ukernels": [{"in":
 * [{"flow", "stride", "offset", "size"}], "out": [...], "add", "mul"}],
 * "canonical": "<the canonical body>"}, bytes everywhere.
 */
void lk_mdl_extraction_json(const struct lk_mdl_extraction *x,
			    struct lk_buf *out);

/* ---- Features and the iterative k-NN (src/mdl/features.c, knn.c). ---- */

/*
 * A description's k-NN feature vector (LK_MDL_NFEATURES, store.h), in
 * elements per canonical iteration (8-byte elements unless an access
 * size is not a multiple of 8, then 4-byte): f = (loads / S, stores / S,
 * S, Add, Mul, F) with S the number of distinct flows accessed (loads
 * and stores per stream are 0 when S = 0) and F the number of distinct
 * cache lines (64 bytes) that accesses of a stride of 64 bytes or more
 * touch per iteration (each a new line every iteration). Over the union of the innermost
 * µkernels (k < 0: "joint") or over µkernel k alone (in the order they
 * appear, outer loops first). LK_EINPUT naming file for no µkernel, a
 * k out of range, a size that is no whole number of elements, or a
 * scalar count that is not declared.
 */
int lk_mdl_features(struct lk_ctx *ctx, const char *file,
		    const struct lk_mdl *m, long k, double *f);
/*
 * The same at a memory level whose nearer cache holds near bytes (the
 * L1D's at L2, the L2's at L3, the L3's at RAM; 0: none, as at L1): a
 * flow split from another of its base, index and scale ('disp'
 * attributes) that trails it closely enough that its lines are still
 * in that cache is no stream of its own (S), nor are its far lines new
 * (F).
 */
int lk_mdl_features_near(struct lk_ctx *ctx, const char *file,
			 const struct lk_mdl *m, long k, long long near,
			 double *f);
/* The names of the flows lk_mdl_features_near leaves out at near,
 * pushed onto out. */
void lk_mdl_trailing(const struct lk_mdl *m, long long near,
		     struct lk_strv *out);
/* The element of m's innermost µkernels: 4 (bytes) when an access size
 * is not a multiple of 8, else 8 (the seeds'). lk_mdl_predict predicts
 * a 4-byte element loop against a packed class per pair of canonical
 * iterations, whose accesses move 8 bytes per element of the features,
 * and halves it. */
int lk_mdl_element_bytes(const struct lk_mdl *m);
/* The number of innermost µkernels of m. */
size_t lk_mdl_ukernel_count(const struct lk_mdl *m);

struct lk_mdl_knn_seed {
	const char *name;            /* borrowed */
	double f[LK_MDL_NFEATURES];
	double perf;                 /* at the level predicted */
};

struct lk_mdl_knn_opts {
	int kmax;      /* steps per decomposition (3) */
	int orders;    /* weighted orders (2; 1: greedy only) */
	/* Each feature's weight in the distance that picks the nearest
	 * seed (its squared difference times the weight), not in the
	 * scale; NULL: all 1. lk_mdl_predict gives the far lines
	 * LK_MDL_FAR_WEIGHT at L3 and RAM. */
	const double *weight;
};

/* Beyond the core's private caches (L3, RAM) a far line costs 6 to 16
 * times a sequential element (the F1 seed against L1S0 in each class):
 * the distance counts it 4 times, its squared difference 16 times
 * (doc/loopkit-mdl.md, "predict"). */
#define LK_MDL_FAR_WEIGHT 16.0

/* kmax 3, orders 2, weights NULL. */
void lk_mdl_knn_opts_init(struct lk_mdl_knn_opts *o);

struct lk_mdl_knn_step {
	int order;                   /* 1: the greedy decomposition */
	size_t seed;                 /* index into the seeds */
	double scale;
	double residual;             /* |r| after the step */
};

struct lk_mdl_knn_result {
	double value;                /* the prediction */
	double residual;             /* |r| / |t| of order 1 (0 if t = 0) */
	struct lk_mdl_knn_step *steps;
	size_t nsteps;
};

/*
 * The iterative k-NN of doc/loopkit-mdl.md over seeds[0..n): r = t;
 * up to kmax times, x = the seed nearest to r (Euclidean, each
 * feature's squared difference times o->weight's; first on a tie), s = max(0, <r,x>/<x,x>); stop if s = 0; value += s * perf,
 * r = max(0, r - s x) per component; stop when |r| <= 1e-6 |t| or
 * when r keeps only streams (every other feature of r within 5 % of
 * t's: the work is accounted for, the seeds spread it over fewer
 * streams). With
 * orders K > 1, decomposition j (2..K) starts from the j-th nearest
 * seed to t, then goes on greedily; value = sum_j P_j / j / sum_j 1/j.
 * Seeds whose features are all 0 are never chosen. *out owns its
 * steps (release with lk_mdl_knn_result_release).
 */
void lk_mdl_knn(const double *t, const struct lk_mdl_knn_seed *seeds,
		size_t n, const struct lk_mdl_knn_opts *o,
		struct lk_mdl_knn_result *out);
void lk_mdl_knn_result_release(struct lk_mdl_knn_result *r);

/* ---- Prediction against a stored database (src/mdl/predict.c). ---- */

enum lk_mdl_combine { LK_MDL_COMBINE_JOINT, LK_MDL_COMBINE_SUM };

struct lk_mdl_predict_opts {
	enum lk_mdl_combine combine;
	struct lk_mdl_knn_opts knn;
};

/* One level's prediction; steps name seeds of the database. */
struct lk_mdl_prediction {
	enum lk_mdl_level level;
	double value;                /* per canonical iteration */
	double residual;             /* |r| / |t|, the worst µkernel's */
	size_t seeds;                /* seeds with a value at the level */
	struct lk_mdl_knn_step *steps;
	size_t *step_ukernel;        /* sum: the µkernel of each step */
	size_t nsteps;
	struct lk_strv trailing;     /* the flows left out as trailing
					streams, by name */
	/* The latency bound: the larger of the carried recurrence's (its
	 * operations, meta chain_*, times the database's latencies, over
	 * chain_distance and meta.unroll) and the failed store forwards'
	 * (meta forward_fail times latency:forward-fail, over
	 * meta.unroll); 0 when m has neither or the database lacks a
	 * latency it needs. instructions: for scalar code of 4-byte
	 * elements beyond L1, whose k-NN counts bytes (per pair of
	 * iterations, halved), the k-NN per iteration at L1 (what its
	 * instructions cost); else 0. value is the largest of the k-NN's
	 * (knn), instructions and the bound. */
	double knn, instructions, bound;
};

/*
 * Predict m (its file named in messages) at level from the database db
 * (lk_store_mdl_db_get): the k-NN over the seeds that have a value at
 * that level, on the joint features or summed over the µkernels. This
 * is the entry point for any loop turned into MDL (a binary's loop goes
 * through extraction first). A carried recurrence (meta chain_*)
 * bounds it from below with the database's latencies (out->bound). LK_EINPUT when m has no features (see
 * lk_mdl_features) or db has no value at level. Release *out with
 * lk_mdl_prediction_release.
 */
int lk_mdl_predict(struct lk_ctx *ctx, const struct lk_mdl_db_row *db,
		   const char *file, const struct lk_mdl *m,
		   enum lk_mdl_level level,
		   const struct lk_mdl_predict_opts *o,
		   struct lk_mdl_prediction *out);
void lk_mdl_prediction_release(struct lk_mdl_prediction *p);

/* ---- The seed database build (src/mdl/db.c). ----
 * loopkit mdl db build concretises each seed per level and (unroll,
 * bundles), records the C files as variants of the campaign
 * "mdl-db:<isa>" (lk_mdl_db_record), lets the measure stage run them,
 * then reads their figures back into a database (lk_mdl_db_collect). */

enum lk_mdl_explore {
	LK_MDL_EXPLORE_DEFAULT,   /* 12 at L1 and L2, the best 3 beyond */
	LK_MDL_EXPLORE_FULL,      /* 12 everywhere */
	LK_MDL_EXPLORE_MINIMAL,   /* unroll 8, bundles 1 everywhere */
};

/*
 * The latency benchmarks a database also measures (at L1, whatever its
 * levels): a chain of dependent scalar double-precision adds,
 * multiplies, (on a CPU with FMA) fused multiply-adds, divides, and
 * store-load pairs, and a run of failed store forwards, stored as the
 * values of the pseudo-seeds "latency:add", ... in cycles per
 * operation. Prediction bounds a loop by its carried recurrence and its
 * failed forwards with them (lk_mdl_predict).
 */
enum lk_mdl_latency { LK_MDL_LAT_NONE, LK_MDL_LAT_ADD, LK_MDL_LAT_MUL,
		      LK_MDL_LAT_FMA, LK_MDL_LAT_DIV, LK_MDL_LAT_STORE,
		      LK_MDL_LAT_FORWARD_FAIL, LK_MDL_NLAT };
/* "latency:add", "latency:mul", "latency:fma", "latency:div",
 * "latency:store-load" (a store and the load of it),
 * "latency:forward-fail" (the cycles per load of 16 bytes that two
 * 8-byte stores just wrote: no store can forward to it; independent
 * ones back to back); NULL for LK_MDL_LAT_NONE. */
const char *lk_mdl_latency_name(enum lk_mdl_latency op);

struct lk_mdl_db_unit {
	size_t seed;             /* SIZE_MAX for a latency unit */
	enum lk_mdl_level level;
	int unroll, bundles;
	long iterations;         /* canonical iterations (or chained
				    operations) per step */
	int64_t variant_id;
	enum lk_mdl_latency latency;   /* a latency benchmark, or NONE */
};

struct lk_mdl_db_seed {
	char *name, *kind, *text, *path;
	struct lk_mdl mdl;
	double f[LK_MDL_NFEATURES];
};

/*
 * Rounds: each unit at L1, L2 and L3 is measured in LK_MDL_DB_ROUNDS
 * runs (the measure's method with round 0, 1, 2: the same measurement
 * taken again, each round over every unit, so a unit's runs are half a
 * minute or more apart), and its figure is the median of its runs; at
 * RAM, whose units cost ten times more, round 0 only. One run can draw
 * a slow state lasting seconds, or read a clock its kernel did not run
 * at and come out low (doc/loopkit-mdl.md, "db"): the median drops
 * either.
 */
#define LK_MDL_DB_ROUNDS 3
/* Is a unit at level measured in round (0 .. rounds - 1)? */
int lk_mdl_db_round_covers(enum lk_mdl_level level, int round);

struct lk_mdl_db_plan {
	const struct lk_mdl_machine *machine;
	unsigned levels;         /* 1 << enum lk_mdl_level */
	enum lk_mdl_explore explore;
	struct lk_mdl_db_seed *seeds;
	size_t nseeds;
	struct lk_mdl_db_unit *units;
	size_t nunits;
	/* The measure's canonical method text of each round (owned; set
	 * with lk_mdl_db_plan_methods). None: a unit's figure is its
	 * latest run's, whatever its method. */
	char *methods[LK_MDL_DB_ROUNDS];
	int nrounds;
};

/* The seeds' folder, <share>/mdl/seeds (lk_share_dir()). */
LK_GIVE char *lk_mdl_seeds_dir(void);
/* An MDL file operand: FILE as it is, or the seed's file for seed:NAME
 * (LK_ENOTFOUND, the seeds named, for a name that is none). */
int lk_mdl_path(struct lk_ctx *ctx, const char *operand, char **path);

/*
 * Load the seeds of dir (every *.mdl, by name; names non-empty: only
 * those, each must exist) and their features into a new plan. LK_EINPUT
 * naming the file for a seed that does not parse or has no features,
 * or for a name with no file; LK_ENOTFOUND for a directory without
 * seeds. Release with
 * lk_mdl_db_plan_release.
 */
int lk_mdl_db_plan_init(struct lk_ctx *ctx, struct lk_mdl_db_plan *p,
			const char *dir, const struct lk_strv *names,
			const struct lk_mdl_machine *machine,
			unsigned levels, enum lk_mdl_explore explore);
void lk_mdl_db_plan_release(struct lk_mdl_db_plan *p);
/* The rounds' method texts (n of them, 1 to LK_MDL_DB_ROUNDS), copied. */
void lk_mdl_db_plan_methods(struct lk_mdl_db_plan *p,
			    const char *const *methods, int n);

/*
 * Concretise and record the units of one phase as variants of campaign
 * (files in the store's object area; a unit's variant is keyed by the
 * file's content, so a rerun records nothing new). Phase 0: the
 * exploration at L1 (and every level with full or minimal). With the
 * default exploration, phase 1: every distinct (unroll, bundles) of each
 * seed measured at L1, at L2; phase 2: the best 3 of them by their L2
 * values, at L3 and RAM (without L2 in the levels, phase 1 takes the
 * best 3 of L1 there and phase 2 adds nothing). Each phase ranks the
 * figures the rounds before it stored. *added gets the units this phase
 * added to the plan. Concretisation failures are LK_EINPUT.
 */
int lk_mdl_db_record(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, struct lk_mdl_db_plan *p, int phase,
		     size_t *added);
/*
 * The clocks a campaign's runs ran at, in core cycles per TSC tick
 * (doc/loopkit-mdl.md, "A clock that moves"). build is the campaign's
 * clock (lk_store_campaign_clock). state[] are the clocks its runs were
 * seen at, ascending: clusters of the runs' own clocks (each run's
 * fastest reference, lk_store_run_clock) with no gap over 0.2 %, each
 * holding at least 5 % of the runs within 1 %, and none slower than 3/4
 * of the fastest; a state's clock is its cluster's 90th percentile. A
 * core whose clock holds still shows one state, the runs whose
 * references a neighbour slowed scattered below it; a core that changes
 * turbo state from process to process shows several (a guest on
 * 2026-12-02: 3.6 to 4.1 GHz in steps of 100 MHz, each run in one).
 */
#define LK_MDL_CLOCK_STATES 16

struct lk_mdl_clock {
	double build;
	double state[LK_MDL_CLOCK_STATES];
	int nstates;
};

/* campaign's clocks into *c (all zero when it has no references). */
int lk_mdl_clock_read(struct lk_ctx *ctx, struct lk_store *s,
		      int64_t campaign, struct lk_mdl_clock *c);
/*
 * The figure of variant_id's latest run (lk_store_run_figure's
 * "cycles") as the database counts its units': at L1 and L2, with a
 * clock (lk_mdl_clock_read of the run's campaign, build > 0), the value
 * becomes the least sample's TSC ticks per step, at the campaign's
 * clock, or at the run's own where the campaign shows two clock states
 * or more, and the source "tsc-least" (db.c, unit_value, says why), so
 * that a replay is measured as the seeds it is predicted from.
 * Otherwise, or when the run has no samples, the run's figure as it is.
 */
int lk_mdl_figure(struct lk_ctx *ctx, struct lk_store *s, int64_t variant_id,
		  enum lk_mdl_level level, const struct lk_mdl_clock *clock,
		  struct lk_run_figure *fig);
/* The clock lk_mdl_figure takes a tsc-least figure of variant_id's
 * latest run at, into *at: the campaign's, or the run's own where the
 * clock moves. */
int lk_mdl_figure_clock(struct lk_ctx *ctx, struct lk_store *s,
			int64_t variant_id, const struct lk_mdl_clock *clock,
			double *at);
/*
 * The database the plan's measured units make: per seed and requested
 * level, the minimum over its units (each the median of its rounds'
 * runs) of the "cycles" figure per step divided by the unit's
 * iterations per step (tsc-calibrated cycles per canonical iteration;
 * at L1 and L2 each unit's least sample over its rounds, in TSC ticks at
 * the campaign's clock, source "tsc-least"; where the campaign's runs
 * show two clock states or more, the median over its rounds of each
 * run's least sample at that run's own clock, the same source),
 * with the best unit's
 * unroll, bundles, variant and spread. A seed without an ok unit at a
 * level has no value there (flags "not-measured"). hash covers the
 * seeds' text, the class, the levels, the exploration, method (the
 * measure's canonical method text) and the rounds. Strings of *out are
 * owned (lk_mdl_db_row_release).
 */
int lk_mdl_db_collect(struct lk_ctx *ctx, struct lk_store *s,
		      const struct lk_mdl_db_plan *p, const char *method,
		      int64_t campaign, struct lk_mdl_db_row *out);

/* ---- Replay: a binary's loop re-run verbatim (src/mdl/replay.c). ---- */

struct lk_mdl_replay_opts {
	enum lk_mdl_level level;
	long bytes;            /* working set; 0: the level's */
	int max_streams;       /* refuse more base registers (7) */
	const char *source;    /* named in the header; NULL: the function */
};

/* L1, bytes 0, 7 streams. */
void lk_mdl_replay_opts_init(struct lk_mdl_replay_opts *o);

struct lk_mdl_replay {
	uint64_t loop;
	int refused;           /* then reason (from a closed list) */
	char *reason;
	enum lk_mdl_level level;
	long bytes;            /* the working set walked */
	long trips;            /* loop iterations per call (per step) */
	int kept;              /* trips is the compiled immediate count */
	long chunks;           /* calls before the walk starts again */
	long unroll;           /* canonical iterations per iteration */
	size_t streams;        /* base registers */
	long walk;             /* bytes the bases advance per iteration */
};

/*
 * The C benchmark replaying the loop headed by block head of cfg (an
 * lk_mdl_loops entry) into c_source: the loop's bytes verbatim in a
 * top-level asm function, its registers set by a prologue, its bases
 * walking chunks of arrays that make the level's working set, measured
 * with LK_MEASURE_NAMED("replay"); the first line is a comment
 * "loopkit-mdl-replay: key=value ..." (iterations-per-step = trips).
 * A loop that cannot be replayed (multi-block, a call, an indirect or
 * non-affine address, more than max_streams streams, a displacement
 * span over 64 MiB, written RIP-relative data, an exit test it does not
 * understand) is out->refused with the reason, not an error. LK_EINPUT
 * for a head that is no block, or a level whose size is unknown.
 */
int lk_mdl_replay(struct lk_ctx *ctx, const struct lk_cfg *cfg, size_t head,
		  const struct lk_mdl_replay_opts *o, struct lk_mdl_replay *out,
		  struct lk_buf *c_source);
void lk_mdl_replay_release(struct lk_mdl_replay *r);
/*
 * Record c_source as a variant of campaign (the file in the store's
 * object area, keyed by its content: a rerun records nothing new) with
 * r's facts as parameters; *variant_id gets it.
 */
int lk_mdl_replay_record(struct lk_ctx *ctx, struct lk_store *s,
			 int64_t campaign, const struct lk_mdl_replay *r,
			 const struct lk_buf *c_source, int64_t *variant_id);

/* ---- A basic block as a loop (src/mdl/block.c): what the predict
 * tool 'mdl' does with each block it is given (doc/loopkit-mdl.md,
 * "mdl as a predict tool"). ---- */

/* The ISA classes, in the order of enum lk_mdl_isa. */
#define LK_MDL_NCLASSES 4

/*
 * The ISA class whose database a block of code[0..len) is compared
 * with: the widest access or floating-point arithmetic it does on
 * packed vectors (16 bytes: sse, 32: avx2, 64: avx512), else scalar.
 * Register moves, logic and shuffles do not count (gcc copies scalar
 * doubles with movapd and zeroes with pxor). Bytes that do not decode
 * count for nothing.
 */
const struct lk_mdl_machine *lk_mdl_block_class(const uint8_t *code,
						size_t len);

/*
 * Extract the block code[0..len) at addr as a loop: refused with "not a
 * single-block loop: MDL predicts innermost loop bodies" unless it is
 * one basic block whose last instruction is a conditional jump back to
 * addr, else lk_mdl_extract's verdict (out->refused with the reason,
 * or the MDL). LK_EINPUT, naming the address, for bytes that do not
 * decode. Release *out with lk_mdl_extraction_release.
 */
int lk_mdl_block_extract(struct lk_ctx *ctx, const uint8_t *code, size_t len,
			 uint64_t addr, struct lk_mdl_extraction *out);

/* The latest database of each ISA class of a store. */
struct lk_mdl_dbs {
	struct lk_mdl_db_row db[LK_MDL_NCLASSES];   /* by enum lk_mdl_isa */
	int has[LK_MDL_NCLASSES];
	char *dir;               /* the store's directory, for messages */
	char *cpu_isa;           /* this machine's cpu.isa ("" unknown) */
};

/* Load them (lk_store_mdl_db_get per class); out->has[] says which
 * there are (none is not an error), out->cpu_isa what this machine runs
 * (loopkit env). < 0 on a store error. Release with lk_mdl_dbs_release. */
int lk_mdl_dbs_load(struct lk_ctx *ctx, struct lk_store *s,
		    struct lk_mdl_dbs *out);
void lk_mdl_dbs_release(struct lk_mdl_dbs *d);
/* The levels at least one of them has, as bits 1 << enum lk_mdl_level;
 * 0 when there is no database. */
unsigned lk_mdl_dbs_levels(const struct lk_mdl_dbs *d);
/* "scalar:HASH12,avx2:HASH12": the databases, in class order ("" when
 * none). The caller frees it. */
LK_GIVE char *lk_mdl_dbs_text(const struct lk_mdl_dbs *d);
/* Why d has no database for class isa, for a row or a block: the 'db
 * build' command that makes one, or that this machine cannot run the
 * class's code. The caller frees it. */
LK_GIVE char *lk_mdl_dbs_missing(const struct lk_mdl_dbs *d, const char *isa);

/* One block's prediction at one level. */
struct lk_mdl_block_prediction {
	int ok;                  /* 0: unsupported, reason says why */
	char *reason;            /* "" when ok */
	const char *isa;         /* the block's class (lk_mdl_block_class) */
	double value;            /* cycles per block iteration */
	double canonical;        /* per canonical iteration (value / unroll) */
	long unroll;
	char *mdl;               /* the MDL extracted (lk_mdl_print), or NULL */
	char *trace;             /* the canonical body, then the database and
				    the k-NN steps; "" when not ok */
};

/*
 * Predict the block code[0..len) at addr at level: lk_mdl_block_extract,
 * then lk_mdl_predict against the database of the block's class, times
 * meta.unroll: tsc-calibrated cycles per execution of the block. Not
 * ok, with the reason, for a block that is no single-block loop, one
 * extraction refuses, a class d has no database for (the reason names
 * 'loopkit mdl db build --isa CLASS -o DIR'), or what lk_mdl_predict
 * refuses (no µkernel, no seed measured at the level). < 0 only for
 * bytes that do not decode (ctx says where). Release with
 * lk_mdl_block_prediction_release.
 */
int lk_mdl_block_predict(struct lk_ctx *ctx, const struct lk_mdl_dbs *d,
			 const uint8_t *code, size_t len, uint64_t addr,
			 enum lk_mdl_level level,
			 const struct lk_mdl_predict_opts *o,
			 struct lk_mdl_block_prediction *out);
void lk_mdl_block_prediction_release(struct lk_mdl_block_prediction *p);

#endif
