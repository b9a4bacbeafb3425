/* struct lk_sweep: construction with defaults, sources, freeing. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config-int.h"

struct lk_sweep *lk_sweep_new(void)
{
	struct lk_sweep *s = lk_calloc(1, sizeof(*s));

	s->name = lk_strdup("cli");
	lk_strv_push(&s->compilers, "gcc");
	s->flagsets = lk_calloc(1, sizeof(*s->flagsets));
	s->flagsets[0].name = lk_strdup("default");
	s->flagsets[0].flags = lk_strdup("-O2");
	s->nflagsets = 1;
	lk_strv_push(&s->metrics, "tsc");
	lk_strv_push(&s->metrics, "cycles");
	lk_strv_push(&s->metrics, "ns");
	lk_method_init(&s->method);
	lk_predict_config_init(&s->predict);
	return s;
}

static void flagsets_free(struct lk_flagset *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].flags);
	}
	free(f);
}

void lk_sweep_clear_flagsets(struct lk_sweep *s)
{
	flagsets_free(s->flagsets, s->nflagsets);
	s->flagsets = NULL;
	s->nflagsets = 0;
}

void lk_sweep_free(struct lk_sweep *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->name);
	lk_strv_release(&s->sources);
	lk_strv_release(&s->source_names);
	lk_strv_release(&s->compilers);
	flagsets_free(s->flagsets, s->nflagsets);
	lk_axes_free(s->axes, s->naxes);
	lk_selectors_free(s->exclude, s->nexclude);
	lk_selectors_free(s->only, s->nonly);
	lk_strv_release(&s->metrics);
	lk_report_cfg_release(&s->report);
	lk_predict_config_release(&s->predict);
	lk_gen_config_release(&s->gen);
	lk_memprof_cfg_release(&s->memprof);
	lk_analyze_cfg_release(&s->analyze);
	lk_asm_cfg_release(&s->asm_body);
	free(s);
}

const char *lk_sweep_source_problem(struct lk_sweep *s, const char *dir,
				    const char *written)
{
	return lk_path_list_problem(&s->sources, &s->source_names, dir,
				    written);
}

const char *lk_path_list_problem(struct lk_strv *paths, struct lk_strv *names,
				 const char *dir, const char *written)
{
	char *joined = lk_path_join(dir, written);
	char *real = lk_path_real(joined);
	const char *problem = NULL;
	struct stat st;
	size_t i;

	if (!real || stat(real, &st))
		problem = "not found";
	else if (!S_ISREG(st.st_mode))
		problem = "is not a regular file";
	for (i = 0; !problem && i < paths->n; i++)
		if (!strcmp(paths->v[i], real))
			problem = "is listed twice";
	if (!problem) {
		lk_strv_push_take(paths, real);
		lk_strv_push(names, written);
		real = NULL;
	}
	free(real);
	free(joined);
	return problem;
}

int lk_sweep_add_source(struct lk_ctx *ctx, struct lk_sweep *s,
			const char *path)
{
	const char *problem = lk_sweep_source_problem(s, ".", path);

	if (problem)
		return lk_error(ctx, LK_EINPUT, "source '%s' %s", path,
				problem);
	return 0;
}
