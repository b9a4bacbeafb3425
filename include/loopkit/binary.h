/*
 * binary: a function of an x86-64 ELF binary, decoded (Zydis, behind one
 * decoder interface) and split into basic blocks with their CFG edges;
 * what an instruction is (its kind, its ISA extension, its operands).
 * A shared module below the stages: blocks, count, predict, the L1
 * filter (and later MDL) read binaries through it.
 */
#ifndef LOOPKIT_BINARY_H
#define LOOPKIT_BINARY_H

#include <stdint.h>

#include "core.h"

/* How an instruction ends a block, if it does. */
enum lk_insn_kind {
	LK_INSN_PLAIN = 0,     /* falls through */
	LK_INSN_JUMP,          /* unconditional direct jump */
	LK_INSN_CJUMP,         /* conditional direct jump (incl. loop, jrcxz) */
	LK_INSN_IJUMP,         /* indirect jump (switch tables, tail calls) */
	LK_INSN_CALL,          /* direct call */
	LK_INSN_ICALL,         /* indirect call */
	LK_INSN_RET,
	LK_INSN_SYSCALL,       /* syscall, int, ...: falls through */
	LK_INSN_HALT,          /* ud2, hlt, int3: no successor */
};

struct lk_insn {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[15];
	enum lk_insn_kind kind;
	int has_target;        /* a direct jump/call: target is set */
	uint64_t target;
	char *att, *intel;     /* text, owned */
};

/* A decoder for one architecture. Only x86-64 (Zydis) exists today; a
 * second architecture adds its own table. */
struct lk_decoder {
	const char *arch;
	/* Decode one instruction at code[0..len) located at addr. 0 or
	 * LK_EINPUT (undecodable bytes; the message says where). */
	int (*decode)(struct lk_ctx *ctx, const uint8_t *code, size_t len,
		      uint64_t addr, struct lk_insn *out);
};

const struct lk_decoder *lk_decoder_x86_64(void);
void lk_insn_release(struct lk_insn *insn);

/* A function's bytes, as the symbol table places them. */
struct lk_function {
	char *name;
	uint64_t addr, size;   /* virtual address and length */
	uint8_t *code;         /* size bytes, owned */
	char *binary;          /* the ELF file read (owned; NULL when made
				  from bytes alone, as a store's kernel):
				  its data is there for lk_elf_read */
};

/*
 * Find function 'name' in the ELF's symbol tables (.symtab, else
 * .dynsym) with libelf and read its bytes. Without a symbol 'name', its
 * one compiler clone ("name.constprop.0", "name.isra.0", "name.part.0";
 * never "name.cold") is taken, and fn->name says which. LK_ENOTFOUND
 * names the function and the binary (and the clones, when there are
 * several); LK_EINPUT for a file that is not an x86-64 ELF.
 */
int lk_elf_function(struct lk_ctx *ctx, const char *binary, const char *name,
		    struct lk_function *out);
/*
 * The default function of 'loopkit blocks': the one called between the
 * calls to lk_roi_begin and lk_roi_end (the measured kernel). When the
 * kernel was inlined and nothing is called between the markers, the
 * function holding the markers is returned and *inlined is set.
 */
int lk_elf_roi_function(struct lk_ctx *ctx, const char *binary,
			struct lk_function *out, int *inlined);
void lk_function_release(struct lk_function *fn);
/*
 * The name of binary's first global function (.globl, or a weak one):
 * the lowest address of the first section holding one. LK_ENOTFOUND
 * naming the binary when it has none.
 */
int lk_elf_first_global(struct lk_ctx *ctx, const char *binary,
			char **name);
/*
 * Copy the n bytes of initialised data at link-time virtual address addr
 * of binary (as objdump prints it, also for PIE) into out: they must lie
 * in one allocated section with contents in the file (.rodata, .data,
 * .text...; not .bss). 0; LK_ENOTFOUND naming the binary and the address
 * when no such section holds them all (or the file is a relocatable
 * object, whose addresses are not yet placed); LK_EINPUT for a file that
 * is not an x86-64 ELF. out is untouched on failure.
 */
int lk_elf_read(struct lk_ctx *ctx, const char *binary, uint64_t addr,
		void *out, size_t n);
/*
 * Where the binary's calls to lk_roi_begin and lk_roi_end go: the
 * functions themselves when the runtime is linked in, their PLT entries
 * when it is shared (link-time addresses). LK_ENOTFOUND naming the
 * binary and the marker when one is missing, LK_EINPUT for a file that is
 * not an x86-64 ELF.
 */
int lk_elf_roi_markers(struct lk_ctx *ctx, const char *binary,
		       uint64_t *begin, uint64_t *end);

struct lk_block {
	uint64_t start, end;   /* [start, end) */
	size_t first, ninsns;  /* into lk_cfg.insns */
	size_t *succ;          /* successor block indices, owned */
	size_t nsucc;
	int exits;             /* control may leave the function (ret, tail
				  jump out, indirect jump) */
};

struct lk_cfg {
	struct lk_function fn;
	struct lk_insn *insns;
	size_t ninsns;
	struct lk_block *blocks; /* sorted by start */
	size_t nblocks;
};

/*
 * Decode fn (taking ownership of it) and split it at every control-flow
 * instruction and every direct jump target inside it. Calls end a block
 * too (later stages count and predict call-free blocks); their fall
 * through is an edge.
 */
int lk_cfg_build(struct lk_ctx *ctx, const struct lk_decoder *dec,
		 LK_TAKE struct lk_function *fn, struct lk_cfg *out);
void lk_cfg_release(struct lk_cfg *cfg);
/* The block containing addr, or -1. */
long lk_cfg_find(const struct lk_cfg *cfg, uint64_t addr);

/* ---- Kernels from the store (src/binary/stored.c). The blocks stage
 * stores one function per binary (by content hash): the region's
 * kernel, lk_elf_roi_function's, with every block's code bytes. ---- */

struct lk_store;

/*
 * The kernel stored for the binary whose content hash is binary_hash
 * (lk_binary_hash), decoded again from its stored bytes: the same CFG as
 * lk_cfg_build on the binary's function, without reading the binary.
 * 1 and *out (lk_cfg_release it) when stored with its code; 0 when the
 * store has no function of that binary, or its blocks carry no code
 * (stored before schema 7); < 0 on a store error, or LK_EINPUT when the
 * stored bytes do not decode.
 */
int lk_cfg_read_stored(struct lk_ctx *ctx, struct lk_store *s,
		       const char *binary_hash, struct lk_cfg *out);
/*
 * The kernel of binary: lk_cfg_read_stored's when s (may be NULL) holds
 * it, else lk_elf_roi_function's decoded from the binary (*from_store,
 * if not NULL, says which); out->fn.binary is binary either way. 0 and
 * *out, or the error of the store or of the binary (the message names
 * it).
 */
int lk_cfg_kernel(struct lk_ctx *ctx, struct lk_store *s, const char *binary,
		  struct lk_cfg *out, int *from_store);

/* Output: a JSON array of blocks, each with at least "start" and "end"
 * (hex strings), "instructions" (AT&T text), "intel", "successors"; and a
 * readable listing. */
void lk_cfg_json(const struct lk_cfg *cfg, struct lk_buf *out);
void lk_cfg_text(const struct lk_cfg *cfg, struct lk_buf *out);
/* The listing with the instructions in Intel syntax (intel != 0) or AT&T;
 * lk_cfg_text is lk_cfg_text_style(cfg, 0, out). Each block is a header
 * "block N [0xSTART, 0xEND) -> SUCC, ..., exit" then one "  ADDR:  TEXT"
 * line per instruction. The JSON also has "addresses" (one hex string
 * per instruction) and "exits" (true or false) in each block. */
void lk_cfg_text_style(const struct lk_cfg *cfg, int intel,
		       struct lk_buf *out);

/*
 * A block's identity across binaries: its AT&T text, one instruction per
 * line, each line ending in '\n' (lk_block_att). lk_block_hash is
 * lk_hash_buf of that text in hex: bb_blocks.hash and
 * predictions.block_hash are this value, so every stage that keys
 * anything by a block calls this one function. Both returned strings
 * are the caller's.
 */
LK_GIVE char *lk_block_att(const struct lk_cfg *cfg, size_t block);
LK_GIVE char *lk_block_hash(const struct lk_cfg *cfg, size_t block);
/* Intel text, the same shape. */
LK_GIVE char *lk_block_intel(const struct lk_cfg *cfg, size_t block);
/* Successor indices, space-separated ("" for none). */
LK_GIVE char *lk_block_succ(const struct lk_cfg *cfg, size_t block);

/* ---- What an instruction is (src/binary/insn.c). ---- */

enum lk_insn_encoding {
	LK_ENCODING_LEGACY = 0, /* incl. SSE */
	LK_ENCODING_VEX,        /* AVX, AVX2, FMA */
	LK_ENCODING_XOP,
	LK_ENCODING_EVEX,       /* AVX-512, incl. AVX-512VL on xmm/ymm */
	LK_ENCODING_MVEX,
};

/* What a user-mode sandbox cannot run, tested in this order: the
 * mnemonics first, then the category, then the privilege. */
enum lk_insn_system {
	LK_SYSTEM_NONE = 0,
	LK_SYSTEM_ENTERS_KERNEL, /* syscall, sysenter, int, int1, int3, into */
	LK_SYSTEM_STOPS,         /* hlt, ud0, ud1, ud2 */
	LK_SYSTEM_TRANSACTIONAL, /* xbegin, xend, xabort: they branch */
	LK_SYSTEM_WAITS,         /* umonitor, umwait, tpause */
	LK_SYSTEM_KERNEL,        /* any other kernel entry or exit */
	LK_SYSTEM_PORT_IO,
	LK_SYSTEM_PRIVILEGED,
};

struct lk_insn_facts {
	const char *mnemonic;    /* lower case, static ("vfmadd231pd") */
	size_t len;              /* bytes */
	int transfers_control;   /* jumps (incl. loop, jcxz), calls, returns */
	enum lk_insn_system system;
	enum lk_insn_encoding encoding;
	int fma;                 /* the FMA or FMA4 extension */
	const char *isa_set;     /* Zydis's ISA set, static ("AVX512F_512") */
	int rip_relative;        /* a memory operand based on RIP: */
	size_t disp_offset;      /* where its disp32 sits in the bytes */
	int64_t disp;            /* and its value */
};

/*
 * Decode the x86-64 instruction at code[0..len) and say what it is.
 * 0, or LK_EINPUT when the bytes do not decode (nothing in any ctx: the
 * caller says where).
 */
int lk_insn_facts(const uint8_t *code, size_t len, struct lk_insn_facts *out);
/*
 * Is insn EVEX-encoded (AVX-512, including AVX-512VL on xmm/ymm)? Such
 * code kills valgrind 3.19 with SIGILL. Decodes insn->bytes again.
 */
int lk_insn_evex(const struct lk_insn *insn);
/* Does it belong to the FMA extension (vfmadd..., vfnmsub...)? */
int lk_insn_fma(const struct lk_insn *insn);

/* ---- An instruction's operands (src/binary/operands.c): what MDL's
 * extraction reads. Registers are numbered by the decoder (0: none);
 * lk_reg_name names them. ---- */

enum lk_reg_class {
	LK_REG_NONE = 0, LK_REG_GPR, LK_REG_VEC, LK_REG_MASK, LK_REG_FLAGS,
	LK_REG_IP, LK_REG_OTHER,
};

/* What an instruction computes, from its mnemonic. */
enum lk_op_class {
	LK_OPC_OTHER = 0,
	LK_OPC_MOVE,       /* mov, movapd, vmovups, movq, ... */
	LK_OPC_ADD, LK_OPC_SUB, LK_OPC_MUL,
	LK_OPC_FMA,        /* vfmadd..., vfmsub..., vfnmadd..., vfnmsub... */
	LK_OPC_DIV, LK_OPC_SQRT, LK_OPC_MINMAX,
	LK_OPC_LOGIC,      /* and, or, xor, andn, not */
	LK_OPC_SHUFFLE,    /* shuf, unpck, perm, blend, extract, insert,
			      align, shifts of whole registers */
	LK_OPC_BROADCAST,  /* vbroadcast..., movddup, vpbroadcast... */
	LK_OPC_HADD,       /* horizontal add/sub */
	LK_OPC_COMPARE,    /* cmp, test, ucomi, comi (flags or masks) */
	LK_OPC_CONVERT,    /* cvt..., extensions (movzx, movsx, cdqe) */
	LK_OPC_BRANCH,     /* jumps, calls, returns */
	LK_OPC_LEA,
	LK_OPC_INC, LK_OPC_DEC, LK_OPC_NEG,
	LK_OPC_NOP,
};

enum lk_operand_kind { LK_OPND_REG = 1, LK_OPND_MEM, LK_OPND_IMM };

struct lk_operand {
	enum lk_operand_kind kind;
	int read, write;          /* its action, conditional ones included;
				     a conditionally written operand (cmov's
				     destination) is read too: it keeps its
				     value when not written */
	int implicit;             /* not written in the instruction's text */
	int writemask;            /* an AVX-512 writemask ({%k1}): which
				     lanes the instruction writes, not a
				     value it computes with */
	unsigned reg;             /* LK_OPND_REG: the register (rax for eax,
				     zmm0 for xmm0) */
	enum lk_reg_class rclass;
	unsigned bytes;           /* the operand's width in bytes */
	unsigned elem_bytes;      /* one element's width (= bytes for a
				     scalar) */
	int fp;                   /* elements are floating point */
	/* LK_OPND_MEM: base + index * scale + disp, bytes wide; agen for
	 * lea (no access); vsib for gathers and scatters (a vector
	 * index). base and index are 64-bit GPRs, LK_REG_IP for rip. */
	unsigned base, index, scale;
	int64_t disp;
	int agen, vsib;
	int64_t imm;              /* LK_OPND_IMM */
};

#define LK_MAX_OPERANDS 10

struct lk_insn_ops {
	const char *mnemonic;     /* lower case, static */
	enum lk_op_class op;
	int scalar;               /* an ss/sd form: one element, the other
				     lanes of the destination kept */
	size_t nops;
	struct lk_operand ops[LK_MAX_OPERANDS];
};

/*
 * Decode the instruction at code[0..len) into its operands (explicit
 * ones first, in Intel order, destination first; then the implicit
 * ones). An EVEX instruction without masking has no mask operand; a
 * writemask k1-k7 is a read LK_REG_MASK operand. 0, or LK_EINPUT when
 * the bytes do not decode.
 */
int lk_insn_operands(const uint8_t *code, size_t len, struct lk_insn_ops *out);
/* "rax", "zmm3", "rip", "" for 0: static text. */
const char *lk_reg_name(unsigned reg);
/* The class of a register number of struct lk_operand. */
enum lk_reg_class lk_reg_class_of(unsigned reg);

#endif
