/*
 * Machine descriptions for concretisation: one table row per ISA class.
 * Compiled in rather than read from data files: there is no install
 * path to look up, and a template change is a code change that the
 * unit and end-to-end tests see at once.
 */
#include <string.h>

#include "loopkit/env.h"
#include "loopkit/mdl.h"

static const struct lk_mdl_machine machines[] = {
	{"scalar", LK_MDL_ISA_SCALAR, 16, 0, 0, NULL, "",
	 {{"movss", NULL, "addss", NULL, "mulss", NULL},
	  {"movsd", NULL, "addsd", NULL, "mulsd", NULL}}},
	{"sse", LK_MDL_ISA_SSE, 16, 16, 0, NULL, "",
	 {{"movss", "movups", "addss", "addps", "mulss", "mulps"},
	  {"movsd", "movupd", "addsd", "addpd", "mulsd", "mulpd"}}},
	{"avx2", LK_MDL_ISA_AVX2, 16, 32, 1, "avx2", "avx avx2",
	 {{"vmovss", "vmovups", "vaddss", "vaddps", "vmulss", "vmulps"},
	  {"vmovsd", "vmovupd", "vaddsd", "vaddpd", "vmulsd", "vmulpd"}}},
	/* Registers 16-31 and the 16- and 32-byte EVEX forms need VL. */
	{"avx512", LK_MDL_ISA_AVX512, 32, 64, 1, "avx512f", "avx512f avx512vl",
	 {{"vmovss", "vmovups", "vaddss", "vaddps", "vmulss", "vmulps"},
	  {"vmovsd", "vmovupd", "vaddsd", "vaddpd", "vmulsd", "vmulpd"}}},
};

const struct lk_mdl_machine *lk_mdl_machine_find(const char *name)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(machines); i++)
		if (!strcmp(machines[i].name, name))
			return &machines[i];
	return NULL;
}

static int has_word(const char *list, const char *word, size_t len)
{
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		int starts = p == list || p[-1] == ' ';
		int ends = p[len] == '\0' || p[len] == ' ';

		if (starts && ends)
			return 1;
		p += len;
	}
	return 0;
}

int lk_mdl_machine_runs(const struct lk_mdl_machine *m, const char *cpu_isa)
{
	const char *f = m->cpu_flags;

	while (*f) {
		size_t len = strcspn(f, " ");
		char word[32];

		if (len >= sizeof(word))
			LK_BUG("cpu flag too long");
		memcpy(word, f, len);
		word[len] = '\0';
		if (!cpu_isa || !has_word(cpu_isa, word, len))
			return 0;
		f += len + (f[len] == ' ');
	}
	return 1;
}

int lk_mdl_machine_host(struct lk_ctx *ctx, const char *name,
			unsigned flags, const struct lk_mdl_machine **out)
{
	struct lk_env env = {0};
	const char *isa;
	int ret = lk_env_collect(ctx, &env, 0);
	size_t i;

	*out = NULL;
	if (ret)
		return ret;
	isa = lk_env_get(&env, "cpu.isa");
	if (!strcmp(name, "auto")) {
		for (i = LK_ARRAY_SIZE(machines); i-- > 0 && !*out;)
			if (lk_mdl_machine_runs(&machines[i], isa))
				*out = &machines[i];
	} else if (!(*out = lk_mdl_machine_find(name))) {
		ret = lk_error(ctx, LK_EINPUT, "unknown ISA class '%s' "
			       "(scalar, sse, avx2, avx512, auto)", name);
	} else if (!lk_mdl_machine_runs(*out, isa) &&
		   (flags & LK_MDL_MACHINE_EMIT)) {
		lk_warn(ctx, "this machine cannot run %s code (its cpu.isa, "
			"%s, lacks one of: %s): the benchmark is for another "
			"machine", name, isa ? isa : "unknown",
			(*out)->cpu_flags);
	} else if (!lk_mdl_machine_runs(*out, isa)) {
		ret = lk_error(ctx, LK_EINPUT, "this machine cannot run %s "
			       "code: its cpu.isa (%s) lacks one of: %s", name,
			       isa ? isa : "unknown", (*out)->cpu_flags);
		*out = NULL;
	}
	lk_env_release(&env);
	return ret;
}

static const char *const level_names[] = {"L1", "L2", "L3", "RAM"};

int lk_mdl_machine_lanes(const struct lk_mdl_machine *m)
{
	return m->packed_bytes > 8 ? m->packed_bytes / 8 : 1;
}

int lk_mdl_level_parse(const char *s, enum lk_mdl_level *out)
{
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(level_names); i++)
		if (!strcmp(s, level_names[i])) {
			*out = (enum lk_mdl_level)i;
			return 0;
		}
	return LK_EINPUT;
}

const char *lk_mdl_level_name(enum lk_mdl_level level)
{
	if ((size_t)level >= LK_ARRAY_SIZE(level_names))
		LK_BUG("bad memory level");
	return level_names[level];
}

long lk_mdl_level_bytes(enum lk_mdl_level level,
			const struct lk_env_caches *c)
{
	switch (level) {
	case LK_MDL_L1:
		return c->l1d / 2;
	case LK_MDL_L2:
		return c->l2 / 2;
	case LK_MDL_L3:
		/* Well past the L2, yet within the L2 TLB's reach and a
		 * small share of an L3 that other cores use too
		 * (doc/loopkit-mdl.md, "Levels"). */
		return c->l2 > 0 && c->l2 * 4 < c->l3 / 4 ? c->l2 * 4
							   : c->l3 / 4;
	case LK_MDL_RAM:
		return c->l3 * 4;
	}
	LK_BUG("bad memory level");
}
