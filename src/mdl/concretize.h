/*
 * Concretisation's algorithms (the seed's Algorithms 1-3 as corrected in
 * doc/loopkit-mdl.md), on a list of abstract instructions; concretize.c
 * builds the list from a µkernel and prints it as assembly.
 */
#ifndef LOOPKIT_MDL_CONCRETIZE_H
#define LOOPKIT_MDL_CONCRETIZE_H

#include <stddef.h>
#include <stdint.h>

#define MDL_REGS_MAX 32

enum mdl_kind { MDL_LOAD, MDL_STORE, MDL_ADD, MDL_MUL };

struct mdl_insn {
	enum mdl_kind kind;
	int bytes;      /* the access's or the operation's width */
	int stream;     /* load, store: the stream's index */
	long disp;      /* load, store: bytes from the stream's pointer */
	int reg;        /* load: written; store: read; add, mul: read and
			 * written (dst = dst op src) */
	int src;        /* add, mul: the other register read */
};

/*
 * Algorithm 1: the order of nadd additions and nmul multiplications
 * into kinds[0 .. nadd + nmul). With ratio = floor(max / min), rounds of
 * one group of the first kind then one of the other (the majority's
 * group is ratio long, the minority's 1, both clamped to what is left)
 * while both remain, then the rest. first_add: rounds start with add.
 */
void mdl_arith_order(long nadd, long nmul, int first_add,
		     enum mdl_kind *kinds);

/* Algorithm 2's bundle count: max(1, min(bundles, the non-zero counts
 * among nload, nstore, nfop)); 1 for an empty body. */
long mdl_bundle_count(long nload, long nstore, long nfop, long bundles);

/*
 * Algorithm 2: out (nload + nfop + nstore entries) = bundles, each its
 * loads, then its arithmetic, then its stores; every bundle but the last
 * takes floor(n / count) of each list in order, the last the rest.
 */
void mdl_bundle_order(const struct mdl_insn *loads, size_t nload,
		      const struct mdl_insn *fops, size_t nfop,
		      const struct mdl_insn *stores, size_t nstore,
		      long bundles, struct mdl_insn *out);

/*
 * Algorithm 3: neutral round-robin allocation over nregs registers, in
 * place. A load takes the register after the last one used; an
 * operation reads the next and writes the one after (dst = dst op src);
 * a store takes the register whose last definition in the body is the
 * oldest (a never-defined one when none is defined yet). Returns the
 * set of registers the body reads before it writes them: the
 * accumulators the prologue must initialise.
 */
uint64_t mdl_neutral_alloc(struct mdl_insn *body, size_t n, int nregs);

/* ---- The concretiser's state (concretize.c, emit.c). ---- */

#include "loopkit/mdl.h"
#include "mdl-int.h"

#define CZ_STREAMS_MAX 12    /* general registers left for stream pointers */

struct cz_access {
	int stream;
	int out;                     /* a store */
	long stride, offset, size;   /* bytes */
};

struct cz_stream {
	size_t flow;
	int fresh;                   /* no access seen yet */
	long stride;                 /* bytes per canonical iteration */
	long min_off, max_end;       /* lowest offset, highest offset + size */
	struct mdl_touch touch;      /* per asm iteration (walk.c) */
	long blocks, lanes;          /* its cycle over the chunks (walk.c) */
	long lane_step;              /* bytes between lanes */
	long origin;                 /* pointer of chunk 0 from the array */
	long chunk_step;             /* pointer change from block to block */
	long alloc;                  /* bytes allocated */
};

struct cz {
	struct lk_ctx *ctx;
	const struct lk_mdl *m;
	const struct lk_mdl_machine *machine;
	const struct lk_mdl_concrete_opts *opts;
	const char *file;
	const struct lk_mdl_ukernel **uks;
	size_t nuks, auks;
	struct cz_stream *streams;
	size_t nstreams, astreams;
	struct cz_access *accs;
	size_t naccs, aaccs;
	long nadd, nmul;             /* per canonical iteration */
	int elem;                    /* element bytes: 4 or 8 */
	struct mdl_insn *loads, *stores, *fops, *body;
	size_t nloads, aloads, nstores, astores, nfops, afops, nbody;
	long bundles;                /* the count Algorithm 2 used */
	uint64_t init;               /* registers the prologue initialises */
	long bytes;                  /* the working set asked for */
	long trips, chunks, walked;  /* asm iterations per call, chunks, and
					the bytes of the lines touched */
};

/* Print the C benchmark of a scheduled, sized z. */
int mdl_emit(struct cz *z, struct lk_buf *out);

#endif
