/*
 * Private to src/report: the steps of building the model, shared by its
 * files, and the formatting helpers the writers share.
 */
#ifndef LOOPKIT_REPORT_INT_H
#define LOOPKIT_REPORT_INT_H

#include "loopkit/report.h"
#include "loopkit/store.h"

/* Build the model from rows already read (the unit tests feed it). */
int report_from_input(struct lk_ctx *ctx, const struct lk_report_input *in,
		      const struct lk_sweep *cfg, const char *store_dir,
		      LK_GIVE struct lk_report **out);

/* Count one more variant for (what, analyzer, reason). */
void report_count_reason(struct lk_report *r, const char *what,
			 long analyzer, const char *reason);
/* Remember a parameter name, in order of first appearance. */
void report_add_param_name(struct lk_report *r, const char *name);
/* Each variant's source_name. */
void report_name_sources(struct lk_report *r);
/* r->group_by from the config or the defaults; LK_EINPUT for a key no
 * variant has. */
int report_choose_groups(struct lk_ctx *ctx, struct lk_report *r,
			 const struct lk_sweep *cfg);
/* r->rows: every variant, then each group of each key. */
void report_build_rows(struct lk_report *r);
/* The value of key for v ("" when v lacks that parameter). */
const char *report_key_value(const struct lk_report *r,
			     const struct lk_report_variant *v,
			     const char *key);

/* Shortest of %.15g..%.17g that reads back as the same double. */
void report_add_real(struct lk_buf *b, double v);
/* "2026-11-22T07:30:00Z" */
void report_time_text(double t, char *out, size_t size);
/* "outcome" names: excluded, failed, missing, unmeasured, compared. */
const char *report_outcome_name(enum lk_report_outcome o);

/* A log-log plot, y = x drawn, of the series ('plot ...' text of data
 * files already in pd) between lo and hi (padded by 1.5x), gnuplot's
 * script written as 'script'; key NULL: gnuplot's place. */
struct lk_plotdir;
struct report_loglog {
	const char *script, *series;
	double lo, hi;
	const char *xlabel, *ylabel, *key;
};
int report_loglog(struct lk_ctx *ctx, const char *gnuplot,
		  struct lk_plotdir *pd, const struct report_loglog *l,
		  char **svg);

/* The "Analyses" section linking the analyze stage's pages of r's
 * campaign (analyses.c); html: where the report's page goes. */
void lk_report_analyses_html(const struct lk_report *r,
			     const struct lk_sweep *cfg, const char *html,
			     struct lk_buf *out);
/* lk_report_html with 'extra' (HTML, may be NULL) before the
 * definitions. */
void lk_report_html_extra(const struct lk_report *r, const char *scatter,
			  const char *cdf, const char *plot_note,
			  const char *extra, struct lk_buf *out);

#endif
