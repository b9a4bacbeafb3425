/*
 * predict: throughput predictors run on basic blocks. A predictor takes a
 * batch of blocks (a tool that can, runs them all in one process) and
 * gives each one a prediction in cycles per block iteration, or a status
 * saying why not. Failing on a block is a status, never an error: errors
 * are for a tool that cannot run at all. Lift then sums a kernel's
 * blocks' predictions times their occurrences.
 */
#ifndef LOOPKIT_PREDICT_H
#define LOOPKIT_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "store.h"

/* One block to predict, as the binary has it. */
struct lk_pblock {
	const char *hash;      /* bb_blocks.hash: of att */
	const char *att;       /* AT&T text, one instruction per line */
	const char *intel;     /* Intel text, the same lines */
	const uint8_t *bytes;  /* the block's machine code */
	size_t len;
	size_t ninsns;
	uint64_t addr;         /* link-time address of bytes[0] */
};

/* One prediction; every string owned (lk_pred_release). */
struct lk_pred {
	char *status;          /* ok, failed, unsupported, timed-out */
	double value;          /* per block iteration, when ok */
	char *unit;            /* cycles/iter, tsc-calibrated-cycles/iter */
	char *reason;          /* "" when ok */
	char *raw;             /* the tool's own output for this block */
	double seconds;        /* this block's share of the tool's time */
	char *input;           /* appended: the text the tool was given
				  (NULL if none), to rerun it by hand */
};

void lk_pred_release(struct lk_pred *p);

struct lk_predictor {
	char *name;            /* llvm-mca-19, bprof, uica, ... */
	char *version;         /* recorded with every prediction */
	char *params;          /* canonical parameter text, stored */
	/* Fill out[0..n) (each zeroed by the caller). < 0 only when the
	 * tool cannot run at all; ctx then says why. */
	int (*predict)(struct lk_ctx *ctx, struct lk_predictor *p,
		       const struct lk_pblock *blocks, size_t n,
		       struct lk_pred *out);
	void (*destroy)(struct lk_predictor *p); /* frees priv */
	void *priv;
	char *note;            /* appended: why params are what they are
				  (an -mcpu fallback); NULL or "" if none */
};

/* Free p, its strings and its private state. NULL is fine. */
void lk_predictor_free(struct lk_predictor *p);

/* ---- Appended by the predict stage. ---- */

struct lk_store;
struct lk_sweep;
struct lk_predict_config;

/* Set a prediction's fields (strings copied; reason NULL means ""). */
void lk_pred_set(struct lk_pred *p, const char *status, double value,
		 const char *reason);

/* An installed llvm-mca, as lk_mca_find sees it. */
struct lk_mca_install {
	char *path;        /* resolved (realpath) */
	char *name;        /* llvm-mca-19: what tools: lists call it */
	char *version;     /* 19.1.7 */
	int major;
	char *host_cpu;    /* its name for this CPU, "" when it has none */
	char *llvm_mc;     /* the llvm-mc of the same version, NULL if none */
	struct lk_strv cpus; /* the -mcpu values it knows, once loaded */
	int cpus_loaded;
};

/*
 * Every installed llvm-mca: llvm-mca and llvm-mca-NN in PATH, and
 * llvm-mca in each directory matching $LOOPKIT_LLVM_DIRS (colon-separated
 * glob patterns; default: every /usr/lib/llvm-N/bin), deduplicated by resolved
 * path and by reported version, newest first. *n = 0 when there is none
 * (not an error). Free with lk_mca_installs_free.
 */
int lk_mca_find(struct lk_ctx *ctx, LK_GIVE struct lk_mca_install **out,
		size_t *n);
void lk_mca_installs_free(struct lk_mca_install *m, size_t n);
/* Fill m->cpus from its -mcpu=help list (one process, once): before
 * lk_mca_pick_cpu or lk_mca_predictor. */
void lk_mca_load_cpus(struct lk_mca_install *m);

/*
 * This CPU's LLVM name: the host CPU the newest install names, else the
 * micro-architecture (lk_env_microarch_isa from /proc/cpuinfo) mapped to
 * an LLVM name; "" when neither knows it. Never "native". LLVM too names
 * the host from its model number: where the ISA contradicts the model (a
 * hypervisor's), the ISA's micro-architecture wins over LLVM's report.
 */
LK_GIVE char *lk_mca_host_cpu(const struct lk_mca_install *m, size_t n);

/*
 * The -mcpu install m uses for 'wanted': wanted itself when m knows it,
 * else the nearest older CPU of the same line it knows (znver5 → znver4
 * → ...), else "generic"; *note (to free) says why when it is not
 * 'wanted', "" otherwise.
 */
LK_GIVE char *lk_mca_pick_cpu(const struct lk_mca_install *m,
			      const char *wanted, LK_GIVE char **note);

struct lk_mca_opts {
	const char *mcpu;      /* the CPU wanted (lk_mca_pick_cpu applies) */
	long iterations[2];    /* I1 < I2; {0, 0}: 100, 200 */
	double timeout;        /* per llvm-mca process; <= 0: 60 s */
	size_t max_batch;      /* blocks per process; 0: 500; 1: one
				  process per block (for comparison) */
	int jobs;              /* processes at once; <= 0: 2 */
};

/*
 * A predictor running install m on batches of blocks: each batch is one
 * file with a "# LLVM-MCA-BEGIN bK" / "# LLVM-MCA-END bK" region per
 * block, run at I1 and at I2 iterations; cycles per iteration =
 * (total(I2) - total(I1)) / (I2 - I1). A block llvm-mca rejects is
 * failed with llvm-mca's message and the rest run again. Name m->name,
 * version m->version, params "-mcpu=X -iterations=I1,I2 text=llvm-mc"
 * (or text=zydis when no llvm-mc was found), note the -mcpu fallback.
 */
int lk_mca_predictor(struct lk_ctx *ctx, const struct lk_mca_install *m,
		     const struct lk_mca_opts *opts,
		     LK_GIVE struct lk_predictor **out);

/*
 * The placeholders of an adapter's command: {asm} a file holding the
 * block (assembly, with IACA markers when asked), {arch} (the adapter's
 * arch, or one derived from the -mcpu: SKL, ICL, ZEN4, ...), {mcpu},
 * {iterations} (I2).
 */
struct lk_adapter_config;
/*
 * The adapter's tool must be runnable: a missing program (or a failing
 * version command) is LK_ENOTFOUND naming config_path:line. llvm_mc
 * (NULL: Zydis's text) turns the blocks into assembly as for llvm-mca.
 * One process per block. Version: the version command's first line,
 * "unknown" without one. A block whose output the rule does not match
 * is failed, saying so.
 */
int lk_adapter_predictor(struct lk_ctx *ctx, const struct lk_adapter_config *a,
			 const char *mcpu, const char *llvm_mc,
			 long iterations, double timeout,
			 const char *config_path,
			 LK_GIVE struct lk_predictor **out);
/* The uiCA/IACA-style architecture code of an LLVM CPU name ("skylake"
 * → "SKL", "znver4" → "ZEN4"); the name upper-cased when unknown. */
LK_GIVE char *lk_adapter_arch(const char *mcpu);

/*
 * A tool family the caller adds to the built-in ones (llvm-mca, bprof)
 * and the adapters: how the CLI gives predict the tool of a sibling
 * stage (mdl, src/cli/predict-mdl.c), which predict may not include.
 * Its tools are made only when a 'tools:' list or --tool names them
 * (never part of the default list), and a name is taken as it is (not
 * expanded as "llvm-mca" is).
 */
struct lk_predict_family {
	const char *name;          /* for messages: "mdl" */
	/* Append the tool names it offers now (none: it cannot run). */
	void (*names)(void *arg, struct lk_strv *out);
	/* Make tool 'name', one of names': 0 or < 0 with ctx saying why. */
	int (*make)(struct lk_ctx *ctx, void *arg, const char *name,
		    LK_GIVE struct lk_predictor **out);
	/* A name names did not offer: 1 when it is none of this family's,
	 * else < 0 with ctx saying why it cannot be had here. NULL: 1. */
	int (*missing)(struct lk_ctx *ctx, void *arg, const char *name);
	void *arg;                 /* given to the three, borrowed */
};

/*
 * The predictors a predict: section asks for. cfg NULL: the defaults
 * (every installed llvm-mca, every registered tool, every adapter).
 * 'tools' non-empty overrides cfg's list (the CLI's --tool); 'mcpu'
 * non-NULL overrides cfg's. A name that is nowhere to be had is
 * LK_EINPUT "file:line: unknown tool 'x' (available: ...)"; one an
 * extra family knows but cannot offer is its missing()'s error, with
 * the file and line. At least one predictor, or LK_ENOTFOUND saying
 * none is installed.
 */
struct lk_predict_setup {
	const struct lk_predict_config *cfg; /* NULL: defaults */
	const char *config_path;             /* for messages; may be NULL */
	const struct lk_strv *tools;         /* NULL or empty: cfg's */
	const char *mcpu;                    /* NULL: cfg's, else host */
	size_t max_batch;                    /* 0: default */
	const struct lk_predict_family *extra; /* extra[0..nextra), borrowed */
	size_t nextra;
};
int lk_predictors_make(struct lk_ctx *ctx, const struct lk_predict_setup *st,
		       LK_GIVE struct lk_predictor ***out, size_t *n);
void lk_predictors_free(struct lk_predictor **p, size_t n);

/* A block with the text it came from, ready for predictors. */
struct lk_block_set {
	struct lk_pblock *blocks;
	size_t n, alloc;
	struct lk_strv owned;  /* strings the blocks point into */
	uint8_t **bytes;       /* owned copies of the code */
};
void lk_block_set_release(struct lk_block_set *bs);
/*
 * Add the blocks of function 'function' (NULL: the region's kernel,
 * lk_elf_roi_function) of binary to bs, skipping any whose hash (lk_hash
 * of its AT&T text) is already there. *added (may be NULL) gets how many
 * were new.
 */
int lk_block_set_add_binary(struct lk_ctx *ctx, struct lk_block_set *bs,
			    const char *binary, const char *function,
			    size_t *added);
/* Add block 'block' of cfg unless one of the same hash is there; the
 * index of its entry in bs either way. */
struct lk_cfg;
size_t lk_block_set_add_block(struct lk_block_set *bs,
			      const struct lk_cfg *cfg, size_t block);

struct lk_predict_summary {
	size_t variants;      /* with a binary */
	size_t skipped_variants; /* without one (never built / failed) */
	size_t blocks;        /* distinct blocks */
	size_t tools;
	size_t predicted;     /* predictions made now */
	size_t stored;        /* found in the store already */
	size_t failed;        /* of those made now, not ok */
};

/*
 * Predict every distinct block of every built variant of the campaign
 * with every tool cfg->predict asks for (tools, mcpu: a command line's
 * --tool and --mcpu are written there with line 0), storing each
 * prediction (one transaction per batch) keyed by (block hash, tool,
 * version, params); blocks already predicted under that key are
 * skipped. extra[0..nextra) (may be NULL, 0): tool families the
 * caller adds (struct lk_predict_family). Only opts->quiet is read.
 * < 0 when a tool cannot run at all or the store fails.
 */
int lk_predict_campaign(struct lk_ctx *ctx, struct lk_store *s,
			int64_t campaign, const struct lk_sweep *cfg,
			const struct lk_stage_opts *opts,
			const struct lk_predict_family *extra, size_t nextra,
			struct lk_predict_summary *sum);

/*
 * The predict stage (lk_stage_fn): lk_predict_campaign. Its units are
 * blocks x tools, not variants: no items; done = predictions made now,
 * earlier = stored earlier, failed = made now and not ok, skipped =
 * variants without blocks; and the campaign's line.
 */
lk_stage_fn lk_predict_stage;
/* lk_predict_stage with the caller's extra tool families (the CLI's
 * stage function wraps it, adding mdl). */
int lk_predict_stage_families(struct lk_ctx *ctx, struct lk_store *s,
			      int64_t campaign, const struct lk_sweep *cfg,
			      const struct lk_stage_opts *opts,
			      const struct lk_predict_family *extra,
			      size_t nextra, struct lk_stage_summary *sum);

/* ---- lift (src/predict/lift.c, lift-campaign.c): a kernel's prediction
 * from its blocks' predictions and occurrences. Predictions and lifted
 * rows are per predictor configuration, struct lk_prediction_key. ---- */

/* The lifted value of one kernel for one predictor configuration. */
struct lk_lift_result {
	struct lk_prediction_key key; /* borrowed from the input or keys */
	int ok;                  /* 0: excluded, see reason */
	double value;            /* sum of occurrences x prediction */
	char *unit;              /* the predictions' unit, "/iter" read as
				    "/call"; "" when excluded */
	long nblocks;            /* blocks with a non-zero count */
	long nfailed;            /* of those, without an ok prediction */
	char *reason;            /* "" when ok */
};

/*
 * lifted = sum over blocks b with a non-zero count of count(b) x
 * prediction(b), in block order, for each key in keys[0..nkeys) (nkeys
 * 0: every key the predictions of 'in' have). A kernel where a block
 * with a non-zero count has no ok prediction with a value (none stored,
 * failed, ...) or where the units differ is excluded for that key, the
 * reason naming the first such block. *out gets one result per key;
 * free it with lk_lift_results_free.
 */
void lk_lift_compute(const struct lk_lift_input *in,
		     const struct lk_prediction_key *keys, size_t nkeys,
		     LK_GIVE struct lk_lift_result **out, size_t *nout);
void lk_lift_results_free(struct lk_lift_result *r, size_t n);

/* Per predictor configuration, over a campaign. */
struct lk_lift_tally {
	char *tool, *tool_version, *params;
	long lifted, excluded;
};

struct lk_lift_summary {
	struct lk_stage_summary stage;
	struct lk_lift_tally *tools;
	size_t ntools;
};

void lk_lift_summary_release(struct lk_lift_summary *sum);

/*
 * Lift every counted variant of the campaign for every predictor
 * configuration that predicted any block of any counted kernel of the
 * campaign (so a kernel that one configuration never predicted is
 * excluded for it, not silently absent). The lifted rows of each variant
 * are replaced in one transaction: lifting is arithmetic on stored facts
 * and is redone whole each time, as predictions may have been added.
 * Variants without a stored ok count are skipped and said so.
 */
int lk_lift_campaign(struct lk_ctx *ctx, struct lk_store *s,
		     int64_t campaign, const struct lk_sweep *cfg,
		     struct lk_lift_summary *sum);

/*
 * The lift stage (lk_stage_fn): lk_lift_campaign's items and counters,
 * and the campaign's line with each predictor configuration's tally.
 * cfg may be NULL.
 */
lk_stage_fn lk_lift_stage;

#endif
