/*
 * Variants as people name them: by kernel and transformation chain, or
 * "asm" and the asm: axes, not by the content-addressed file 'loopkit
 * gen' or an asm: sweep wrote. Every stage's
 * progress and summary, the report and the export name variants here.
 */
#include <string.h>

#include "loopkit/store.h"

/* The index of parameter name in params, or nparams. */
static size_t param_at(const struct lk_param *params, size_t nparams,
		       const char *name)
{
	size_t i;

	for (i = 0; i < nparams; i++)
		if (params[i].name && !strcmp(params[i].name, name))
			break;
	return i;
}

const char *lk_variant_param(const struct lk_param *params, size_t nparams,
			     const char *name)
{
	size_t i = param_at(params, nparams, name);

	return i < nparams ? params[i].value : NULL;
}

int lk_variant_generated(const struct lk_param *params, size_t nparams)
{
	const char *kernel = lk_variant_param(params, nparams, "kernel");
	const char *chain = lk_variant_param(params, nparams,
					     "transformation");

	return kernel && *kernel && chain && *chain;
}

int lk_variant_fact(const char *name)
{
	return !strcmp(name, "working_set_bytes") ||
	       !strcmp(name, "working_set_lines") ||
	       !strncmp(name, "kernel.", 7) || !strncmp(name, "fixed.", 6);
}

const char *lk_variant_source_name(const char *source,
				   const struct lk_param *params,
				   size_t nparams)
{
	const char *slash;

	if (lk_variant_generated(params, nparams))
		return lk_variant_param(params, nparams, "kernel");
	/* An asm: variant (src/gen/asm.c): its body is in its parameters. */
	if (lk_variant_param(params, nparams, "asm.insns") &&
	    lk_variant_param(params, nparams, "asm.unroll"))
		return "asm";
	slash = strrchr(source, '/');
	return slash ? slash + 1 : source;
}

static void add_param(struct lk_buf *b, const struct lk_param *p)
{
	if (p->value && *p->value)
		lk_buf_addf(b, " %s=%s", p->name, p->value);
	else
		lk_buf_addf(b, " %s", p->name);
}

char *lk_variant_name(const char *source, const char *compiler,
		      const char *flagset, const struct lk_param *params,
		      size_t nparams)
{
	struct lk_buf b = LK_BUF_INIT;
	size_t i, naxes = nparams;

	lk_buf_adds(&b, lk_variant_source_name(source, params, nparams));
	if (lk_variant_generated(params, nparams)) {
		/* gen stores the sweep's axes first, then its own. */
		naxes = param_at(params, nparams, "kernel");
		lk_buf_addf(&b, " %s", lk_variant_param(params, nparams,
							"transformation"));
	}
	lk_buf_addf(&b, " %s %s", compiler, flagset);
	for (i = 0; i < naxes; i++)
		add_param(&b, &params[i]);
	return lk_buf_detach(&b);
}
