/* mdl's replay internals (replay.c plans, replay-emit.c writes the C):
 * the facts of one loop that the generated benchmark needs. */
#ifndef LOOPKIT_MDL_REPLAY_H
#define LOOPKIT_MDL_REPLAY_H

#include "loopkit/binary.h"
#include "loopkit/mdl.h"
#include "mdl-int.h"

#define NGPR 16
#define RSP 4
#define FRAME 65536L                 /* the kernel's stack scratch */
#define RP_SLOT_BOUND NGPR           /* rp_gpr's entry past the registers:
					a bound held in a stack slot */

/* rax..r15, by number (replay.c). */
extern const char *const mdl_rp_gpr_names[NGPR];

/* One memory access: base + index * scale + disp, the inductions'
 * increments before it folded in (disp; pre_index for the index). */
struct rp_acc {
	int base, index;          /* 0..15 (rax..r15), index -1: none */
	unsigned scale, bytes;
	long long disp, pre_index;
	long long stride;         /* bytes per iteration */
	int write;
	unsigned align;           /* the address must be a multiple (or 1) */
};

/* A stream: the accesses of one base register, and its array. */
struct rp_group {
	int reg;
	long long stride;         /* the widest of its accesses' */
	long long lo, hi;         /* bytes touched in one call, from the base */
	long long disp_lo, disp_hi;
	long long index_off;      /* what index registers add to the base */
	long shift;               /* chunk 0's start, mod 64, that aligns
				     its aligned accesses */
	struct mdl_touch touch;   /* lines touched per iteration, lanes */
	long blocks, lanes;       /* its cycle over the chunks (walk.c) */
	long origin, chunk_step, alloc;
};

struct rp {
	const struct lk_insn *insns;   /* the block, the jump included */
	size_t ninsns;
	uint64_t loop_addr;
	struct lk_insn_ops *ops;       /* all but the jump */
	size_t n;
	unsigned char used[16], written[16], induction[16];
	unsigned char is_base[16], is_index[16];
	long long step[16];
	int64_t start[16];             /* entry values but the bases' */
	struct rp_acc *accs;
	size_t naccs, aaccs;
	struct rp_group *groups;
	size_t ngroups, agroups;
	/* the exit: flags of counter vs bound (register or immediate), or
	 * of the counter's own update (value_flags) */
	size_t flag_insn;
	int has_flags;
	long long pre_flags[16];
	int counter, bound, counter_first, value_flags, has_imm;
	int64_t imm, bound_delta;
	long long pre_cmp;
	unsigned width;
	char cc[8];
	/* vectors: registers used, widest, VEX/EVEX code, masks read,
	 * floating-point operands of 4 and 8 bytes */
	unsigned vec, mask, vbytes;
	int vex;
	long fp4, fp8;
	/* the walk: walk = the bytes of the lines all streams touch per
	 * iteration (walk.c) */
	long bytes, walk, trips, chunks;
	int kept;
	size_t nrip;
	/* the stack: aligned accesses from %rsp, and %rsp's offset from a
	 * 64-byte boundary that aligns them */
	struct {
		long long disp;
		unsigned align;
	} *stack;
	size_t nstack, astack;
	long stack_shift;
	/* stack slots the loop reads and never writes (a register
	 * allocator's spills of invariants), each set before the loop
	 * from rp_gpr[src]: a base register the loop fills from one
	 * (src: that register), a bound it compares with one
	 * (RP_SLOT_BOUND) */
	struct {
		long long disp;
		int src;
	} slots[NGPR + 1];
	size_t nslots;
	long long fill_disp[16];
	unsigned char filled[16];      /* 1: every definition a fill */
	/* the RIP-relative data: the binary's (lk_elf_read) when known */
	const char *binary;
	uint8_t (*rip_data)[64];
	unsigned char *rip_known;
	size_t arip;
	char *reason;
};

/* The C benchmark of the planned loop p into out (replay-emit.c). */
void mdl_rp_emit(struct rp *p, const struct lk_mdl_replay *r,
		 const char *source, struct lk_buf *out);

#endif
