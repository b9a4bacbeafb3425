/*
 * A basic block as a loop: the predict tool 'mdl' (built by the CLI on
 * this API, since predict and mdl are sibling stages) hands each block
 * here. A block that is a whole single-block loop is extracted to MDL
 * on its own bytes (a one-block CFG), its ISA class read from its
 * instructions, and predicted against that class's latest database.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/binary.h"
#include "loopkit/env.h"
#include "loopkit/mdl.h"

static const char *const class_names[LK_MDL_NCLASSES] = {
	"scalar", "sse", "avx2", "avx512",
};

static int counts_for_class(const struct lk_insn_ops *in)
{
	switch (in->op) {
	case LK_OPC_ADD: case LK_OPC_SUB: case LK_OPC_MUL: case LK_OPC_FMA:
	case LK_OPC_DIV: case LK_OPC_SQRT: case LK_OPC_MINMAX:
	case LK_OPC_HADD:
		return !in->scalar;
	default:
		return 0;
	}
}

/* The widest vector this instruction works on as data, in bytes. */
static unsigned packed_bytes(const struct lk_insn_ops *in)
{
	unsigned w = 0;
	size_t k;

	for (k = 0; k < in->nops; k++) {
		const struct lk_operand *o = &in->ops[k];
		int access = o->kind == LK_OPND_MEM && !o->agen;
		int arith = o->kind == LK_OPND_REG &&
			    o->rclass == LK_REG_VEC && o->fp &&
			    counts_for_class(in);

		if ((access && !in->scalar) || arith)
			w = o->bytes > w ? o->bytes : w;
	}
	return w;
}

const struct lk_mdl_machine *lk_mdl_block_class(const uint8_t *code,
						size_t len)
{
	unsigned widest = 0;
	size_t at = 0;
	int isa = LK_MDL_ISA_SCALAR;

	while (at < len) {
		struct lk_insn_ops in;
		struct lk_insn insn;
		struct lk_ctx quiet;
		unsigned w;

		lk_ctx_init(&quiet);
		if (lk_decoder_x86_64()->decode(&quiet, code + at, len - at, 0,
						&insn))
			break;
		if (!lk_insn_operands(code + at, insn.len, &in)) {
			w = packed_bytes(&in);
			widest = w > widest ? w : widest;
		}
		at += insn.len;
		lk_insn_release(&insn);
	}
	if (widest >= 64)
		isa = LK_MDL_ISA_AVX512;
	else if (widest >= 32)
		isa = LK_MDL_ISA_AVX2;
	else if (widest >= 16)
		isa = LK_MDL_ISA_SSE;
	return lk_mdl_machine_find(class_names[isa]);
}

/* One block, one instruction ending it: a conditional jump to its start. */
static int single_block_loop(const struct lk_cfg *cfg, uint64_t addr)
{
	const struct lk_block *b = cfg->nblocks == 1 ? &cfg->blocks[0] : NULL;
	const struct lk_insn *last;

	if (!b || !b->ninsns || b->start != addr)
		return 0;
	last = &cfg->insns[b->first + b->ninsns - 1];
	return last->kind == LK_INSN_CJUMP && last->has_target &&
	       last->target == addr;
}

int lk_mdl_block_extract(struct lk_ctx *ctx, const uint8_t *code, size_t len,
			 uint64_t addr, struct lk_mdl_extraction *out)
{
	struct lk_function fn = {.addr = addr, .size = len};
	struct lk_cfg cfg;
	int ret;

	memset(out, 0, sizeof(*out));
	out->loop = addr;
	fn.name = lk_strdup("block");
	fn.code = lk_malloc(len ? len : 1);
	memcpy(fn.code, code, len);
	ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &cfg);
	if (ret)
		return ret;
	if (single_block_loop(&cfg, addr)) {
		ret = lk_mdl_extract(ctx, &cfg, 0, out);
	} else {
		out->refused = 1;
		out->reason = lk_strdup("not a single-block loop: MDL predicts "
					"innermost loop bodies");
	}
	lk_cfg_release(&cfg);
	return ret;
}

/* ---- The databases. ---- */

/* This machine's cpu.isa (loopkit env), or "" when unknown. */
static char *host_isa(void)
{
	struct lk_env env = {0};
	struct lk_ctx quiet;
	const char *isa;
	char *out;

	lk_ctx_init(&quiet);
	if (lk_env_collect(&quiet, &env, 0))
		return lk_strdup("");
	isa = lk_env_get(&env, "cpu.isa");
	out = lk_strdup(isa ? isa : "");
	lk_env_release(&env);
	return out;
}

int lk_mdl_dbs_load(struct lk_ctx *ctx, struct lk_store *s,
		    struct lk_mdl_dbs *out)
{
	int i, ret = 0;

	memset(out, 0, sizeof(*out));
	out->dir = lk_strdup(lk_store_dir(s));
	out->cpu_isa = host_isa();
	for (i = 0; !ret && i < LK_MDL_NCLASSES; i++) {
		ret = lk_store_mdl_db_get(ctx, s, class_names[i], &out->db[i]);
		out->has[i] = ret == 1;
		ret = ret == 1 ? 0 : ret;
	}
	if (ret)
		lk_mdl_dbs_release(out);
	return ret;
}

void lk_mdl_dbs_release(struct lk_mdl_dbs *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < LK_MDL_NCLASSES; i++)
		if (d->has[i])
			lk_mdl_db_row_release(&d->db[i]);
	free(d->dir);
	free(d->cpu_isa);
	memset(d, 0, sizeof(*d));
}

char *lk_mdl_dbs_missing(const struct lk_mdl_dbs *d, const char *isa)
{
	const struct lk_mdl_machine *m = lk_mdl_machine_find(isa);

	if (m && !lk_mdl_machine_runs(m, d->cpu_isa))
		return lk_asprintf("no MDL database for %s, and this machine "
				   "cannot run %s code to build one", isa,
				   isa);
	return lk_asprintf("no MDL database for %s in %s: build it with "
			   "'loopkit mdl db build --isa %s -o %s'", isa,
			   d->dir, isa, d->dir);
}

unsigned lk_mdl_dbs_levels(const struct lk_mdl_dbs *d)
{
	unsigned bits = 0;
	int i, l;

	for (i = 0; i < LK_MDL_NCLASSES; i++)
		for (l = LK_MDL_L1; d->has[i] && l <= LK_MDL_RAM; l++)
			if (strstr(d->db[i].levels, lk_mdl_level_name(l)))
				bits |= 1u << l;
	return bits;
}

char *lk_mdl_dbs_text(const struct lk_mdl_dbs *d)
{
	struct lk_buf b = LK_BUF_INIT;
	int i;

	lk_buf_adds(&b, "");
	for (i = 0; i < LK_MDL_NCLASSES; i++)
		if (d->has[i])
			lk_buf_addf(&b, "%s%s:%.12s", b.len ? "," : "",
				    class_names[i], d->db[i].hash);
	return lk_buf_detach(&b);
}

/* ---- One block's prediction. ---- */

static void unsupported(struct lk_mdl_block_prediction *out,
			LK_TAKE char *reason)
{
	out->ok = 0;
	free(out->reason);
	out->reason = reason;
}

/* The canonical body, the database and the k-NN's steps. */
static char *trace_text(const struct lk_mdl *m,
			const struct lk_mdl_db_row *db,
			const struct lk_mdl_prediction *p, long unroll)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i;

	lk_mdl_canonical_body(m, &b);
	lk_buf_addf(&b, "# %s database %.12s, %s: %.17g cycles per canonical "
		    "iteration x unroll %ld, residual %.6g\n", db->isa,
		    db->hash, lk_mdl_level_name(p->level), p->value, unroll,
		    p->residual);
	for (i = 0; i < p->nsteps; i++)
		lk_buf_addf(&b, "# step %zu: ukernel %zu order %d seed %s "
			    "scale %.17g residual %.17g\n", i + 1,
			    p->step_ukernel[i], p->steps[i].order,
			    db->seeds[p->steps[i].seed].name,
			    p->steps[i].scale, p->steps[i].residual);
	return lk_buf_detach(&b);
}

static void predict_extracted(const struct lk_mdl_dbs *d,
			      const struct lk_mdl_extraction *x,
			      const struct lk_mdl_db_row *db,
			      enum lk_mdl_level level,
			      const struct lk_mdl_predict_opts *o,
			      struct lk_mdl_block_prediction *out)
{
	struct lk_mdl_prediction p;
	struct lk_ctx why;
	char *file = lk_asprintf("%s:0x%llx", d->dir,
				 (unsigned long long)x->loop);

	lk_ctx_init(&why);
	if (lk_mdl_predict(&why, db, file, &x->mdl, level, o, &p)) {
		unsupported(out, lk_strdup(why.msg));
	} else {
		out->ok = 1;
		out->unroll = x->unroll > 0 ? x->unroll : 1;
		out->canonical = p.value;
		out->value = p.value * (double)out->unroll;
		free(out->trace);
		out->trace = trace_text(&x->mdl, db, &p, out->unroll);
		lk_mdl_prediction_release(&p);
	}
	free(file);
}

int lk_mdl_block_predict(struct lk_ctx *ctx, const struct lk_mdl_dbs *d,
			 const uint8_t *code, size_t len, uint64_t addr,
			 enum lk_mdl_level level,
			 const struct lk_mdl_predict_opts *o,
			 struct lk_mdl_block_prediction *out)
{
	const struct lk_mdl_machine *m = lk_mdl_block_class(code, len);
	struct lk_mdl_extraction x;
	int ret;

	memset(out, 0, sizeof(*out));
	out->isa = m->name;
	out->reason = lk_strdup("");
	out->trace = lk_strdup("");
	ret = lk_mdl_block_extract(ctx, code, len, addr, &x);
	if (ret)
		return ret;
	if (x.refused) {
		unsupported(out, lk_strdup(x.reason));
	} else {
		struct lk_buf text = LK_BUF_INIT;

		lk_mdl_print(&x.mdl, &text);
		out->mdl = lk_buf_detach(&text);
		if (!d->has[m->isa])
			unsupported(out, lk_mdl_dbs_missing(d, m->name));
		else
			predict_extracted(d, &x, &d->db[m->isa], level, o,
					  out);
	}
	lk_mdl_extraction_release(&x);
	return 0;
}

void lk_mdl_block_prediction_release(struct lk_mdl_block_prediction *p)
{
	if (!p)
		return;
	free(p->reason);
	free(p->mdl);
	free(p->trace);
	memset(p, 0, sizeof(*p));
}
