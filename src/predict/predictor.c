/*
 * What every predictor shares: releasing predictions and predictors.
 */
#include <stdlib.h>
#include <string.h>

#include "predict-int.h"

void lk_pred_release(struct lk_pred *p)
{
	if (!p)
		return;
	free(p->status);
	free(p->unit);
	free(p->reason);
	free(p->raw);
	free(p->input);
	memset(p, 0, sizeof(*p));
}

void lk_predictor_free(struct lk_predictor *p)
{
	if (!p)
		return;
	if (p->destroy)
		p->destroy(p);
	free(p->name);
	free(p->version);
	free(p->params);
	free(p->note);
	free(p);
}

void lk_pred_set(struct lk_pred *p, const char *status, double value,
		 const char *reason)
{
	free(p->status);
	free(p->reason);
	p->status = lk_strdup(status);
	p->value = value;
	p->reason = lk_strdup(reason ? reason : "");
	if (!p->unit)
		p->unit = lk_strdup("cycles/iter");
}

char *lk_predict_tmpdir(struct lk_ctx *ctx)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = lk_asprintf("%s/loopkit-predict.XXXXXX",
				tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(dir)) {
		lk_error_errno(ctx, "cannot create a directory in %s",
			       tmp && *tmp ? tmp : "/tmp");
		free(dir);
		return NULL;
	}
	return dir;
}
