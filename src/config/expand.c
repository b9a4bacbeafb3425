/* The Cartesian product of a sweep, filtered into variants. */
#include <stdlib.h>
#include <string.h>

#include "config-int.h"

/* Dimensions before the axes: sources, compilers, flag sets. */
#define FIXED_DIMS 3

static void dimensions(const struct lk_sweep *s, size_t *dims)
{
	size_t i;

	/* An asm: section's variants get their source when generated. */
	dims[0] = s->asm_body.given ? 1 : s->sources.n;
	dims[1] = s->compilers.n;
	dims[2] = s->nflagsets;
	for (i = 0; i < s->naxes; i++)
		dims[FIXED_DIMS + i] = s->axes[i].values.n;
}

/* The product, or LK_EINPUT past LK_VARIANTS_MAX (checked per factor). */
static int product(struct lk_ctx *ctx, const size_t *dims, size_t ndims,
		   size_t *total)
{
	size_t i;

	*total = 1;
	for (i = 0; i < ndims; i++)
		if (!dims[i])
			*total = 0;
	for (i = 0; *total && i < ndims; i++) {
		if (*total > (size_t)LK_VARIANTS_MAX / dims[i])
			return lk_error(ctx, LK_EINPUT, "the sweep has more "
					"than %ld combinations; narrow its "
					"axes or split it", LK_VARIANTS_MAX);
		*total *= dims[i];
	}
	return 0;
}

static void fill(const struct lk_sweep *s, const size_t *idx,
		 struct lk_variant *v, const char **values)
{
	size_t i;

	v->source = s->asm_body.given ? "asm" : s->sources.v[idx[0]];
	v->compiler = s->compilers.v[idx[1]];
	v->flagset = &s->flagsets[idx[2]];
	for (i = 0; i < s->naxes; i++)
		values[i] = s->axes[i].values.v[idx[FIXED_DIMS + i]];
	v->values = values;
}

/* Odometer step, last dimension fastest; 0 once it wraps around. */
static int next(size_t *idx, const size_t *dims, size_t ndims)
{
	size_t d;

	for (d = ndims; d-- > 0;) {
		if (++idx[d] < dims[d])
			return 1;
		idx[d] = 0;
	}
	return 0;
}

static int keep(const struct lk_sweep *s, const struct lk_variant *v)
{
	size_t i;

	if (!lk_asm_variant_valid(s, v))
		return 0;
	for (i = 0; i < s->nexclude; i++)
		if (lk_selector_match(s, &s->exclude[i], v))
			return 0;
	for (i = 0; i < s->nonly; i++)
		if (lk_selector_match(s, &s->only[i], v))
			return 1;
	return !s->nonly;
}

static void collect(const struct lk_sweep *s, const size_t *dims,
		    size_t ndims, struct lk_variant **out, size_t *n)
{
	size_t *idx = lk_calloc(ndims, sizeof(*idx));
	const char **values = lk_calloc(s->naxes + 1, sizeof(*values));
	size_t alloc = 0;
	struct lk_variant v;

	do {
		fill(s, idx, &v, values);
		if (!keep(s, &v))
			continue;
		LK_GROW(*out, *n + 1, alloc);
		v.values = lk_calloc(s->naxes + 1, sizeof(*v.values));
		memcpy(v.values, values, s->naxes * sizeof(*values));
		(*out)[(*n)++] = v;
	} while (next(idx, dims, ndims));
	free(values);
	free(idx);
}

int lk_sweep_expand(struct lk_ctx *ctx, const struct lk_sweep *s,
		    struct lk_variant **out, size_t *n)
{
	size_t ndims = FIXED_DIMS + s->naxes, total;
	size_t *dims = lk_calloc(ndims, sizeof(*dims));
	int ret;

	*out = NULL;
	*n = 0;
	dimensions(s, dims);
	ret = product(ctx, dims, ndims, &total);
	if (!ret && total)
		collect(s, dims, ndims, out, n);
	free(dims);
	return ret;
}

void lk_variants_free(struct lk_variant *v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i].values);
	free(v);
}
