/*
 * Load and store latency from static counts and measured exclusive
 * time: self = a*loads + b*stores (+ c). Two estimates side by side:
 * the reference study's Cramer's rule over pairs of functions, and a
 * least-squares fit over all of them with an intercept and error bars.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/memprof.h"

/*
 * A pair is skipped when |det| <= SINGULAR * (|l_i s_j| + |l_j s_i|):
 * its two functions have (nearly) the same load/store ratio, and the
 * solution would mostly be rounding error amplified. 1e-6 keeps every
 * pair whose ratios differ by more than about a millionth; pairs that
 * are merely ill-conditioned still count, as in the reference method,
 * and show up in the spread.
 */
#define SINGULAR 1e-6

/* Running mean and variance (Welford): no catastrophic cancellation. */
struct running {
	long n;
	double mean, m2;
};

static void running_add(struct running *r, double x)
{
	double d = x - r->mean;

	r->n++;
	r->mean += d / (double)r->n;
	r->m2 += d * (x - r->mean);
}

static double running_sd(const struct running *r)
{
	return r->n > 1 ? sqrt(r->m2 / (double)(r->n - 1)) : 0.0;
}

/*
 * The reference method: solve [l_i s_i; l_j s_j] [a; b] = [t_i; t_j] for
 * every pair by Cramer's rule and average. The model has no intercept:
 * a fixed per-call cost is folded into a and b.
 */
static void fit_cramer(const struct lk_mem_obs *o, size_t n,
		       struct lk_mem_fit *fit)
{
	struct running a = {0}, b = {0};
	double det, scale;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			det = o[i].loads * o[j].stores - o[j].loads * o[i].stores;
			scale = fabs(o[i].loads * o[j].stores) +
				fabs(o[j].loads * o[i].stores);
			if (!(fabs(det) > SINGULAR * scale))
				continue;
			running_add(&a, (o[i].self * o[j].stores -
					 o[j].self * o[i].stores) / det);
			running_add(&b, (o[i].loads * o[j].self -
					 o[j].loads * o[i].self) / det);
		}
	fit->pairs = a.n;
	fit->cramer_load = a.mean;
	fit->cramer_store = b.mean;
	fit->cramer_load_sd = running_sd(&a);
	fit->cramer_store_sd = running_sd(&b);
}

/* Sums of centred products: the normal equations without the intercept
 * column, which is what makes them well conditioned. */
struct moments {
	double ml, ms, mt;              /* means */
	double sll, sss, sls, slt, sst, stt;
};

static void moments(const struct lk_mem_obs *o, size_t n, struct moments *m)
{
	double dl, ds, dt;
	size_t i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < n; i++) {
		m->ml += o[i].loads / (double)n;
		m->ms += o[i].stores / (double)n;
		m->mt += o[i].self / (double)n;
	}
	for (i = 0; i < n; i++) {
		dl = o[i].loads - m->ml;
		ds = o[i].stores - m->ms;
		dt = o[i].self - m->mt;
		m->sll += dl * dl;
		m->sss += ds * ds;
		m->sls += dl * ds;
		m->slt += dl * dt;
		m->sst += ds * dt;
		m->stt += dt * dt;
	}
}

static int fit_lsq(struct lk_ctx *ctx, const struct lk_mem_obs *o, size_t n,
		   struct lk_mem_fit *fit)
{
	struct moments m;
	double det, ssr = 0, sigma2;
	size_t i;

	moments(o, n, &m);
	det = m.sll * m.sss - m.sls * m.sls;
	/* Loads and stores that move together (one ratio everywhere, or
	 * one of them constant) cannot be told apart. */
	if (!(det > 1e-12 * m.sll * m.sss) || m.sll <= 0 || m.sss <= 0)
		return lk_error(ctx, LK_EINPUT,
				"the loads and stores of the %zu functions are "
				"collinear (the same load/store ratio, or a "
				"constant count): their latencies cannot be "
				"told apart",
				n);
	fit->lsq_load = (m.sss * m.slt - m.sls * m.sst) / det;
	fit->lsq_store = (m.sll * m.sst - m.sls * m.slt) / det;
	fit->lsq_const = m.mt - fit->lsq_load * m.ml - fit->lsq_store * m.ms;
	fit->residuals = lk_calloc(n, sizeof(*fit->residuals));
	for (i = 0; i < n; i++) {
		fit->residuals[i] = o[i].self - (fit->lsq_load * o[i].loads +
						 fit->lsq_store * o[i].stores +
						 fit->lsq_const);
		ssr += fit->residuals[i] * fit->residuals[i];
	}
	sigma2 = ssr / (double)(n - 3);
	fit->lsq_load_se = sqrt(sigma2 * m.sss / det);
	fit->lsq_store_se = sqrt(sigma2 * m.sll / det);
	fit->r2 = m.stt > 0 ? 1 - ssr / m.stt : 1.0;
	fit->rmse = sqrt(ssr / (double)n);
	return 0;
}

static int check_obs(struct lk_ctx *ctx, const struct lk_mem_obs *obs,
		     size_t n)
{
	size_t i;

	if (n < 4)
		return lk_error(ctx, LK_EINPUT,
				"%zu functions with both static counts and "
				"measured time: Cramer's rule needs at least "
				"2, least squares with an intercept at least 4",
				n);
	for (i = 0; i < n; i++)
		if (!isfinite(obs[i].loads) || !isfinite(obs[i].stores) ||
		    !isfinite(obs[i].self))
			return lk_error(ctx, LK_EINPUT,
					"function '%s': counts and time must "
					"be finite numbers",
					obs[i].name ? obs[i].name : "?");
	return 0;
}

int lk_mem_fit(struct lk_ctx *ctx, const struct lk_mem_obs *obs, size_t n,
	       struct lk_mem_fit *fit)
{
	int ret;

	memset(fit, 0, sizeof(*fit));
	ret = check_obs(ctx, obs, n);
	if (ret)
		return ret;
	fit_cramer(obs, n, fit);
	if (!fit->pairs)
		return lk_error(ctx, LK_EINPUT,
				"no pair of the %zu functions has different "
				"load/store ratios: Cramer's rule is singular "
				"for every pair",
				n);
	ret = fit_lsq(ctx, obs, n, fit);
	if (!ret)
		fit->n = n;
	return ret;
}

void lk_mem_fit_release(struct lk_mem_fit *fit)
{
	if (!fit)
		return;
	free(fit->residuals);
	fit->residuals = NULL;
}
