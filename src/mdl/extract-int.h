/* mdl's extraction internals: the data-flow graph of one loop iteration
 * (extract.c builds it, normalize.c turns it into MDL). */
#ifndef LOOPKIT_MDL_EXTRACT_H
#define LOOPKIT_MDL_EXTRACT_H

#include "loopkit/binary.h"
#include "loopkit/mdl.h"

#define VBYTES 64             /* the widest register */

enum xnode_kind { XN_LOAD = 1, XN_STORE, XN_OP, XN_PHI, XN_CONST };

/* A value (or a store) of one iteration, one lane wide. */
struct xnode {
	enum xnode_kind kind;
	enum lk_op_class op;      /* XN_OP */
	int fp;                   /* XN_OP on floating-point elements */
	int carried;              /* XN_PHI: a value of the previous
				     iteration (not an invariant) */
	size_t acc;               /* XN_LOAD, XN_STORE: into xloop.accs */
	size_t *in;               /* XN_OP, XN_STORE: input nodes */
	size_t nin, ain;
	/* XN_PHI of a register: bytes [lo, lo+len) of reg on entry; final
	 * is the value those bytes hold at the end of the iteration (the
	 * next iteration's φ), 0 when several. */
	unsigned reg, lo, len;
	int stack;                /* XN_PHI of stack bytes [addr, addr+len)
				     from base register reg */
	int64_t addr;
	size_t final;
	size_t chain;             /* XN_OP on an accumulation chain: its
				     φ's node number, else 0 */
};

/* One element access: base + index*scale + off, size bytes. */
struct xacc {
	unsigned base, index, scale;
	int64_t off;
	unsigned size;
	int write;
	long long stride;         /* bytes per assembly iteration */
	size_t flow;              /* set by the stream assignment */
};

struct xflow {
	unsigned base, index, scale;
	long long stride;         /* bytes per assembly iteration */
};

struct xloop {
	struct xnode *nodes;      /* nodes[0] unused: 0 is "no value" */
	size_t nnodes, anodes;
	struct xacc *accs;
	size_t naccs, aaccs;
	struct xflow *flows;
	size_t nflows;
	long lanes, spill_fill, carried, split;
	long remat;               /* carried values re-materialised as loads */
	long forward_fail;        /* stack loads no one store forwards to */
};

/* Destination lane j is lane lane[j] of operand src[j] (0: the
 * destination's own old value). */
struct perm {
	unsigned elem, n;
	unsigned char src[VBYTES], lane[VBYTES];
};

/* Vector registers whose bytes are known constants, read from the
 * binary's data (lk_elf_read), by decoder register number. */
struct xconsts {
	uint8_t (*bytes)[VBYTES];
	unsigned char *known;
	size_t n;                 /* registers covered */
};

/* The lane selection of in into *p, when it is a known shuffle without
 * a mask (extract-shuffle.c): 1, else 0. A shuffle by an index vector
 * (vpermt2pd, vpermi2pd, vpermpd/vpermq/vpermd/vpermps by register) is
 * known when its index register is a known constant of k (may be
 * NULL). */
int mdl_x_permutation(const struct lk_insn_ops *in, const struct xconsts *k,
		      struct perm *p);
/* After the walk (extract-loop.c): carried values that are the previous
 * iteration's loads become loads (rule 8); accumulation chains marked
 * (rule 9). */
void mdl_x_rematerialise(struct xloop *x);
void mdl_x_chains(struct xloop *x);

/*
 * Build the graph of the single-block loop cfg->blocks[head] (rules
 * 1-7 of doc/loopkit-mdl.md): 0, or 1 and *reason (the caller's) when
 * the loop is refused.
 */
int mdl_x_walk(const struct lk_cfg *cfg, size_t head, struct xloop *x,
	       char **reason);
/* Rules 8-14: components, coalescing, re-rolling, canonical naming,
 * metrics, into out->mdl and out's metrics. */
void mdl_x_normalize(struct xloop *x, const char *source,
		     struct lk_mdl_extraction *out);
void mdl_x_release(struct xloop *x);

#endif
