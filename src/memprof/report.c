/*
 * What a memprof run shows: the flat profile, each function's static
 * counts beside its measured self time, and the latency fit, as
 * 'loopkit memprof run' prints them and the store keeps the fit.
 */
#include <stdio.h>
#include <stdlib.h>

#include "loopkit/memprof.h"

static void print_row(const struct lk_memprof_row *row, struct lk_buf *out)
{
	const struct lk_func_profile *f = row->prof;
	const struct lk_mem_totals *t = row->seen ? &row->totals : NULL;
	char loads[48], stores[48], res[32] = "";

	if (t && t->numeric) {
		snprintf(loads, sizeof(loads), "%.0f", t->loads);
		snprintf(stores, sizeof(stores), "%.0f", t->stores);
	} else {
		snprintf(loads, sizeof(loads), "%.40s",
			 t ? t->sym_loads : "?");
		snprintf(stores, sizeof(stores), "%.40s",
			 t ? t->sym_stores : "?");
	}
	if (row->has_residual)
		snprintf(res, sizeof(res), "%+.1f", row->residual);
	lk_buf_addf(out, "%-24s %8ld %12s %12s %14.1f %10s\n", f->name,
		    f->calls, loads, stores, f->mean_self, res);
}

static void print_fit(const struct lk_mem_fit *fit, struct lk_buf *out)
{
	lk_buf_addf(out, "\nload/store latency (TSC ticks per operation)\n");
	lk_buf_addf(out, "  Cramer's rule, %ld pairs: load %.2f (sd %.2f), "
		    "store %.2f (sd %.2f)\n", fit->pairs, fit->cramer_load,
		    fit->cramer_load_sd, fit->cramer_store,
		    fit->cramer_store_sd);
	lk_buf_addf(out, "  least squares, %zu functions: load %.2f (se "
		    "%.2f), store %.2f (se %.2f), constant %.1f; R^2 %.4f, "
		    "RMSE %.2f\n", fit->n, fit->lsq_load, fit->lsq_load_se,
		    fit->lsq_store, fit->lsq_store_se, fit->lsq_const,
		    fit->r2, fit->rmse);
}

void lk_memprof_result_print(const struct lk_memprof_result *r,
			     struct lk_buf *out)
{
	size_t i;

	lk_profile_flat(r->prof, r->n, out);
	lk_buf_addf(out, "\n%-24s %8s %12s %12s %14s %10s\n", "function",
		    "calls", "loads/call", "stores/call", "self/call",
		    "residual");
	for (i = 0; i < r->n; i++)
		print_row(&r->rows[i], out);
	if (r->has_fit)
		print_fit(&r->fit, out);
	else
		lk_buf_addf(out, "\nno latency fit: %s\n", r->no_fit);
}

char *lk_memprof_fit_json(const struct lk_memprof_result *r)
{
	const struct lk_mem_fit *f = &r->fit;

	if (!r->has_fit)
		return NULL;
	return lk_asprintf(
		"{\"pairs\":%ld,\"cramer_load\":%.6g,\"cramer_load_sd\":"
		"%.6g,\"cramer_store\":%.6g,\"cramer_store_sd\":%.6g,"
		"\"lsq_load\":%.6g,\"lsq_load_se\":%.6g,\"lsq_store\":"
		"%.6g,\"lsq_store_se\":%.6g,\"lsq_const\":%.6g,\"r2\":%.6g,"
		"\"rmse\":%.6g,\"functions\":%zu,\"unit\":\"tsc-ticks\"}",
		f->pairs, f->cramer_load, f->cramer_load_sd, f->cramer_store,
		f->cramer_store_sd, f->lsq_load, f->lsq_load_se, f->lsq_store,
		f->lsq_store_se, f->lsq_const, f->r2, f->rmse, f->n);
}
