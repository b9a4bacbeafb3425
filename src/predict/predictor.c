/*
 * What every predictor shares: releasing predictions and predictors.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/predict.h"

void lk_pred_release(struct lk_pred *p)
{
	if (!p)
		return;
	free(p->status);
	free(p->unit);
	free(p->reason);
	free(p->raw);
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
	free(p);
}
